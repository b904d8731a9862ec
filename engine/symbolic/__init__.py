"""The symbolic analysis of one case: values (JSON-Logic), ASP outcomes, completions, explanations, narrative worlds."""
