"""lexlogic: api layer (see ARCHITECTURE in README)."""
