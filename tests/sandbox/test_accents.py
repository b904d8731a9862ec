"""Issue 34: a French rule with accented identifiers runs, and does not kill its worker.

Before: the tokenizer imported ``unicodedata`` lazily (NFKC of a non-ASCII name) after the worker had dropped
its privileges and closed files to itself: the worker died (exit status 1) on ``ancienneté``, every time.
"""

from __future__ import annotations

from lexlogic.sandbox.pool import SandboxPool

FRENCH = """
def rule(facts):
    ancienneté = facts["seniority_years"]
    préavis = min(18, max(3, ancienneté))
    durée_écoulée = facts.get("notice_given_months", 0)
    return {"reasonable_notice_months": préavis, "notice_sufficient": durée_écoulée >= préavis}
"""
SCHEMA = {"reasonable_notice_months": "int", "notice_sufficient": "bool"}


def test_accented_identifiers_run_and_the_worker_survives(pool: SandboxPool) -> None:
    before = set(pool.worker_pids())
    for years, given, want in ((7, 3, (7, False)), (30, 18, (18, True)), (1, 6, (3, True))):
        run = pool.run(FRENCH, {"seniority_years": years, "notice_given_months": given}, output_schema=SCHEMA)
        assert (run.output["reasonable_notice_months"], run.output["notice_sufficient"]) == want
    assert set(pool.worker_pids()) == before  # no worker died or was replaced
