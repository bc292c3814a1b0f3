"""Prompt variants: transforms at the prompts stage, seeded per question, never the same user."""

import pandas as pd
import pytest

from lrworld.prompts.render import render_all, template_path
from lrworld.prompts.variants import kind, render_variant_all, template_variant

ITEMS = pd.DataFrame({"item_id": [str(i) for i in range(1, 41)], "title": [f"Movie {i}" for i in range(1, 41)],
                      "year": pd.array([1990 + i % 10 for i in range(1, 41)], dtype="Int64")})
GENRES = ["Drama", "Comedy", "War", "Horror"]


def q(u, hist, ans=2, target="30"):
    return {"qid": f"d/attr_genre/u{u}", "dataset": "d", "measure": "attr_genre", "user_id": str(u),
            "history": hist, "candidate_kind": "value", "candidates": GENRES, "answer_index": ans,
            "target_item": target}


QS = [q(1, ["1", "2", "3"]), q(2, ["4", "5", "6"], 0), q(3, ["7", "8", "9"], 3), q(4, ["10", "11", "12"], 1)]
TPL = template_path("movie", "attr_genre", "zero_shot")


def test_names_and_templates():
    assert [kind(v) for v in ("zero_shot", "cot", "kshot", "kshot5", "noisy", "shuffle3")] == \
        ["zero_shot", "cot", "kshot", "kshot", "noisy", "shuffle"]
    assert template_variant("cot") == "cot" and template_variant("shuffle2") == "zero_shot"
    with pytest.raises(ValueError):
        kind("fewshot")


def test_base_variants_are_exactly_render_all():
    for v in ("zero_shot", "cot"):
        t = template_path("movie", "attr_genre", v)
        assert render_variant_all(QS, t, ITEMS, v, seed=5) == render_all(QS, t, ITEMS, v)


def test_shuffle_redraws_the_slot_and_keeps_the_gold_text():
    base = render_all(QS, TPL, ITEMS, "zero_shot")
    runs = {s: render_variant_all(QS, TPL, ITEMS, f"shuffle{s}", seed=1) for s in (1, 2, 3)}
    for s, ps in runs.items():
        for b, p in zip(base, ps):
            assert p["candidates"][p["answer_index"]] == b["candidates"][b["answer_index"]]
            assert sorted(p["candidates"]) == sorted(b["candidates"])
            assert p["variant_meta"]["original_answer_index"] == b["answer_index"]
    slots = {s: [p["answer_index"] for p in ps] for s, ps in runs.items()}
    assert len({tuple(v) for v in slots.values()}) > 1  # different seeds, different slots
    assert render_variant_all(QS, TPL, ITEMS, "shuffle1", seed=1) == runs[1]  # seeded
    # per question: dropping other questions does not change this one's draw
    assert render_variant_all(QS[:1], TPL, ITEMS, "shuffle2", seed=1)[0] == runs[2][0]


def test_noisy_replaces_exactly_one_history_item_with_an_outside_item():
    for p, orig in zip(render_variant_all(QS, TPL, ITEMS, "noisy", seed=3), QS):
        meta = p["variant_meta"]
        (r,) = meta["replaced"]
        assert meta["profile"] == "history" and orig["history"][r["position"]] == r["item"]
        assert r["noise_item"] not in orig["history"] and r["noise_item"] != orig["target_item"]
        assert f"Movie {r['noise_item']} (" in p["prompt"] and f"Movie {r['item']} (" not in p["prompt"]
        assert p["answer_index"] == orig["answer_index"]


def test_kshot_examples_from_other_users_with_gold_labels():
    ps = render_variant_all(QS, TPL, ITEMS, "kshot", seed=0, kshot_default=2)
    for p, orig in zip(ps, QS):
        ex = p["variant_meta"]["example_qids"]
        assert len(ex) == 2 and orig["qid"] not in ex
        assert p["prompt"].startswith("Here are 2 solved examples from other users.")
        assert p["prompt"].count("### Example") == 2 and p["prompt"].endswith("Answer:\n")
        for e in ex:
            other = next(o for o in QS if o["qid"] == e)
            assert f"Answer: {'ABCD'[other['answer_index']]}\n" in p["prompt"]
    k1 = render_variant_all(QS, TPL, ITEMS, "kshot1", seed=0, kshot_default=2)
    assert all(len(p["variant_meta"]["example_qids"]) == 1 for p in k1)
    # a second question of the same user is never an example
    same_user = QS + [dict(q(1, ["13", "14", "15"]), qid="d/attr_genre/u1b")]
    for p in render_variant_all(same_user, TPL, ITEMS, "kshot3", seed=0):
        if p["qid"].startswith("d/attr_genre/u1"):
            assert not any(e.startswith("d/attr_genre/u1") for e in p["variant_meta"]["example_qids"])
    with pytest.raises(ValueError, match="other users"):
        render_variant_all(QS, TPL, ITEMS, "kshot4", seed=0)


def test_the_reserved_words_hold_snakemakes_own():
    # a variant names an output of the provenance rule; Snakemake refuses these names there
    from snakemake.iocontainers import InputFiles, OutputFiles

    from lrworld.prompts.variants import SNAKEMAKE_RESERVED

    assert set(SNAKEMAKE_RESERVED) == {n for c in (InputFiles, OutputFiles) for n in dir(c) if not n.startswith("_")}
