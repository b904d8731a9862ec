"""`python -m api` runs the CLI (same as the `lexlogic` script)."""

from lexlogic.api.cli import app

app()
