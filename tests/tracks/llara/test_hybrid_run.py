"""llara_train's job end to end on a toy set and a tiny Llama: the rec model the baseline saved, the
record's digests, and hybrid answers from the saved adapter + projector (issue 26 items 2, 3)."""

import json

import pandas as pd

from lrworld.core.io import read_jsonl, sha256_file
from lrworld.tracks.llara import pipeline as P
from lrworld.tracks.llara.hybrid.run import run_hybrid_responses, run_train
from lrworld.tracks.llara.prompts import load_template
from tests.support.tiny_llama import build_tiny_llama

HP = {"lr": 7e-4, "lr_warmup_start_lr": 7e-6, "lr_decay_min_lr": 7e-6, "weight_decay": 1e-5, "batch_size": 2,
      "accumulate_grad_batches": 1, "lora_r": 4, "lora_alpha": 32, "lora_dropout": 0.1, "max_steps": 3,
      "checkpoint_every": 2, "hybrid_share": 1.0}


def test_train_then_answer(tmp_path):
    rows = [{"user_id": f"u{u}", "item_id": f"i{(u * 7 + t) % 60}", "rating": 4.0, "timestamp": 1000 * u + t}
            for u in range(30) for t in range(12)]
    pd.DataFrame(rows).to_parquet(tmp_path / "interactions.parquet", index=False)
    pd.DataFrame({"item_id": [f"i{k}" for k in range(60)],
                  "title": [f"alpha {k:02d}" for k in range(60)]}).to_parquet(tmp_path / "items.parquet", index=False)
    cfg = {"interactions": str(tmp_path / "interactions.parquet"), "items": str(tmp_path / "items.parquet"),
           "template": "generic"}
    P.run_candidates("toy", cfg, seed=1, n=20, out=tmp_path / "c.jsonl")
    P.run_baseline("toy", cfg, tmp_path / "c.jsonl", "sasrec", tmp_path / "b0.jsonl", max_epochs=1, seed=0,
                   holdout_seed=1, val_fraction=0.1, patience=1, checkpoint=tmp_path / "sasrec.pt")
    base = {"model": str(build_tiny_llama(tmp_path / "m"))}
    rec = run_train("toy", cfg, tmp_path / "sasrec.pt", "tiny", base, HP, seed=0, candidate_seed=1, n_candidates=20,
                    work_dir=tmp_path / "work", out_adapter=tmp_path / "adapter", out_projector=tmp_path / "proj.pt",
                    out_record=tmp_path / "record.json", log=lambda m: None)
    assert json.loads((tmp_path / "record.json").read_text()) == rec
    assert rec["steps"] == 3 and len(rec["loss_curve"]) == 3
    assert rec["rec_model_sha256"] == sha256_file(tmp_path / "sasrec.pt")
    assert rec["projector_sha256"] == sha256_file(tmp_path / "proj.pt")
    assert set(rec["data_sha256"]) == {"interactions.parquet", "items.parquet"}
    assert len(rec["base_weights_sha256"]) == 64
    (tmp_path / "c3.jsonl").write_text("".join(json.dumps(r) + "\n" for r in read_jsonl(tmp_path / "c.jsonl")[:3]))
    n = run_hybrid_responses(tmp_path / "c3.jsonl", tmp_path / "sasrec.pt", "tiny", base, tmp_path / "adapter",
                             tmp_path / "proj.pt", load_template("generic"), True, "llara_sasrec",
                             tmp_path / "r.jsonl", max_new_tokens=3, log=lambda m: None)
    out = read_jsonl(tmp_path / "r.jsonl")
    assert n == 3 and [r["qid"] for r in out] == [r["qid"] for r in read_jsonl(tmp_path / "c3.jsonl")]
