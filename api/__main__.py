"""`python -m api` runs the CLI (same as the `lexlogic` script)."""
from api.cli import app

app()
