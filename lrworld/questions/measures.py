"""The registry of LRWorld measures: every measure is declared once here.

File names, config validation, question builders and table columns all read this registry, so a
measure id means the same thing everywhere (issue "canonical measure ids").
"""

from __future__ import annotations

from dataclasses import dataclass

MCQ = "mcq"  # 4 options, accuracy (paper §4: Knowledgeability factors)
HIT10 = "hit10"  # 10 candidates, HitRatio@1 (paper §4: Association and Personalization)

N_CANDIDATES = {MCQ: 4, HIT10: 10}

DOMAINS = ("product", "movie", "lastfm")


@dataclass(frozen=True)
class Measure:
    id: str
    scale: str
    factor: str
    qtype: str
    # Item column that holds the answer value, for knowledge measures (None: the answer is an item/user).
    field: str | None = None
    # True once a question builder exists; config naming an unbuilt measure is rejected at start.
    built: bool = False

    @property
    def n_candidates(self) -> int:
        return N_CANDIDATES[self.qtype]

    @property
    def primary_metric(self) -> str:
        return "accuracy" if self.qtype == MCQ else "hit_ratio_at_1"


_ASSOC = "association"
_PERS = "personalization"
_KNOW = "knowledgeability"

_SHARED = (
    Measure("assoc_rule", _ASSOC, "association rules", HIT10, built=True),
    Measure("mem_item_item", _PERS, "memory item-item similarity", HIT10, built=True),
    Measure("mem_user_user", _PERS, "memory user-user similarity", HIT10, built=True),
    Measure("neu_item2users", _PERS, "neural item embedding -> users", HIT10, built=True),
    Measure("neu_user2items", _PERS, "neural user embedding -> items", HIT10, built=True),
)

REGISTRY: dict[str, tuple[Measure, ...]] = {
    "product": _SHARED
    + (
        Measure("kg_brand", _KNOW, "<product, brand>", MCQ, field="brand", built=True),
        Measure("attr_color", _KNOW, "<product, color>", MCQ, field="color", built=True),
        Measure("taxo_leaf", _KNOW, "taxonomy leaf", MCQ, field="category_leaf", built=True),
        Measure("taxo_interm", _KNOW, "taxonomy intermediate", MCQ, field="category_interm", built=True),
        Measure("taxo_root", _KNOW, "taxonomy root", MCQ, field="category_root", built=True),
        Measure("multimodal", _KNOW, "multimodal knowledge", MCQ, field="caption", built=True),
    ),
    "movie": _SHARED
    + (
        Measure("kg_cast", _KNOW, "<movie, cast>", MCQ, field="cast", built=True),
        Measure("kg_director", _KNOW, "<movie, director>", MCQ, field="director", built=True),
        Measure("attr_genre", _KNOW, "<movie, genre>", MCQ, field="genres", built=True),
        Measure("text_logline", _KNOW, "text knowledge (logline)", MCQ, field="plot", built=True),
        Measure("multimodal", _KNOW, "multimodal knowledge", MCQ, field="caption", built=True),
    ),
    "lastfm": (
        Measure("next_artist", _PERS, "<history, next-artist>", MCQ, built=True),
        Measure("attr_artist_genre", _KNOW, "<history, genre-of-next-artist>", MCQ, field="genres", built=True),
    ),
}


def measure_ids(domain: str) -> list[str]:
    return [m.id for m in REGISTRY[domain]]


def get(domain: str, measure_id: str) -> Measure:
    for m in REGISTRY[domain]:
        if m.id == measure_id:
            return m
    raise KeyError(f"measure {measure_id!r} is not defined for domain {domain!r}; known: {measure_ids(domain)}")


def all_measure_ids() -> list[str]:
    seen: dict[str, None] = {}
    for domain in DOMAINS:
        for m in REGISTRY[domain]:
            seen.setdefault(m.id)
    return list(seen)
