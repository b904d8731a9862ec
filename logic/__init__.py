"""lexlogic: logic layer (see ARCHITECTURE in README)."""

if __name__ != "lexlogic.logic":  # the repository folder must never become a top-level package
    raise ImportError("import lexlogic.logic, not logic: lexlogic installs one namespace, lexlogic")
