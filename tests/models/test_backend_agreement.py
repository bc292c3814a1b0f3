"""The same GGUF through two real paths: transformers (hf backend, dequantised to fp32) and the
llama.cpp server (openai backend, Q4_1 kernels). In choice-scoring mode they should pick the same
option on the same real prompts."""

import pytest

from lrworld.data.ingest import ingest
from lrworld.models import PromptItem, make_backend
from lrworld.prompts.render import render_all, template_path
from lrworld.questions.build import build_questions

pytestmark = pytest.mark.slow


def test_hf_and_llama_cpp_choices_agree(shared_data, smollm2_choice, llama_url):
    inter, items, _, _ = ingest("ml", {"format": "ml-100k"}, shared_data / "movielens-100k/raw", {})
    qs, _ = build_questions("ml", "movie", "attr_genre", inter, items, 5, 16, 5)
    prompts = render_all(qs, template_path("movie", "attr_genre", "zero_shot"), items, "zero_shot")
    batch = [PromptItem(qid=p["qid"], prompt=p["prompt"], labels=tuple(p["labels"])) for p in prompts]
    hf = smollm2_choice.answer(batch)
    # the session's llama.cpp server (tests/models/conftest.py): one slot, no prompt cache
    api = make_backend("smol", {"backend": "openai", "model": "smol", "base_url": llama_url, "mode": "choice",
                                "concurrency": 1}).answer(batch)
    agree = sum(a.choice_index == b.choice_index for a, b in zip(hf, api)) / len(batch)
    diffs = [abs(a.label_logprobs[a.choice_index] - b.label_logprobs[a.choice_index])
             for a, b in zip(hf, api) if b.label_logprobs and b.label_logprobs[a.choice_index] is not None]
    print(f"agreement {agree:.3f}; |logprob diff| of hf's pick: max {max(diffs):.3f}")
    assert agree >= 0.9
    assert diffs and max(diffs) < 0.5
