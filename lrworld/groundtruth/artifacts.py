"""The ground-truth artifacts: each a file one rule makes from the dataset, named once here, so
the rules, the questions' inputs and the provenance chain all read the same map (a registry:
`REGISTRY`).

An artifact with its own config section has its own rule (rules/groundtruth.smk). One computed
from the interactions alone names its function instead, `make="module:attr"`, called by the one
`gt_artifact` rule as `make(interactions, n_questions, seed, dataset) -> DataFrame` and imported
only by that job; its file is `results/gt/{dataset}/<name>.parquet`.
"""

from __future__ import annotations

from dataclasses import dataclass

from lrworld.core import plugins
from lrworld.core.registry import Registry, resolve

MADE = "gt_artifact"  # the rule of the artifacts that name their function


@dataclass(frozen=True)
class Artifact:
    path: str  # with {dataset}
    rule: str = MADE  # the rule that makes it (rules/groundtruth.smk)
    needs: tuple[str, ...] = ()  # artifacts it is computed from (besides the interactions)
    made_with: tuple[str, ...] = ()  # artifacts the same job writes (the model behind embeddings)
    make: str | None = None  # "module:attr" of its function, for the `gt_artifact` rule
    # "module:attr" reading a file that is not a table into the table the audit checks (the NeuMF
    # weights into the embeddings they hold); None: the file is parquet
    reader: str | None = None


def _add(name: str, artifact: Artifact) -> None:
    if (artifact.make is None) != (artifact.rule != MADE) or (
            artifact.make and artifact.path != f"results/gt/{{dataset}}/{name}.parquet"):
        raise ValueError(f"ground-truth artifact {name!r}: name a make function (its file results/gt/"
                         f"{{dataset}}/{name}.parquet) or a rule of its own, not both")
    REGISTRY.add(name, artifact)
    ARTIFACTS[name] = artifact


ARTIFACTS = {
    "rules": Artifact("results/gt/{dataset}/rules.parquet", "assoc_rules"),
    "item_similar_pairs": Artifact("results/gt/{dataset}/item_similar_pairs.parquet", "similar_pairs"),
    "user_similar_pairs": Artifact("results/gt/{dataset}/user_similar_pairs.parquet", "similar_pairs"),
    "neumf": Artifact("results/gt/{dataset}/neumf.pt", "neumf", reader="lrworld.groundtruth.neumf:weights_frame"),
    "embeddings": Artifact("results/gt/{dataset}/embeddings.parquet", "neumf", made_with=("neumf",)),
    "prototypes": Artifact("results/gt/{dataset}/prototypes.parquet", "prototypes", needs=("embeddings",)),
}


REGISTRY: Registry[Artifact] = Registry("ground-truth artifact")
for _name, _artifact in list(ARTIFACTS.items()):
    _add(_name, _artifact)
for _ep in plugins.points("lrworld.artifacts"):  # an installed package's own: {name: Artifact}
    for _name, _artifact in dict(plugins.load(_ep)).items():
        _add(_name, _artifact)


def made() -> dict[str, str]:
    """{artifact: its function's "module:attr"} of the artifacts the `gt_artifact` rule makes."""
    return {name: a.make for name, a in REGISTRY.items() if a.make}


def rules() -> list[str]:
    """The rules that make the artifacts, each once, in the registry's order: the provenance
    chain's ground-truth part (`Plan.CHAIN_RULES`), so a new artifact's rule is in every record."""
    return list(dict.fromkeys(a.rule for a in ARTIFACTS.values()))


def chain(name: str) -> list[str]:
    """The artifact and everything it rests on, nearest first."""
    out, todo = [], [name]
    while todo:
        a = todo.pop(0)
        if a not in out:
            out.append(a)
            todo += [*REGISTRY.get(a).needs, *REGISTRY.get(a).made_with]
    return out


def paths(names, dataset: str) -> list[str]:
    return [REGISTRY.get(n).path.format(dataset=dataset) for n in names]


def name_of(path: str) -> str:
    """The artifact a file is, by its file name."""
    name = path.rsplit("/", 1)[-1]
    for key, a in ARTIFACTS.items():
        if a.path.rsplit("/", 1)[-1] == name:
            return key
    raise KeyError(f"{path}: not a ground-truth artifact")


def rule_of(path: str) -> str:
    """The rule that made an artifact file."""
    return REGISTRY.get(name_of(path)).rule


def read(path: str):
    """An artifact file as a table: parquet, or what its registry entry's `reader` makes of it."""
    a = REGISTRY.get(name_of(str(path)))
    if a.reader:
        return resolve(a.reader)(path)
    import pandas as pd

    return pd.read_parquet(path)
