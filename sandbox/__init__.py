"""lexlogic: sandbox layer (see ARCHITECTURE in README)."""
