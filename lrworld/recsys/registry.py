"""The traditional recommenders a track can train, by name: the config schema's
`srbench.baselines` keys and the training job read this registry.

An entry names its factory as a `"module:attr"` reference, imported only by the job that trains it
(planning reads names and schemas, never torch). The built-in ones are listed here; a new one is one
module in this package that declares itself with a literal, read without importing it::

    RECOMMENDER = {"name": "mine", "make": "Mine", "schema": {"max_epochs": {"type": "integer", "default": 5}}}

`make` (an attribute of that module) is called as `make(name, **settings)` with the entry's
settings (schema defaults filled) and returns a recommender: `fit(data, seed, log) -> Training`
and `recommend(users, histories, k) -> [[item, ...], ...]` (lrworld/tracks/srbench/runner.py).
"""

from __future__ import annotations

from dataclasses import dataclass, field

from lrworld.core import plugins
from lrworld.core.registry import Registry, declaration, declarations, resolve


@dataclass(frozen=True)
class RecommenderEntry:
    name: str
    make: str  # "module:attr" of the factory
    # the JSON schema of its settings: properties with defaults, or a $ref to the config schema's definitions
    schema: dict = field(default_factory=dict)

    def settings_schema(self) -> dict:
        if "$ref" in self.schema:
            return self.schema
        return {"type": "object", "additionalProperties": False, "properties": self.schema}

    def build(self, spec: dict):
        return resolve(self.make)(self.name, **spec)


_RUNNER = "lrworld.tracks.srbench.runner"
BUILT_IN = (
    RecommenderEntry("popularity", f"{_RUNNER}:Popularity"),
    RecommenderEntry("ncf", f"{_RUNNER}:CFRecommender", {"$ref": "#/definitions/sr_ncf"}),
    RecommenderEntry("ngcf", f"{_RUNNER}:CFRecommender", {"$ref": "#/definitions/sr_graph"}),
    RecommenderEntry("lightgcn", f"{_RUNNER}:CFRecommender", {"$ref": "#/definitions/sr_graph"}),
    RecommenderEntry("caser", f"{_RUNNER}:SequentialRecommender", {"$ref": "#/definitions/sr_caser"}),
    RecommenderEntry("gru4rec", f"{_RUNNER}:SequentialRecommender", {"$ref": "#/definitions/sr_gru4rec"}),
    RecommenderEntry("sasrec", f"{_RUNNER}:SequentialRecommender", {"$ref": "#/definitions/sr_sasrec"}),
)

_REGISTRY: Registry[RecommenderEntry] | None = None


def recommenders() -> Registry[RecommenderEntry]:
    """The built-in entries, every module of this package that declares one, and every installed
    plugin's (entry points `lrworld.recommenders`)."""
    global _REGISTRY
    if _REGISTRY is None:
        reg: Registry[RecommenderEntry] = Registry("recommender")
        for entry in BUILT_IN:
            reg.add(entry.name, entry)
        found = declarations("lrworld.recsys", "RECOMMENDER")
        for ep in plugins.points("lrworld.recommenders"):  # an installed package's own, read the same way
            try:
                found[ep.module] = declaration(ep.module, "RECOMMENDER")
            except (ValueError, ImportError) as exc:
                raise plugins.PluginError(f"{plugins.where(ep)}: {exc}") from None
        for module, d in found.items():
            if not isinstance(d, dict) or not isinstance(d.get("name"), str) or not isinstance(d.get("make"), str):
                raise ValueError(f"{module}: RECOMMENDER needs a 'name' and a 'make' (strings)")
            reg.add(d["name"], RecommenderEntry(d["name"], d["make"], d.get("schema", {})))
        _REGISTRY = reg
    return _REGISTRY
