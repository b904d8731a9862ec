"""The `lexlogic` command line: one Typer app, each capability registers its own commands."""

from __future__ import annotations

import gc

gc.disable()  # the imports below make ~10^5 long-lived objects: no collection while they are made (issue 33)

import os  # noqa: E402

# numpy's OpenBLAS starts one thread per core when numpy is imported, and each spins 2^28 cycles waiting for
# work before it sleeps: ~50 ms of CPU in every process that imports numpy (a cold `lexlogic analyze
# FACTS.json` takes ~0.37 s of CPU in all), on the other core of an idle machine, against the command itself
# on a busy one (issue 33). 2^4 cycles: the threads sleep at once and are woken when a product large enough to
# share comes (the same threads, the same results). Set here, at the edge, before any import of numpy; the
# processes a command starts (`serve`'s workers, `batch`'s) inherit it, the sandbox's do not (their
# environment is chosen). A third-party runtime knob read once when OpenBLAS loads, not a lexlogic setting
# (tests/core/test_explicit_context.py lists it); a value the environment gives is kept.
os.environ.setdefault("OPENBLAS_THREAD_TIMEOUT", "4")

import importlib  # noqa: E402
from collections.abc import Sequence  # noqa: E402

import typer  # noqa: E402

from lexlogic.api import cli_rules  # noqa: E402
from lexlogic.api.cli_common import FailingGroup, imports_done  # noqa: E402
from lexlogic.api.cli_lazy import LazyTyper  # noqa: E402
from lexlogic.settings import Settings  # noqa: E402

#: the modules that register commands, in registration order (issue 22: worker, batch; 34: db; 30: workbench)
MODULES = (
    "cli_rules",
    "cli_case",
    "cli_fol",
    "cli_dynamic",
    "cli_kg",
    "cli_claims",
    "cli_fallacies",
    "cli_serve",
    "cli_worker",
    "cli_batch",
    "cli_db",
    "cli_workbench",
)
#: each command and sub-app → its module, in `lexlogic --help`'s order (Typer lists the commands, then the
#: sub-apps, each in registration order); a call imports only its command's module (api/cli_lazy.py).
#: tests/core/test_cli_lazy.py checks it against what the modules register.
REGISTRY = {
    **dict.fromkeys(("check", "test", "analyze", "docs"), "cli_rules"),
    "ingest": "cli_case",
    "verify": "cli_claims",
    "fallacies": "cli_fallacies",
    "serve": "cli_serve",
    "worker": "cli_worker",
    "batch": "cli_batch",
    **dict.fromkeys(("audit", "impact", "mutate", "lsp"), "cli_workbench"),
    **dict.fromkeys(("schema", "new"), "cli_rules"),
    "case": "cli_case",
    **dict.fromkeys(("fol", "tweety"), "cli_fol"),
    "rules": "cli_dynamic",
    "kg": "cli_kg",
    "keys": "cli_serve",
    "db": "cli_db",
}


def register(app: typer.Typer, modules: Sequence[str]) -> None:
    """Import ``modules`` and register their commands on ``app``, each with `--rules DIR` (issue 16)."""
    for name in modules:
        importlib.import_module(f"lexlogic.api.{name}").register(app)
    cli_rules.add_rules_option(app)


app = LazyTyper(  # the script's call converts only the command it runs (api/cli_lazy.py)
    name="lexlogic",
    help=(
        "Neuro-symbolic legal reasoning: rule packs, verdicts with proof traces.\n\n"
        "Rule packs are looked up in LEXLOGIC_RULES_DIR (default: the shipped rules/ folder); "
        "every command takes --rules DIR to point at another folder for one call."
    ),
    epilog="Settings (environment, read once per call): "
    + "; ".join(f"LEXLOGIC_{name.upper()}" for name in Settings.model_fields)
    + " — docs/deployment.md says what each one does.",
    no_args_is_help=True,
    add_completion=False,
    pretty_exceptions_enable=False,
    cls=FailingGroup,  # every LexlogicError a command lets escape: `error: <message>`, its exit code
    registry=REGISTRY,
    modules=MODULES,
    register=register,
)
imports_done()


def main() -> None:  # pragma: no cover - console entry point
    app()
