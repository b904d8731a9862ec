"""The `lexlogic` command line: one Typer app, each capability registers its own commands."""

from __future__ import annotations

import gc

gc.disable()  # the imports below make ~10^5 long-lived objects: no collection while they are made (issue 33)


from lexlogic.api import (  # noqa: E402
    cli_batch,
    cli_case,
    cli_claims,
    cli_db,
    cli_dynamic,
    cli_fallacies,
    cli_fol,
    cli_kg,
    cli_rules,
    cli_serve,
    cli_workbench,
    cli_worker,
)
from lexlogic.api.cli_common import FailingGroup, imports_done  # noqa: E402
from lexlogic.api.cli_lazy import LazyTyper  # noqa: E402
from lexlogic.settings import Settings  # noqa: E402

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
)

for module in (cli_rules, cli_case, cli_fol, cli_dynamic, cli_kg, cli_claims, cli_fallacies, cli_serve):
    module.register(app)
for module in (cli_worker, cli_batch):  # issue 22: distributed runs and batches
    module.register(app)
cli_db.register(app)  # issue 34: `lexlogic db upgrade`, the migration history
cli_workbench.register(app)  # issue 30: audit, impact, coverage, mutation
cli_rules.add_rules_option(app)  # issue 16: `--rules DIR` on every command
imports_done()


def main() -> None:  # pragma: no cover - console entry point
    app()
