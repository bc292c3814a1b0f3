"""The registry of LRWorld measures: every measure is declared once here, as data (as
lm-evaluation-harness declares a task in YAML).

An entry says everything the graph needs: the domains it applies to, its scale and factor (the
table's column groups), its question type (MCQ-4 or HitRate@1 over 10 candidates), the item field
its answer comes from, the question builder that makes it, the ground-truth artifact it reads
(lrworld/groundtruth/artifacts.py: the rules, the questions' inputs and the provenance chain follow
from it) and how an answer value is taken from a multi-valued field. Config validation, wildcard
constraints, rule inputs and table columns all read this list. A new measure is one entry here, its
templates (`lrworld/templates/<domain>/<id>/<variant>.txt`) and its tests (docs/extending.md).
"""

from __future__ import annotations

import importlib
from dataclasses import dataclass
from pathlib import Path

from lrworld.core import plugins
from lrworld.core.registry import Registry
from lrworld.prompts.render import PLUGIN_TEMPLATES

MCQ = "mcq"  # 4 options, accuracy (paper §4: Knowledgeability factors)
HIT10 = "hit10"  # 10 candidates, HitRate@1 (paper §4: Association and Personalization)

N_CANDIDATES = {MCQ: 4, HIT10: 10}

DOMAINS = ("product", "movie", "lastfm")

# A measure's question builder is a "module:attr" reference to its function (lrworld/questions/builders.py):
# the knowledge builders of lrworld/questions/knowledge.py, the ground-truth ones of
# lrworld/groundtruth/questions.py, or an extension's own.
_KNOWLEDGE, _GT = "lrworld.questions.knowledge", "lrworld.groundtruth.questions"
FIELD_VALUES, ITEM_TEXT, ITEM_TITLE = (f"{_KNOWLEDGE}:field_values", f"{_KNOWLEDGE}:item_text",
                                       f"{_KNOWLEDGE}:item_title")


# How the audit re-derives a HitRate@1 gold from the measure's artifact (lrworld/audit/golds.py):
# TABLE: a table of (target, candidate, is_answer, score) rows: the question's candidates and answer
# are the artifact's for its target and the answer is the strict argmax of the score; RULE: a mined
# association rule A -> {c} (the consequent, its support and confidence, no negative a consequent).
TABLE, RULE = "table", "rule"
# What a TABLE gold is recomputed from besides the artifact: INTERACTIONS, the cosine of one-hot
# sets; EMBEDDINGS, the GMF cosines under every NeuMF training (from the saved weights).
INTERACTIONS, EMBEDDINGS = "interactions", "embeddings"


@dataclass(frozen=True)
class Gold:
    """How a ground-truth measure's gold is recomputed from its artifact: the audit reads this, so
    no measure with an artifact is registered without its gold check."""
    recipe: str  # TABLE or RULE
    target: str = "item"  # the question's subject: its context names `target_<target>`
    candidate: str = "item"  # what its candidates are
    score: str | None = None  # the artifact's (and the question's evidence's) score column (TABLE)
    recompute: str | None = None  # INTERACTIONS or EMBEDDINGS: recomputed here, not read (TABLE)


DERIVED = "derived"


def derived_profile(gold: Gold | None) -> str | None:
    """The profile a measure's prompt shows, from how its questions are built: the asking user's
    window (a knowledge measure, a user target), the rule's antecedents, the candidate users'
    items (an item target), or none (an item target among items)."""
    if gold is None:
        return "history"
    if gold.recipe == RULE:
        return "antecedents"
    if gold.target == "user":
        return "history"
    return "candidate_histories" if gold.candidate == "user" else None


@dataclass(frozen=True)
class Measure:
    id: str
    domains: tuple[str, ...]
    scale: str
    factor: str
    qtype: str
    builder: str
    # Item column that holds the answer value, for knowledge measures (None: the answer is an item/user).
    field: str | None = None
    # The ground-truth artifact the answers come from (None: built from the data at question time).
    artifact: str | None = None
    # How the answer is taken from a multi-valued field: the main director or lead actor is the
    # first listed; MovieLens lists genres alphabetically, with no primary genre, so one is drawn.
    answer_policy: str = "first"
    # What the question rule needs besides the data (the captions of the multimodal measure).
    needs: tuple[str, ...] = ()
    # The user profile its prompt shows, which the `noisy` variant corrupts: "history" (the asking
    # user's items, on the question or its context), "antecedents" (the rule's items the users
    # chose), "candidate_histories" (each candidate user's recent items); None: the prompt shows no
    # profile (one target item), so `noisy` is refused at start. Left out, it follows from `gold`
    # (`derived_profile`).
    profile: str | None = DERIVED
    # How the audit recomputes the gold from `artifact` (required with an artifact).
    gold: Gold | None = None
    # The shortcut signals (lrworld/models/shortcut.py SIGNALS) that read the very knowledge this
    # measure tests off its prompt: a shortcut reading only these is scored, never a finding
    # (docs/audit.md, "A measure's own signal").
    own_signals: tuple[str, ...] = ()

    def __post_init__(self):
        if self.profile == DERIVED:
            object.__setattr__(self, "profile", derived_profile(self.gold))

    @property
    def n_candidates(self) -> int:
        return N_CANDIDATES[self.qtype]

    @property
    def primary_metric(self) -> str:
        return "accuracy" if self.qtype == MCQ else "hit_ratio_at_1"


_ASSOC, _PERS, _KNOW = "association", "personalization", "knowledgeability"
_PM = ("product", "movie")

# In the paper's column order (its Table 3): a domain's measures are the entries naming it, in order.
MEASURES: tuple[Measure, ...] = (
    Measure("assoc_rule", _PM, _ASSOC, "association rules", HIT10, f"{_GT}:build_assoc_rule_questions", artifact="rules",
            gold=Gold(RULE)),
    Measure("mem_item_item", _PM, _PERS, "memory item-item similarity", HIT10, f"{_GT}:build_mem_item_item_questions",
            artifact="item_similar_pairs", gold=Gold(TABLE, "item", "item", "similarity", INTERACTIONS)),
    Measure("mem_user_user", _PM, _PERS, "memory user-user similarity", HIT10, f"{_GT}:build_mem_user_user_questions",
            artifact="user_similar_pairs", gold=Gold(TABLE, "user", "user", "similarity", INTERACTIONS),
            # the candidates' histories against the user's: the items they share are the similarity asked
            own_signals=("history_overlap",)),
    Measure("neu_item2users", _PM, _PERS, "neural item embedding -> users", HIT10, f"{_GT}:build_neu_item2users_questions",
            artifact="prototypes", gold=Gold(TABLE, "item", "user", "cosine", EMBEDDINGS)),
    Measure("neu_user2items", _PM, _PERS, "neural user embedding -> items", HIT10, f"{_GT}:build_neu_user2items_questions",
            artifact="prototypes", gold=Gold(TABLE, "user", "item", "cosine", EMBEDDINGS)),
    Measure("kg_brand", ("product",), _KNOW, "<product, brand>", MCQ, FIELD_VALUES, field="brand"),
    Measure("attr_color", ("product",), _KNOW, "<product, color>", MCQ, FIELD_VALUES, field="color"),
    Measure("taxo_leaf", ("product",), _KNOW, "taxonomy leaf", MCQ, FIELD_VALUES, field="category_leaf"),
    Measure("taxo_interm", ("product",), _KNOW, "taxonomy intermediate", MCQ, FIELD_VALUES, field="category_interm"),
    Measure("taxo_root", ("product",), _KNOW, "taxonomy root", MCQ, FIELD_VALUES, field="category_root"),
    Measure("kg_cast", ("movie",), _KNOW, "<movie, cast>", MCQ, FIELD_VALUES, field="cast"),
    Measure("kg_director", ("movie",), _KNOW, "<movie, director>", MCQ, FIELD_VALUES, field="director"),
    Measure("attr_genre", ("movie",), _KNOW, "<movie, genre>", MCQ, FIELD_VALUES, field="genres",
            answer_policy="random"),
    Measure("text_logline", ("movie",), _KNOW, "text knowledge (logline)", MCQ, ITEM_TEXT, field="plot"),
    Measure("multimodal", _PM, _KNOW, "multimodal knowledge", MCQ, ITEM_TEXT, field="caption", needs=("captions",)),
    Measure("next_artist", ("lastfm",), _PERS, "<history, next-artist>", MCQ, ITEM_TITLE),
    Measure("attr_artist_genre", ("lastfm",), _KNOW, "<history, genre-of-next-artist>", MCQ, FIELD_VALUES,
            field="genres", answer_policy="random"),
)


def _plugin_measures() -> tuple[Measure, ...]:
    """The measures of the installed plugins (entry points `lrworld.measures`, "module:attr" naming a
    tuple of Measure), after the built-in ones; a plugin module's TEMPLATES folder holds their
    templates as lrworld/templates does."""
    out: list[Measure] = []
    for ep in plugins.points("lrworld.measures"):
        found = tuple(plugins.load(ep))
        if not all(isinstance(m, Measure) for m in found):
            raise plugins.PluginError(f"{plugins.where(ep)}: not a tuple of Measure")
        folder = getattr(importlib.import_module(ep.module), "TEMPLATES", None)
        for m in found:
            if folder is not None:
                PLUGIN_TEMPLATES[m.id] = Path(folder)
        out += found
    return tuple(out)


MEASURES += _plugin_measures()

# The registry (lookups by id, with the known ids in the error); MEASURES keeps the column order.
REGISTRY: Registry[Measure] = Registry("measure")


def check_gold(m: Measure) -> Measure:
    """A measure with an artifact declares how its gold is recomputed, with a recipe the audit knows."""
    if m.artifact and (m.gold is None or m.gold.recipe not in (TABLE, RULE)
                       or (m.gold.recipe == TABLE and not m.gold.score)):
        raise ValueError(f"measure {m.id!r}: its answers come from artifact {m.artifact!r}, so it declares how the "
                         f"audit recomputes them: gold=Gold({TABLE!r}, target, candidate, score column) or "
                         f"gold=Gold({RULE!r}) (lrworld/questions/measures.py)")
    return m


for _m in MEASURES:
    REGISTRY.add(_m.id, check_gold(_m))


def for_domain(domain: str) -> list[Measure]:
    return [m for m in MEASURES if domain in m.domains]


def measure_ids(domain: str) -> list[str]:
    return [m.id for m in for_domain(domain)]


def get(domain: str, measure_id: str) -> Measure:
    for m in for_domain(domain):
        if m.id == measure_id:
            return m
    raise KeyError(f"measure {measure_id!r} is not defined for domain {domain!r}; known: {measure_ids(domain)}")


def by_id(measure_id: str) -> Measure:
    """A measure whatever its domain (an id means the same thing in every domain)."""
    return REGISTRY.get(measure_id)


def ground_truth() -> dict[str, str]:
    """{measure id: the artifact its answers come from}, for the measures that have one."""
    return {m.id: m.artifact for m in MEASURES if m.artifact}
