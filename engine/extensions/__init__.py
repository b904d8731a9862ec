"""Extensions of a pack at run time: sandboxed dynamic rules, FOL belief-set checks."""
