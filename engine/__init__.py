"""lexlogic: engine layer (see ARCHITECTURE in README)."""

if __name__ != "lexlogic.engine":  # the repository folder must never become a top-level package
    raise ImportError("import lexlogic.engine, not engine: lexlogic installs one namespace, lexlogic")
