"""LLaRA's training: projector + LoRA on the next-item task, with its curriculum.

As LLaRA's ``main.py`` / ``TrainCollater`` / ``MInterface.training_step``:

- the example is the tokenizer's pair (prompt, gold title + "\\n") with its own special tokens
  (``add_special_tokens=True``: for a Llama tokenizer ``<s>`` prompt ``<s>`` title "\\n", no end
  token); the loss is the LM loss on the second segment (its ``<s>`` included) only;
- curriculum (``curriculum.py``): one coin per micro-batch; a hybrid micro-batch has every title
  followed by its behavioural placeholder, a text one ``[PH]`` with the projector frozen;
  ``hybrid_share: 0`` is the text-only (TALLRec-style) LoRA;
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
from lrworld.core.tensors import load_tensors, save_tensors
from lrworld.tracks.llara.hybrid import curriculum
from lrworld.tracks.llara.hybrid.projector import MlpProjector
from lrworld.tracks.llara.hybrid.tokens import add_placeholder_tokens, hybrid_prompt, wrap_embeds

LORA_TARGETS = ["k_proj", "v_proj", "q_proj", "o_proj", "gate_proj", "up_proj", "down_proj"]
CKPT = "train_state.pt"


def lr_at(step: int, max_steps: int, hp: dict) -> float:
    warm = max_steps // 20
    if step < warm:
        return hp["lr_warmup_start_lr"] + (hp["lr"] - hp["lr_warmup_start_lr"]) * step / max(warm, 1)
    return hp["lr_decay_min_lr"] + (hp["lr"] - hp["lr_decay_min_lr"]) * 0.5 * (1 + math.cos(math.pi * step / max_steps))


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


def special_ids(tok) -> tuple[list[int], list[int]]:
    """The ids the tokenizer puts around each sequence of a pair (``add_special_tokens=True``):
    a Llama tokenizer adds ``<s>`` and no end token (``add_bos_token`` True, ``add_eos_token`` False)."""
    bos = [tok.bos_token_id] if getattr(tok, "add_bos_token", False) and tok.bos_token_id is not None else []
    eos = [tok.eos_token_id] if getattr(tok, "add_eos_token", False) and tok.eos_token_id is not None else []
    return bos, eos


def target_text(title: str) -> str:
    return title + "\n"  # TrainCollater: correct_answer + terminator


def encode(tok, prompts: list[str], targets: list[str]) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor]:
    """Right-padded ids, attention mask and labels (-100 outside the target) of each (prompt,
    target) pair as the tokenizer's pair encoding lays it out; the labels are the target segment
    with its special tokens, as LLaRA masks everything of token type 0."""
    bos, eos = special_ids(tok)
    rows, labels = [], []
    for p, t in zip(prompts, targets):
        pi = bos + tok(p, add_special_tokens=False)["input_ids"] + eos
        ti = bos + tok(t, add_special_tokens=False)["input_ids"] + eos
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


def _diff(old: dict | None, new: dict) -> str:
    if not old:
        return "none recorded"
    keys = sorted({*old.get("hparams", {}), *new["hparams"]})
    moved = [f"{k} {old['hparams'].get(k)} -> {new['hparams'].get(k)}" for k in keys
             if old["hparams"].get(k) != new["hparams"].get(k)]
    moved += [f"{k} {old.get(k)} -> {new[k]}" for k in ("seed", "dataset", "n_examples") if old.get(k) != new[k]]
    return ", ".join(moved)


def validate(model, projector, tok, rows: Sequence[dict], template: str, items, token_ids: dict, hybrid: bool,
             hp: dict, device) -> dict:
    """HitRatio@1 over all rows (LLaRA's ``metric = hr * prediction_valid_ratio``) and valid ratio of
    greedy answers, parsed as LLaRA does; dropout off while it runs."""
    from lrworld.tracks.llara.hybrid.generate import greedy
    from lrworld.tracks.llara.parse import parse_answer

    model.eval()
    projector.eval()
    correct = valid = 0
    bs = int(hp["batch_size"])
    for b0 in range(0, len(rows), bs):
        batch = rows[b0:b0 + bs]
        prompts = [hybrid_prompt(template, r["history_titles"], r["candidate_titles"], hybrid) for r in batch]
        answers = greedy(model, projector, tok, prompts, [r["history"] for r in batch], [r["candidates"] for r in batch],
                         items, token_ids, int(hp["validate_max_new_tokens"]), device)
        for r, (text, *_rest) in zip(batch, answers):
            p = parse_answer(text, r["candidate_titles"], r["next_title"])
            valid += p.valid
            correct += p.correct
    model.train()
    projector.train()
    n = max(len(rows), 1)
    return {"hit_ratio_at_1": round(correct / n, 6), "valid_ratio": round(valid / n, 6), "n": len(rows)}


def train(examples: Sequence[dict], template: str, tok, base_model, items: torch.Tensor, hp: dict, seed: int,
          dataset: str, work_dir: str | os.PathLike, log: Callable[[str], None] = print,
          val_examples: Sequence[dict] = ()) -> tuple:
    """Train; returns (peft model, projector, record). ``examples``: dicts with ``history``,
    ``history_titles``, ``candidates``, ``candidate_titles``, ``next_title``. ``items``: the rec
    model's item table. Resumes from ``work_dir/train_state.pt`` when present.

    With ``validate_every`` N > 0 and ``val_examples``, every N steps and at the last the model
    answers the validation rows; the state of the best HitRatio@1 (the earliest of ties) is kept
    (``work_dir/best.pt``) and returned, as LLaRA's ModelCheckpoint ranks its per-epoch checkpoints
    on the validation metric; otherwise the last step's."""
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
    run_key = {"hparams": dict(hp), "seed": seed, "dataset": dataset, "n_examples": len(examples),
               "n_val_examples": len(val_examples)}
    every = int(hp.get("validate_every", 0)) if val_examples else 0
    val_hybrid = float(hp["hybrid_share"]) > 0  # a text-only LoRA is validated on the text form
    curve: list[dict] = []
    best_path = work / "best.pt"
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
        curve = st.get("val_curve", [])
        log(f"resumed at step {step}/{S}")
    model.train()
    projector.train()
    t0 = time.time()
    while step < S:
        lr = lr_at(step, S, hp)
        for g in opt.param_groups:
            g["lr"] = lr
        torch.manual_seed(int(rng_for(seed, dataset, "llara_dropout", str(step)).integers(2**31)))
        opt.zero_grad()
        total, n_hybrid = 0.0, 0
        acc = hp["accumulate_grad_batches"]
        for micro in range(acc):
            hybrid = curriculum.is_hybrid(step * acc + micro, hp, len(examples), seed, dataset)
            n_hybrid += hybrid
            for p in projector.parameters():  # LLaRA: training_step, per micro-batch (batch["flag"])
                p.requires_grad_(hybrid)
            rows = [examples[i] for i in batch_rows(step, micro, len(examples), hp, seed, dataset)]
            prompts = [hybrid_prompt(template, r["history_titles"], r["candidate_titles"], hybrid) for r in rows]
            ids, mask, lab = (t.to(device) for t in encode(tok, prompts, [target_text(r["next_title"]) for r in rows]))
            emb = wrap_embeds(model, projector, ids, [r["history"] for r in rows], [r["candidates"] for r in rows],
                              items, token_ids)
            out = model(inputs_embeds=emb, attention_mask=mask, labels=lab, use_cache=False)
            (out.loss / acc).backward()
            total += float(out.loss.detach()) / acc
        opt.step()
        step += 1
        losses.append({"step": step, "loss": round(total, 6), "hybrid": n_hybrid, "lr": lr})
        if every and (step % every == 0 or step == S):
            m = validate(model, projector, tok, val_examples, template, items, token_ids, val_hybrid, hp, device)
            if not curve or m["hit_ratio_at_1"] > max(c["hit_ratio_at_1"] for c in curve):
                save_tensors(trainable_state(model, projector), best_path)
            curve.append({"step": step, **m})
            log(f"step {step}/{S} validation HitRatio@1 {m['hit_ratio_at_1']:.4f} (valid {m['valid_ratio']:.4f})")
        if step % hp["checkpoint_every"] == 0 or step == S:
            save_tensors({**trainable_state(model, projector), "optimizer": opt.state_dict(), "step": step, "run": run_key,
                          "losses": losses, "val_curve": curve, "seconds": seconds + time.time() - t0}, state_path)
            log(f"step {step}/{S} loss {total:.4f} ({n_hybrid} of {acc} micro-batches hybrid); checkpoint")
    seconds += time.time() - t0
    selected = step
    if curve:  # the best validation HitRatio@1, the earliest of ties
        best = max(curve, key=lambda c: (c["hit_ratio_at_1"], -c["step"]))
        selected = best["step"]
        kept = load_tensors(best_path, "best validation state")
        set_peft_model_state_dict(model, kept["lora"])
        projector.load_state_dict(kept["projector"])
    record = {"steps": step, "seconds": round(seconds, 1), "loss_curve": losses,
              "hybrid_steps": sum(r["hybrid"] > 0 for r in losses),
              "hybrid_micro_batches": sum(r["hybrid"] for r in losses), "hparams": dict(hp), "seed": seed,
              "n_train_examples": len(examples), "state_sha256": sha256_file(state_path),
              "validation_curve": curve, "n_val_examples": len(val_examples), "selected_step": selected,
              "selection": "best validation HitRatio@1" if curve else "last step"}
    return model, projector, record
