"""lexlogic: api layer (see ARCHITECTURE in README)."""

if __name__ != "lexlogic.api":  # the repository folder must never become a top-level package
    raise ImportError("import lexlogic.api, not api: lexlogic installs one namespace, lexlogic")
