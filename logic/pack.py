"""Rule packs as data: the `pack.yaml` manifest, the fact vocabulary, the computed values.

A pack is what a legal engineer edits: ASP files (the legal chain), JSON-Logic computations (dates,
durations, amounts), the facts it reads (with the question to ask when one is missing), the legal
sources with their validity dates, the ordered checks (defeaters first), YAML tests and properties.
Loading never runs an engine: it only reads and validates files (engine checks are in `bridges/`).
"""

from __future__ import annotations

from collections.abc import Callable
from datetime import date
from enum import Enum
from pathlib import Path
from typing import Any, Literal

from pydantic import ConfigDict, Field, ValidationError, field_validator

from lexlogic.logic import parameters as params_mod
from lexlogic.logic.deferred import DeferredModel
from lexlogic.logic.errors import LexlogicError
from lexlogic.logic.model_defaults import new_list
from lexlogic.logic.parameters import Parameter, ParameterFile
from lexlogic.logic.proof import LegalSource
from lexlogic.logic.weights import WeightsError, WeightsFile, load_weights


class PackError(LexlogicError):
    """A problem in a pack's files, located as ``file:line: message``."""

    def __init__(self, file: Path | str, line: int | None, message: str) -> None:
        self.file = str(file)
        self.line = line
        self.message = message
        super().__init__(self.location() + ": " + message)

    def location(self) -> str:
        return f"{self.file}:{self.line}" if self.line else self.file


class FactType(str, Enum):
    BOOL = "bool"
    DATE = "date"
    MONTHS = "months"
    AMOUNT = "amount"
    PERCENT = "percent"
    INT = "int"
    ENUM = "enum"
    STR = "str"
    AMOUNTS_BY_YEAR = "amounts_by_year"


class FactSpec(DeferredModel):
    """One input fact of the pack's vocabulary."""

    name: str = ""
    type: FactType
    label: str
    values: list[str] | None = None  # for enum
    value_labels: dict[str, str] | None = Field(
        default=None, description="enum value → its reading for a lawyer (e.g. partial_volume → 'partielle')"
    )
    question: str | None = None
    cost: float = 1.0
    appreciation: bool = Field(
        default=False,
        description=(
            "the judge's sovereign appreciation, not a fact a party proves: when absent it leaves the "
            "outcome open (reported as such, never asked as a question)"
        ),
    )
    prior: float | str | None = Field(
        default=None,
        description=("prior probability when the fact is uncertain: a number, or the name of a computed percent"),
    )
    default: Any = None  # taken when nobody alleged the fact (see `burden`)
    burden: Literal["claimant", "defence"] | None = Field(
        default=None, description="who must prove the fact (art. 1353 C. civ.); required with a default"
    )
    not_before: list[str] = Field(
        default_factory=new_list,
        description="date facts this date cannot precede (a case giving both in the wrong order is refused)",
    )
    maximum: float | None = Field(
        default=None, description="largest value accepted (default: the type's computable ceiling, logic.facts)"
    )


class Computation(DeferredModel):
    """A JSON-Logic hard rule computing a derived value from facts (and earlier computations)."""

    id: str
    output: str
    type: FactType
    label: str
    inputs: list[str] = Field(description="required inputs: if one is unknown, the output is unknown")
    logic: Any
    sources: list[str] = Field(default_factory=new_list)
    note: str | None = None
    line: int | None = None  # where it is declared (set by the loader)
    file: str = ""
    used_parameters: list[str] = Field(default_factory=new_list, description="parameters read with {param: name}")


class RuleMeta(DeferredModel):
    """Metadata of an ASP rule, from its `%@rule` annotation."""

    id: str
    label: str
    sources: list[str] = Field(default_factory=new_list)
    valid_from: date | None = None
    valid_to: date | None = None
    file: str = ""
    line: int = 0


class Check(DeferredModel):
    """One step of the legal syllogism, in the order a lawyer checks them."""

    id: str
    label: str
    outcome: str  # the ASP atom that answers it
    kind: Literal["defeater", "condition", "exoneration", "remedy", "note"]
    fatal_if: Literal["yes", "no"] | None = Field(
        default=None, description="the outcome value that ends the analysis (defeaters: yes; conditions: no)"
    )
    reopened_by: list[str] = Field(
        default_factory=new_list, description="facts whose appearance or change re-opens this check (re-planning)"
    )


class Remedy(DeferredModel):
    """The outcome that quantifies the remedy, as a range of two computed values, and its wording."""

    outcome: str
    low: str
    high: str
    unit: str = Field(default="EUR", description="unit of low/high: EUR prints as '1 234 €'")
    sentence: str | None = Field(
        default=None, description="when known, e.g. 'Dommages-intérêts estimés entre {low} et {high}.'"
    )
    missing_sentence: str | None = Field(
        default=None, description="when not computable, e.g. 'Préjudice incalculable : manquent {missing}.'"
    )
    exact_sentence: str | None = Field(
        default=None, description="when low = high, e.g. 'Sommes dues : {amount}.' (else `sentence` is used)"
    )


class OutcomeSpec(DeferredModel):
    """An outcome's wording: its label and the sentences that say it holds / does not hold (French)."""

    model_config = ConfigDict(extra="forbid")
    label: str
    affirmative: str | None = Field(default=None, description="sentence when the outcome holds")
    negative: str | None = Field(default=None, description="sentence when it does not hold")
    question: str | None = Field(default=None, description="how to ask whether it holds (optional)")


class VersionText(DeferredModel):
    outcome: str = Field(description="the ASP atom that holds when this version of the text applies")
    source: str = Field(description="id of the legal source (its version and dates are in `sources`)")
    reason: str = Field(description="why, in words, e.g. 'à compter du 26/04/2019'")


class Versions(DeferredModel):
    """Which version of the law applies, decided by the date in `date_fact` (the verdict says which)."""

    date_fact: str
    texts: list[VersionText]


class BurdenWording(DeferredModel):
    """How a fact nobody alleged is explained (the pack's burden-of-proof rule, e.g. art. 1353 C. civ.)."""

    note: str = Field(
        default="non allégué : charge de la preuve sur {party}",
        description="proof-tree note for a defaulted fact; {party} is replaced by the party's name",
    )
    title: str = Field(default="Faits présumés quand personne ne les allègue", description="RULES.md heading")
    parties: dict[str, str] = Field(
        default_factory=lambda: {"claimant": "la demande", "defence": "la défense"},
        description="how the pack names the parties (with their article): proofs say 'allégué par …'",
    )
    source: str | None = Field(default=None, description="source id of the burden rule (optional)")


class PackFiles(DeferredModel):
    asp: list[str]
    computations: list[str] = Field(default_factory=new_list)
    facts: str = "facts.yaml"
    weights: str | None = None
    tests: str = "tests"
    properties: str | None = None
    parameters: str | None = Field(default=None, description="dated parameters (default: parameters.yaml if present)")
    claims: str | None = Field(
        default=None, description="claim→fact map for claim verification (default: claims.yaml if present)"
    )
    calibration: str | None = Field(
        default=None,
        description="the offline reader's calibration (default: calibration/reader.yaml if present; none: the "
        "reader's raw scores, and no reading enters as given)",
    )


Colour = Literal["red", "green", "blue", "neutral"]


class TargetColours(DeferredModel):
    """The verdict's colour when the target holds and when it fails: the pack says which outcome is adverse
    (a liability is red; a valid withdrawal is not), the faces only paint it. Neutral unless the pack says."""

    model_config = ConfigDict(extra="forbid")

    holds: Colour = "neutral"
    fails: Colour = "neutral"


class Manifest(DeferredModel):
    name: str
    title: str
    jurisdiction: str
    language: str = "fr"
    version: str
    target: str = Field(description="the main conclusion, e.g. 'liable'")
    files: PackFiles
    sources: dict[str, LegalSource]
    checks: list[Check]
    outcomes: dict[str, OutcomeSpec] = Field(
        default_factory=dict, description="outcome atom -> label, or {label, affirmative, negative} (sentences)"
    )
    target_label: str = Field(default="", description="what the target's probability is called, e.g. 'responsabilité'")
    target_colours: TargetColours = Field(
        default_factory=TargetColours, description="the verdict's colour when the target holds / fails"
    )
    defeaters_heading: str = Field(
        default="Examinés et écartés",
        description="the heading of the defeaters examined and set aside, in the pack's terms of art "
        "(« Fins de non-recevoir examinées et écartées »)",
    )
    remedy: Remedy | None = None
    versions: Versions | None = None
    burden: BurdenWording = Field(default_factory=BurdenWording)
    docs: list[str] = Field(default_factory=new_list, description="paragraphs printed at the top of RULES.md")

    @field_validator("outcomes", mode="before")
    @classmethod
    def _outcome_forms(cls, v: Any) -> Any:
        if isinstance(v, dict):
            return {k: ({"label": val} if isinstance(val, str) else val) for k, val in v.items()}
        return v

    @field_validator("sources", mode="before")
    @classmethod
    def _ids(cls, v: Any) -> Any:
        if isinstance(v, dict):
            return {k: ({"id": k, **val} if isinstance(val, dict) else val) for k, val in v.items()}
        return v


class RulePack(DeferredModel):
    """A loaded pack (files read, not yet grounded)."""

    root: Path
    manifest: Manifest
    facts: dict[str, FactSpec]
    computations: list[Computation]
    asp_sources: dict[str, str]  # relative path -> text
    parameters: dict[str, Parameter] = Field(default_factory=dict)
    parameters_date_fact: str | None = None
    parameter_refs: list[tuple[str, int, str]] = Field(
        default_factory=new_list,
        description="(file, line, name) of every parameter referenced (check: undefined/unused)",
    )
    dated_rules: dict[str, dict[str, Any]] = Field(
        default_factory=dict, description="in-force atom → the dated rule it gates (logic/validity.py)"
    )
    weights: WeightsFile | None = Field(
        default=None, description="the weights file, read with the pack (None: none, or not readable: see _weights)"
    )

    @property
    def name(self) -> str:
        return self.manifest.name

    @property
    def target_label(self) -> str:
        """What the target's probability is called ('P(responsabilité)'); the target's label by default."""
        return self.manifest.target_label or self.label_of(self.manifest.target)

    def outcome_sentence(
        self,
        outcome: str,
        holds: bool,
        values: dict[str, Any] | None = None,
        render: Callable[[Any], str] | None = None,
    ) -> str:
        """The pack's sentence saying that `outcome` holds (or not), placeholders filled from `values`
        (numbers, amounts, dates) and the parameters; falls back to the label (« non : » prefixed).
        ``render``: how a value is written (the engine passes its French formatter, so sentences and the
        rest of the verdict write dates and amounts alike)."""
        from lexlogic.logic.templates import fill, filled

        spec = self.manifest.outcomes.get(outcome)
        template = (spec.affirmative if holds else spec.negative) if spec else None
        label = self.label_of(outcome)
        fallback = label if holds else f"Non : {label[:1].lower()}{label[1:]}"
        if template is None:
            return fallback
        text = fill(template, values or {}, self.parameters, self.parameter_date(values or {}), render=render)
        return text if filled(text) else fallback  # a value the sentence needs is not known (or not given)

    def remedy_sentence(
        self,
        low: float | None,
        high: float | None,
        missing: list[str] | None = None,
        money: Callable[[float], str] | None = None,
    ) -> str | None:
        """The remedy's wording: its range when known, what it lacks otherwise (None: nothing to say).
        ``money``: how an amount is written (the engine passes its French formatter)."""
        from lexlogic.logic.templates import fill
        from lexlogic.logic.templates import money as plain_money

        remedy = self.manifest.remedy
        if remedy is None:
            return None
        if low is not None and high is not None and remedy.sentence:
            unit = remedy.unit
            show = (money or plain_money) if unit == "EUR" else (lambda x: f"{x:g} {unit}")
            if remedy.exact_sentence and show(low) == show(high):
                return fill(remedy.exact_sentence, {"amount": show(low)}, self.parameters)
            return fill(remedy.sentence, {"low": show(low), "high": show(high)}, self.parameters)
        if missing and remedy.missing_sentence:
            return fill(remedy.missing_sentence, {"missing": ", ".join(missing)}, self.parameters)
        return None

    def burden_note(self, party: str | None) -> str:
        """Proof-tree note of a fact nobody alleged (the pack's burden-of-proof wording)."""
        b = self.manifest.burden
        return b.note.replace("{party}", self.party_name(party))

    def party_name(self, party: str | None) -> str:
        """The pack's name for a party (``claimant`` → « la demanderesse », « le créancier »…)."""
        return self.manifest.burden.parties.get(party or "", party or "?")

    def parameter_date(self, values: dict[str, Any], fact: str | None = None) -> date | None:
        """The case's relevant date for parameters (from `values`: plain values or ValueInfo-like)."""
        name = (
            fact or self.parameters_date_fact or (self.manifest.versions.date_fact if self.manifest.versions else None)
        )
        if not name or name not in values:
            return None
        raw = values[name]
        if hasattr(raw, "known"):  # a ValueInfo
            raw = raw.value if raw.known else None
        try:
            return raw if isinstance(raw, date) else date.fromisoformat(str(raw)) if raw else None
        except ValueError:
            return None

    def source(self, sid: str) -> LegalSource | None:
        return self.manifest.sources.get(sid)

    def computation_for(self, output: str) -> Computation | None:
        index = self.__dict__.get("_by_output")
        if index is None:
            index = {c.output: c for c in self.computations}
            self.__dict__["_by_output"] = index
        return index.get(output)

    def value_type(self, name: str) -> FactType | None:
        if name in self.facts:
            return self.facts[name].type
        comp = self.computation_for(name)
        return comp.type if comp else None

    def label_of(self, name: str) -> str:
        if name in self.facts:
            return self.facts[name].label
        comp = self.computation_for(name)
        if comp:
            return comp.label
        if name in self.parameters:
            return self.parameters[name].label
        spec = self.manifest.outcomes.get(name)
        return spec.label if spec else name


# --------------------------------------------------------------------------------------------- loading
def strip_lines(value: Any) -> Any:
    """A parsed YAML value without the loader's `__line__` keys (what the models validate)."""
    if isinstance(value, dict):
        return {k: strip_lines(v) for k, v in value.items() if k != "__line__"}
    if isinstance(value, list):
        return [strip_lines(v) for v in value]
    return value


def read_yaml(path: Path) -> Any:
    """Parse YAML with line numbers kept under `__line__` keys; syntax errors become PackError."""
    import yaml  # on the first pack read from its files, not by a process served from the pack cache

    from lexlogic.logic.yaml_lines import LineLoader

    try:
        return yaml.load(path.read_text(encoding="utf-8"), Loader=LineLoader)
    except yaml.YAMLError as exc:
        mark = getattr(exc, "problem_mark", None)
        raise PackError(path, mark.line + 1 if mark else None, f"invalid YAML: {getattr(exc, 'problem', exc)}") from exc
    except OSError as exc:
        raise PackError(path, None, f"cannot read: {exc.strerror}") from exc


def validation_error(path: Path, raw: Any, exc: ValidationError) -> PackError:
    """The first validation error at the line of the deepest node it names (`file:line: where: message`)."""
    err = exc.errors()[0]
    node: Any = raw
    line = raw.get("__line__") if isinstance(raw, dict) else None
    for key in err["loc"]:
        try:
            node = node[key]
        except (KeyError, IndexError, TypeError):
            break
        if isinstance(node, dict) and "__line__" in node:
            line = node["__line__"]
    where = ".".join(str(k) for k in err["loc"])
    return PackError(path, line, f"{where}: {err['msg']}")


def load_pack(root: Path | str) -> RulePack:
    """Read a pack folder. Raises PackError (file:line) on the first structural problem."""
    root = Path(root)
    manifest_path = root / "pack.yaml"
    if not manifest_path.exists():
        raise PackError(manifest_path, None, "missing pack manifest")
    raw = read_yaml(manifest_path)
    try:
        manifest = Manifest.model_validate(strip_lines(raw))
    except ValidationError as exc:
        raise validation_error(manifest_path, raw, exc) from exc

    facts_path = root / manifest.files.facts
    raw_facts = read_yaml(facts_path)
    facts: dict[str, FactSpec] = {}
    for name, spec in (raw_facts or {}).get("facts", {}).items():
        if name == "__line__":
            continue
        try:
            facts[name] = FactSpec.model_validate({**strip_lines(spec), "name": name})
        except ValidationError as exc:
            raise validation_error(facts_path, spec, exc) from exc

    computations: list[Computation] = []
    for rel in manifest.files.computations:
        path = root / rel
        raw_comps = read_yaml(path)
        for item in (raw_comps or {}).get("computations", []):
            try:
                comp = Computation.model_validate(strip_lines(item))
            except ValidationError as exc:
                raise validation_error(path, item, exc) from exc
            comp.line = item.get("__line__")
            comp.file = str(path)
            computations.append(comp)

    asp_sources: dict[str, str] = {}
    for rel in manifest.files.asp:
        path = root / rel
        if not path.exists():
            raise PackError(manifest_path, raw.get("__line__"), f"listed ASP file does not exist: {rel}")
        asp_sources[rel] = path.read_text(encoding="utf-8")
    weights = _weights(root, manifest.files.weights)
    pack = RulePack(
        root=root, manifest=manifest, facts=facts, computations=computations, asp_sources=asp_sources, weights=weights
    )
    _load_parameters(pack, raw, raw_facts)
    return pack


def _weights(root: Path, rel: str | None) -> WeightsFile | None:
    """The pack's weights, read with its other files: the pack cache keeps them with it, so a cold command
    reads no YAML (issue 33). None when the pack has none, or when they do not read: ``engine.prob`` reads
    the file again then, and reports why where it always has (at the verdict, not at the pack's load)."""
    if rel is None:
        return None
    try:
        return load_weights(root / rel)
    except WeightsError:
        return None


def files_read(pack: RulePack) -> list[Path]:
    """The files ``load_pack`` read (or looked for) to make ``pack``: keep in step with it. The pack cache
    on disk checks them, whatever their suffix, before serving a pack (``engine/packs/disk_cache``)."""
    files = pack.manifest.files
    rels = ["pack.yaml", files.facts, *files.computations, *files.asp, files.parameters or "parameters.yaml"]
    rels += [files.weights] if files.weights else []
    return [pack.root / rel for rel in rels]


def _load_parameters(pack: RulePack, raw_manifest: Any, raw_facts: Any) -> None:
    """Read parameters.yaml, turn ``{param: x}`` into inputs, write current values into the labels."""
    root = pack.root
    rel = pack.manifest.files.parameters or ("parameters.yaml" if (root / "parameters.yaml").exists() else None)
    refs: list[tuple[str, int, str]] = []
    if rel is not None:
        path = root / rel
        raw = read_yaml(path)
        try:
            pfile = ParameterFile.model_validate(strip_lines(raw) or {})
        except ValidationError as exc:
            raise validation_error(path, raw, exc) from exc
        for name, p in pfile.parameters.items():
            node = (raw or {}).get("parameters", {}).get(name, {})
            p.name, p.file, p.line = name, str(path), node.get("__line__", 0) if isinstance(node, dict) else 0
            for period, pnode in zip(p.values, node.get("values", []) if isinstance(node, dict) else []):
                period.line = pnode.get("__line__", 0) if isinstance(pnode, dict) else 0
        pack.parameters = pfile.parameters
        pack.parameters_date_fact = pfile.date_fact
        for p in pfile.parameters.values():  # a parameter's label may cite another
            refs += [(p.file, p.line, n) for n in params_mod.placeholders(p.label)]
    params = pack.parameters
    render = params_mod.render

    manifest_file = str(root / "pack.yaml")
    labels_only = {k: v for k, v in (raw_manifest or {}).items() if k not in ("remedy", "burden", "outcomes")}
    labels_only["outcomes"] = {  # outcome sentences are templates (checked by `lexlogic check` on their own)
        k: ({kk: vv for kk, vv in v.items() if kk in ("label", "__line__")} if isinstance(v, dict) else v)
        for k, v in ((raw_manifest or {}).get("outcomes") or {}).items()
    }
    refs += [(manifest_file, ln, n) for n, ln in _refs_in(labels_only)]
    refs += [(str(root / pack.manifest.files.facts), ln, n) for n, ln in _refs_in(raw_facts)]
    for comp in pack.computations:
        for n in sorted(params_mod.params_in_logic(comp.logic)):
            refs.append((comp.file, comp.line or 0, n))
        refs += [(comp.file, comp.line or 0, n) for n in params_mod.placeholders(comp.label)]
        comp.used_parameters = sorted(params_mod.params_in_logic(comp.logic))
        comp.logic = params_mod.params_as_vars(comp.logic, params)
        comp.label = render(comp.label, params)
        if comp.note:
            comp.note = render(comp.note, params)
    for rel_lp, text in pack.asp_sources.items():
        for i, line in enumerate(text.splitlines(), start=1):
            if line.lstrip().startswith("%@"):
                refs += [(str(root / rel_lp), i, n) for n in params_mod.placeholders(line)]
    for f in pack.facts.values():
        f.label = render(f.label, params)
        if f.question:
            f.question = render(f.question, params)
    for c in pack.manifest.checks:
        c.label = render(c.label, params)
    for ospec in pack.manifest.outcomes.values():
        ospec.label = render(ospec.label, params)
    if pack.manifest.versions is not None:
        for vtext in pack.manifest.versions.texts:
            vtext.reason = render(vtext.reason, params)
    # template slots that are case values (or the remedy's/burden's own slots) are not parameter references
    not_params = set(pack.facts) | {c.output for c in pack.computations} | TEMPLATE_SLOTS
    pack.parameter_refs = [r for r in refs if r[2] not in not_params]


TEMPLATE_SLOTS = frozenset({"low", "high", "amount", "missing", "party", "reason"})


def _refs_in(raw: Any, line: int = 0) -> list[tuple[str, int]]:
    """(parameter name, line) of every ``{name}`` / ``{param: name}`` in a raw YAML tree."""
    out: list[tuple[str, int]] = []
    if isinstance(raw, dict):
        line = raw.get("__line__", line)
        if set(raw) - {"__line__"} == {"param"}:
            out.append((str(raw["param"]), line))
            return out
        for k, v in raw.items():
            if k != "__line__":
                out += _refs_in(v, line)
    elif isinstance(raw, list):
        for v in raw:
            out += _refs_in(v, line)
    elif isinstance(raw, str):
        out += [(n, line) for n in params_mod.placeholders(raw)]
    return out


def find_packs(path: Path | str) -> list[Path]:
    """A pack folder itself, or every folder under `path` that holds a pack.yaml."""
    path = Path(path)
    if (path / "pack.yaml").exists():
        return [path]
    return sorted(p.parent for p in path.glob("*/pack.yaml"))
