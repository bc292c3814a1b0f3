"""The hf backend's encoder-decoder path (FLAN-T5's architecture) on a tiny random-weight T5
built offline: the real code path, no download."""

import pytest
from tokenizers import Tokenizer, models, pre_tokenizers, trainers
from transformers import PreTrainedTokenizerFast, T5Config, T5ForConditionalGeneration

from lrworld.models import PromptItem, make_backend


@pytest.fixture(scope="module")
def tiny_t5(tmp_path_factory):
    d = tmp_path_factory.mktemp("t5")
    tok = Tokenizer(models.BPE(unk_token="<unk>"))
    tok.pre_tokenizer = pre_tokenizers.Whitespace()
    tok.train_from_iterator(["Which genre is next? A. War B. Drama C. Comedy D. Horror Answer:"] * 20,
                            trainers.BpeTrainer(vocab_size=120, special_tokens=["<pad>", "</s>", "<unk>"]))
    fast = PreTrainedTokenizerFast(tokenizer_object=tok, pad_token="<pad>", eos_token="</s>", unk_token="<unk>")
    fast.save_pretrained(d)
    cfg = T5Config(vocab_size=fast.vocab_size, d_model=16, d_ff=32, d_kv=8, num_layers=1, num_heads=2,
                   pad_token_id=0, eos_token_id=1, decoder_start_token_id=0)
    T5ForConditionalGeneration(cfg).save_pretrained(d)
    return str(d)


ITEMS = [PromptItem(qid=f"q{i}", prompt="Which genre is next? A. War B. Drama C. Comedy D. Horror Answer:" + " A" * i,
                    labels=("A", "B", "C", "D")) for i in range(3)]


def test_seq2seq_choice_and_generate(tiny_t5):
    choice = make_backend("t5", {"backend": "hf", "model": tiny_t5, "arch": "seq2seq", "mode": "choice"})
    out = choice.answer(ITEMS)
    assert all(r.choice_index == max(range(4), key=r.label_logprobs.__getitem__) for r in out)
    assert choice.identity()["arch"] == "seq2seq"
    gen = make_backend("t5", {"backend": "hf", "model": tiny_t5, "arch": "seq2seq", "max_new_tokens": 4})
    batched, single = gen.answer(ITEMS), gen.answer(ITEMS[:1])
    assert batched[0].raw_text == single[0].raw_text and batched[0].tokens_out <= 4
