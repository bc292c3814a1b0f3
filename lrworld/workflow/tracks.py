"""The LLaRA and SRBench tracks' part of the plan (rules/llara.smk, rules/srbench.smk). Each track
has wildcards of its own (`ll_dataset`, `sr_dataset`, ...), so its names never collide with the
LRWorld datasets'; its model calls go through the one `answer` rule (track `llara`/`srbench`)."""

from __future__ import annotations

from pathlib import Path

from snakemake.io import expand

from lrworld.core.schema import ConfigError
from lrworld.tracks.llara.hybrid import entries as llara_entries
from lrworld.tracks.llara.hybrid import released_entry
from lrworld.tracks.llara.pipeline import BASELINE_PREFIX, dataset_inputs, paper_dataset
from lrworld.workflow import resources
from lrworld.tracks.srbench import steps as srbench_steps

# Keys of an SRBench dataset spec that name input files (the `contract` loader reads the spine's outputs).
_SR_FILE_KEYS = ("interactions", "items", "sequences", "reviews", "meta", "review", "business")


def _enabled(track: str, names, plan) -> list[str]:
    """A track's model list names entries of `models`; disabled ones are not run anywhere."""
    for i, m in enumerate(names):
        if m not in plan.config["models"]:
            raise ConfigError(f"config: {track}.models[{i}]: unknown model {m!r}")
    return [m for m in names if m in plan.models]


class LlaraPlan:
    def __init__(self, plan):
        self.plan = plan
        self.cfg = plan.config["llara"]  # schema defaults filled
        self.datasets = self.cfg.get("datasets", {})
        self.baselines = self.cfg["baselines"]
        # one training job per traditional model and seed (0..baseline_seeds-1)
        self.seeds = list(range(self.cfg["baseline_seeds"]))
        self.models = _enabled("llara", self.cfg.get("models", list(plan.models)), plan)
        baseline_rows = [BASELINE_PREFIX + b for b in self.baselines]
        # LLaRA-trained rows (projector + LoRA): one llara_train job and one answer job per training
        # and dataset; a row of several training seeds is scored as their mean ± sd
        self.trained = llara_entries.check(self.cfg["trained"], plan.config["models"], self.baselines,
                                           self.cfg["baseline_seeds"], {*plan.config["models"], *baseline_rows})
        self.trained_rows = llara_entries.rows(self.trained)
        if self.trained:
            for d, c in self.datasets.items():
                if self.train_cfg(d)["validate_every"] and \
                        "Val_data.jsonl" in [*c.get("train_files", []), *c.get("train_expand", [])]:
                    raise ConfigError(f"config: llara.train.validate_every: llara.datasets.{d} trains on its "
                                      f"Val_data.jsonl, so validation would score trained-on rows; set 0 or "
                                      f"leave Val_data.jsonl out of its training files")
        # a released LLaRA model (`llara.checkpoint`): one row, answered on the datasets it names
        self.released = released_entry.check(self.cfg.get("checkpoint"), plan.config["models"], self.datasets,
                                             {*plan.config["models"], *baseline_rows, *self.trained,
                                              *self.trained_rows}, self.cfg["n_candidates"])
        # the models and trainings answered through the `answer` rule
        self.answered = self.models + list(self.trained) + list(self.released)
        self.rows = self.models + list(self.trained_rows) + list(self.released) + baseline_rows
        self.forms = (*llara_entries.FORMS, llara_entries.RELEASED_FORM)

    def targets(self) -> list[str]:
        return ["results/tables/llara.csv", "results/tables/llara.md"] if self.datasets else []

    def inputs(self, dataset: str) -> list[str]:
        return dataset_inputs(dataset, self.datasets[dataset])

    def responses(self, dataset: str, row: str) -> str | list[str]:
        """An LLM's responses file, or a traditional model's files (one per training seed)."""
        if row.startswith(BASELINE_PREFIX):
            return [f"results/llara/{dataset}/{row}/seed{s}.jsonl" for s in self.seeds]
        if self.row_seeds(row) is not None:  # a trained row of several seeds: a file per training
            return [f"results/llara/{dataset}/responses/{t}.jsonl" for t in self.trained_rows[row]]
        return f"results/llara/{dataset}/responses/{row}.jsonl"

    def row_seeds(self, row: str) -> list[int] | None:
        """The training seeds of a LLaRA-trained row of several trainings, in its responses' order
        (scored as mean ± sd); None for every other row (a baseline's records name their seed)."""
        names = self.trained_rows.get(row)
        if not names or names == [row]:
            return None
        return [self.trained[t]["seed"] for t in names]

    def request_file(self, dataset: str, row: str) -> str:
        """The requests an answered row is asked: the text prompts, or a trained row's hybrid/text form."""
        if row in self.trained:
            return llara_entries.requests_file(dataset, self.trained[row])
        if row in self.released:
            return f"results/llara/{dataset}/hybrid_requests/{llara_entries.RELEASED_FORM}.jsonl"
        return f"results/llara/{dataset}/prompts.jsonl"

    def request_template(self, dataset: str, form: str) -> str:
        """The template a requests file is rendered from: a released checkpoint on one of LLaRA's
        sets is asked with LLaRA's whole prompt file for the set's kind; every other row with the
        dataset's template."""
        c = self.datasets[dataset]
        if form == llara_entries.RELEASED_FORM:
            return released_entry.template(dataset, c)
        return c.get("template", dataset)

    # -- LLaRA-trained rows --------------------------------------------------------------------
    def base(self, name: str) -> str:
        return (self.trained.get(name) or self.released[name])["base"]

    def based(self, model: str) -> str | None:
        """The base model of a LLaRA-trained or released row (its weights and sizing); else None."""
        return self.base(model) if model in self.trained or model in self.released else None

    def rec_checkpoint(self, dataset: str, name: str) -> str | None:
        return llara_entries.rec_checkpoint(dataset, self.trained[name])

    def valid_inputs(self, dataset: str) -> list[str]:
        """A released set's Val_data.jsonl when llara_train validates (sets built from interactions
        hold their validation split in their inputs already)."""
        c = self.datasets[dataset]
        if not self.train_cfg(dataset)["validate_every"] or not c.get("path"):
            return []
        return [str(Path(c["path"]) / "Val_data.jsonl")]

    def train_cfg(self, dataset: str | None = None) -> dict:
        """llara.train, with a dataset's own settings over it (``llara.datasets.<d>.train``: LLaRA's
        train_<dataset>.sh sets learning rates and batch sizes per dataset)."""
        own = self.datasets[dataset].get("train", {}) if dataset else {}
        return {**self.cfg["train"], **own}

    def train_hparams(self, name: str, dataset: str | None = None) -> dict:
        """The dataset's training settings with the entry's curriculum share and seed."""
        e = self.trained[name]
        return {**self.train_cfg(dataset), "hybrid_share": e["hybrid_share"], "seed": e["seed"]}

    def train_resources(self, name: str, dataset: str | None = None) -> dict:
        """A training job asks for what its base model's answer job asks (GPUs, memory); its time:
        forward + backward (3 passes) over every training token at the model's throughput."""
        need = self.plan.answer_resources(self.base(name))
        hp = self.train_cfg(dataset)
        # a LLaRA training example (30 titles and the instruction) is about 600 tokens
        tokens = 3 * 600 * hp["max_steps"] * hp["batch_size"] * hp["accumulate_grad_batches"]
        return {**need, "mem_mb": resources.mem_mb(need), "runtime": resources.runtime_min(need, tokens)}

    def answer_inputs(self, dataset: str, model: str) -> list[str]:
        if model in self.released:
            return released_entry.answer_inputs(dataset)
        return llara_entries.answer_inputs(dataset, model, self.trained[model]) if model in self.trained else []

    def answer_cfg(self, dataset: str, model: str) -> dict:
        # the base's entry whether or not it is enabled (a disabled base has no zero-shot row of its own)
        base = resources.without_sizing(self.plan.config["models"][self.base(model)])
        if model in self.released:
            return released_entry.answer_cfg(dataset, self.released[model], base, self.cfg["train"],
                                             self.cfg["n_candidates"])
        return llara_entries.answer_cfg(dataset, model, self.trained[model], base)

    def released_file(self, dataset: str, key: str) -> dict:
        """The `llara.checkpoint` spec ({url | path, sha256}) of one released file of a dataset."""
        (entry,) = self.released.values()
        return entry["datasets"][dataset][key]

    def row_kinds(self) -> dict[str, str]:
        return {**{e["row"]: llara_entries.kind(e) for e in self.trained.values()},
                **{n: released_entry.kind(e) for n, e in self.released.items()}}

    def paper_rows(self) -> dict[str, str]:
        return {**{e["row"]: llara_entries.paper_row(e) for e in self.trained.values()},
                **{n: released_entry.paper_row(e) for n, e in self.released.items()}}

    def max_epochs(self, dataset: str) -> int:
        return self.datasets[dataset].get("max_epochs", self.cfg["max_epochs"])

    def paper_datasets(self) -> dict[str, str]:
        """Our dataset name -> the paper's dataset (LLaRA's released sets), for the paper's columns."""
        return {d: p for d, c in self.datasets.items() if (p := paper_dataset(d, c))}

    def _on(self, row: str, dataset: str) -> bool:
        # a released row has a cell only on the datasets its checkpoint names
        return row not in self.released or dataset in self.released[row]["datasets"]

    def score_files(self) -> list[str]:
        return [f"results/llara/{d}/scores/{r}.json" for d in self.datasets for r in self.rows if self._on(r, d)]

    def answer_jobs(self) -> list[tuple[str, str]]:
        """(dataset, model) of the track's answer jobs."""
        return [(d, m) for d in self.datasets for m in self.answered if self._on(m, d)]


class SrbenchPlan:
    def __init__(self, plan):
        self.plan = plan
        self.settings = srbench_steps.settings(plan.config)
        self.datasets = plan.config.get("srbench", {}).get("datasets", {})
        llm = self.settings["llm"]
        self.models = _enabled("srbench.llm", llm["models"], plan) if self.datasets else []
        self.modes = list(llm["modes"])
        self.baselines = list(self.settings["baselines"])
        self.seeds = srbench_steps.nn_seeds(plan.config)
        self.recommenders = self.baselines + [f"{m}__{mode}" for m in self.models for mode in self.modes]

    def targets(self) -> list[str]:
        return expand("results/tables/srbench_{sr_dataset}.{ext}", sr_dataset=self.datasets, ext=["csv", "md"])

    def inputs(self, dataset: str) -> list[str]:
        spec = self.datasets[dataset]
        files = [spec[k] for k in _SR_FILE_KEYS if spec.get(k)]
        if spec.get("raw_dir"):
            files += [str(Path(spec["raw_dir"]) / f) for f in ("u.data", "u.item")]
        return files

    def score_files(self, dataset: str) -> list[str]:
        return expand("results/srbench/{sr_dataset}/scores/{recommender}.json", sr_dataset=dataset,
                      recommender=self.recommenders)

    def runs(self, dataset: str, recommender: str, kind: str) -> list[str]:
        """A baseline's per-seed lists (kind "lists") or training records ("training"), or an
        LLM's lists (one file; no training records)."""
        if recommender in self.baselines:
            ext = ".jsonl" if kind == "lists" else ".training.json"
            return [f"results/srbench/{dataset}/baselines/{recommender}/seed{s}{ext}" for s in self.seeds]
        return [f"results/srbench/{dataset}/lists/{recommender}.jsonl"] if kind == "lists" else []

    def llm_settings(self) -> dict:
        """What the LLM requests depend on (their rule's params)."""
        s = self.settings
        return {"ks": s["ks"], "runs": s["runs"], "max_users": s["max_users"], "max_history": s["llm"]["max_history"]}
