"""The analyses' part of the plan (rules/analysis.smk): which tables a config asks for, their
report entries, and their inputs. Every analysis is switched on by config (variants and
`analysis:`), never by code."""

from __future__ import annotations

from pathlib import Path

from snakemake.io import expand, report

from lrworld.core.schema import ConfigError
from lrworld.models.registry import capabilities
from lrworld.prompts.variants import kind as variant_kind
from lrworld.workflow import resources

A_OUT = "results/analysis/{dataset}"


def table_outputs(name: str, caption: str, category: str) -> dict:
    """An analysis table: CSV, Markdown, LaTeX, and HTML (the one shown in the report)."""
    stem = f"{A_OUT}/tables/{name}"
    return {f"{name}_csv": f"{stem}.csv", f"{name}_md": f"{stem}.md", f"{name}_tex": f"{stem}.tex",
            f"{name}_html": report(f"{stem}.html", caption=f"../docs/report/{caption}.rst", category=category,
                                   subcategory="{dataset}", labels={"dataset": "{dataset}", "table": name, "figure": ""})}


def plot_outputs(name: str, caption: str, category: str) -> dict:
    stem = f"{A_OUT}/plots/{name}"
    return {f"{name}_png": report(f"{stem}.png", caption=f"../docs/report/{caption}.rst", category=category,
                                  subcategory="{dataset}", labels={"dataset": "{dataset}", "table": "", "figure": name}),
            f"{name}_svg": f"{stem}.svg"}


class AnalysisPlan:
    def __init__(self, plan):
        self.plan = plan
        cfg = plan.config["analysis"]
        self.cfg = cfg
        self.on = cfg["enabled"]
        for i, pair in enumerate(cfg["model_pairs"]):
            for k in ("small", "large"):
                if pair[k] not in plan.config["models"]:
                    raise ConfigError(f"config: analysis.model_pairs[{i}].{k}: unknown model {pair[k]!r}")
        # pairs naming a disabled model are skipped (the paper's pairs can stay in the config)
        self.model_pairs = [p for p in cfg["model_pairs"] if p["small"] in plan.models and p["large"] in plan.models]
        tok = cfg["tokenizer"]
        # a model entry with a tokenizer counts with it whether or not it answers (an overlay naming
        # other models leaves it disabled)
        if self.on and tok != "whitespace" and not tok.startswith("tiktoken") and \
                capabilities(plan.config["models"].get(tok, {})).tokenizer is None:
            raise ConfigError(f"config: analysis.tokenizer: {tok!r} is neither 'whitespace', 'tiktoken[:<encoding>]' "
                              "nor a model entry whose backend has a tokenizer (hf)")
        # the card shows the zero_shot prompt (or the first configured variant's)
        self.card_variant = "zero_shot" if "zero_shot" in plan.variants else plan.variants[0]
        self.bootstrap = dict(n_boot=cfg["bootstrap"], confidence=cfg["confidence"], seed=cfg["seed"])

    def targets(self) -> list[str]:
        if not self.on:
            return []
        out = []
        for ds, spec in self.plan.datasets.items():
            d = f"results/analysis/{ds}/tables"
            out += [f"{d}/{t}.csv" for t in ("scores", "slots", "popularity", "prompt_tokens", "latency")]
            if self.cfg["report_cards"]:
                out += [f"results/analysis/{ds}/cards/{m}.html" for m in spec["measures"]]
            kinds = {variant_kind(v) for m in spec["measures"] for v in self.plan.measure_variants(ds, m)}
            if "shuffle" in kinds:
                out.append(f"{d}/position.csv")
            if "noisy" in kinds and "zero_shot" in self.plan.variants:
                out.append(f"{d}/noise_drop.csv")
            if self.model_pairs:
                out.append(f"{d}/model_size.csv")
            if "kshot" in kinds:
                out.append(f"{d}/kshot.csv")
        return out

    def shuffle_prompts(self, dataset: str) -> list[str]:
        """The prompt files of every shuffle<s> cell of a dataset (its measures' own variants)."""
        return [f for f in self.plan.prompt_files(dataset) if variant_kind(Path(f).stem) == "shuffle"]

    def question_files(self, dataset: str) -> list[str]:
        return expand("results/questions/{dataset}/{measure}.jsonl", dataset=dataset,
                      measure=self.plan.datasets[dataset]["measures"])

    def popularity_responses(self, dataset: str) -> list[str]:
        return self.plan.responses_files(dataset, ["zero_shot"] if "zero_shot" in self.plan.variants else None)

    def tokenizer_cfg(self) -> dict | None:
        tok = self.cfg["tokenizer"]
        return resources.without_sizing(self.plan.config["models"][tok]) if tok in self.plan.config["models"] else None
