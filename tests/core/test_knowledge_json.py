"""The epistemic field's name (issue 29): ``on_record`` (was ``established``, the spelling of a pack's
outcome). The JSON keeps the old key, equal to the new one, for clients written before the rename."""

from __future__ import annotations

from lexlogic.engine.verdict.epistemic import Epistemic, Knowledge


def test_on_record_and_its_deprecated_alias_travel_together() -> None:
    for on_record in (True, False):
        k = Knowledge(status=Epistemic.READ, basis=Epistemic.READ, on_record=on_record)
        data = k.model_dump(mode="json")
        assert data["on_record"] is on_record and data["established"] is on_record
        back = Knowledge.model_validate_json(k.model_dump_json())
        assert back.on_record is on_record and back == k


def test_the_alias_is_in_the_published_schema_as_deprecated() -> None:
    props = Knowledge.model_json_schema(mode="serialization")["properties"]
    assert "on_record" in props and "deprecated" in props["established"]["description"]


def test_a_run_stored_before_the_rename_is_read_back() -> None:
    """A dossier analysed before the rename resumes (it failed with « on_record: Field required », rc 1)."""
    for established in (True, False):
        old = {"status": "computed", "basis": "read", "established": established, "rests_on": ["x"]}
        assert Knowledge.model_validate(old).on_record is established
