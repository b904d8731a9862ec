"""lexlogic: bridges layer (see ARCHITECTURE in README)."""
