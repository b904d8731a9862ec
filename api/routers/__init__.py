"""One router per capability; each is wired in ``api.app`` only when its engine module imports."""
