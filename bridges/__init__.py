"""lexlogic: bridges layer (see ARCHITECTURE in README)."""

if __name__ != "lexlogic.bridges":  # the repository folder must never become a top-level package
    raise ImportError("import lexlogic.bridges, not bridges: lexlogic installs one namespace, lexlogic")
