"""The ground-truth module of docs/extending.md's recipe ("A ground-truth measure"), written under
the names of whoever adds it: the recipe's toy measure and the plugin package's measure."""

TEMPLATE = '''"""Toy ground truth: per popular target item, the item most often in the same users' histories
(the answer) and nine items no user of the target has (the negatives); and its questions."""
import pandas as pd

from lrworld.core.seeding import rng_for
from lrworld.groundtruth.questions import from_table


def ARTIFACT(interactions: pd.DataFrame, n_targets: int, seed: int, dataset: str) -> pd.DataFrame:
    inter = interactions.assign(user_id=interactions["user_id"].astype(str), item_id=interactions["item_id"].astype(str))
    users_of = inter.groupby("item_id")["user_id"].apply(set)
    items = sorted(users_of.index)
    rows = []
    for target in users_of.sort_values(key=lambda s: -s.map(len)).index[:n_targets]:
        near = inter[inter["user_id"].isin(users_of[target]) & (inter["item_id"] != target)]["item_id"].value_counts()
        answer = sorted(near[near == near.max()].index)[0]
        unseen = [i for i in items if not users_of[i] & users_of[target]]
        pick = rng_for(seed, dataset, "ARTIFACT", target).choice(len(unseen), 9, replace=False)
        rows.append({"target": target, "candidate": answer, "is_answer": True, "count": float(near.max())})
        rows += [{"target": target, "candidate": unseen[k], "is_answer": False, "count": 0.0} for k in sorted(pick)]
    return pd.DataFrame(rows)


def build_questions(interactions, pairs, n_questions, seed, dataset, display=None):
    return from_table(interactions, pairs, "count", "MEASURE", "item", "item", n_questions, seed, dataset,
                      display=display)
'''


def cooc_module(artifact: str, measure: str) -> str:
    """The module's text with its artifact function (and stream) named `artifact`, its questions `measure`."""
    return TEMPLATE.replace("ARTIFACT", artifact).replace("MEASURE", measure)
