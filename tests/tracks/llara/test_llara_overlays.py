"""The shipped LLaRA-trained overlays plan what their comments say: config/llara_trained.yaml (the
CPU measurement: SmolLM2 zero-shot, text-only LoRA and LLaRA(SASRec), 3 seeds) and
config/llara_gpu.yaml (Llama-2-7B, GPU jobs sized from the base model's entry)."""

from pathlib import Path

import pytest

from lrworld.config import assembly as lrw_config, files as config_files
from lrworld.workflow.plan import Plan

ROOT = Path(__file__).resolve().parents[3]


def _plan(overlay: str) -> Plan:
    cfg = config_files.load(ROOT, [ROOT / overlay])
    lrw_config.validate(cfg)
    lrw_config.fill_defaults(cfg)
    return Plan(cfg, ROOT)


def test_cpu_overlay():
    wl = _plan("config/llara_trained.yaml").llara
    assert sorted(wl.datasets) == ["lastfm", "movielens"]
    assert wl.answered == ["smollm2-135m-generate"] + [f"smollm2-{k}-s{s}" for k in ("text", "llara-sasrec")
                                                       for s in range(3)]
    assert wl.rec_checkpoint("lastfm", "smollm2-llara-sasrec-s2") == "results/llara/lastfm/baseline_sasrec/seed2.pt"
    assert wl.train_hparams("smollm2-text-s1")["hybrid_share"] == 0 and wl.train_hparams("smollm2-text-s1")["seed"] == 1
    assert wl.train_resources("smollm2-text-s0")["gpu"] == 0
    # two rows of 3 trainings each, scored as mean ± sd over the seeds
    assert wl.rows == ["smollm2-135m-generate", "smollm2-text", "smollm2-llara-sasrec", "baseline_popularity",
                       "baseline_sasrec"]
    assert wl.row_seeds("smollm2-llara-sasrec") == [0, 1, 2] and wl.row_seeds("smollm2-135m-generate") is None
    assert wl.responses("lastfm", "smollm2-text") == [f"results/llara/lastfm/responses/smollm2-text-s{s}.jsonl"
                                                      for s in range(3)]
    assert wl.row_kinds() == {"smollm2-text": "LoRA, text (TALLRec-style)", "smollm2-llara-sasrec": "LLaRA(SASRec)"}


def test_gpu_overlay_is_sized_like_its_answer_jobs():
    plan = _plan("config/llara_gpu.yaml")
    wl = plan.llara
    assert list(wl.trained) == ["llama2-tallrec", "llama2-llara-gru4rec", "llama2-llara-caser", "llama2-llara-sasrec"]
    need = plan.answer_resources("llama2-llara-sasrec")
    assert need == plan.answer_resources("llama-2-7b") and need["gpu"] == 1
    res = wl.train_resources("llama2-llara-sasrec", "lastfm")
    assert res["gpu"] == 1 and res["mem_mb"] == 56320  # (4 + 40) GB x 1.25
    # startup 300 s + 3 x 600 tokens x 1870 steps x 128 examples at 2400 tokens/s, x 1.5
    assert res["runtime"] == 4496  # minutes (75 h: set throughput_tokens_s to what the GPU reaches)
    hp = wl.train_hparams("llama2-llara-sasrec", "lastfm")
    assert (hp["max_steps"], hp["validate_every"], hp["curriculum"]) == (1870, 374, "code")
    cfg = plan.answer_params("llara", "lastfm", "llama2-llara-caser")
    assert cfg["base"]["model"] == "meta-llama/Llama-2-7b-hf" and cfg["rec_model"].endswith("baseline_caser/seed0.pt")


def test_a_disabled_base_model_still_trains_and_answers():
    """config/llara_trained.yaml with its base model left disabled (as config.yaml ships it): no
    zero-shot row, but the trained rows plan their training and answer jobs on the base's entry."""
    cfg = config_files.load(ROOT, [ROOT / "config/llara_trained.yaml"])
    cfg["models"]["smollm2-135m-generate"]["enabled"] = False
    cfg["models"]["random"]["enabled"] = True  # a run needs one enabled model
    lrw_config.validate(cfg)
    lrw_config.fill_defaults(cfg)
    plan = Plan(cfg, ROOT)
    assert "smollm2-135m-generate" not in plan.llara.answered and "smollm2-text-s0" in plan.llara.answered
    answer = plan.answer_params("llara", "lastfm", "smollm2-text-s0")
    assert answer["base"]["gguf_file"] == "SmolLM2-135M-Instruct.Q4_1.gguf" and answer["form"] == "text"
    assert plan.answer_resources("smollm2-text-s0")["gpu"] == 0


def test_released_gpu_overlay_plans_the_released_row():
    """config/llara_released_gpu.yaml: LLaRA's released LLaRA(SASRec) on its three sets, Llama-2-7B."""
    plan = _plan("config/llara_released_gpu.yaml")
    wl = plan.llara
    name = "llama2-llara-sasrec-released"
    assert wl.answered == [name] and wl.rows == [name, "baseline_popularity"]
    assert wl.row_kinds() == {name: "LLaRA(SASRec), released checkpoint"} and wl.paper_rows() == {name: "LLaRA(SASRec)"}
    cfg = plan.answer_params("llara", "lastfm", name)
    assert cfg["checkpoint"] == "results/llara/lastfm/released/checkpoint.ckpt" and cfg["rec_format"] == "llara"
    # LoRA: the checkpoint's recorded settings; LLaRA's main.py defaults where it records none
    assert cfg["base"]["model"] == "meta-llama/Llama-2-7b-hf" and cfg["lora"] is None
    assert cfg["lora_default"] == {"lora_r": 8, "lora_alpha": 32, "lora_dropout": 0.1} and cfg["n_candidates"] == 20
    assert wl.released_file("steam", "ckpt") == {"path": "checkpoints/steam.ckpt"}
    assert wl.released_file("lastfm", "rec_model")["url"].endswith("/rec_model/lastfm.pt")
    assert plan.answer_resources(name)["gpu"] == 1
    assert wl.request_file("movielens", name) == "results/llara/movielens/hybrid_requests/released.jsonl"
    assert [wl.request_template(d, "released") for d in ("movielens", "steam", "lastfm")] == \
        ["released/movie", "released/game", "released/artist"]
    assert wl.datasets["movielens"]["title_form"] == "llara"
    assert len(wl.score_files()) == 6


# LLaRA's script per llara.datasets entry of config/llara_gpu.yaml
SCRIPTS = {"lastfm": "train_lastfm.sh", "movielens": "train_movielens.sh", "steam": "train_steam.sh"}


@pytest.mark.parametrize("dataset", sorted(SCRIPTS))
def test_gpu_overlay_trains_each_set_with_llaras_own_script(dataset, shared_data):
    """Each setting of config/llara_gpu.yaml's block of a set is the one LLaRA's train_<set>.sh passes
    (copies of LLaRA's scripts in fixtures/llara_9733f73/), and max_steps is LLaRA's main.py:49 over
    the rows the set trains on: training rows with len_seq >= 3 x max_epochs // (accumulate x batch)."""
    from lrworld.tracks.llara.pipeline import load_dataset
    from tests.tracks.llara.llara_source import FIXTURE

    words = (FIXTURE / SCRIPTS[dataset]).read_text().split()
    args = {words[i][2:]: words[i + 1] for i, w in enumerate(words) if w.startswith("--") and i + 1 < len(words)}
    wl = _plan("config/llara_gpu.yaml").llara
    assert sorted(wl.datasets) == sorted(SCRIPTS)
    hp = wl.train_hparams("llama2-llara-sasrec", dataset)
    for key in ("lr", "lr_warmup_start_lr", "lr_decay_min_lr", "batch_size", "accumulate_grad_batches", "max_epochs"):
        assert float(hp[key]) == float(args[key]), key
    assert args["cans_num"] == str(wl.cfg["n_candidates"]) == "20"
    cfg = {k: v.replace("../shared/data", str(shared_data)) if isinstance(v, str) else v
           for k, v in wl.datasets[dataset].items()}
    ds = load_dataset(dataset, cfg)
    rows = sum(len(ex.history) >= 3 for ex in ds.train)
    assert hp["max_steps"] == rows * int(args["max_epochs"]) // (int(args["accumulate_grad_batches"]) *
                                                                 int(args["batch_size"]))
    assert rows == {"lastfm": 47872, "movielens": 71468, "steam": 8702}[dataset]
    # validated once an epoch, except where the validation rows are training rows (Steam)
    assert hp["validate_every"] == (0 if dataset == "steam" else hp["max_steps"] // 5)


def test_released_entry_refusals():
    from lrworld.core.schema import ConfigError
    from lrworld.tracks.llara.hybrid import released_entry

    models = {"b": {"backend": "hf"}, "r": {"backend": "random"}}
    ok = {"name": "rel", "base": "b", "rec": "sasrec", "datasets": {"lastfm": {"ckpt": {"path": "x"},
                                                                              "rec_model": {"path": "y"}}}}
    assert list(released_entry.check(ok, models, {"lastfm": {}}, set())) == ["rel"]
    bad = [({**ok, "base": "r"}, "config: llara.checkpoint.base: 'r' has backend 'random'"),
           ({**ok, "name": "b"}, "config: llara.checkpoint.name: 'b' is already"),
           (ok, "config: llara.checkpoint.datasets.lastfm: not a llara.datasets entry"),
           ({**ok, "datasets": {"lastfm": {"ckpt": {"url": "u"}, "rec_model": {"path": "y"}}}},
            "config: llara.checkpoint.datasets.lastfm.ckpt.sha256: needed with url"),
           ({**ok, "datasets": {"lastfm": {"ckpt": {"url": "u", "path": "p", "sha256": "0"}, "rec_model": {"path": "y"}}}},
            "config: llara.checkpoint.datasets.lastfm.ckpt: give exactly one of url or path")]
    for entry, msg in bad:
        datasets = {"movielens": {}} if entry is ok else {"lastfm": {}}
        with pytest.raises(ConfigError) as err:
            released_entry.check(entry, models, datasets, {"b"} if entry.get("name") == "b" else set())
        assert str(err.value).startswith(msg) and "\n" not in str(err.value)


def test_validation_on_a_set_that_trains_on_its_val_rows_is_refused():
    from lrworld.core.schema import ConfigError

    cfg = config_files.load(ROOT, [ROOT / "config/llara_trained.yaml"])
    cfg["llara"]["train"]["validate_every"] = 5
    lrw_config.validate(cfg)
    lrw_config.fill_defaults(cfg)
    assert Plan(cfg, ROOT).llara.valid_inputs("lastfm") == ["../shared/data/llara/lastfm/Val_data.jsonl"]
    cfg["llara"]["datasets"]["steam"] = {"path": "../shared/data/llara/steam", "train_files": ["train_data_first1000.jsonl"],
                                         "train_expand": ["Val_data.jsonl"], "template": "steam"}
    lrw_config.fill_defaults(cfg)
    with pytest.raises(ConfigError, match=r"^config: llara.train.validate_every: llara.datasets.steam trains on its "
                                          r"Val_data.jsonl"):
        Plan(cfg, ROOT)
