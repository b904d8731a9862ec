"""lexlogic: engine layer (see ARCHITECTURE in README)."""
