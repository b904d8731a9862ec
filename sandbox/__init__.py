"""lexlogic sandbox: runs dynamic (LLM- or person-written) rules under RestrictedPython in isolated,
resource-limited worker processes.

- `lexlogic.sandbox.policy`  — what a rule may write and touch (compile-time refusals, run-time guards,
  curated builtins, read-only input);
- `lexlogic.sandbox.helpers` — the date helpers rules get (parse_date, months_between, add_months, …);
- `lexlogic.sandbox.worker`  — the worker process (rlimits, privilege drop, request loop);
- `lexlogic.sandbox.pool`    — the parent side: a reusable pool, wall-clock kills, replacement, `SandboxPool.run`;
- `lexlogic.sandbox.schema`  — the rule's declared output → a strict Pydantic validator;
- `lexlogic.sandbox.errors`  — `SandboxError` with its kind: refused / runtime / limit / output.

Nothing is imported here on purpose: the worker imports only the stdlib and `lexlogic.sandbox.policy`.
"""

if __name__ != "lexlogic.sandbox":  # the repository folder must never become a top-level package
    raise ImportError("import lexlogic.sandbox, not sandbox: lexlogic installs one namespace, lexlogic")
