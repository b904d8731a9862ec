"""Hybrid evidence memory: BM25 over stemmed French + e5 (query:/passage:), fused by reciprocal rank.

A third, structured ranking joins the fusion when the dossier has one: the passages that date an event
the claim names ("mise en demeure", "assignation") and the table whose column it speaks of — the
sentences a derived fact (a duration, a sum) is computed from rarely resemble the claim.

Other people's wording: BM25 also reads paraphrase class keys (``lexicon``: « retrait » / « sortie » /
« déréférencement », « voie électronique » / « courriel ») on both sides, and a fact computed between two
events (« entre l'investissement et la rupture ») gets the best passage of each end into the top k.

Each passage is one sentence (``passages``) with its neighbours kept for the judge. Both sides are
normalised (numbers in words → digits, dates → one spelling) before indexing and querying, so the
lexical side meets "380 000 € HT" with "trois cent quatre-vingt mille euros hors taxes". Dense search
finds paraphrases; lexical search finds rare words and numbers the small e5 model blurs; RRF needs no
score calibration between the two. Vectors are cached per passage text, so a changed dossier only
embeds its new sentences.
"""

from __future__ import annotations

import hashlib
import json
import re
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING

import numpy as np

from lexlogic.bridges import embeddings
from lexlogic.bridges.text_index import TextIndex, reciprocal_rank_fusion
from lexlogic.bridges.vector_index import EXACT_BELOW, Backend, VectorIndex
from lexlogic.engine.claims.facets import _CANON as CANON
from lexlogic.engine.claims.judge_reading import INTERPRETIVE
from lexlogic.engine.claims.lexicon import class_keys
from lexlogic.engine.claims.models import Candidate, Memory
from lexlogic.engine.claims.normalise import MONTHS_FR, normalise
from lexlogic.engine.claims.passages import passages_of
from lexlogic.engine.claims.quantities import quantities
from lexlogic.engine.documents.model import Document
from lexlogic.engine.text.fold import fold
from lexlogic.engine.text.stopwords import SEARCH_STOPWORDS
from lexlogic.engine.text.terms import search_terms

FORMAT = 2
POOL = 50  # candidates taken from each ranking before fusion
RRF_K = 60
DENSE_WEIGHT = 1.0  # the e5 ranking's weight in the fusion (BM25's is 1)
STRUCTURED_WEIGHT = 2.0  # the dated-event / table channel: few passages, each one decisive when present
# what a passage records (for interpretive claims) and which interpretation asks for it
ACTS = {
    "agreement": re.compile(r"d'accord|accord\b|accept|confirm|approuv|consen"),
    "reason": re.compile(r"fait suite|compte tenu|en raison|suite a|a cause|motiv|parce qu|du fait"),
    "plan": re.compile(r"envisag|prevoy|intention|projet|sortie progressive|reorganisation"),
}
CLAIM_ACTS = {
    # what a party knew or was told is also shown by its own acts (its agreement to a proposal that said it)
    "agreement": re.compile(r"consent|accord|accept|approuv|acquiesc|agree|refus|savait|inform|connaiss|ignor"),
    "reason": re.compile(r"pretexte|motif|mobile|raison|cause|justifi|servi|punir|sanction|represaille|visai|but|fait"),
    "plan": re.compile(
        r"intention|savait|connaiss|volont|cherch|visai|prepar|projet|des (?:fevrier|janvier|le mois)|prevu|"
        r"decision|entend|echelon|retrait|sortie|avertissement|inform|toler"
    ),
}
# claims that are not interpretations but whose evidence is also an act of that kind (« a refusé »)
ACT_CLAIMS = re.compile(r"refus\w*|inform\w*|ignor\w*|averti\w*|arrete sa decision|sa decision")
# Legal notions a claim may name in words no clause uses (« s'était interdit de vendre à d'autres » for
# « n'est pas exclusif »): claim cue -> the passages that settle the notion, added as a ranking like the acts.
# These are notions of any contract (an exclusivity clause, a forum clause, where it was signed), not a pack's
# facts: the keys are the notions' French names.
CONCEPTS = {
    "exclusivite": (
        re.compile(r"exclusi|a d'autres \w+ que|qu'a |uniquement|qu'avec|interdi\w* de (?:vendre|commercialis)"),
        re.compile(r"exclusi|libre de commercialis|aupres de tiers"),
    ),
    "for": (
        re.compile(r"tribunal|juridiction|arbitr|differend|litige|contestation"),
        re.compile(r"tribunal|arbitr|differend|litige|juridiction"),
    ),
    "forme": (  # how a piece was sent or said (by e-mail, registered letter, telephone)
        re.compile(
            r"telephon|oralement|verbalement|de vive voix|par (?:un )?(?:simple )?(?:courriel|e-?mail|lettre|courrier|sms|fax|ecrit)"
            r"|voie electronique"
        ),
        re.compile(
            r"\b(?:notifi|inform|annonc|confirm|adress|envoy)\w*\s+par\s+(?:courriel|e-?mail|lettre|courrier|telephone|fax)"
        ),
    ),
    "signature": (
        re.compile(r"\bsigne\w* a |\bconclu\w* a |lieu de (?:signature|conclusion)"),
        re.compile(r"^fait a |\bfait a \w+, le"),
    ),
}
# a full date once normalised (« 9 octobre 2023 »), and a year standing alone (« en 2023 », « début 2024 »)
FULL_DATE = re.compile(r"\b(\d{1,2})(?:er)? (" + "|".join(MONTHS_FR) + r") ((?:19|20)\d\d)\b", re.I)
LONE_YEAR = re.compile(r"(?<![\w/])((?:19|20)\d\d)\b")
ACT_SHORT_BONUS = 0.05  # cosine added to a bare act passage in the act ranking
DATE_LINE = 8  # a passage of at most this many tokens carrying a date is the date line of its piece
TREND = re.compile(r"doubl|tripl|augment|hauss|progress|baiss|diminu|recul")
# a fact computed from two events (« quatre ans se sont écoulés entre l'investissement et la rupture », « prévenu
# par courriel avant de lui écrire par lettre ») needs the piece of each: each end is searched on its own
BETWEEN = re.compile(
    r"\bentre (?:l'|le |la |les )?(?P<a>.{6,}?) et (?:l'|le |la |les )?(?P<b>[^,;.]{6,})"
    r"|(?P<c>[^,;.]{6,}?) (?:avant|apres) (?:de |d'|que |qu')(?P<d>[^,;.]{6,})"
)
END_SLOTS = 2  # at most this many of the top k go to the ends' best passages
# a count of time units without a full date (« trois jours après le courriel », « trois mois pleins ») is computed
# from the dates of the pieces it speaks of: their date lines take the place of bare lines (a header, a title, a
# letterhead: at most DATE_LINE tokens, not a date line, not a table, one claim word at most) in the top k
DURATION = re.compile(r"\b\d+(?:[.,]\d+)? (?:jours?|semaines?|mois|ans|annees?)\b")  # a count of time units
DATE_TOP = 5  # the pieces of this many best passages
BIGRAMS = True  # adjacent content words as phrase tokens on both sides of BM25
_KEEP_IN_PHRASE = {"sans", "pas", "non", "aucun", "aucune", "jamais", "hors"}
LEXICON = True  # paraphrase class keys (``lexicon``) on both sides of BM25
LEXICON_SKIP: set[str] = set()

if TYPE_CHECKING:  # imported lazily at run time (a heavy module)
    from lexlogic.engine.claims.derived import DossierFacts


def _h(text: str) -> str:
    return hashlib.sha256(text.encode("utf-8")).hexdigest()[:24]


SHORT = 8  # a sentence with fewer stems than this is indexed with its heading ("C'est d'accord.")


# the ending of the relation is what every piece of a dispute speaks of: as a synonym key it would match
# them all (measured on the dev sets: it pushed a decision and an investment out of the top 10)
LEXICAL_CANON_SKIP = {"ruptur"}


def bigrams(text: str) -> str:
    """Adjacent content words as one token each (« sans préavis », « mise en demeure », « tacite
    reconduction »): a phrase weighs more than its words scattered in a passage."""
    words = [
        w for w in re.findall(r"\w+", fold(text)) if w in _KEEP_IN_PHRASE or (w not in SEARCH_STOPWORDS and len(w) > 2)
    ]
    stems = [w if w in _KEEP_IN_PHRASE else (search_terms(w) or (w,))[0] for w in words]
    return " ".join(f"zb{a}x{b}" for a, b in zip(stems, stems[1:]))


def canon_words(text: str) -> str:
    """``text`` with the dossier synonyms' common key appended once per group (« délai de prévenance » and
    « préavis », « a rompu » and « résiliation »), and the key of each paraphrase class of ``lexicon`` it
    uses (« retirés des rayons » and « sortie de vos références », « voie électronique » and « courriel »),
    on both sides of BM25 so a claim meets a passage that names the same thing in other words."""
    f = fold(text)
    words = re.findall(r"\w+", f)
    keys = [
        key
        for variants, key in CANON
        if key not in LEXICAL_CANON_SKIP
        if any((v in f) if " " in v else any(w.startswith(v) for w in words) for v in variants)
    ]
    if LEXICON:
        keys += [k for k in class_keys(f) if k not in LEXICON_SKIP]
    return f"{text} {' '.join(keys)}" if keys else text


def lexical_form(text: str) -> str:
    """What BM25 reads of a sentence or a claim: its words, the synonym and paraphrase class keys
    (``canon_words``), and its phrases (``bigrams``)."""
    return f"{canon_words(text)} {bigrams(text)}" if BIGRAMS else canon_words(text)


def lexical_text(m: Memory) -> str:
    """BM25 reads the sentence alone, under its heading only when short (a heading on every line would make
    the whole e-mail match its subject)."""
    if m.grounding.note == "table":
        return normalise(f"{m.context}\n{m.text}")
    short = m.heading and 1 <= len(search_terms(m.text)) < SHORT
    return lexical_form(normalise(f"{m.heading} : {m.text}" if short else m.text))


def index_text(m: Memory) -> str:
    """What is indexed for a passage: its normalised sentence under its section heading (a table: with its
    header), so "Le présent contrat n'est pas exclusif" is found under "Absence d'exclusivité"."""
    if m.grounding.note == "table":
        return normalise(f"{m.context}\n{m.text}")
    return normalise(f"{m.heading} : {m.text}" if m.heading else m.text)


class HybridMemory:
    """Passages + vectors + BM25; ``search`` gives fused candidates (similarity = e5 cosine)."""

    def __init__(
        self,
        memories: list[Memory],
        vectors: np.ndarray,
        *,
        documents: Sequence[Document] = (),
        backend: Backend = "auto",
        exact_below: int = EXACT_BELOW,
        index: VectorIndex | None = None,
    ) -> None:
        if len(memories) != len(vectors):
            raise ValueError(f"{len(memories)} memories but {len(vectors)} vectors")
        self.memories = memories
        self.documents = list(documents)
        self.vectors = vectors if len(vectors) else np.zeros((0, embeddings.DIM), np.float32)
        self.index = index or VectorIndex(self.vectors, backend=backend, exact_below=exact_below)
        self.lexical = TextIndex([lexical_text(m) for m in memories], search_terms)
        self._query_cache: dict[str, np.ndarray] = {}
        self._facts: DossierFacts | None = None
        self.position = {m.id: i for i, m in enumerate(memories)}
        self._act_index: dict[str, list[int]] | None = None
        self.by_id = {m.id: m for m in memories}

    def __len__(self) -> int:
        return len(self.memories)

    @property
    def facts(self):  # type: ignore[no-untyped-def]
        """Dossier-level facts (tables, dated events) the judge derives durations and sums from."""
        if self._facts is None:
            from lexlogic.engine.claims.derived import DossierFacts

            self._facts = DossierFacts.of(self.documents, self.memories)
        return self._facts

    # --- building and persistence ----------------------------------------------------------------
    @classmethod
    def build(
        cls,
        documents: Sequence[Document],
        *,
        backend: Backend = "auto",
        reuse: dict[str, np.ndarray] | None = None,
    ) -> HybridMemory:
        memories = passages_of(documents)
        texts = [index_text(m) for m in memories]
        reuse = reuse or {}
        todo = [i for i, t in enumerate(texts) if _h(t) not in reuse]
        fresh = embeddings.embed_passages([texts[i] for i in todo])
        vectors = np.zeros((len(memories), embeddings.DIM), dtype=np.float32)
        for row, i in enumerate(todo):
            vectors[i] = fresh[row]
        for i, t in enumerate(texts):
            if _h(t) in reuse:
                vectors[i] = reuse[_h(t)]
        return cls(memories, vectors, documents=documents, backend=backend)

    @classmethod
    def open(cls, directory: str | Path, documents: Sequence[Document], *, backend: Backend = "auto") -> HybridMemory:
        """Reuse the vectors saved in ``directory`` for unchanged passage texts; embed the rest; save."""
        d = Path(directory)
        store = d / "passages.json"
        reuse: dict[str, np.ndarray] = {}
        try:
            meta = json.loads(store.read_text(encoding="utf-8"))
            vecs = np.load(d / "passage_vectors.npy")
            if meta.get("format") == FORMAT and len(meta["hashes"]) == len(vecs):
                reuse = dict(zip(meta["hashes"], vecs))
        except (OSError, ValueError, KeyError):
            reuse = {}  # absent or damaged: rebuilt, never trusted
        mem = cls.build(documents, backend=backend, reuse=reuse)
        hashes = [_h(index_text(m)) for m in mem.memories]
        if set(hashes) - set(reuse):
            d.mkdir(parents=True, exist_ok=True)
            np.save(d / "passage_vectors.tmp.npy", mem.vectors)
            (d / "passage_vectors.tmp.npy").replace(d / "passage_vectors.npy")
            tmp = d / "passages.json.tmp"
            tmp.write_text(json.dumps({"format": FORMAT, "hashes": hashes}), encoding="utf-8")
            tmp.replace(store)
        return mem

    # --- search ------------------------------------------------------------------------------------
    def embed_claim(self, claim: str) -> np.ndarray:
        vec = self._query_cache.get(claim)
        if vec is None:
            vec = embeddings.embed_query(normalise(claim))
            if len(self._query_cache) > 4096:
                self._query_cache.clear()
            self._query_cache[claim] = vec
        return vec

    def prime(self, claims: list[str], vectors: np.ndarray | None = None) -> None:
        """Embed several claims in one batch (or take given query vectors) ahead of their searches."""
        if vectors is not None:
            self._query_cache.update(zip(claims, vectors))
            return
        ends = [e for c in claims for e in self._ends(c)[:END_SLOTS]]  # searched on their own too
        todo = [c for c in dict.fromkeys([*claims, *ends]) if c not in self._query_cache]
        if todo:
            self._query_cache.update(zip(todo, embeddings.embed_queries([normalise(c) for c in todo])))

    def _dense_keep(self) -> list[bool]:
        """Passages the dense ranking may return: not a bare letterhead or name (« DISTRIMARCHÉ SA »: three
        words or fewer), and one copy of a text repeated across pieces. Their vectors sit close to any claim
        naming the parties and used to fill the top 10; they stay findable by words (BM25)."""
        keep = self.__dict__.get("_keep")
        if keep is None or len(keep) != len(self.memories):
            seen: set[str] = set()
            keep = []
            for m in self.memories:
                key = " ".join(fold(normalise(m.text)).split())
                keep.append(len(key.split()) > 3 and key not in seen)
                seen.add(key)
            self.__dict__["_keep"] = keep
        return keep

    def _acts_for(self, claim: str) -> list[int]:
        """An interpretive claim (consent, motive, intent, knowledge) is judged on the passages that record
        the act it interprets: an agreement, a stated reason, a plan. They rarely resemble the claim."""
        f = fold(normalise(claim))
        if not INTERPRETIVE.search(f) and not ACT_CLAIMS.search(f):
            return []
        if self._act_index is None:
            self._act_index = {
                kind: [i for i, m in enumerate(self.memories) if rx.search(fold(m.text))] for kind, rx in ACTS.items()
            }
        out: list[int] = []
        for kind, rx in CLAIM_ACTS.items():
            if rx.search(f):
                out.extend(self._act_index.get(kind, []))
        return list(dict.fromkeys(out))

    def _is_bare(self, i: int) -> bool:
        """A passage that is the act and nothing else (« C'est d'accord. »): its vector says little, so
        the similarity to the claim under-ranks it among the passages recording an act."""
        bare = self.__dict__.setdefault("_bare", {})
        if i not in bare:
            bare[i] = len(search_terms(normalise(self.memories[i].text))) < SHORT
        return bool(bare[i])

    def _date_lines(self, claim: str) -> list[int]:
        """A claim naming a piece by its date (« par courrier recommandé du 9 octobre 2023 ») reads that
        piece's date line (« Lyon, le 9 octobre 2023 », « Date: 15 mars 2024 »): a short passage sharing
        none of the claim's other words, so neither ranking finds it."""
        dates = [(int(d), mo.lower(), y) for d, mo, y in FULL_DATE.findall(normalise(claim))]
        if not dates:
            return []
        index = self.__dict__.get("_date_index")
        if index is None:
            index = {}
            for i, m in enumerate(self.memories):
                t = normalise(m.text)
                if m.grounding.note != "table" and len(search_terms(t)) <= DATE_LINE:
                    for d, mo, y in FULL_DATE.findall(t):
                        index.setdefault((int(d), mo.lower(), y), []).append(i)
            self.__dict__["_date_index"] = index
        return list(dict.fromkeys(i for key in dates for i in index.get(key, [])))

    def _tables_for(self, claim: str) -> list[int]:
        """A claim speaking of a table's column (« le rythme de ses commandes ») or of a year the table
        has a row for, named alone (« les retards de 2023 », « début 2024 »), reads the table."""
        tables = self.__dict__.get("_table_keys")
        if tables is None:
            tables = []
            for i, m in enumerate(self.memories):
                if m.grounding.note == "table":
                    head = {w for w in search_terms(normalise(m.context)) if len(w) >= 4 and not w.isdigit()}
                    years = set(re.findall(r"^((?:19|20)\d\d)\b", m.text, re.M))
                    tables.append((i, head, years))
            self.__dict__["_table_keys"] = tables
        if not tables:
            return []
        t = normalise(claim)
        words = set(search_terms(t))
        years = set(LONE_YEAR.findall(FULL_DATE.sub(" ", t)))
        return [i for i, head, ys in tables if words & head or years & ys]

    def _ends(self, claim: str) -> list[str]:
        """The two events a computed claim measures between (``BETWEEN``), each with a word (not a range of years)."""
        m = BETWEEN.search(fold(normalise(claim)))
        if not m:
            return []
        ends = [e for e in m.groups() if e]
        return ends if all(any(not t.isdigit() for t in search_terms(e)) for e in ends) else []

    def _with_piece_dates(
        self, claim: str, fused: list[tuple[int, float]], lex: dict[int, float]
    ) -> list[tuple[int, float]]:
        """A duration claim (``DURATION``) reads the dates of the pieces its best passages come from: each
        piece's own date line (its latest date) takes the place of a bare line of the top k, from the bottom."""
        n = normalise(claim)
        if not DATE_TOP or FULL_DATE.search(n) or not DURATION.search(fold(n)):
            return fused
        top = [i for i, _ in fused]
        self._date_lines("1 janvier 2000")  # builds the date index
        dated_lines = {i for v in self.__dict__["_date_index"].values() for i in v}
        said = set(search_terms(n))
        bare = [
            j
            for j, i in enumerate(top)
            if i not in dated_lines
            and self.memories[i].grounding.note != "table"
            and len(words := search_terms(normalise(self.memories[i].text))) <= DATE_LINE
            and len(said.intersection(words)) < 2  # a signature the claim names (« signée de la directrice »)
        ]
        if not bare:
            return fused
        self._date_lines("1 janvier 2000")  # builds the date index
        by_doc = self.__dict__.get("_date_by_doc")
        if by_doc is None:  # a piece's own date is its latest (« Objet : résiliation du contrat du 4 mars 2013 »)
            dated: dict[str, list[tuple[tuple[int, int, int], int]]] = {}
            for (day, month, year), found in self.__dict__["_date_index"].items():
                for i in found:
                    dated.setdefault(self.memories[i].document_id, []).append(
                        ((int(year), MONTHS_FR.index(month), day), i)
                    )
            by_doc = {d: max(v)[1] for d, v in dated.items()}
            self.__dict__["_date_by_doc"] = by_doc
        lines: list[int] = []
        for i in top[:DATE_TOP]:
            line = by_doc.get(self.memories[i].document_id)
            if line is not None and line not in top and line not in lines:
                lines.append(line)
        out = list(fused)
        for j, line in zip(reversed(bare), lines):
            out[j] = (line, out[j][1])
        return out

    def _with_ends(self, claim: str, fused: list[tuple[int, float]], k: int, pool: int) -> list[tuple[int, float]]:
        """Each end of a computed claim gets its best passage (BM25 and e5 on that clause alone, fused) into
        the top ``k`` if it is not there yet, in place of the last ones."""
        ends = self._ends(claim)[:END_SLOTS]
        if not ends:
            return fused[:k]
        keep = self._dense_keep()
        top = [i for i, _ in fused[:k]]
        extra: list[int] = []
        for end in ends:
            ids, _ = self.index.search(self.embed_claim(end)[None, :], pool)
            dense = [int(i) for i in ids[0] if i >= 0 and keep[int(i)]]
            lexical = [int(i) for i in self.lexical.search(lexical_form(end), pool)[0]]
            best = reciprocal_rank_fusion([dense, lexical], k=RRF_K)
            if best and best[0][0] not in top and best[0][0] not in extra:
                extra.append(best[0][0])
        if not extra:
            return fused[:k]
        score = dict(fused)
        head = [i for i in top if i not in extra][: k - len(extra)]
        return [(i, score.get(i, 0.0)) for i in head + extra]

    def search(self, claim: str, k: int = 10, vector: np.ndarray | None = None) -> list[Candidate]:
        """Top-``k`` passages by RRF of the dense and the lexical rankings, best first."""
        if not self.memories or k <= 0:
            return []
        q = self.embed_claim(claim) if vector is None else vector
        pool = min(POOL, len(self.memories))
        ids, sims = self.index.search(q[None, :], pool)
        keep = self._dense_keep()
        dense = [int(i) for i in ids[0] if i >= 0 and keep[int(i)]]
        lex_ids, lex_scores = self.lexical.search(lexical_form(normalise(claim)), pool)
        lexical = [int(i) for i in lex_ids]
        rankings, weights = [dense, lexical], [DENSE_WEIGHT, 1.0]
        if self.documents and (
            quantities(claim) or (TREND.search(fold(claim)) and re.search(r"\b(19|20)\d\d\b", claim))
        ):
            structured = [self.position[pid] for pid in self.facts.passages_for(claim) if pid in self.position]
            if structured:
                rankings.append(structured[:4])
                weights.append(STRUCTURED_WEIGHT)
        f = fold(normalise(claim))
        for name, (claim_cue, passage_cue) in CONCEPTS.items():
            if claim_cue.search(f):
                index = self.__dict__.setdefault("_concept_index", {})
                if name not in index:  # once per memory: which passages settle the notion
                    index[name] = [i for i, m in enumerate(self.memories) if passage_cue.search(fold(m.text))]
                hits = index[name]
                if hits:
                    sims_c = self.vectors[hits] @ q
                    rankings.append([hits[i] for i in np.argsort(-sims_c)[:3]])
                    weights.append(STRUCTURED_WEIGHT)
        dated = self._date_lines(claim)
        if dated:
            rankings.append(dated)
            weights.append(STRUCTURED_WEIGHT)
        tables = self._tables_for(claim)
        if tables:
            rankings.append(tables)
            weights.append(STRUCTURED_WEIGHT)
        acts = self._acts_for(claim)
        if acts:
            sims_all = self.vectors[acts] @ q + ACT_SHORT_BONUS * np.array([self._is_bare(i) for i in acts])
            rankings.append([acts[i] for i in np.argsort(-sims_all)[:6]])
            weights.append(STRUCTURED_WEIGHT)
        fused = self._with_ends(claim, reciprocal_rank_fusion(rankings, k=RRF_K, weights=weights), k, pool)
        lex = {int(i): float(s) for i, s in zip(lex_ids, lex_scores)}
        fused = self._with_piece_dates(claim, fused, lex)
        dense_sim = {int(i): float(s) for i, s in zip(ids[0], sims[0]) if i >= 0}
        lex = {int(i): float(s) for i, s in zip(lex_ids, lex_scores)}
        out = []
        for i, score in fused:
            sim = dense_sim.get(i)
            if sim is None:
                sim = float(self.vectors[i] @ q)
            out.append(Candidate(memory=self.memories[i], similarity=sim, lexical=lex.get(i, 0.0), fused=score))
        return out
