"""lexlogic sandbox: runs dynamic (LLM- or person-written) rules under RestrictedPython in isolated,
resource-limited worker processes.

- `sandbox.policy`  — what a rule may write and touch (compile-time refusals, run-time guards,
  curated builtins, read-only input);
- `sandbox.helpers` — the date helpers rules get (parse_date, months_between, add_months, …);
- `sandbox.worker`  — the worker process (rlimits, privilege drop, request loop);
- `sandbox.pool`    — the parent side: a reusable pool, wall-clock kills, replacement, `SandboxPool.run`;
- `sandbox.schema`  — the rule's declared output → a strict Pydantic validator;
- `sandbox.errors`  — `SandboxError` with its kind: refused / runtime / limit / output.

Nothing is imported here on purpose: the worker imports only the stdlib and `sandbox.policy`.
"""
