"""What a validated config asks the graph to build: the names its wildcards range over, the
targets of `rule all`, and the input functions the rules files call (`rules/common.smk` makes one
`Plan` and the rules use it; the .smk files hold no functions of their own)."""

from __future__ import annotations

import re
from pathlib import Path

from snakemake.io import expand, report
from snakemake_interface_storage_plugins.exceptions import FileOrDirectoryNotFoundError

from lrworld.config import experiments
from lrworld.config.assembly import CAPTIONER_KEYS, RUN_KEYS, enabled_models
from lrworld.core.registry import ref_module
from lrworld.core import io, plugins
from lrworld.core.schema import ConfigError
from lrworld.core.digests import DigestStore
from lrworld.groundtruth import artifacts
from lrworld.inference.servers import planned_command
from lrworld.inference.stage import replies_records
from lrworld.models.registry import capabilities
from lrworld.questions import measures as measure_registry
from lrworld.data import inputs as data_inputs
from lrworld.data.paper_dataset import paper_dataset
from lrworld.core.package_files import packaged
from lrworld.prompts.render import template_id
from lrworld.release import layout as release_layout, source as release_source
from lrworld.paper import figures as paper
from lrworld.prompts.variants import needs_images, template_variant
from lrworld.workflow import code, resources
from lrworld.workflow.analysis import AnalysisPlan
from lrworld.workflow.docs import DocsPlan
from lrworld.workflow.tracks import LlaraPlan, SrbenchPlan

# The tracks whose model calls go through the one `answer` rule, each with its own request files.
TRACKS = ("lrworld", "llara", "srbench", "captions")
CAPTIONER = "captioner"  # the model name of config["captioner"] in answer jobs and cache files


def alt(names) -> str:
    """A wildcard constraint matching exactly these names (none: matches nothing)."""
    names = list(names)
    return "|".join(re.escape(n) for n in names) if names else "(?!)"


class Plan:
    # the --configfile files and --config settings the config was read from (lrworld/workflow/scale.py):
    # `lrworld plan`'s dry run reads the config as the run does
    sources: tuple[list, dict] = ([], {})

    def __init__(self, config: dict, root: str | Path):
        self.config = config
        self.root = Path(root)
        self.datasets = config["datasets"]
        self.models = enabled_models(config)
        self.variants = config["variants"]  # every measure's; a dataset's extra_variants add to a measure's
        self._asked: dict[tuple, list[str]] = {}  # (what, model, dataset, measure) -> its measures or variants
        self.all_variants = experiments.all_variants(config, self.models)
        self.extra_variants = [v for v in self.all_variants if v not in self.variants]
        self.measures = sorted({m for ds in self.datasets.values() for m in ds["measures"]})
        self.cache_dir = config["cache_dir"]
        self.digests = DigestStore()
        self.code_index = code.CodeIndex(self.root)
        self._chain_code: dict[str, list[str]] | None = None
        self._chain_plugins: dict[str, list[str]] | None = None
        self._weights: dict[str, dict] = {}
        self.gt_artifacts = measure_registry.ground_truth()
        self.made_artifacts = artifacts.made()  # {artifact: "module:attr"} of the gt_artifact rule
        self._needs: dict[str, dict] = {}
        self._chain_ends: dict[str, dict] = {}
        self._lists: dict[tuple, list[str]] = {}
        self._json_seen: dict[Path, tuple] = {}
        self._counts: dict[tuple[str, str], int] | None = None  # the paper's question counts, once
        self.gt = self._groundtruth()
        self.gt_measures = [m for m in self.measures if m in self.gt_artifacts]
        # datasets scored from a release (source: {benchmark: ...}): {name: (folder, manifest)}
        self.benchmarks = {name: release_source.check(name, ds, self.variants, ds.get("extra_variants"),
                                                      self.digests.sha256)
                           for name, ds in self.datasets.items() if release_source.is_benchmark(ds)}
        for name, ds in self.datasets.items():
            if name not in self.benchmarks:
                data_inputs.refuse_unreadable(name, ds)
        self.analysis = AnalysisPlan(self)
        self.llara = LlaraPlan(self)
        self.srbench = SrbenchPlan(self)
        self.docs = DocsPlan(self)

    def _groundtruth(self) -> dict:
        """config["groundtruth"]; question count and seed follow the rest of the config unless set."""
        gt = dict(self.config["groundtruth"])
        per_measure = self.config["questions"]["per_measure"]
        if per_measure == paper.PAPER_COUNTS:
            self._paper_counts()  # every dataset's count is known before a job runs
        elif gt["n_questions"] is None:
            gt["n_questions"] = per_measure
        if gt["n_questions"] is None and per_measure != paper.PAPER_COUNTS and any(
                m in self.gt_artifacts for m in self.measures):
            raise ConfigError("config: groundtruth.n_questions: set it when questions.per_measure is null "
                              "(a ground-truth measure needs a question count)")
        if gt["seed"] is None:
            gt["seed"] = self.config["seed"]
        return gt

    def _paper_counts(self) -> dict[tuple[str, str], int]:
        """questions.per_measure: paper -> {(dataset, measure): the paper's question count}."""
        if self._counts is not None:
            return self._counts
        counts = {}
        for name, ds in self.datasets.items():
            table = paper.question_counts().get(paper_dataset(ds) or "", {})
            for m in ds["measures"]:
                if m not in table:
                    raise ConfigError(f"config: questions.per_measure: paper: datasets.{name}: the paper has no "
                                      f"question count for {m!r} on {paper_dataset(ds)!r} (set paper_table, "
                                      "or give per_measure a number)")
                counts[(name, m)] = table[m]
        self._counts = counts
        return counts

    def n_questions(self, dataset: str, measure: str) -> int | None:
        """Questions asked of (dataset, measure): questions.per_measure, or the paper's count."""
        per_measure = self.config["questions"]["per_measure"]
        return self._paper_counts()[(dataset, measure)] if per_measure == paper.PAPER_COUNTS else per_measure

    def paper_dataset(self, dataset: str) -> str | None:
        """The paper's dataset a dataset's tables compare with (its `paper_table`, else by format)."""
        return paper_dataset(self.datasets[dataset])

    def paper_names(self) -> dict[str, str | None]:
        """Each run model's paper row (`paper_name`; RANDOM for the random backend)."""
        return {m: paper.paper_name(cfg) for m, cfg in self.models.items()}

    def paper_digest(self) -> dict[str, str]:
        """The paper's data files the comparisons read (package data, not modules: the code digest
        does not cover them), so a corrected figure re-runs the tables."""
        return {name: self.digests.sha256(paper.HERE / name) for name in paper.DATA_FILES}

    def gt_n_questions(self, dataset: str, *measures: str) -> int:
        """A ground-truth job's question count: groundtruth.n_questions, else the most any of the
        `measures` it serves asks (a prototypes table serves both neural measures)."""
        if self.gt["n_questions"] is not None:
            return self.gt["n_questions"]
        asked = [self.n_questions(dataset, m) for m in measures if m in self.datasets[dataset]["measures"]]
        return max(asked) if asked else self.n_questions(dataset, measures[0]) or 1

    def artifact_n_questions(self, dataset: str, artifact: str) -> int:
        """The question count of the job that draws `artifact` for the measures whose answers come
        from it (the registry's `artifact`: a prototypes table serves both neural measures)."""
        return self.gt_n_questions(dataset, *[m for m, a in self.gt_artifacts.items() if a == artifact])

    # -- code --------------------------------------------------------------------------------------
    def code(self, script: str, *refs: str) -> str:
        """The digest of a script and every package module it runs: a rule's `params: code=`, so a
        code change re-runs exactly the rules whose scripts import the module, directly or not.
        `refs`: the "module:attr" entries the job resolves (a registry's lazy entries)."""
        return self.code_index.digest(self._closure(script, refs))

    def _closure(self, script: str, refs) -> list:
        modules = [code.module_path(self.code_index.root, ref_module(r)) for r in refs]
        return self.code_index.closure(f"scripts/{script}", *[m for m in modules if m is not None])

    def made_code(self, artifact: str) -> str:
        """The `gt_artifact` job's code: its script and the artifact's function's module."""
        return self.code(self.GT_ARTIFACT_SCRIPT, artifacts.made()[artifact])

    def gt_questions_code(self, measure: str) -> str:
        """The `gt_questions` job's code: its script and the measure's builder module."""
        return self.code("groundtruth_questions.py", *self._builder_refs([measure]))

    GT_ARTIFACT_SCRIPT = "groundtruth_artifact.py"

    @staticmethod
    def _builder_refs(measures) -> list[str]:
        return [measure_registry.by_id(m).builder for m in measures]

    def _rule_refs(self, rule: str) -> list[str]:
        """The lazy entries a chain rule's job may resolve (its record lists their modules)."""
        if rule == artifacts.MADE:
            return list(artifacts.made().values())
        if rule == "gt_questions":
            return self._builder_refs(self.gt_artifacts)
        return []

    # Scripts of rules that read an upstream job's output as ancient(): their code stamps
    # (rules/code.smk) re-run them when their own code changes.
    STAMPED_SCRIPTS = ("score", "srbench_llm_lists", "table")

    def code_files(self, script: str, *refs: str) -> list[str]:
        """The closure's files of lrworld, relative to the checkout (so moving the checkout re-runs
        nothing); an installed plugin's are `plugin_files`'."""
        root = self.code_index.root
        return [p.relative_to(root).as_posix() for p in self._closure(script, refs) if plugins.plugin_of(p) is None]

    def plugin_files(self, script: str, *refs: str) -> dict[str, list[str]]:
        """{plugin distribution: its files in the closure, relative to the plugin's folder}."""
        out: dict[str, list[str]] = {}
        for p in self._closure(script, refs):
            plugin = plugins.plugin_of(p)
            if plugin is not None:
                out.setdefault(plugin.name, []).append(self.code_index.name(p))
        return out

    # -- models ------------------------------------------------------------------------------------
    def model_cfg(self, model: str) -> dict:
        """A model's entry; the captioner's without the keys that are not its backend's."""
        if model == CAPTIONER:
            return {k: v for k, v in self.config["captioner"].items() if k not in CAPTIONER_KEYS}
        if self.llara.based(model):  # a LLaRA-trained or released row: its base model's weights and sizing
            return self.config["models"][self.llara.base(model)]
        return self.models[model]

    def model_params(self, model: str) -> dict:
        """A model's entry as the rules' params carry it: without the keys that only size its job,
        and a server command's secrets redacted (params land in .snakemake/metadata)."""
        # `measures` and `experiments` choose which jobs exist, not how a job answers
        cfg = {k: v for k, v in self.model_cfg(model).items() if k not in RUN_KEYS}
        return planned_command(resources.without_sizing(cfg))

    def model_weights(self, model: str) -> dict:
        """The weights part of a model's identity (a local model's file digests or hub commit, as its
        backend plans them; {} for a backend with no weights), once per model: the
        `model_identity` rule's params."""
        if model not in self._weights:
            cfg = self.model_cfg(model)
            weights = capabilities(cfg).weights
            self._weights[model] = weights(model, cfg) if weights is not None else {}
        return self._weights[model]

    # a wildcard pattern, not an input function: the rules that read it plan ~1,300 jobs at paper scale
    IDENTITY = "results/models/{model}.identity.json"

    @classmethod
    def model_identity(cls, model: str) -> str:
        return cls.IDENTITY.format(model=model)

    def captioner_params(self) -> dict:
        """config["captioner"] with its instruction and download limits, without its sizing keys."""
        return resources.without_sizing(self.config["captioner"])

    def answer_resources(self, model: str) -> dict:
        """What a model's answer job needs (lrworld/workflow/resources.py), once per model."""
        if model not in self._needs:
            res = resources.for_model(self.model_cfg(model))
            res["slurm_partition"] = resources.slurm_partition(res["gpu"])
            self._needs[model] = res
        return self._needs[model]

    def answer_mem_mb(self, model: str, attempt: int) -> int:
        return resources.mem_mb(self.answer_resources(model), attempt)

    def answer_runtime(self, model: str, requests, attempt: int) -> int:
        """Minutes for the model's answer job over these request files. Until they are written,
        Snakemake's not-found error for a resource's files: it shows <TBD> in a dry run and
        evaluates the resource again before the job is submitted (LRWorld's prompt files are not
        the job's inputs, see `answer_inputs`, so a plain FileNotFoundError would not do)."""
        try:
            tokens = resources.request_tokens(requests)
        except FileNotFoundError as exc:
            raise FileOrDirectoryNotFoundError(Path(exc.filename)) from exc
        return resources.runtime_min(self.answer_resources(model), tokens, attempt)

    @staticmethod
    def partition(gpus: int) -> str:
        return resources.slurm_partition(gpus)

    # -- data --------------------------------------------------------------------------------------
    def fetch_files(self, dataset: str) -> tuple[list[str], list[str]]:
        return data_inputs.fetch_files(self.datasets[dataset])

    def metadata_fetch_files(self, dataset: str) -> tuple[list[str], list[str]]:
        return data_inputs.metadata_fetch_files(self.datasets[dataset]), []

    def raw_inputs(self, dataset: str) -> list[str]:
        if dataset in self.benchmarks:  # a release's chain ends in its manifest (every file's sha256)
            return [self.release_manifest(dataset)]
        return data_inputs.raw_inputs(dataset, self.datasets[dataset])

    @property
    def fetched_benchmarks(self) -> list[str]:
        """Datasets whose release is an archive at a URL (rule fetch_benchmark)."""
        return [name for name in self.benchmarks if release_source.is_fetched(self.datasets[name])]

    def release_manifest(self, dataset: str) -> str:
        return str(self.benchmarks[dataset][0] / release_layout.MANIFEST)

    def release_pin(self, dataset: str) -> str | None:
        return release_source.pin(self.datasets[dataset])

    def release_files(self, kind: str, wc) -> tuple[list[str], list[str]]:
        """(input files, release paths) of a release rule (kind: data, questions, prompts), in
        the order of its outputs. A folder's files are inputs (new bytes re-run the copy); a
        fetched release's are not declared by its fetch job, which declares its manifest."""
        folder, man = self.benchmarks[wc.dataset]
        patterns = {"data": release_layout.DATA, "questions": release_layout.QUESTIONS,
                    "prompts": release_layout.PROMPTS}[kind].values()
        outputs = [p.format(**dict(wc.items())) for p in patterns]
        ds = self.datasets[wc.dataset]
        rels = release_source.files(wc.dataset, ds["measures"], self.variants, outputs, ds.get("extra_variants"))
        return ([] if man is None else [str(folder / r) for r in rels]), rels

    def release_digests(self, kind: str, wc) -> dict[str, str]:
        """Content of the release files a release rule copies (its params): a release folder
        swapped for another (`cp -a`, `tar x`: old mtimes kept) or a file edited in place re-runs
        the copy, wherever the folder lies. A fetched release's folder is fetch_benchmark's output:
        only its files that differ from their manifest show (nothing while it is intact)."""
        folder, man = self.benchmarks[wc.dataset]
        rels = self.release_files(kind, wc)[1]
        if man is None:
            return release_source.changed_files(folder, rels, self.digests.sha256)
        return self.digests.of([str(folder / release_layout.MANIFEST), *(str(folder / r) for r in rels)], skip=())

    def local_digests(self, dataset: str) -> dict[str, str]:
        """Content of the files ingest reads from outside results/ (a rule's params: new bytes re-run it)."""
        meta = [f for files in self.metadata_inputs(dataset).values() for f in files]
        files = [*self.raw_inputs(dataset), *meta]
        fetched = {data_inputs.MANIFEST.format(dataset=dataset), data_inputs.METADATA_MANIFEST.format(dataset=dataset)}
        # downloads under results/raw: only a copy changed since its fetch shows
        tampered = {k: v for f in files if f in fetched
                    for k, v in data_inputs.changed_since_fetch(f, self.digests.sha256).items()}
        # a `path:` source is read by content wherever it lies, results/ included; only the fetch
        # manifests are the graph's own outputs
        return {**self.digests.of(files, skip=fetched), **tampered}

    def ingest_cfg(self, dataset: str) -> dict:
        """The dataset entry without what only later stages read (its measures)."""
        out = {k: v for k, v in self.datasets[dataset].items() if k != "measures"}
        return {**out, "facts": self.config["facts"]} if "facts" in self.config else out

    def metadata_inputs(self, dataset: str) -> dict[str, list[str]]:
        if dataset in self.benchmarks:
            return {}
        return data_inputs.metadata_inputs(dataset, self.datasets[dataset])

    # -- ground truth ------------------------------------------------------------------------------
    def gt_artifact(self, dataset: str, measure: str) -> list[str]:
        """The artifact a ground-truth measure's questions are read from."""
        return artifacts.paths([self.gt_artifacts[measure]], dataset)

    def audit_artifacts(self, dataset: str) -> list[str]:
        """The artifacts the audit re-derives the dataset's golds from (one file each, once). A
        release carries none: its golds were re-derived by the building site's audit (its result is
        in release.json), and here the audit re-checks what the release holds (questions, prompts,
        interactions: the memory cosines are recomputed from them)."""
        if dataset in self.benchmarks:
            return []
        names = dict.fromkeys(self.gt_artifacts[m] for m in self.datasets[dataset]["measures"] if m in self.gt_artifacts)
        # and everything each rests on: the neural golds are recomputed from the embeddings, and
        # those from the saved NeuMF weights
        names = dict.fromkeys(a for n in names for a in artifacts.chain(n))
        return artifacts.paths(names, dataset)

    def audit_raw_inputs(self, dataset: str) -> dict[str, list[str]]:
        """The raw files the audit re-reads the knowledge golds from (the dataset's files and its
        metadata, as rule ingest reads them; a release has none: it carries no raw metadata)."""
        if dataset in self.benchmarks:
            return {}
        return {"raw": self.raw_inputs(dataset), **self.metadata_inputs(dataset)}

    def facts_inputs(self, dataset: str) -> list[str]:
        """The witnessed facts table the audit re-reads the knowledge golds from (a release carries
        none: its audit re-checks against the release's items)."""
        return [] if dataset in self.benchmarks else [f"results/data/{dataset}/facts.parquet"]

    def gt_chain(self, dataset: str, measure: str) -> list[str]:
        """Every artifact a measure's ground truth rests on (its provenance chain); a release's
        questions rest on the release."""
        if measure not in self.gt_artifacts or dataset in self.benchmarks:
            return []
        return artifacts.paths(artifacts.chain(self.gt_artifacts[measure]), dataset)

    # -- questions and prompts ---------------------------------------------------------------------
    def caption_instruction(self) -> str:
        """The captioner's instruction: a user's prompt_file, or the packaged one by its package-relative name."""
        return self.config["captioner"].get("prompt_file") or "lrworld/templates/captions/figure3.txt"

    def source_digest(self, name: str) -> str:
        """Content of a packaged or user file a rule names in params (not inputs: a moved checkout
        or another venv must not re-plan), so new bytes still re-run the rule."""
        return self.digests.sha256(packaged(name))

    def caption_inputs(self, dataset: str, measure: str) -> dict:
        """The multimodal measure shows items by their image captions."""
        needs = measure_registry.get(self.datasets[dataset]["domain"], measure).needs
        return {"captions": f"results/captions/{dataset}/captions.parquet"} if "captions" in needs else {}

    def _listed(self, key: tuple, make) -> list[str]:
        """A file list the input functions ask for once per job of a rule (e.g. an answer job per
        model asks for its dataset's prompts): expanded once per plan, a fresh copy each time."""
        if key not in self._lists:
            self._lists[key] = make()
        return list(self._lists[key])

    def question_files(self, dataset: str, suffix: str = ".jsonl") -> list[str]:
        return self._listed(("questions", dataset, suffix), lambda: expand(
            "results/questions/{dataset}/{measure}{suffix}", dataset=dataset,
            measure=self.datasets[dataset]["measures"], suffix=suffix))

    def template(self, dataset: str, measure: str, variant: str) -> str:
        """The template's package-relative name (lrworld/prompts/render.py:packaged finds its file).
        kshot/noisy/shuffle<s> render with the zero_shot template (lrworld/prompts/variants.py)."""
        return template_id(self.datasets[dataset]["domain"], measure, template_variant(variant))

    def model_measures(self, model: str, dataset: str) -> list[str]:
        """The measures of `dataset` that `model` answers (lrworld.config.experiments): all, those
        its `measures` entry names for the dataset, or those the paper ran of its row."""
        return self._once(("measures", model, dataset, None),
                          lambda: experiments.model_measures(self.config, self.models[model], dataset))

    def model_variants(self, model: str, dataset: str, measure: str) -> list[str]:
        """The variants `model` answers on one of its measures: `variants`, the dataset's
        `extra_variants`, its paper runs' others (`experiments: paper`)."""
        return self._once(("variants", model, dataset, measure),
                          lambda: experiments.model_variants(self.config, self.models[model], dataset, measure))

    def measure_variants(self, dataset: str, measure: str) -> list[str]:
        """The variants a measure of a dataset is built in: `variants`, its `extra_variants`, then
        any other an enabled model answers there."""
        return self._once(("built", None, dataset, measure),
                          lambda: experiments.dataset_variants(self.config, self.models, dataset, measure))

    def _once(self, key: tuple, make) -> list[str]:
        if key not in self._asked:
            self._asked[key] = make()
        return list(self._asked[key])

    def _cells(self, dataset: str, model: str | None = None, variants=None) -> list[tuple[str, str]]:
        """(measure, variant) of a dataset's prompt files, or of the cells `model` answers; `variants`
        instead of each measure's own."""
        if model is None:
            return [(m, v) for m in self.datasets[dataset]["measures"]
                    for v in (self.measure_variants(dataset, m) if variants is None else variants)]
        return [(m, v) for m in self.model_measures(model, dataset)
                for v in (self.model_variants(model, dataset, m) if variants is None else variants)]

    def model_cells(self, model: str, dataset: str) -> list[tuple[str, str]]:
        """(measure, variant) of every cell `model` answers on `dataset`."""
        return self._cells(dataset, model)

    def prompt_files(self, dataset: str, variants=None, model: str | None = None) -> list[str]:
        """A dataset's prompt files (those of the cells `model` answers, if given): each measure's
        variants, or `variants` on every measure."""
        return self._listed(("prompts", dataset, model, None if variants is None else tuple(variants)), lambda: [
            f"results/prompts/{dataset}/{m}/{v}.jsonl" for m, v in self._cells(dataset, model, variants)])

    def prompt_images(self, dataset: str, variant: str) -> list[str]:
        """What a variant that sends an image (`visual`) renders from besides the questions: the
        captions requests (each captioned item's image and its sha256)."""
        return [f"results/captions/{dataset}/requests.jsonl"] if needs_images(variant) else []

    # -- answers -----------------------------------------------------------------------------------
    def scopes(self) -> list[str]:
        """Every name the `answer` rule's {scope} stands for (each track's datasets)."""
        return sorted({*self.datasets, *self.llara.datasets, *self.srbench.datasets})

    def gate(self, track: str, scope: str) -> list[str]:
        """What must pass before an answer job may spend model time: the dataset's audit for
        LRWorld's questions and the audit across datasets (equal slot sequences between datasets
        stop the build); not request files, so they do not size the job."""
        return [f"results/audit/{scope}.json", "results/audit/_all.json"] if track == "lrworld" else []

    def requests(self, track: str, scope: str, model: str | None = None) -> list[str]:
        """The request files one answer job reads (every prompt of the track's scope; a LLaRA-trained
        model's hybrid or text-form requests)."""
        if track == "lrworld":
            return self.prompt_files(scope, model=model)
        if track == "llara":
            return [self.llara.request_file(scope, model)]
        if track == "srbench":
            modes = self.config["srbench"]["llm"]["modes"]
            return expand("results/srbench/{scope}/prompts/{mode}.jsonl", scope=scope, mode=modes)
        if track == "captions":
            return [f"results/captions/{scope}/requests.jsonl"]
        raise ValueError(f"unknown track {track!r}")

    def answer_requests(self, track: str, scope: str, model: str) -> list[str]:
        """The request files an answer job declares as inputs: every track's but LRWorld's. Each of
        a dataset's prompt files is an input of the dataset's audit, which gates the job (`gate`):
        a new or missing prompt file re-runs the audit and through it the job, as when the job
        declared all 40-odd of them (2,666 inputs at paper scale, docs/slurm.md). The job reads
        them by `requests` (its params: a changed list re-runs it)."""
        return [] if track == "lrworld" else self.requests(track, scope, model)

    def answer_params(self, track: str, scope: str, model: str) -> dict:
        """The answer job's backend config: the model's entry, or a LLaRA-trained row's hybrid
        backend (its base model's entry and trained files, lrworld/tracks/llara/hybrid/entries.py)."""
        if track == "llara" and self.llara.based(model):
            return self.llara.answer_cfg(scope, model)
        return self.model_params(model)

    def answer_inputs(self, track: str, scope: str, model: str) -> list[str]:
        """What an answer job reads besides requests and identity: a LLaRA-trained row's adapter,
        projector and rec model (new bytes re-run it, and only it)."""
        return self.llara.answer_inputs(scope, model) if track == "llara" else []

    def responses_files(self, dataset: str, variants=None) -> list[str]:
        return self._listed(("responses", dataset, None if variants is None else tuple(variants)), lambda: [
            f"results/responses/{dataset}/{model}/{m}/{v}.jsonl" for model in self.models
            for m, v in self._cells(dataset, model, variants)])

    # -- scores and tables -------------------------------------------------------------------------
    # One score job per (dataset, model, measure) over its variants: a quarter of the
    # graph's jobs at 4 variants. A changed template still re-asks only its variant's prompts
    # (the answer job reads the cache); the job re-scores the other variants from the cache.
    SCORE_CELL = "{dataset}/{model}/{measure}/%s"

    def score_inputs(self) -> dict:
        """The `score` rule's prompt inputs, one per variant (wildcard patterns)."""
        return {f"prompts_{v}": f"results/prompts/{{dataset}}/{{measure}}/{v}.jsonl" for v in self.variants}

    # the job's clock record (start, end, host): one per score job, which every variant's record cites
    SCORE_JOB = "results/provenance/{dataset}/{model}/{measure}.score-job.json"
    # a measure's extra_variants: one `score_extra` job per (dataset, model, measure, variant)
    EXTRA_CELL = "{dataset}/{model}/{measure}/{variant}"
    EXTRA_SCORE_JOB = f"results/provenance/{EXTRA_CELL}.score-job.json"

    def score_job(self, dataset: str, model: str, measure: str, variant: str) -> str:
        """The clock record of the job that scores a cell: its measure's score job, or its own."""
        pattern = self.SCORE_JOB if variant in self.variants else self.EXTRA_SCORE_JOB
        return pattern.format(dataset=dataset, model=model, measure=measure, variant=variant)

    def score_outputs(self) -> dict:
        """The `score` rule's outputs: each variant's responses and score (the same paths as when
        each variant was its own job), and the job's one clock record."""
        out = {}
        for v in self.variants:
            cell = self.SCORE_CELL % v
            out.update({f"responses_{v}": f"results/responses/{cell}.jsonl", f"score_{v}": f"results/scores/{cell}.json"})
        return {**out, "job": self.SCORE_JOB}

    def score_replies(self, wc, variants=None) -> dict:
        """{variant: digest of its cached replies} from the answer summary (a `score` param): the
        summary is an ancient input, so another measure's re-ask leaves this score alone, but a
        reply of its own changed in the cache re-runs it. Read once the summary exists (before,
        Snakemake shows <TBD> and asks again when the job is about to run). Not a function of
        `input`: Snakemake leaves such params out of its change check."""
        path = Path(f"results/answers/lrworld/{wc.dataset}/{wc.model}.json")
        summary = self._json_as_it_is(path)
        if summary is not None:
            got = summary.get("replies_sha256") or {}
        else:
            got = next((r for r in map(self._json_as_it_is, replies_records(
                self.cache_dir, "lrworld", wc.dataset, wc.model)) if r is not None), None)
            if got is None:
                raise FileOrDirectoryNotFoundError(path)
        return {v: got.get(f"results/prompts/{wc.dataset}/{wc.measure}/{v}.jsonl")
                for v in (self.variants if variants is None else variants)}

    def _json_as_it_is(self, path: Path):
        """A JSON file's content (None if absent), parsed once per version of the file: every score
        job of a (dataset, model) reads the same answer summary, and the answer job may rewrite it
        while the plan is alive."""
        try:
            st = path.stat()
        except FileNotFoundError:
            return None
        version = (st.st_mtime_ns, st.st_size, st.st_ino)
        seen = self._json_seen.get(path)
        if seen is None or seen[0] != version:
            seen = self._json_seen[path] = (version, io.read_json(path))
        return seen[1]

    def score_files(self, dataset: str) -> list[str]:
        return self._listed(("scores", dataset), lambda: [
            f"results/scores/{dataset}/{model}/{m}/{v}.json" for model in self.models
            for m, v in self._cells(dataset, model)])

    def table_records(self, dataset: str) -> list[str]:
        """The provenance record of every score of a dataset (what its table's record cites)."""
        return self._listed(("records", dataset), lambda: [
            f.replace("results/scores/", "results/provenance/", 1) for f in self.score_files(dataset)])

    # -- provenance --------------------------------------------------------------------------------
    # The rules of a score's chain, whose code its record lists; the ground-truth rules from the
    # artifacts' registry.
    CHAIN_RULES = ("fetch_raw", "ingest", *artifacts.rules(), "gt_questions", "questions", "prompts", "audit",
                   "answer", "score")
    RECORD = "results/provenance/{dataset}/{model}/{measure}/%s.json"

    def record_outputs(self) -> dict:
        """The `provenance` rule's outputs: one record per variant of a (dataset, model, measure)."""
        return {v: report(self.RECORD % v, caption="../docs/provenance_caption.rst", category="Provenance",
                          subcategory="{dataset}", labels={"model": "{model}", "measure": "{measure}", "variant": v})
                for v in self.variants}

    def record_files(self, dataset: str, model: str, measure: str, variants=None) -> dict:
        """The chain of each variant's score of a (dataset, model, measure), by role
        (lrworld/provenance/record.py), plus the raw and metadata files at its end. The record job
        declares only the score job's clock record (written last by the job that writes the
        scores) and the answer summary as inputs: every other file of the chain is upstream of the
        score job, so a change anywhere re-runs the record through it."""
        cell = f"{dataset}/{model}/{measure}"
        shared = {"summary": f"results/answers/lrworld/{dataset}/{model}.json",
                  "identity": self.model_identity(model),
                  "questions": f"results/questions/{dataset}/{measure}.jsonl",
                  "questions_report": f"results/questions/{dataset}/{measure}.report.json",
                  "audit": f"results/audit/{dataset}.json",
                  "ground_truth": self.gt_chain(dataset, measure),
                  "interactions": f"results/data/{dataset}/interactions.parquet",
                  "items": f"results/data/{dataset}/items.parquet",
                  "ingest_report": f"results/data/{dataset}/ingest_report.json"}
        roles = {v: {"score": f"results/scores/{cell}/{v}.json",
                     "score_job": self.score_job(dataset, model, measure, v),
                     "responses": f"results/responses/{cell}/{v}.jsonl",
                     "prompts": f"results/prompts/{dataset}/{measure}/{v}.jsonl",
                     "template": self.template(dataset, measure, v), **shared}
                 for v in (self.variants if variants is None else variants)}
        return {"roles": roles, **self._chain_end(dataset)}

    def _chain_end(self, dataset: str) -> dict:
        """The raw and metadata files of a dataset, once per plan (a format resolves its files on disk)."""
        if dataset not in self._chain_ends:
            self._chain_ends[dataset] = {"raw": self.raw_inputs(dataset),
                                         "metadata": data_inputs.metadata_files(self.metadata_inputs(dataset))}
        return self._chain_ends[dataset]

    def chain_code(self, rules) -> dict[str, list[str]]:
        """{rule: the files of its script's code closure}, read from the rules themselves, once per
        plan."""
        if self._chain_code is None:
            self._chain_code = {}
            for name in self.CHAIN_RULES:
                rule = getattr(rules, name).rule
                self._chain_code[name] = (self.code_files(Path(rule.script).name, *self._rule_refs(name))
                                         if rule.script else [])
        return self._chain_code

    def chain_plugins(self, rules) -> dict[str, list[str]]:
        """{plugin distribution: its files in the code closures of the chain's rules} (none where no
        plugin is installed), once per plan: the score records name each plugin with these files'
        digests."""
        if self._chain_plugins is None:
            out: dict[str, set[str]] = {}
            for name in self.CHAIN_RULES:
                script = getattr(rules, name).rule.script
                found = self.plugin_files(Path(script).name, *self._rule_refs(name)) if script else {}
                for plugin, files in found.items():
                    out.setdefault(plugin, set()).update(files)
            self._chain_plugins = {plugin: sorted(files) for plugin, files in sorted(out.items())}
        return self._chain_plugins

    def provenance_config(self, dataset: str, model: str, measure: str, variants=None) -> dict[str, dict]:
        """{variant: the config subset that shaped its score} (hashed and shown in its record)."""
        return {v: {"seed": self.config["seed"], "questions": self.config["questions"], "measure": measure,
                    "variant": v, "dataset": {dataset: self.datasets[dataset]},
                    "model": {model: self.model_params(model)}} for v in (self.variants if variants is None else variants)}

    def provenance_table_config(self, dataset: str) -> dict:
        """The table record's config subset; the dataset's `extra_variants` as built, those its models'
        `experiments` add included (what `lrworld pack` releases)."""
        entry = dict(self.datasets[dataset])
        built = {m: [v for v in self.measure_variants(dataset, m) if v not in self.variants] for m in entry["measures"]}
        if any(built.values()):
            entry["extra_variants"] = {m: vs for m, vs in built.items() if vs}
        return {"seed": self.config["seed"], "questions": self.config["questions"], "variants": self.variants,
                "dataset": {dataset: entry}, "models": {m: self.model_params(m) for m in self.models}}

    def all_targets(self) -> list[str]:
        """What `rule all` builds: every track the config has a section for, and every answer
        summary: its readers take it as ancient, so Snakemake would not rebuild a deleted one."""
        lrworld = expand("results/tables/{dataset}.{ext}", dataset=self.datasets, ext=["csv", "md"]) + expand(
            "results/provenance/{dataset}/table.json", dataset=self.datasets)
        audit = expand("results/audit/{dataset}.{ext}", dataset=self.datasets, ext=["json", "md"]) + [
            "results/audit/_all.json"]
        tracks = self.srbench.targets() + self.llara.targets()
        answers = [f"results/answers/{t}/{s}/{m}.json" for t, s, m in self.answer_jobs()]
        return lrworld + audit + self.analysis.targets() + tracks + self.docs.targets() + answers

    def answer_jobs(self) -> list[tuple[str, str, str]]:
        """(track, scope, model) of every answer job the plan has: a model on each dataset it
        answers a measure of, the captioner where a measure shows captions (not on a release's
        dataset: its prompts come built), and the tracks' models."""
        jobs = []
        for ds, spec in self.datasets.items():
            jobs += [("lrworld", ds, m) for m in self.models if self.model_measures(m, ds)]
            if ds not in self.benchmarks and any(self.caption_inputs(ds, m) for m in spec["measures"]):
                jobs.append(("captions", ds, CAPTIONER))
        jobs += [("llara", ds, m) for ds, m in self.llara.answer_jobs()]
        return jobs + [("srbench", ds, m) for ds in self.srbench.datasets for m in self.srbench.models]
