"""The project's own taxonomy and the Argumentum CSV loader."""

from __future__ import annotations

from pathlib import Path

import pytest

from lexlogic.engine.fallacies.taxonomy import TaxonomyError, builtin_taxonomy, load_argumentum_csv, load_taxonomy
from tests.fallacies.conftest import DEEP_ROWS, write_argumentum


def test_builtin_taxonomy_is_complete() -> None:
    tax = builtin_taxonomy()
    leaves = tax.leaves()
    families = tax.children(tax.root.id)
    assert len(leaves) >= 40 and len(families) >= 6
    assert all(n.depth >= 2 for n in leaves)  # every fallacy sits under a family
    for node in tax:
        assert node.name_fr and node.name_en and node.definition_fr and node.example_fr, node.id
    assert sum(n.legal for n in leaves) >= 15
    assert {"appel_tradition", "faux_dilemme", "generalisation_hative", "renversement_charge"} <= set(tax.nodes)
    assert max(n.depth for n in tax) == 3  # sub-families exist (ad hominem, formal fallacies)
    assert tax.family("tu_quoque").id == "attaque_personne"
    assert tax.by_path(tax.nodes["tu_quoque"].path).id == "tu_quoque"


def test_builtin_is_shipped_inside_the_package() -> None:
    import lexlogic.engine.fallacies as engine_fallacies

    data = Path(engine_fallacies.__file__).parent / "data" / "taxonomy.yaml"
    assert builtin_taxonomy().source == str(data) and "shared" not in builtin_taxonomy().source


def test_argumentum_loader_orders_children_by_path(deep_taxonomy) -> None:  # type: ignore[no-untyped-def]
    tax = deep_taxonomy
    assert len(tax) == len(DEEP_ROWS) and tax.root.id == "0"
    assert [c.id for c in tax.children("0")] == ["1", "20"]
    assert tax.nodes["13"].depth == 5 and [a.id for a in tax.ancestors("13")] == ["0", "1", "10", "11", "12"]
    assert tax.nodes["10"].name_en == "Hasty generalization"
    assert tax.nodes["10"].definition_fr.startswith("Définition de Généralisation hâtive, avec virgule")
    assert tax.family("13").id == "1"


def test_argumentum_loader_errors_name_file_and_line(tmp_path: Path) -> None:
    orphan = write_argumentum(tmp_path / "orphan.csv", DEEP_ROWS[:1] + [("5", "3.2", "Orphelin", "Orphan")])
    with pytest.raises(TaxonomyError, match=r"orphan\.csv: node PK 5 \(path 3\.2\) has no parent"):
        load_argumentum_csv(orphan)
    bad = write_argumentum(tmp_path / "bad.csv", DEEP_ROWS[:1] + [("5", "1.x", "Mauvais", "Bad")])
    with pytest.raises(TaxonomyError, match=r"bad\.csv:3: path '1\.x'"):
        load_argumentum_csv(bad)
    dup = write_argumentum(tmp_path / "dup.csv", DEEP_ROWS[:3] + [("10", "1.2", "Doublon", "Dup")])
    with pytest.raises(TaxonomyError, match=r"dup\.csv:5: duplicate PK 10"):
        load_argumentum_csv(dup)
    flat = tmp_path / "flat.csv"
    flat.write_text("PK,Name\n1,Ad Hominem\n", encoding="utf-8")
    with pytest.raises(TaxonomyError, match=r"flat\.csv:1: not an Argumentum taxonomy"):
        load_taxonomy(flat)
    with pytest.raises(TaxonomyError, match="unknown taxonomy format"):
        load_taxonomy(tmp_path / "t.txt")


def test_reference_1408_nodes(reference_taxonomy) -> None:  # type: ignore[no-untyped-def]
    tax = reference_taxonomy
    assert len(tax) == 1408 and len(tax.children(tax.root.id)) == 7
    assert tax.nodes["4"].path == "1.1.1.1" and tax.nodes["4"].name_en == "Appeal to ignorance"
    assert sum(len(n.children_ids) for n in tax) == 1407
    # the reference file declares depth 7 for a path of depth 6: the path wins, with a warning
    assert tax.nodes["824"].depth == 6 and any("5.1.2.3.2.24" in w for w in tax.warnings)
