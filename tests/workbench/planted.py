"""Copies of the shipped packs with one planted mistake each (a gap, a conflict, a dead rule)."""

from __future__ import annotations

import shutil
from pathlib import Path

from lexlogic.bridges.clingo_bridge import CompiledProgram
from lexlogic.engine.packs.library import load_folder
from lexlogic.logic.pack import RulePack

RULES = Path(__file__).resolve().parents[2] / "rules"
SHIPPED = sorted(p.parent.name for p in RULES.glob("*/pack.yaml"))

# pack -> kind -> (file, rules appended, the finding's subject)
PLANTS: dict[str, dict[str, tuple[str, str, str]]] = {
    "rupture_brutale": {
        # an even loop: whether a serious, unproven fault is a faute grave is left to the solver's whim
        "gap": (
            "exoneration.lp",
            '%@ {id: F_planted_gap, label: "planted"}\n'
            "faute_grave :- fault_alleged, fault_serious, not fault_excused.\n"
            "fault_excused :- fault_alleged, fault_serious, not faute_grave.\n",
            "faute_grave",
        ),
        # liability concluded on force majeure: it bypasses the exoneration the pack declares fatal
        "conflict": (
            "exoneration.lp",
            '%@ {id: F_planted_conflict, label: "planted"}\nliable :- established, rupture, brutal, force_majeure.\n',
            "exoneration",
        ),
        # a faute grave needs an alleged fault: this rule can never fire
        "dead_rule": (
            "exoneration.lp",
            '%@ {id: F_planted_dead, label: "planted"}\nexonerated :- faute_grave, not fault_alleged.\n',
            "F_planted_dead",
        ),
    },
    "late_payment": {
        "gap": (
            "payment.lp",
            '%@ {id: P_planted_gap, label: "planted"}\n'
            "recovery_indemnity_due :- late_payment, insolvency_proceedings, not indemnity_waived.\n"
            "indemnity_waived :- late_payment, insolvency_proceedings, not recovery_indemnity_due.\n",
            "recovery_indemnity_due",
        ),
        "conflict": (
            "payment.lp",
            '%@ {id: P_planted_conflict, label: "planted"}\npenalties_due :- paid_late, public_buyer.\n',
            "prescription",  # a public buyer is in scope since issue 31: the planted rule ignores prescription
        ),
        "dead_rule": (
            "payment.lp",
            '%@ {id: P_planted_dead, label: "planted"}\npenalties_due :- late_payment, not paid_late.\n',
            "P_planted_dead",
        ),
    },
}


def get_pack(root: Path) -> tuple[RulePack, CompiledProgram]:
    """A pack folder, loaded and compiled (once per content)."""
    loaded = load_folder(root)
    return loaded.pack, loaded.program


def copy_pack(name: str, dest: Path) -> Path:
    root = dest / name
    shutil.copytree(RULES / name, root)
    return root


def plant(root: Path, kind: str) -> str:
    """Append the planted rules of ``kind`` to the copy; returns the subject the audit must name."""
    file, text, subject = PLANTS[root.name][kind]
    path = root / file
    path.write_text(path.read_text(encoding="utf-8").rstrip("\n") + "\n\n" + text, encoding="utf-8")
    return subject


# impact: the safe harbour at 24 months, and a copy of the whole rules folder with a pack file edited
SAFE_HARBOUR = (
    '    words: {"18": "dix-huit"}\n    values:\n      - {from: 2019-04-26, value: 18}',
    '    words: {"24": "vingt-quatre"}\n    values:\n      - {from: 2019-04-26, value: 24}',
)


def edited_rules(dest: Path, pack: str, file: str, *edits: tuple[str, str]) -> Path:
    """A copy of the whole rules folder (every pack) with text replaced in one of a pack's files."""
    shutil.copytree(RULES, dest, ignore=shutil.ignore_patterns("__pycache__"))
    path = dest / pack / file
    text = path.read_text(encoding="utf-8")
    for old, new in edits:
        assert old in text, old
        text = text.replace(old, new)
    path.write_text(text, encoding="utf-8")
    return dest
