"""LLaRA's code as it runs: the curriculum of its TrainCollater, its tokenizer's pair encoding of a
training example (Llama: <s> prompt <s> title "\n", no end token) and its training rows (len_seq >= 3)."""

import copy

import pytest

from lrworld.tracks.llara.hybrid import curriculum
from lrworld.tracks.llara.hybrid.run import training_examples
from lrworld.tracks.llara.hybrid.train import encode, target_text


class LlaraCollaterCounter:
    """LLaRA's data/data_interface.py TrainCollater, its counter only (lines 22-28, 38, 62)."""

    def __init__(self, max_step):
        self.max_step, self.cur_step = max_step, 1

    def __call__(self):
        thresh_hold = self.cur_step / self.max_step
        self.cur_step += 1
        return thresh_hold


def llara_thresholds(n, batch_size, num_workers, max_epochs):
    """The threshold of every batch as LLaRA's DataLoader runs: DInterface.max_steps (line 125); each
    epoch forks num_workers fresh copies of the collate function, worker w collating batches w, w+W, ..."""
    max_steps = max_epochs * (n // batch_size) // num_workers
    collate = LlaraCollaterCounter(max_steps)  # the main process's copy, never called
    out = []
    for _ in range(max_epochs):
        workers = [copy.deepcopy(collate) for _ in range(num_workers)]
        out += [workers[b % num_workers]() for b in range(n // batch_size)]  # drop_last=True
    return out


@pytest.mark.parametrize("n,bs,workers,epochs", [(103, 4, 8, 5), (47_872, 8, 8, 5), (50, 2, 3, 2)])
def test_code_curriculum_is_llara_collate(n, bs, workers, epochs):
    hp = {"curriculum": "code", "batch_size": bs, "num_workers": workers, "max_epochs": epochs}
    want = llara_thresholds(n, bs, workers, epochs)
    got = [curriculum.threshold(k, hp, n) for k in range(len(want))]
    assert got == pytest.approx(want, abs=0, rel=0)


def test_code_curriculum_tops_out_near_one_over_epochs_and_restarts():
    """LastFM with LLaRA's shipped defaults (47,872 rows, batch 8, 8 workers, 5 epochs): 5,984 batches
    an epoch, bound 3,740; the share reaches 748/3740 = 0.2 at the end of each epoch, then 1/3740."""
    hp = {"curriculum": "code", "batch_size": 8, "num_workers": 8, "max_epochs": 5}
    per_epoch = 47_872 // 8
    share = [curriculum.threshold(k, hp, 47_872) for k in range(2 * per_epoch)]
    assert max(share) == pytest.approx(748 / 3740) == pytest.approx(0.2)
    assert share[per_epoch - 1] == pytest.approx(0.2) and share[per_epoch] == pytest.approx(1 / 3740)


def test_paper_curriculum_rises_to_the_share_one_coin_per_micro_batch():
    hp = {"curriculum": "paper", "max_steps": 250, "accumulate_grad_batches": 4, "hybrid_share": 1.0}
    assert curriculum.threshold(999, hp, 10) == 1.0 and curriculum.threshold(0, hp, 10) == 1 / 1000
    flags = [curriculum.is_hybrid(k, hp, 10, 0, "lastfm") for k in range(1000)]
    assert sum(flags[:100]) < 25 and sum(flags[-100:]) > 75
    # the coins of one optimiser step's 4 micro-batches differ: some steps mix both forms
    assert any(0 < sum(flags[s * 4:(s + 1) * 4]) < 4 for s in range(250))
    assert not any(curriculum.is_hybrid(k, {**hp, "hybrid_share": 0.0}, 10, 0, "lastfm") for k in range(1000))


def llama_tokenizer():
    """A Llama tokenizer (sentencepiece-style BPE, ▁ word prefix, byte fallback for "\\n") built
    offline, with LlamaTokenizerFast's defaults: add_bos_token True, add_eos_token False."""
    from transformers import LlamaTokenizer

    vocab = {"<unk>": 0, "<s>": 1, "</s>": 2, "<0x0A>": 3, "▁": 4}
    merges = []
    for w in "The answer is Fargo Heat Alien".split():
        cur = "▁"
        for ch in w:
            vocab.setdefault(ch, len(vocab))
            if cur + ch not in vocab:
                vocab[cur + ch] = len(vocab)
                merges.append((cur, ch))
            cur += ch
    tok = LlamaTokenizer(vocab=vocab, merges=merges, add_bos_token=True, add_eos_token=False)
    tok.pad_token = tok.unk_token
    return tok


def llara_labels(tok, prompt, target):
    """MInterface.forward (model/model_interface.py lines 29-32) on TrainCollater's pair encoding
    with transformers 4.28's LlamaTokenizer: its token_type_ids are len(cls + ids0 + sep) zeros and
    len(ids1 + sep) ones (one longer than the ids), hence LLaRA's ``[:, 1:]``."""
    ids = tok(prompt, target, add_special_tokens=True)["input_ids"]
    p = tok(prompt, add_special_tokens=False)["input_ids"]
    t = tok(target, add_special_tokens=False)["input_ids"]
    token_type_ids = [0] * (len(p) + 2) + [1] * (len(t) + 1)
    return ids, [i if tt == 1 else -100 for i, tt in zip(ids, token_type_ids[1:])]


def test_training_example_has_llaras_bos_and_no_eos():
    tok = llama_tokenizer()
    prompt, target = "The answer is", target_text("Fargo")
    ids, _, labels = encode(tok, [prompt], [target])
    want_ids, want_labels = llara_labels(tok, prompt, target)
    assert ids[0].tolist() == want_ids
    assert labels[0].tolist() == want_labels
    # spelled out: <s> ▁The ▁answer ▁is | <s> ▁Fargo <0x0A>, the loss on the last three
    assert tok.convert_ids_to_tokens(want_ids) == ["<s>", "▁The", "▁answer", "▁is", "<s>", "▁Fargo", "<0x0A>"]
    assert [x for x in labels[0].tolist() if x != -100] == [1, vocab_id(tok, "▁Fargo"), 3]
    assert tok.eos_token_id not in ids[0].tolist()


def vocab_id(tok, piece):
    return tok.convert_tokens_to_ids(piece)


def test_padding_is_outside_the_loss():
    tok = llama_tokenizer()
    ids, mask, labels = encode(tok, ["The answer is", "The answer is"], [target_text("Heat"), target_text("Alien")])
    assert mask.sum(1).tolist() == [7, 7] and ids.shape[1] == 7  # one piece each
    ids, mask, labels = encode(tok, ["The answer", "The answer is"], [target_text("Heat"), target_text("Alien")])
    assert mask[0].tolist() == [1] * 6 + [0] and labels[0].tolist()[-1] == -100


def test_training_rows_are_llaras_len_seq_at_least_3(lastfm_set):
    """LastFM's released train_data: 50,800 rows, 49,824 with a history, 47,872 with len_seq >= 3 (LLaRA's)."""
    assert len(lastfm_set.train) == 49_824
    ex = training_examples(lastfm_set, 20, 0, min_len_seq=3)
    assert len(ex) == 47_872 and min(len(e["history"]) for e in ex) == 3


def test_validation_rows_are_llaras_val_split(lastfm_set, llara_cfg_for):
    from lrworld.tracks.llara.data import load_llara_split
    from lrworld.tracks.llara.hybrid.run import validation_examples

    rows = validation_examples(lastfm_set, llara_cfg_for("lastfm"), 20, 0, limit=50)
    val, _ = load_llara_split(llara_cfg_for("lastfm")["path"] + "/Val_data.jsonl", "lastfm", "val",
                              lastfm_set.item_names)
    assert len(rows) == 50 and [r["history"] for r in rows] == [list(e.history) for e in val[:50]]
    assert all(len(r["candidates"]) == 20 and r["next_title"] in r["candidate_titles"] for r in rows)
    with pytest.raises(ValueError, match="Val_data.jsonl is training data here"):
        validation_examples(lastfm_set, {**llara_cfg_for("lastfm"), "train_expand": ["Val_data.jsonl"]}, 20, 0, 5)
