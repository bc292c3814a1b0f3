"""The `llava` backend: vision-language models through transformers (default
llava-hf/llava-v1.6-mistral-7b-hf, on GPU), answering requests by greedy generation, each with
one image or none. The captioner of the multimodal measure (paper Figure 3) is its main user; as
a model entry it answers the text prompts, and the `visual` variant's with their image (the
paper's LlaVA-1.6 row and its Table 4)."""

from __future__ import annotations

from pathlib import Path
from typing import Sequence

from lrworld.core.io import dumps_canonical, sha256_text
from lrworld.models.base import PromptItem, Response
from lrworld.models.registry import HOST_GB, Capabilities, declared, register_backend

DEFAULT_MODEL = "llava-hf/llava-v1.6-mistral-7b-hf"

SCHEMA = {
    "model": {"type": "string", "default": DEFAULT_MODEL},  # hub id or local folder
    "revision": {"type": "string"},
    "dtype": {"enum": ["float32", "bfloat16", "float16"], "default": "bfloat16"},
    "device": {"type": "string"},
    "max_new_tokens": {"type": "integer", "minimum": 1, "maximum": 4096, "default": 256},
    "gpus": {"type": "integer", "minimum": 0},
    "gpu_mem_gb": {"type": "number", "minimum": 0, "default": 16},  # LLaVA-1.6 7B in bfloat16
    "gpu_model": {"type": "string", "pattern": "^[A-Za-z0-9_.-]+$"},
    "mem_gb": {"type": "number", "exclusiveMinimum": 0},  # unset: HOST_GB + gpu_mem_gb
    # request-file tokens (bytes / 4) per second: a caption request is ~100 of them, and one
    # image with up to 256 new tokens takes a few seconds on one GPU
    "throughput_tokens_s": {"type": "number", "exclusiveMinimum": 0, "default": 20},
    "startup_s": {"type": "number", "minimum": 0, "default": 300},
}


def llava_resources(cfg: dict) -> dict:
    """One GPU unless `gpus:` says otherwise or the model is pinned to the CPU; host memory as the
    hf backend's (HOST_GB + the weights, unless `mem_gb:` says otherwise)."""
    gpus = cfg.get("gpus", 0 if cfg.get("device", "") == "cpu" else 1)
    return declared({**cfg, "gpus": gpus, "mem_gb": cfg.get("mem_gb", HOST_GB + cfg["gpu_mem_gb"])})


def weights_id(model: str) -> str:
    """A hub id as is; a local folder by the sha256 of its weight, tokenizer and config files, as
    the hf backend keys it (a retrained model is another)."""
    from lrworld.models.backends.hf import file_digests, model_files

    p = Path(model)
    if not p.is_dir():
        return model
    return "sha256:" + sha256_text(dumps_canonical(file_digests(p, model_files(p))))


@register_backend("llava", schema=SCHEMA, resources=llava_resources, can=Capabilities(reads_images=True))
class LlavaBackend:
    """A LLaVA vision-language model through transformers: captions images, answers prompts with one image or none."""

    def __init__(self, name: str, cfg: dict):
        self.name = name
        self.model_id = str(cfg["model"])
        self.revision = cfg.get("revision")
        self.max_new_tokens = int(cfg["max_new_tokens"])
        self.dtype = cfg["dtype"]
        self.device = cfg.get("device")
        self._model = self._processor = None

    def identity(self) -> dict:
        return {"backend": "llava", "model": weights_id(self.model_id), "revision": self.revision,
                "max_new_tokens": self.max_new_tokens, "dtype": self.dtype, "decoding": "greedy"}

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

    def _text(self, prompt: str, image: bool = True) -> str:
        conv = [{"role": "user", "content": [{"type": "image"}] * image + [{"type": "text", "text": prompt}]}]
        if getattr(self._processor, "chat_template", None):
            return self._processor.apply_chat_template(conv, add_generation_prompt=True)
        return f"USER: {'<image>' + chr(10) if image else ''}{prompt} ASSISTANT:"  # LLaVA-1.5's own format

    def _one(self, item: PromptItem) -> Response:
        import time

        import torch
        from PIL import Image

        if len(item.image_paths) > 1:
            raise ValueError(f"llava backend: request {item.qid} has {len(item.image_paths)} images; it reads one or none")
        image = None
        if item.image_paths:
            with Image.open(item.image_paths[0]) as im:
                image = im.convert("RGB")
        t0 = time.perf_counter()
        inputs = self._processor(images=image, text=self._text(item.prompt, image is not None),
                                 return_tensors="pt").to(self._device)
        if "pixel_values" in inputs and inputs["pixel_values"].is_floating_point():
            inputs["pixel_values"] = inputs["pixel_values"].to(self._model.dtype)
        with torch.inference_mode():
            out = self._model.generate(**inputs, max_new_tokens=self.max_new_tokens, do_sample=False)
        n = inputs["input_ids"].shape[1]
        text = self._processor.decode(out[0, n:], skip_special_tokens=True).strip()
        return Response(qid=item.qid, raw_text=text, tokens_in=int(n), tokens_out=int(out.shape[1] - n),
                        latency_s=time.perf_counter() - t0)

    def answer(self, items: Sequence[PromptItem]) -> list[Response]:
        if self._model is None:
            self._load()
        return [self._one(it) for it in items]
