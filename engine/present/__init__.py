"""Words and figures for people: wording from pack templates, French formatting, report data, argument graph."""
