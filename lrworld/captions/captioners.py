"""Vision-language captioners: LLaVA through transformers (default llava-hf/llava-v1.6-mistral-7b-hf,
on GPU) or any OpenAI-compatible vision model (the models' openai backend, with its retries)."""

from __future__ import annotations

from pathlib import Path

from lrworld.core.io import dumps_canonical, sha256_text

DEFAULT_MODEL = "llava-hf/llava-v1.6-mistral-7b-hf"
PROMPT_FILE = Path(__file__).resolve().parents[1] / "templates" / "captions" / "figure3.txt"


def instruction(path: str | Path | None = None) -> str:
    return Path(path or PROMPT_FILE).read_text(encoding="utf-8").strip()


def _weights_id(model: str) -> str:
    """A hub id as is; a local folder by the sha256 of its weight, tokenizer and config files, as
    the hf backend keys it (a retrained model is another)."""
    from lrworld.models.backends.hf import file_digests, model_files

    p = Path(model)
    if not p.is_dir():
        return model
    return "sha256:" + sha256_text(dumps_canonical(file_digests(p, model_files(p))))


class LlavaCaptioner:
    def __init__(self, cfg: dict, prompt: str):
        self.model_id = str(cfg.get("model") or DEFAULT_MODEL)
        self.revision = cfg.get("revision")
        self.max_new_tokens = int(cfg.get("max_new_tokens", 256))
        self.dtype = cfg.get("dtype", "bfloat16")
        self.device = cfg.get("device")
        self.prompt = prompt
        self._model = self._processor = None

    def identity(self) -> dict:
        return {"backend": "llava", "model": _weights_id(self.model_id), "revision": self.revision,
                "max_new_tokens": self.max_new_tokens, "dtype": self.dtype, "decoding": "greedy",
                "prompt_sha256": sha256_text(self.prompt)}

    def _load(self):
        import torch
        from transformers import AutoModelForImageTextToText, AutoProcessor

        kw = {"revision": self.revision} if self.revision else {}
        self._processor = AutoProcessor.from_pretrained(self.model_id, **kw)
        device = self.device or ("cuda" if torch.cuda.is_available() else "cpu")
        dtype = getattr(torch, self.dtype) if device != "cpu" else torch.float32
        self._model = AutoModelForImageTextToText.from_pretrained(self.model_id, dtype=dtype, **kw).to(device)
        self._model.eval()
        self._device = device

    def _text(self) -> str:
        conv = [{"role": "user", "content": [{"type": "image"}, {"type": "text", "text": self.prompt}]}]
        if getattr(self._processor, "chat_template", None):
            return self._processor.apply_chat_template(conv, add_generation_prompt=True)
        return f"USER: <image>\n{self.prompt} ASSISTANT:"  # LLaVA-1.5's own format

    def caption(self, image_path: str | Path) -> str:
        import torch
        from PIL import Image

        if self._model is None:
            self._load()
        with Image.open(image_path) as im:
            image = im.convert("RGB")
        inputs = self._processor(images=image, text=self._text(), return_tensors="pt").to(self._device)
        if "pixel_values" in inputs and inputs["pixel_values"].is_floating_point():
            inputs["pixel_values"] = inputs["pixel_values"].to(self._model.dtype)
        with torch.inference_mode():
            out = self._model.generate(**inputs, max_new_tokens=self.max_new_tokens, do_sample=False)
        n = inputs["input_ids"].shape[1]
        return self._processor.decode(out[0, n:], skip_special_tokens=True).strip()


class OpenAICaptioner:
    def __init__(self, cfg: dict, prompt: str):
        from lrworld.models.backends.openai import OpenAIBackend

        bcfg = {k: v for k, v in cfg.items() if k not in ("backend",)}
        bcfg.update({"backend": "openai", "mode": "generate"})
        bcfg.setdefault("max_tokens", int(cfg.get("max_new_tokens", 256)))
        self.backend = OpenAIBackend("captioner", bcfg)
        self.prompt = prompt

    def identity(self) -> dict:
        return dict(self.backend.identity(), prompt_sha256=sha256_text(self.prompt))

    def caption(self, image_path: str | Path) -> str:
        from lrworld.models.base import PromptItem

        (resp,) = self.backend.answer([PromptItem(qid=str(image_path), prompt=self.prompt, labels=(),
                                                  image_paths=(str(image_path),))])
        return resp.raw_text.strip()


def make(cfg: dict):
    prompt = instruction(cfg.get("prompt_file"))
    backend = cfg.get("backend", "llava")
    if backend == "llava":
        return LlavaCaptioner(cfg, prompt)
    if backend == "openai":
        return OpenAICaptioner(cfg, prompt)
    raise ValueError(f"captioner.backend: {backend!r}; choose llava or openai")
