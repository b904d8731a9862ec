"""Set-up's step for perception (issue 33): the French pipeline's compiled data — spaCy's slow tokenizer
patterns, the lemmatizer's compact tables — built ONCE per installation, next to the installed packages
(`spacy_nlp.INSTALLED`), so that a fresh installation's first dossier does not build them (~4–5 s of CPU and
~120 MB more at its peak) and every user's first run reads them as a second run would.

``./scripts/setup`` runs ``python -m lexlogic.engine.perception.install``: it builds the data when it is absent,
for other versions of spaCy, of its model or of the interpreter, or damaged; otherwise it only checks (~0.5 s).
When it cannot be built (spaCy missing, a read-only installation), each user's first run builds its own, as
before: set-up goes on.
"""

from __future__ import annotations

import sys
from pathlib import Path

from lexlogic.bridges import spacy_nlp


def prepare(folder: Path | None = None) -> str:
    """Build or check the installation's NLP data in ``folder`` (default: `spacy_nlp.INSTALLED`); a line
    saying what was done (empty when it was there already)."""
    where = folder or spacy_nlp.INSTALLED
    if where is None:
        return "no installation folder for the NLP data"
    try:
        built = spacy_nlp.prepare(where)
    except (spacy_nlp.SpacyUnavailable, OSError, RuntimeError) as exc:
        return f"NLP data not prepared ({exc}); each user's first run builds its own"
    return f"NLP data built in {where}" if built else ""


def main(argv: list[str] | None = None) -> int:
    args = sys.argv[1:] if argv is None else argv
    said = prepare(Path(args[0]) if args else None)
    if said:
        print(f"[setup] {said}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
