"""lexlogic: logic layer (see ARCHITECTURE in README)."""
