"""The sequential debate plan, persisted at each step, on SQLite and PostgreSQL."""

import pytest
from sqlalchemy.exc import IntegrityError

from lexlogic.engine.claims.debate import STEPS, Narrative, run_debate
from lexlogic.engine.claims.debate_store import DebateStore
from lexlogic.engine.claims.judge_offline import OfflineJudge

CLAIMANT = Narrative(
    party="Gamma",
    text=(
        "Gamma a passé 184 commandes auprès de Delta entre 2015 et 2022. "
        "Gamma a relancé Delta à deux reprises par écrit. "
        "Les investissements spécifiques de Gamma s'élèvent à 350 000 euros. "
        "Delta a versé à Gamma une indemnité de 30 000 euros."
    ),
)
DEFENCE = Narrative(party="Delta", claims=["La baisse des commandes de Gamma en 2022 est limitée à 35 %."])


def test_debate_runs_in_order_and_keeps_only_verified(db_url, memories):
    store = DebateStore(db_url)
    try:
        out = run_debate(store, "case-1", memories["gamma_delta"], CLAIMANT, DEFENCE, judge=OfflineJudge())
        assert out.steps == list(STEPS)
        stored = store.steps(out.run_id)
        assert [k for k, _ in stored] == list(STEPS)
        draft = stored[0][1]["claims"]
        assert len(draft) == 4
        fact_check = stored[2][1]["results"]
        assert [r["claim"] for r in fact_check] == draft  # the fact-check reads the persisted draft
        s = out.synthesis
        assert [r.claim for r in s.kept] == [draft[0]]
        assert [r.claim for r in s.flagged] == [draft[1]]
        assert [r.claim for r in s.disputed] == [draft[2]]
        assert s.dropped == [draft[3]]
        assert s.objections == DEFENCE.claims
        assert s.flagged[0].evidence.grounding.quote  # flagged with its evidence
        assert [p.fact for p in s.updates.priors] == ["orders_count"]
        assert store.status(out.run_id) == "done"
    finally:
        store.dispose()


def test_debate_resumes_after_the_last_persisted_step(db_url, memories):
    store = DebateStore(db_url)
    try:
        run_id = store.new_run("case-2")
        store.add_step(
            run_id, 0, "draft", {"party": "Gamma", "claims": ["Gamma a relancé Delta à trois reprises par écrit."]}
        )
        store.add_step(run_id, 1, "critique", {"party": "Delta", "objections": []})
        with pytest.raises(IntegrityError):  # a step is never written twice
            store.add_step(run_id, 1, "critique", {"party": "Delta", "objections": []})
        out = run_debate(
            store, "case-2", memories["gamma_delta"], CLAIMANT, DEFENCE, judge=OfflineJudge(), run_id=run_id
        )
        assert out.steps == ["fact_check", "synthesis"]
        assert [r.claim for r in out.synthesis.kept] == ["Gamma a relancé Delta à trois reprises par écrit."]
        assert len(store.steps(run_id)) == 4
    finally:
        store.dispose()
