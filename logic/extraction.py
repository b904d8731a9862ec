"""A pack's extraction specifications (``extraction.yaml``): how perception looks for each fact.

Pack data, not engine code: for every fact, the question it answers (also the e5 query), the cue lemmas
that select candidate sentences, the typed reader that takes the value out of a sentence, the units, the
values of an enum with their own cues, and which party's own document turns an assertion into an
allegation. The engine's generic extractor knows no fact name; it reads these.
"""

from __future__ import annotations

from functools import lru_cache
from pathlib import Path
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError

from lexlogic.logic import yaml_load
from lexlogic.logic.errors import LexlogicError
from lexlogic.logic.model_defaults import new_list

Reader = Literal["date", "months", "quantity", "amount", "percent", "amounts_by_year", "bool", "enum", "party", "count"]
Unit = Literal["days", "weeks", "months", "years"]
EventKindName = Literal["signature", "order", "notification", "termination", "formal_notice", "claim", "other"]
Party = Literal["claimant", "defence"]


class ExtractionError(LexlogicError, ValueError):
    """A malformed ``extraction.yaml`` (file: message)."""


class FactExtraction(BaseModel):
    """How one fact is found and read."""

    model_config = ConfigDict(extra="forbid")
    question: str = ""
    reader: Reader
    cues: list[str] = Field(default_factory=new_list, description="lemmas or lowercase phrases; one selects a sentence")
    negative_cues: list[str] = Field(
        default_factory=new_list, description="cues that select a sentence when negated (« ne renouvellerons pas »)"
    )
    exclude: list[str] = Field(default_factory=new_list, description="a sentence with one of these is not a candidate")
    context: list[str] = Field(default_factory=new_list, description="bool: a cue counts only with one of these too")
    values: dict[str, list[str]] = Field(default_factory=dict, description="enum value → its own cues, in order")
    guess_from: str | None = Field(
        default=None, description="enum: first value a guess far from the party's name may give (later ones too)"
    )
    default_value: str | None = Field(default=None, description="enum value when a cue is met but no value cue")
    zero: list[str] = Field(
        default_factory=new_list, description="months, amount, quantity: phrases that mean none (0)"
    )
    role: Party | None = None
    alleged_in: list[Party] = Field(default_factory=new_list, description="whose own document makes it an allegation")
    evidence_in_letters_of: list[Party] = Field(
        default_factory=new_list, description="that party's own letters and e-mails evidence it (the act itself)"
    )
    admission_by: list[Party] = Field(
        default_factory=new_list, description="that party asserting it admits it: evidence, not allegation"
    )
    negatable: bool = True
    in_contracts: bool = Field(
        default=False,
        description="also read in a written contract (whose clauses the structural readers read otherwise)",
    )
    conditional_blocks: bool = True
    from_document_date: bool = Field(default=False, description="date: the author's own letter dates it")
    min_precision: Literal["day", "month", "year"] = Field(
        default="year", description="date: a date known less precisely than this is not read"
    )
    true_in_own_letter: bool = Field(
        default=False,
        description="bool: the author's own letter stating the event (« nous mettons fin ») makes it true",
    )
    weak_cues: list[str] = Field(
        default_factory=new_list, description="date: cues that select a sentence only for « depuis <date> » or a length"
    )
    relative_years: list[str] = Field(default_factory=new_list, description="date: « depuis N ans » style cues")
    window: int | None = Field(
        default=None,
        description="enum: value cues searched this many characters after the cue; months: a length this near the cue (60)",
    )
    unit: Unit = Field(default="months", description="quantity: the unit the value is counted in")
    event: EventKindName | None = Field(default=None, description="date: a dated event of this kind in the ontology")
    min_similarity: float = 0.0
    amount_marks: list[str] = Field(
        default_factory=new_list, description="amount: a sum written with one of these (« TTC ») is preferred"
    )
    amount_excluded_marks: list[str] = Field(
        default_factory=new_list,
        description="amount: a sum written with one of these (« HT ») is never the value alone",
    )
    amount_added: list[str] = Field(
        default_factory=new_list,
        description="amount: the tax (« TVA ») that, given beside an excluded-mark sum, makes the value with it",
    )
    date_lead: str | None = Field(
        default=None, description="date: a pattern a date right after which is the fact's (« facture n° X du »)"
    )
    unless_in_document: list[str] = Field(
        default_factory=new_list,
        description="amount: a document with one of these (an instalment: « acompte ») gives no reading",
    )
    local_exclude: bool = Field(
        default=False, description="amount: an excluded word drops only the sums nearer to it than to a cue"
    )
    ranked_cues: bool = Field(
        default=False, description="the sentence of the earliest-listed cue wins (« solde restant dû » first)"
    )


class ClauseReading(BaseModel):
    """A yes/no stipulation or act read by a pattern anywhere (contracts, letters, notes): true where a cue is
    asserted, false where it is denied."""

    model_config = ConfigDict(extra="forbid")
    fact: str
    pattern: str = Field(description="regular expression of the cue (case-insensitive unless case_sensitive)")
    case_sensitive: bool = False
    context: str | None = Field(default=None, description="outside a contract, a true cue needs this in its sentence")
    required: str | None = Field(default=None, description="anywhere, a true cue needs this in its sentence")
    skip_before: str | None = Field(default=None, description="text just before the cue that disqualifies it")
    act: bool = Field(default=False, description="the cue reports an act: a conditional statement does not count")
    in_contracts: bool = True
    ground: Literal["cue", "sentence"] = Field(default="cue", description="what a true reading quotes")
    confidence: float = Field(default=0.85, ge=0, le=1)
    otherwise_false: list[FalseReading] = Field(
        default_factory=new_list, description="when nothing reads true: phrases that mean false"
    )


class FalseReading(BaseModel):
    model_config = ConfigDict(extra="forbid")
    pattern: str
    context: str | None = Field(default=None, description="outside a contract, the sentence must match this too")
    required: str | None = Field(default=None, description="anywhere, the sentence must match this too")
    note: str | None = None
    sentence: bool = Field(default=False, description="quote the whole sentence (else the phrase)")


class ContractReading(BaseModel):
    """One clause of a written contract: present (true), a duration, or the first date after a phrase."""

    model_config = ConfigDict(extra="forbid")
    fact: str
    reader: Literal["present", "duration", "date"]
    pattern: str = Field(description="present: the clause's phrase; duration/date: the phrase before the value")
    fallback: str | None = Field(default=None, description="date: a second phrase tried when the first is absent")
    event: EventKindName | None = None
    note: str | None = None
    confidence: float = Field(default=0.9, ge=0, le=1)


class ColumnReading(BaseModel):
    """A fact read from a table's column (an order history exported as CSV)."""

    model_config = ConfigDict(extra="forbid")
    fact: str
    reader: Literal["sum", "regular", "by_year", "ratio"]
    column: list[str] = Field(description="words of the column's header (accents and case folded)")
    per: list[str] = Field(default_factory=new_list, description="ratio: the denominator's header words")
    last: int = Field(default=3, description="ratio: over the last N complete years")
    min_mean: float = Field(default=12, description="regular: at least this many a year on average")
    max_spread: float = Field(default=0.5, description="regular: (max - min) / mean at most this")
    note: str | None = None


class TableSpec(BaseModel):
    model_config = ConfigDict(extra="forbid")
    year_column: list[str] = Field(default_factory=lambda: ["annee", "exercice"])
    complete_before: str | None = Field(
        default=None, description="a date fact: rows of that year and later are partial years (left out by year)"
    )
    columns: list[ColumnReading] = Field(default_factory=new_list)


class AcceptanceReading(BaseModel):
    model_config = ConfigDict(extra="forbid")
    proposal: str = Field(description="pattern of one proposal in the message the acceptance answers")
    value: str
    confidence: float = Field(ge=0, le=1)
    note: str
    with_event: bool = Field(default=False, description="also quote the notifying sentence of the event")


class AcceptanceSpec(BaseModel):
    """A short « C'est d'accord » answering a message with several proposals: one reading per proposal."""

    model_config = ConfigDict(extra="forbid")
    fact: str
    accept: str = Field(description="pattern of the acceptance")
    max_words: int = 60
    question: str
    readings: list[AcceptanceReading] = Field(min_length=2)


class EventSpec(BaseModel):
    """The triggering event read by the structural readers: who made it, when, how, with what notice. Its author
    and recipient are the facts of reader ``party`` (role defence / claimant); the recipient's attribute the
    ``enum`` fact with role claimant."""

    model_config = ConfigDict(extra="forbid")
    kind: EventKindName = "notification"
    description: str = ""
    patterns: list[str] = Field(description="regular expressions of a statement of the event")
    partial_pattern: str | None = Field(default=None, description="a partial event, a group named « pct… » its share")
    date: str | None = Field(default=None, description="date fact: when the event was notified")
    written: str | None = Field(default=None, description="bool fact: notified in writing")
    notice: str | None = Field(default=None, description="months fact: the notice granted")
    agreed_notice: str | None = Field(default=None, description="months fact: a notice the contract sets, cited")
    kind_fact: str | None = Field(default=None, description="enum fact of the event's extent")
    whole: str | None = Field(default=None, description="kind_fact's value for the whole")
    partial: str | None = Field(default=None, description="kind_fact's value for a partial event")
    share: str | None = Field(default=None, description="percent fact: the partial event's share")
    recipient_author: str | None = Field(
        default=None, description="pattern: words saying the recipient made the event (« votre décision »)"
    )
    oral: str | None = Field(default=None, description="pattern: the event was told orally")
    media: str | None = Field(
        default=None, description="pattern: the media an event is told by (« courriel », « réunion »)"
    )
    written_media: str | None = Field(default=None, description="pattern: which of the media are written")
    immediate: str | None = Field(default=None, description="pattern: no notice at all (« sans préavis »)")
    immediate_context: str | None = Field(
        default=None, description="pattern: outside the event's own sentence, « no notice » counts with this"
    )
    end_date: str | None = Field(default=None, description="pattern: the phrase before the announced end date")
    notice_lead: str | None = Field(default=None, description="pattern: the word a notice's length follows")
    agreed_words: str | None = Field(
        default=None, description="pattern: a sentence citing the contract (its notice is the agreed one)"
    )


class StructuralSpec(BaseModel):
    """Readers of a dossier's structure (contract clauses, tables, the dated event, e-mail threads)."""

    model_config = ConfigDict(extra="forbid")
    contract: list[ContractReading] = Field(default_factory=new_list)
    clauses: list[ClauseReading] = Field(default_factory=new_list)
    table: TableSpec | None = None
    event: EventSpec | None = None
    acceptance: AcceptanceSpec | None = None


class ExtractionSpec(BaseModel):
    model_config = ConfigDict(extra="forbid")
    version: int = 1
    speech_verbs: list[str] = Field(default_factory=new_list, description="« X soutient que »: an allegation by X")
    conditional_cues: list[str] = Field(default_factory=new_list)
    denial_verbs: list[str] = Field(default_factory=new_list, description="lemmas that deny what their sentence says")
    negation_words: list[str] = Field(default_factory=new_list)
    party_words: dict[Party, list[str]] = Field(default_factory=dict)
    termination_cues: list[str] = Field(default_factory=new_list)
    supply_verbs: list[str] = Field(
        default_factory=new_list, description="lemmas whose subject supplies its object (the victim's usual side)"
    )
    event_fact: str | None = Field(
        default=None, description="the fact whose reading means the triggering event is reported (parties need it)"
    )
    prefer: list[str] = Field(
        default_factory=new_list, description="facts this reader reads better than the structural readers in prose"
    )
    facts: dict[str, FactExtraction]
    structural: StructuralSpec = Field(default_factory=StructuralSpec)


@lru_cache(maxsize=8)
def _load(path: Path, stamp: float) -> ExtractionSpec:
    import yaml  # here, not at the top: a cold `analyze` served from the pack cache reads no YAML (issue 33)

    try:
        raw = yaml_load.safe_load(path.read_text(encoding="utf-8"))
        return ExtractionSpec.model_validate(raw)
    except (OSError, yaml.YAMLError, ValidationError) as exc:
        raise ExtractionError(f"{path}: {exc}") from exc


def load_extraction(pack_dir: Path | str) -> ExtractionSpec | None:
    """The pack's extraction specification, or None when the pack declares none."""
    path = Path(pack_dir) / "extraction.yaml"
    if not path.is_file():
        return None
    return _load(path.resolve(), path.stat().st_mtime)


ClauseReading.model_rebuild()


# --- checking a pack's extraction.yaml against its facts (``lexlogic check``) -------------------------------
READER_TYPES: dict[str, set[str]] = {
    "date": {"date"},
    "months": {"months"},
    "quantity": {"int", "months", "amount"},
    "amount": {"amount"},
    "percent": {"percent"},
    "amounts_by_year": {"amounts_by_year"},
    "bool": {"bool"},
    "enum": {"enum", "bool"},
    "party": {"str"},
    "count": {"int"},
}
STRUCTURAL_TYPES: dict[str, set[str]] = {
    "present": {"bool"},
    "duration": {"months"},
    "date": {"date"},
    "sum": {"int"},
    "regular": {"bool"},
    "by_year": {"amounts_by_year"},
    "ratio": {"percent"},
}


def _line_of(lines: list[str], needle: str, start: int = 0) -> int | None:
    for i in range(start, len(lines)):
        if needle in lines[i]:
            return i + 1
    return None


_Problem = tuple[str, int | None, str]
_Reading = tuple[str, str | None, list[str | None]]  # (fact, structural reader, regular expressions)


def extraction_problems(pack_dir: Path | str, facts: dict[str, Any]) -> list[_Problem]:
    """(file, line, message) for every mistake of ``extraction.yaml``: a malformed file, a fact the pack does
    not have (with a « did you mean »), a reader that cannot give the fact's type, an enum value the fact
    does not take, a pattern that is not a regular expression."""
    import yaml  # here, not at the top: a cold `analyze` served from the pack cache reads no YAML (issue 33)

    path = Path(pack_dir) / "extraction.yaml"
    if not path.is_file():
        return []
    text = path.read_text(encoding="utf-8")
    try:
        spec = ExtractionSpec.model_validate(yaml_load.safe_load(text))
    except (yaml.YAMLError, ValidationError) as exc:
        line = getattr(getattr(exc, "problem_mark", None), "line", None)
        return [(str(path), None if line is None else line + 1, f"malformed extraction specification: {exc}")]
    where = _SpecFile(str(path), text.splitlines(), facts)
    return _fact_reader_problems(where, spec) + _reading_problems(where, _structural_readings(spec.structural))


class _SpecFile:
    """extraction.yaml's lines and the pack's facts: where a problem is, and whether a fact exists."""

    def __init__(self, path: str, lines: list[str], facts: dict[str, Any]) -> None:
        self.path, self.lines, self.facts = path, lines, facts

    def unknown(self, name: str, needle: str) -> _Problem | None:
        """The problem of a fact name the pack does not have (with a « did you mean »), else None."""
        from difflib import get_close_matches

        if name in self.facts:
            return None
        near = get_close_matches(name, list(self.facts), n=1, cutoff=0.75)
        hint = f" (did you mean '{near[0]}'?)" if near else ""
        return (self.path, _line_of(self.lines, needle), f"unknown fact '{name}'{hint}")

    def type_of(self, name: str) -> str:
        t = getattr(self.facts[name], "type", None)
        return str(getattr(t, "value", t))


def _fact_reader_problems(where: _SpecFile, spec: ExtractionSpec) -> list[_Problem]:
    """Each per-fact reader: a fact of the pack, a reader that can give its type, enum values it takes."""
    out: list[_Problem] = []
    for name, fs in spec.facts.items():
        if (problem := where.unknown(name, f"{name}:")) is not None:
            out.append(problem)
            continue
        at = (_line_of(where.lines, f"  {name}:") or 1) - 1
        typ = where.type_of(name)
        if typ not in READER_TYPES[fs.reader]:
            out.append(
                (where.path, _line_of(where.lines, "reader:", at), f"{name}: reader '{fs.reader}' cannot read a {typ}")
            )
        allowed = set(getattr(where.facts[name], "values", None) or []) | (
            {"true", "false"} if typ == "bool" else set()
        )
        for value in fs.values:
            if fs.reader == "enum" and value not in allowed:
                line = _line_of(where.lines, f"{value}:", at) or _line_of(where.lines, f'"{value}":', at)
                out.append((where.path, line, f"{name}: '{value}' is not one of its values"))
    return out


def _structural_readings(st: StructuralSpec) -> list[_Reading]:
    """What the structural readers fill (contract parties and clauses, the table, the dated event, an
    acceptance), each with the reader's kind and the regular expressions it uses."""
    readings: list[_Reading] = [(c.fact, c.reader, [c.pattern, c.fallback]) for c in st.contract]
    readings += [(c.fact, "present", [c.pattern, c.context, c.required, c.skip_before]) for c in st.clauses]
    readings += [(c.fact, None, [f.pattern, f.context, f.required]) for c in st.clauses for f in c.otherwise_false]
    if st.table is not None:
        readings += [(c.fact, c.reader, []) for c in st.table.columns]
        if st.table.complete_before:
            readings.append((st.table.complete_before, "date", []))
    if st.event is not None:
        readings += _event_readings(st.event)
    if st.acceptance is not None:
        readings.append(
            (st.acceptance.fact, None, [st.acceptance.accept, *(r.proposal for r in st.acceptance.readings)])
        )
    return readings


def _event_readings(ev: EventSpec) -> list[_Reading]:
    """The dated event's slots (date, written, notice, agreed notice, share, kind) and its patterns."""
    readings: list[_Reading] = []
    for slot, slot_reader in (
        ("date", "date"),
        ("written", "present"),
        ("notice", "duration"),
        ("agreed_notice", "duration"),
        ("share", "ratio"),
    ):
        if (name := getattr(ev, slot)) is not None:
            readings.append((name, slot_reader, []))
    if ev.kind_fact:
        readings.append((ev.kind_fact, None, []))
    pats: list[str | None] = [
        *ev.patterns,
        ev.partial_pattern,
        ev.recipient_author,
        ev.oral,
        ev.media,
        ev.written_media,
    ]
    pats += [ev.immediate, ev.immediate_context, ev.end_date, ev.notice_lead, ev.agreed_words]
    readings.append(("", None, pats))
    return readings


def _reading_problems(where: _SpecFile, readings: list[_Reading]) -> list[_Problem]:
    """Each structural reading fills a fact of the pack with a type its reader gives; its patterns compile."""
    import re

    out: list[_Problem] = []
    for name, reader, patterns in readings:
        if name:
            problem = where.unknown(name, f": {name}")
            if problem is not None:
                out.append(problem)
            elif reader and where.type_of(name) not in STRUCTURAL_TYPES[reader]:
                message = f"{name}: a {reader} reading cannot fill a {where.type_of(name)}"
                out.append((where.path, _line_of(where.lines, f": {name}"), message))
        for pattern in patterns:
            if not pattern:
                continue
            try:
                re.compile(pattern.replace("{DATE}", "x"))
            except re.error as exc:
                message = f"pattern is not a regular expression ({exc}): {pattern[:60]}"
                out.append((where.path, _line_of(where.lines, pattern[:30]), message))
    return out
