"""Every hostile rule of the corpus is refused or contained, with a clear error; the pool survives."""

from __future__ import annotations

import copy
import re
from collections import Counter

import pytest

from lexlogic.sandbox.errors import ErrorKind, SandboxError
from tests.sandbox.hostile_corpus import CORPUS, FACTS, Hostile

CATEGORIES = {
    "import",
    "dunder",
    "frames",
    "format",
    "introspection",
    "builtins",
    "mutation",
    "loop",
    "recursion",
    "memory",
    "output",
    "fork",
    "signal",
    "file",
    "socket",
}


def test_corpus_is_large_and_covers_every_category() -> None:
    assert len(CORPUS) >= 60
    assert len({h.id for h in CORPUS}) == len(CORPUS), "duplicate ids"
    counts = Counter(h.category for h in CORPUS)
    assert CATEGORIES <= set(counts), f"missing: {CATEGORIES - set(counts)}"


@pytest.mark.parametrize("hostile", CORPUS, ids=[h.id for h in CORPUS])
def test_hostile_rule_is_refused_or_contained(pool, hostile: Hostile) -> None:
    facts = copy.deepcopy(FACTS)
    with pytest.raises(SandboxError) as info:
        pool.run(hostile.source, facts, output_schema=hostile.output_schema, filename=f"{hostile.id}.py")
    err = info.value
    text = err.describe()
    assert err.kind is hostile.kind, text
    assert err.code in hostile.codes, text
    assert re.search(hostile.pattern, text), text
    # The message says which of the four outcomes it is, and names the rule file.
    assert text.startswith(
        {
            ErrorKind.REFUSED: "refused at compile time",
            ErrorKind.RUNTIME: "failed at run time",
            ErrorKind.LIMIT: "limit hit",
            ErrorKind.OUTPUT: "output invalid",
        }[err.kind]
    ), text
    assert f"{hostile.id}.py" in text
    if err.kind is ErrorKind.REFUSED:
        assert err.line is not None or "source" in text or "must define" in text, text
    # The caller's facts are untouched whatever the rule did.
    assert facts == FACTS
    # ...and the pool still serves a valid rule correctly afterwards.
    ok = pool.run("def rule(facts):\n    return sum(facts['items']) + facts['a']\n", facts, output_schema="int")
    assert ok.output == 7
