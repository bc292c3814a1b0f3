"""LLaRA's training: projector + LoRA on the next-item task, with its curriculum.

As LLaRA's ``main.py`` / ``TrainCollater`` / ``MInterface.training_step``:

- target = the gold title + "\\n"; the loss is the LM loss on the target tokens only;
- curriculum: at optimisation step ``s`` of ``S`` a batch is hybrid when ``u < hybrid_share * s/S``
  (``u`` uniform; LLaRA: ``p < cur_step/max_step``), otherwise text form (``[PH]`` after every
  title) with the projector frozen; ``hybrid_share: 0`` is the text-only (TALLRec-style) LoRA;
- Adam, projector with weight decay; linear warm-up over ``S // 20`` steps from
  ``lr_warmup_start_lr`` then cosine to ``lr_decay_min_lr`` (LLaRA's ``optims.py``);
- LoRA ``r``, ``alpha``, ``dropout`` on q/k/v/o/gate/up/down projections.

Every draw (batch order, curriculum coin, dropout seed) is a function of ``(seed, dataset, step)``
through ``rng_for``, so a run resumed from its last checkpoint (every ``checkpoint_every`` steps,
written atomically) continues exactly as the uninterrupted run would.
"""

from __future__ import annotations

import math
import os
import time
from pathlib import Path
from typing import Callable, Sequence

import torch

from lrworld.core.io import sha256_file
from lrworld.core.seeding import rng_for
from lrworld.core.tensors import load_tensors
from lrworld.tracks.llara.hybrid.projector import MlpProjector
from lrworld.tracks.llara.hybrid.tokens import add_placeholder_tokens, hybrid_prompt, wrap_embeds

LORA_TARGETS = ["k_proj", "v_proj", "q_proj", "o_proj", "gate_proj", "up_proj", "down_proj"]
CKPT = "train_state.pt"


def lr_at(step: int, max_steps: int, hp: dict) -> float:
    warm = max_steps // 20
    if step < warm:
        return hp["lr_warmup_start_lr"] + (hp["lr"] - hp["lr_warmup_start_lr"]) * step / max(warm, 1)
    return hp["lr_decay_min_lr"] + (hp["lr"] - hp["lr_decay_min_lr"]) * 0.5 * (1 + math.cos(math.pi * step / max_steps))


def is_hybrid(step: int, max_steps: int, share: float, seed: int, dataset: str) -> bool:
    u = rng_for(seed, dataset, "llara_curriculum", str(step)).random()
    return bool(u < share * (step + 1) / max_steps)


def batch_rows(step: int, micro: int, n: int, hp: dict, seed: int, dataset: str) -> list[int]:
    """Example indices of micro-batch ``micro`` of ``step``: epochs of seeded permutations."""
    bs = hp["batch_size"]
    start = (step * hp["accumulate_grad_batches"] + micro) * bs
    out = []
    for k in range(start, start + bs):
        epoch, pos = divmod(k, n)
        out.append(int(rng_for(seed, dataset, "llara_train_order", str(epoch)).permutation(n)[pos]))
    return out


def with_lora(model, hp: dict):
    from peft import LoraConfig, TaskType, get_peft_model

    cfg = LoraConfig(task_type=TaskType.CAUSAL_LM, inference_mode=False, r=int(hp["lora_r"]),
                     lora_alpha=hp["lora_alpha"], lora_dropout=hp["lora_dropout"], target_modules=LORA_TARGETS)
    return get_peft_model(model, cfg)


def encode(tok, prompts: list[str], targets: list[str]) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor]:
    """Right-padded ids, attention mask and labels (-100 outside the target)."""
    rows, labels = [], []
    for p, t in zip(prompts, targets):
        pi = tok(p, add_special_tokens=False)["input_ids"]
        ti = tok(t, add_special_tokens=False)["input_ids"] + [tok.eos_token_id]
        rows.append(pi + ti)
        labels.append([-100] * len(pi) + ti)
    width = max(map(len, rows))
    pad = tok.pad_token_id if tok.pad_token_id is not None else tok.eos_token_id
    ids = torch.tensor([r + [pad] * (width - len(r)) for r in rows])
    mask = torch.tensor([[1] * len(r) + [0] * (width - len(r)) for r in rows])
    lab = torch.tensor([r + [-100] * (width - len(r)) for r in labels])
    return ids, mask, lab


def trainable_state(model, projector) -> dict:
    from peft import get_peft_model_state_dict

    return {"lora": get_peft_model_state_dict(model), "projector": projector.state_dict()}


def _atomic_save(obj, path: Path) -> None:
    tmp = path.with_suffix(".tmp")
    torch.save(obj, tmp)
    os.replace(tmp, path)


def _diff(old: dict | None, new: dict) -> str:
    if not old:
        return "none recorded"
    keys = sorted({*old.get("hparams", {}), *new["hparams"]})
    moved = [f"{k} {old['hparams'].get(k)} -> {new['hparams'].get(k)}" for k in keys
             if old["hparams"].get(k) != new["hparams"].get(k)]
    moved += [f"{k} {old.get(k)} -> {new[k]}" for k in ("seed", "dataset", "n_examples") if old.get(k) != new[k]]
    return ", ".join(moved)


def train(examples: Sequence[dict], template: str, tok, base_model, items: torch.Tensor, hp: dict, seed: int,
          dataset: str, work_dir: str | os.PathLike, log: Callable[[str], None] = print) -> tuple:
    """Train; returns (peft model, projector, record). ``examples``: dicts with ``history``,
    ``history_titles``, ``candidates``, ``candidate_titles``, ``next_title``. ``items``: the rec
    model's item table. Resumes from ``work_dir/train_state.pt`` when present."""
    from peft import set_peft_model_state_dict

    work = Path(work_dir)
    work.mkdir(parents=True, exist_ok=True)
    torch.manual_seed(int(rng_for(seed, dataset, "llara_init").integers(2**31)))
    token_ids = add_placeholder_tokens(tok, base_model)
    model = with_lora(base_model, hp)
    device = base_model.get_input_embeddings().weight.device  # a GPU node's base model stays there
    projector = MlpProjector(rec_size=items.shape[1], llm_size=base_model.config.hidden_size).to(device)
    items = items.to(device)
    opt = torch.optim.Adam([
        {"params": list(projector.parameters()), "lr": hp["lr"], "weight_decay": hp["weight_decay"]},
        {"params": [p for p in model.parameters() if p.requires_grad], "lr": hp["lr"]},
    ])
    S = int(hp["max_steps"])
    losses: list[dict] = []
    step, seconds = 0, 0.0
    state_path = work / CKPT
    run_key = {"hparams": dict(hp), "seed": seed, "dataset": dataset, "n_examples": len(examples)}
    st = load_tensors(state_path, "training state") if state_path.exists() else None
    if st is not None and st.get("run") != run_key:
        # a checkpoint of other hyper-parameters (another max_steps moves every learning rate): resuming
        # it would mix two schedules into one record
        log(f"{state_path}: a checkpoint of other settings ({_diff(st.get('run'), run_key)}); starting over")
        st = None
    if st is not None:  # tensors, numbers, lists: no code
        set_peft_model_state_dict(model, st["lora"])
        projector.load_state_dict(st["projector"])
        opt.load_state_dict(st["optimizer"])
        step, losses, seconds = st["step"], st["losses"], st["seconds"]
        log(f"resumed at step {step}/{S}")
    model.train()
    projector.train()
    t0 = time.time()
    while step < S:
        lr = lr_at(step, S, hp)
        for g in opt.param_groups:
            g["lr"] = lr
        hybrid = is_hybrid(step, S, hp["hybrid_share"], seed, dataset)
        for p in projector.parameters():
            p.requires_grad_(hybrid)
        torch.manual_seed(int(rng_for(seed, dataset, "llara_dropout", str(step)).integers(2**31)))
        opt.zero_grad()
        total = 0.0
        for micro in range(hp["accumulate_grad_batches"]):
            rows = [examples[i] for i in batch_rows(step, micro, len(examples), hp, seed, dataset)]
            prompts = [hybrid_prompt(template, r["history_titles"], r["candidate_titles"], hybrid) for r in rows]
            ids, mask, lab = (t.to(device) for t in encode(tok, prompts, [" " + r["next_title"] + "\n" for r in rows]))
            emb = wrap_embeds(model, projector, ids, [r["history"] for r in rows], [r["candidates"] for r in rows],
                              items, token_ids)
            out = model(inputs_embeds=emb, attention_mask=mask, labels=lab, use_cache=False)
            (out.loss / hp["accumulate_grad_batches"]).backward()
            total += float(out.loss.detach()) / hp["accumulate_grad_batches"]
        opt.step()
        step += 1
        losses.append({"step": step, "loss": round(total, 6), "hybrid": hybrid, "lr": lr})
        if step % hp["checkpoint_every"] == 0 or step == S:
            _atomic_save({**trainable_state(model, projector), "optimizer": opt.state_dict(), "step": step, "run": run_key,
                          "losses": losses, "seconds": seconds + time.time() - t0}, state_path)
            log(f"step {step}/{S} loss {total:.4f} ({'hybrid' if hybrid else 'text'}); checkpoint")
    seconds += time.time() - t0
    record = {"steps": step, "seconds": round(seconds, 1), "loss_curve": losses,
              "hybrid_steps": sum(r["hybrid"] for r in losses), "hparams": dict(hp), "seed": seed,
              "n_train_examples": len(examples), "state_sha256": sha256_file(state_path)}
    return model, projector, record
