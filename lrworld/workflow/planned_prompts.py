"""What a prompt file will hold when the run being planned reaches it, for `lrworld plan`.

A prompt file on disk is what the last run built; the config being planned may ask for another
question count or seed. A file counts as it is only when its questions were built with the count,
seed and history length the plan asks (the questions report records them) and it is not older
than its questions. Otherwise it is out of date, as is a file not yet built, and it counts as what
the run will make of it: where the run's inputs are already there (the aligned data, and for a
ground-truth measure its artifact), its questions and prompts are built in memory by the
functions the `questions`/`gt_questions` and `prompts` rules call, so the plan sees the exact
prompts the answer job will ask (and which of them the response cache already answers); else
(`None`) the caller estimates the file from its template and the plan's count.
"""

from __future__ import annotations

import re
from pathlib import Path

from lrworld.core import io
from lrworld.core.package_files import packaged
from lrworld.workflow.plan import Plan

PROMPT_FILE = re.compile(r"results/prompts/(?P<ds>[^/]+)/(?P<measure>[^/]+)/(?P<variant>[^/]+)\.jsonl$")


class PlannedPrompts:
    """`records(path)`: the prompt records the run's file at `path` will hold, or None when they
    cannot be known before its inputs are built. `state[path]`: current, rebuilt or estimated."""

    def __init__(self, plan: Plan, directory: str | Path):
        self.plan, self.dir = plan, Path(directory)
        self._questions: dict[tuple[str, str], list[dict] | None] = {}
        self._tables: dict[str, tuple] = {}
        self.state: dict[str, str] = {}

    def planned_count(self, ds: str, measure: str) -> int | None:
        p = self.plan
        return p.gt_n_questions(ds, measure) if measure in p.gt_artifacts else p.n_questions(ds, measure)

    def _asked(self, ds: str, measure: str) -> dict:
        """What the questions report must record for the file to be the plan's."""
        p = self.plan
        if measure in p.gt_artifacts:
            return {"requested": p.gt_n_questions(ds, measure), "seed": p.gt["seed"]}
        return {"requested": p.n_questions(ds, measure), "seed": p.config["seed"],
                "history_length": p.config["questions"]["history_length"]}

    def current(self, path: str) -> bool:
        m = PROMPT_FILE.search(path)
        prompts = self.dir / path
        if not m or not prompts.exists():
            return False
        if m["ds"] in self.plan.benchmarks:  # a release's prompts are its files, whatever the count
            return True
        qfile = self.dir / f"results/questions/{m['ds']}/{m['measure']}.jsonl"
        report = self.dir / f"results/questions/{m['ds']}/{m['measure']}.report.json"
        if not qfile.exists() or not report.exists() or prompts.stat().st_mtime < qfile.stat().st_mtime:
            return False
        built = io.read_json(report)
        return all(built.get(k) == v for k, v in self._asked(m["ds"], m["measure"]).items())

    def records(self, path: str) -> list[dict] | None:
        if self.current(path):
            self.state[path] = "current"
            return list(io.read_jsonl(self.dir / path))
        m = PROMPT_FILE.search(path)
        questions = self._build_questions(m["ds"], m["measure"]) if m else None
        if questions is None:
            self.state[path] = "estimated"
            return None
        from lrworld.prompts.variants import render_variant_all

        cfg = self.plan.config
        _, items = self._table(m["ds"])
        self.state[path] = "rebuilt"
        return render_variant_all(questions, packaged(self.plan.template(m["ds"], m["measure"], m["variant"])),
                                  items, m["variant"], seed=int(cfg["seed"]),
                                  kshot_default=int(cfg["analysis"]["kshot"]["k"]),
                                  exclude_values=dict(cfg["questions"]["exclude_values"]),
                                  user_items=int(self.plan.datasets[m["ds"]]["user_items_shown"]))

    def _table(self, ds: str):
        if ds not in self._tables:
            import pandas as pd

            data = self.dir / f"results/data/{ds}"
            self._tables[ds] = (pd.read_parquet(data / "interactions.parquet"), pd.read_parquet(data / "items.parquet"))
        return self._tables[ds]

    def _inputs(self, ds: str, measure: str) -> list[Path] | None:
        p = self.plan
        if ds in p.benchmarks:
            return None
        files = [f"results/data/{ds}/interactions.parquet", f"results/data/{ds}/items.parquet"]
        files += p.gt_artifact(ds, measure) if measure in p.gt_artifacts else list(p.caption_inputs(ds, measure).values())
        paths = [self.dir / f for f in files]
        # what a recomputed artifact is read from (the embeddings under prototypes) must be there too
        needed = paths + [self.dir / f for f in p.gt_chain(ds, measure)]
        return paths if all(f.exists() for f in needed) else None

    def _build_questions(self, ds: str, measure: str) -> list[dict] | None:
        key = (ds, measure)
        if key not in self._questions:
            self._questions[key] = None
            if (inputs := self._inputs(ds, measure)) is not None:
                self._questions[key] = self._build(ds, measure, inputs[2:])
        return self._questions[key]

    def _build(self, ds: str, measure: str, extra: list[Path]) -> list[dict]:
        import pandas as pd

        p, cfg = self.plan, self.plan.config
        inter, items = self._table(ds)
        if measure in p.gt_artifacts:
            from lrworld.prompts.render import item_keys
            from lrworld.questions import measures
            from lrworld.questions.builders import build_from_artifact
            from lrworld.questions.distractors import Debias

            artifact = pd.concat([self._artifact(ds, f) for f in extra], ignore_index=True)
            qs, _ = build_from_artifact(measures.by_id(measure), inter, artifact, int(p.gt_n_questions(ds, measure)),
                                        int(p.gt["seed"]), ds, display=item_keys(items[["item_id", "title", "year"]]),
                                        debias=Debias(cfg["questions"]["distractors"], cfg["questions"]["max_gold_share"]),
                                        items=items, exclude_values=dict(cfg["questions"]["exclude_values"]))
            return qs
        from lrworld.questions.build import build_questions

        texts = None
        if extra:  # the multimodal measure's captions
            cap = pd.read_parquet(extra[0])
            texts = dict(zip(cap["item_id"].astype(str), cap["caption"]))
        q = cfg["questions"]
        from lrworld.questions.distractors import Debias

        qs, _ = build_questions(ds, p.datasets[ds]["domain"], measure, inter, items, int(q["history_length"]),
                                p.n_questions(ds, measure), int(cfg["seed"]), item_texts=texts, ties=q["ties"],
                                exclude_values=dict(q["exclude_values"]),
                                debias=Debias(q["distractors"], q["max_gold_share"]))
        return qs

    def _artifact(self, ds: str, path: Path):
        """A ground-truth artifact as the run will have it: the ones drawn for a question count
        (similar pairs, prototypes, made artifacts) recomputed in memory by the functions their
        rules call, with the plan's count; the others (rules, embeddings) read as built."""
        import pandas as pd

        from lrworld.groundtruth import artifacts
        from lrworld.prompts.render import item_keys

        p, gt = self.plan, self.plan.gt
        name = artifacts.name_of(str(path))
        inter, items = self._table(ds)
        if name.endswith("_similar_pairs"):
            from lrworld.groundtruth.similarity import similar_pairs

            kind, s = name.split("_")[0], gt["similarity"]
            return similar_pairs(inter, kind, int(p.gt_n_questions(ds, f"mem_{kind}_{kind}")), threshold=s["threshold"],
                                 seed=int(gt["seed"]), min_degree=s["min_degree"],
                                 fallback_quantile=s["fallback_quantile"], dataset=ds,
                                 display=item_keys(items) if kind == "item" else None,
                                 margin=float(gt["margin"]["memory"]))[0]
        if name == "prototypes":
            from lrworld.groundtruth.prototypes import all_prototypes

            emb = pd.read_parquet(self.dir / artifacts.paths(["embeddings"], ds)[0])
            km = gt["kmeans"]
            return all_prototypes(emb, inter, int(p.gt_n_questions(ds, "neu_item2users", "neu_user2items")),
                                  k=km["k"], seed=int(gt["seed"]), n_positives=km["n_positives"], dataset=ds,
                                  display=item_keys(items), margin=float(gt["margin"]["neural"]))[0]
        if (make := artifacts.made().get(name)) is not None:
            from lrworld.core.registry import resolve

            return resolve(make)(inter, int(gt["n_questions"]), int(gt["seed"]), ds)
        return pd.read_parquet(path)
