"""Every registered variant renders on every measure of the default run (config.yaml), from
questions made by the real ground-truth builders; `noisy` corrupts the profile each prompt shows,
and is refused at start, in one line, where the prompt shows none."""

import re

import pandas as pd
import pytest

from lrworld.config import checks
from lrworld.core.yamlfile import load_yaml
from lrworld.groundtruth.questions import build_assoc_rule_questions, from_table
from lrworld.prompts.render import USER_ITEMS_SHOWN, render_all, template_path
from lrworld.prompts.variants import VARIANT_KINDS, kind, refusal, render_variant_all, template_variant
from lrworld.questions.measures import by_id
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
N_ITEMS, N_USERS = 60, 12
ITEMS = pd.DataFrame({"item_id": [str(i) for i in range(1, N_ITEMS + 1)],
                      "title": [f"Movie {i}" for i in range(1, N_ITEMS + 1)],
                      "year": pd.array([1990 + i % 10 for i in range(1, N_ITEMS + 1)], dtype="Int64")})
# user u owns items 4u+1 .. 4u+12 (wrapping): each user a distinct, overlapping profile
INTERACTIONS = pd.DataFrame([{"user_id": str(u), "item_id": str((4 * u + k) % N_ITEMS + 1), "timestamp": k}
                             for u in range(N_USERS) for k in range(12)])


def _example(name: str, pattern: str) -> str:
    """A variant name of the kind: the kind's own name, or it with a parameter (shuffle1)."""
    return next(v for v in (name, f"{name}1") if re.fullmatch(pattern, v))


# one variant of each registered kind, read from the registry (a new kind is tested here unnamed)
ONE_OF_EACH = {name: _example(name, k.pattern) for name, k in VARIANT_KINDS.items()}


def _table(targets, candidates):
    """A (target, candidate, is_answer, similarity) artifact: the first candidate is the answer."""
    return pd.DataFrame([{"target": t, "candidate": c, "is_answer": i == 0, "similarity": 1.0 - i / 10}
                         for t in targets for i, c in enumerate(candidates(t))])


def _questions(measure):
    users = [str(u) for u in range(N_USERS)]
    items = [str(i) for i in range(1, N_ITEMS + 1)]
    if measure == "assoc_rule":
        rules = pd.DataFrame({"antecedents": [(items[k], items[k + 1]) for k in range(0, 8, 2)],
                              "consequents": [(items[k + 20],) for k in range(0, 8, 2)],
                              "support": 0.1, "confidence": 0.5, "lift": 2.0})
        return build_assoc_rule_questions(INTERACTIONS, rules, 4, 0, "d")[0]
    if measure == "attr_genre":  # a window question: the history on the question itself
        return [{"qid": f"d/attr_genre/u{u}", "dataset": "d", "measure": "attr_genre", "user_id": str(u),
                 "history": [str(4 * u + k) for k in range(1, 6)], "candidate_kind": "value",
                 "candidates": ["Drama", "Comedy", "War", "Horror"], "answer_index": u % 4,
                 "target_item": str(50 + u)} for u in range(4)]
    target_kind, cand_kind = {"mem_item_item": ("item", "item"), "mem_user_user": ("user", "user"),
                              "neu_item2users": ("item", "user"), "neu_user2items": ("user", "item")}[measure]
    pool = users if cand_kind == "user" else items
    targets = users[:4] if target_kind == "user" else items[:4]
    table = _table(targets, lambda t: [c for c in pool if c != t][:10])
    return from_table(INTERACTIONS, table, "similarity", measure, target_kind, cand_kind, 4, 0, "d")[0]


DEFAULT_MEASURES = load_yaml(ROOT / "config.yaml")["datasets"]["ml100k"]["measures"]


def test_one_variant_of_each_kind_is_tested():
    assert {kind(v) for v in ONE_OF_EACH.values()} == set(VARIANT_KINDS.names())


@pytest.mark.parametrize("measure", DEFAULT_MEASURES)
@pytest.mark.parametrize("variant", list(ONE_OF_EACH.values()))
def test_every_variant_on_every_default_measure(measure, variant):
    qs = _questions(measure)
    assert len(qs) == 4
    template = template_path("movie", measure, template_variant(variant))
    profile = by_id(measure).profile
    line = refusal("ml100k", measure, variant, profile, "captions" in by_id(measure).needs)
    if line is not None:  # refused at start, in one line, naming the dataset and measure
        # noisy where the prompt shows no profile; an image variant on a measure not shown by captions
        variant_kind = VARIANT_KINDS.get(kind(variant))
        assert (variant_kind.needs_profile and by_id(measure).profile is None) or variant_kind.needs_images
        assert "\n" not in line and "datasets.ml100k" in line and repr(measure) in line
        with pytest.raises(ValueError, match="shows none" if variant == "noisy" else "image"):
            render_variant_all(qs, template, ITEMS, variant, seed=0, kshot_default=2, profile=profile)
        return
    base = render_all(qs, template_path("movie", measure, "zero_shot"), ITEMS, "zero_shot")
    out = render_variant_all(qs, template, ITEMS, variant, seed=0, kshot_default=2, profile=profile)
    assert len(out) == 4 and all(p["prompt"] and p["variant"] == variant for p in out)
    for p, b in zip(out, base):  # the gold answer's text is the same option, wherever it moved
        if variant == "noisy" and by_id(measure).profile == "candidate_histories":
            assert p["answer_index"] == b["answer_index"]  # the options' own profiles carry the noise
        else:
            assert p["candidates"][p["answer_index"]] == b["candidates"][b["answer_index"]]
    if variant == "noisy":
        for p, b, q in zip(out, base, qs):
            meta = p["variant_meta"]
            assert meta["profile"] == by_id(measure).profile and meta["replaced"]
            for r in meta["replaced"]:
                # the noise is shown where the replaced item was, and was nowhere in the question
                assert f"Movie {r['noise_item']} (" in p["prompt"] and f"Movie {r['noise_item']} (" not in b["prompt"]
            assert p["prompt"] != b["prompt"]
            if meta["profile"] == "candidate_histories":
                assert len(meta["replaced"]) == len(q["candidates"])
                assert all(r["position"] >= len(q["context"]["candidate_histories"][r["user"]]) - USER_ITEMS_SHOWN
                           for r in meta["replaced"])


def test_noisy_on_a_measure_without_a_profile_is_refused_at_start():
    cfg = {"models": {"random": {"backend": "random"}}, "variants": ["zero_shot", "noisy"], "cache_dir": "cache",
           "datasets": {"ml100k": {"domain": "movie", "measures": ["attr_genre", "mem_item_item"]}}}
    with pytest.raises(checks.CheckError, match=r"^variants: noisy .*datasets\.ml100k measure 'mem_item_item'"):
        checks.check(cfg)
    cfg["datasets"]["ml100k"]["measures"] = ["attr_genre", "neu_item2users", "assoc_rule"]
    checks.check(cfg)


@pytest.mark.parametrize("measure", ["neu_item2users", "mem_user_user"])
def test_a_candidate_user_is_shown_by_the_configured_count_of_latest_items(measure):
    """A dataset's user_items_shown (config/paper.yaml's movie datasets: 10): each candidate user's 10 latest items,
    oldest first, in the prompt and in noisy's reach; the default shows the latest 5."""
    qs = _questions(measure)
    template = template_path("movie", measure, "zero_shot")
    five, ten = (render_all(qs, template, ITEMS, "zero_shot", user_items=n)[0] for n in (None, 10))
    q = qs[0]
    for n, p in ((USER_ITEMS_SHOWN, five), (10, ten)):
        for c, text in zip(q["candidates"], p["candidates"]):
            latest = q["context"]["candidate_histories"][c][-n:]
            assert text == "a user who recently chose " + "; ".join(
                f"Movie {i} ({1990 + int(i) % 10})" for i in latest), (n, c)
            assert len(latest) == n
    if by_id(measure).profile != "candidate_histories":
        return
    # noise lands among the shown items: with 10 shown, also in the 5 older ones
    pool = pd.concat([ITEMS, pd.DataFrame({"item_id": [str(i) for i in range(100, 200)], "title": "Other",
                                           "year": pd.array([2000] * 100, dtype="Int64")})])
    for n, lowest in ((None, 10 - USER_ITEMS_SHOWN), (10, 0)):
        noisy = render_variant_all(qs, template, pool, "noisy", seed=0, profile="candidate_histories", user_items=n)
        positions = [r["position"] for p in noisy for r in p["variant_meta"]["replaced"]]
        assert min(positions) == lowest, n
