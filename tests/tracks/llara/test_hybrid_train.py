"""LLaRA curriculum training on a tiny Llama: schedule, curriculum and resume after SIGKILL."""

import math
import os
import signal
import subprocess
import sys
import textwrap

import pytest
import torch

from lrworld.tracks.llara.hybrid.train import lr_at

HP = {"lr": 7e-4, "lr_warmup_start_lr": 7e-6, "lr_decay_min_lr": 7e-6, "weight_decay": 1e-5, "batch_size": 2,
      "accumulate_grad_batches": 2, "lora_r": 8, "lora_alpha": 32, "lora_dropout": 0.1, "max_steps": 6,
      "checkpoint_every": 2, "hybrid_share": 1.0}

RUN = textwrap.dedent("""
    import json, os, signal, sys, torch
    from transformers import AutoModelForCausalLM, AutoTokenizer
    from lrworld.recsys.sequential import SASRec
    from lrworld.tracks.llara.hybrid.tokens import item_table
    from lrworld.tracks.llara.hybrid.train import train
    model_dir, work, kill_at, hp = sys.argv[1], sys.argv[2], sys.argv[3], json.loads(sys.argv[4])
    names = "alpha beta gamma delta epsilon zeta eta theta iota kappa".split()
    ex = [{"history": [i % 10, (i + 1) % 10], "history_titles": [names[i % 10], names[(i + 1) % 10]],
           "candidates": [(i + 2) % 10, (i + 5) % 10], "candidate_titles": [names[(i + 2) % 10], names[(i + 5) % 10]],
           "next_title": names[(i + 2) % 10]} for i in range(7)]
    torch.manual_seed(0)
    rec = SASRec(n_items=10, hidden=8)
    tok, base = AutoTokenizer.from_pretrained(model_dir), AutoModelForCausalLM.from_pretrained(model_dir)
    def log(msg):
        if kill_at and msg.startswith(f"step {kill_at}/"):
            os.kill(os.getpid(), signal.SIGKILL)
    model, proj, rec_ = train(ex, "this user has watched [HistoryHere] . candidates are [CansHere] . answer is",
                              tok, base, item_table(rec), hp, 0, "tiny", work, log=log)
    torch.save({"proj": proj.state_dict()}, os.path.join(work, "final.pt"))
    json.dump(rec_, open(os.path.join(work, "record.json"), "w"))
""")


def test_schedule_matches_llara():
    assert lr_at(0, 100, HP) == pytest.approx(7e-6)  # warm-up starts at lr_warmup_start_lr
    # step 5 of 100 is past the 5-step warm-up: cosine from lr to lr_decay_min_lr
    assert lr_at(5, 100, HP) == pytest.approx(7e-6 + (7e-4 - 7e-6) * 0.5 * (1 + math.cos(math.pi * 0.05)))
    assert lr_at(100, 100, HP) == pytest.approx(7e-6)


def _run(tmp_path, work, kill_at=""):
    import json
    env = {**os.environ, "PYTHONPATH": os.getcwd(), "OMP_NUM_THREADS": "1"}
    return subprocess.run([sys.executable, "-c", RUN, str(tmp_path / "m"), str(work), kill_at, json.dumps(HP)],
                          env=env, capture_output=True, text=True)


def test_resume_after_sigkill_continues_exactly(tmp_path):
    import json
    from tests.support.tiny_llama import build_tiny_llama
    build_tiny_llama(tmp_path / "m")
    full = _run(tmp_path, tmp_path / "full")
    assert full.returncode == 0, full.stderr[-2000:]
    killed = _run(tmp_path, tmp_path / "resumed", kill_at="4")
    assert killed.returncode == -signal.SIGKILL
    assert torch.load(tmp_path / "resumed" / "train_state.pt", weights_only=False)["step"] == 4
    again = _run(tmp_path, tmp_path / "resumed")
    assert again.returncode == 0, again.stderr[-2000:]
    a = json.loads((tmp_path / "full" / "record.json").read_text())
    b = json.loads((tmp_path / "resumed" / "record.json").read_text())
    assert a["steps"] == b["steps"] == 6
    assert [r["loss"] for r in a["loss_curve"]] == [r["loss"] for r in b["loss_curve"]]
    pa = torch.load(tmp_path / "full" / "final.pt")["proj"]
    pb = torch.load(tmp_path / "resumed" / "final.pt")["proj"]
    assert all(torch.equal(pa[k], pb[k]) for k in pa)
    assert a["loss_curve"][0]["loss"] > 0


def test_a_checkpoint_of_other_settings_is_not_resumed(tmp_path):
    """Killed at step 4 of 6, then asked for 8 steps: every learning rate of the schedule moved, so
    the run starts over (8 steps from step 1, the same first batch and loss) instead of mixing
    two schedules; the log names what changed."""
    import json
    from tests.support.tiny_llama import build_tiny_llama
    build_tiny_llama(tmp_path / "m")
    killed = _run(tmp_path, tmp_path / "w", kill_at="4")
    assert killed.returncode == -signal.SIGKILL
    first = torch.load(tmp_path / "w" / "train_state.pt", weights_only=False)["losses"][0]["loss"]
    env = {**os.environ, "PYTHONPATH": os.getcwd(), "OMP_NUM_THREADS": "1"}
    longer = subprocess.run([sys.executable, "-c", RUN.replace("log=log", "log=print"), str(tmp_path / "m"),
                             str(tmp_path / "w"), "", json.dumps({**HP, "max_steps": 8})],
                            env=env, capture_output=True, text=True)
    assert longer.returncode == 0, longer.stderr[-2000:]
    assert "a checkpoint of other settings (max_steps 6 -> 8); starting over" in longer.stdout
    rec = json.loads((tmp_path / "w" / "record.json").read_text())
    assert [r["step"] for r in rec["loss_curve"]] == list(range(1, 9)) and rec["steps"] == 8
    assert rec["loss_curve"][0]["loss"] == first


SELECT = textwrap.dedent("""
    import json, os, sys, torch
    from transformers import AutoModelForCausalLM, AutoTokenizer
    from lrworld.recsys.sequential import SASRec
    from lrworld.tracks.llara.hybrid.tokens import item_table
    from lrworld.tracks.llara.hybrid import train as T
    from peft import get_peft_model_state_dict
    model_dir, work, hp = sys.argv[1], sys.argv[2], json.loads(sys.argv[3])
    names = "alpha beta gamma delta epsilon zeta eta theta iota kappa".split()
    ex = [{"history": [i % 10, (i + 1) % 10], "history_titles": [names[i % 10], names[(i + 1) % 10]],
           "candidates": [(i + 2) % 10, (i + 5) % 10], "candidate_titles": [names[(i + 2) % 10], names[(i + 5) % 10]],
           "next_title": names[(i + 2) % 10]} for i in range(7)]
    # scripted validation scores by step: the best (0.75) at step 4, a tie at step 6 keeps step 4
    scores = {2: 0.25, 4: 0.75, 6: 0.75}
    states = {}
    real = T.validate
    def scripted(model, projector, *a, **k):
        step = len(states) * 2 + 2
        states[step] = {n: p.detach().clone() for n, p in get_peft_model_state_dict(model).items()}
        real(model, projector, *a, **k)  # the real greedy pass runs (and must leave training mode on)
        assert model.training and projector.training
        return {"hit_ratio_at_1": scores[step], "valid_ratio": 1.0, "n": 3}
    T.validate = scripted
    torch.manual_seed(0)
    rec = SASRec(n_items=10, hidden=8)
    tok, base = AutoTokenizer.from_pretrained(model_dir), AutoModelForCausalLM.from_pretrained(model_dir)
    model, proj, rec_ = T.train(ex, "this user has watched [HistoryHere] . candidates are [CansHere] . answer is",
                                tok, base, item_table(rec), hp, 0, "tiny", work, log=print, val_examples=ex[:3])
    got = get_peft_model_state_dict(model)
    same = all(torch.equal(got[n], v) for n, v in states[4].items())
    last = all(torch.equal(got[n], v) for n, v in states[6].items())
    json.dump({**rec_, "returned_is_step4": same, "returned_is_step6": last}, open(os.path.join(work, "record.json"), "w"))
""")


def test_validation_selects_the_best_state(tmp_path):
    """validate_every 2 of 6 steps: the curve is recorded, the state of the best validation
    HitRatio@1 (step 4; the tie at step 6 keeps the earlier) is the one returned."""
    import json
    from tests.support.tiny_llama import build_tiny_llama
    build_tiny_llama(tmp_path / "m")
    env = {**os.environ, "PYTHONPATH": os.getcwd(), "OMP_NUM_THREADS": "1"}
    hp = {**HP, "validate_every": 2, "validate_n": 3, "validate_max_new_tokens": 2}
    run = subprocess.run([sys.executable, "-c", SELECT, str(tmp_path / "m"), str(tmp_path / "w"), json.dumps(hp)],
                         env=env, capture_output=True, text=True)
    assert run.returncode == 0, run.stderr[-2000:]
    rec = json.loads((tmp_path / "w" / "record.json").read_text())
    assert [(c["step"], c["hit_ratio_at_1"]) for c in rec["validation_curve"]] == [(2, 0.25), (4, 0.75), (6, 0.75)]
    assert rec["selected_step"] == 4 and rec["selection"] == "best validation HitRatio@1"
    assert rec["returned_is_step4"] and not rec["returned_is_step6"] and rec["steps"] == 6
