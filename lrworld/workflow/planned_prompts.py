"""What a request file will hold when the run being planned reaches it, for `lrworld plan`.

A file on disk is what the last run built; the config being planned may ask for another question
count, seed, template or ground-truth setting, and the code may have changed. Whether the run
rebuilds a file is Snakemake's call: a dry run of the graph (lrworld/workflow/dryrun.py) lists
every job the run would run. A file no such job writes counts as it is. A prompt file the run
rebuilds counts as what the run will make of it: where every job on its way that the run reruns
is one that builds questions, prompts or a ground-truth artifact drawn from the data, those jobs
are replayed in a scratch folder by the functions the rules' scripts call, with the dry run's own
params and inputs (lrworld/questions/jobs/, lrworld/groundtruth/jobs/), so the plan sees the exact
prompts the answer job will ask (and which of them the response cache already answers). Else (a
rerun the plan cannot replay: ingest, NeuMF training, captions; a file not yet built; or no dry
run), `records` is None: the prompts are not yet known, and the caller estimates them from the
template and the plan's count.
"""

from __future__ import annotations

import logging
import re
import tempfile
from pathlib import Path
from types import SimpleNamespace

from lrworld.core import io
from lrworld.core.registry import resolve
from lrworld.workflow import dryrun
from lrworld.workflow.plan import Plan

PROMPT_FILE = re.compile(r"results/prompts/(?P<ds>[^/]+)/(?P<measure>[^/]+)/(?P<variant>[^/]+)\.jsonl$")

# The rules the plan replays, each by the function its script calls.
REPLAYED = {
    "questions": "lrworld.questions.jobs.questions:run",
    "gt_questions": "lrworld.questions.jobs.gt_questions:run",
    "prompts": "lrworld.questions.jobs.prompts:run",
    "assoc_rules": "lrworld.groundtruth.jobs.assoc_rules:run",
    "similar_pairs": "lrworld.groundtruth.jobs.similar_pairs:run",
    "prototypes": "lrworld.groundtruth.jobs.prototypes:run",
    "gt_artifact": "lrworld.groundtruth.jobs.gt_artifact:run",
}

_QUIET = logging.getLogger("lrworld.plan.replay")  # a replayed job's log lines are the run's, not the plan's
_QUIET.addHandler(logging.NullHandler())
_QUIET.propagate = False


class PlannedPrompts:
    """`records(path)`: the request records the run's file at `path` will hold, or None where they
    cannot be known before the run. `state[path]`: current, rebuilt or estimated. `warnings`: why
    a dry run or a replayed job failed (its files then count as not yet known)."""

    def __init__(self, plan: Plan, directory: str | Path):
        self.plan, self.dir = plan, Path(directory)
        self.state: dict[str, str] = {}
        self.warnings: list[str] = []
        self._rerun: dict[str, SimpleNamespace] | None = None
        self._dry_run_done = False
        self._replayed: dict[str, bool] = {}
        self._scratch: tempfile.TemporaryDirectory | None = None

    def records(self, path: str) -> list[dict] | None:
        rerun = self._dry_run()
        if rerun is not None and path not in rerun and (self.dir / path).exists():
            self.state[path] = "current"
            return list(io.read_jsonl(self.dir / path))
        if rerun is None or path not in rerun or not PROMPT_FILE.search(path) or not self._replay(rerun[path]):
            self.state[path] = "estimated"
            return None
        self.state[path] = "rebuilt"
        return list(io.read_jsonl(Path(self._scratch.name) / path))

    def _dry_run(self) -> dict[str, SimpleNamespace] | None:
        """{output: job} of what the run would run to make every answer job's request files; None
        where nothing is built yet (nothing to count as it is, no data to replay from) or the dry
        run failed."""
        if self._dry_run_done or not (self.dir / "results").is_dir():
            return self._rerun
        self._dry_run_done = True
        targets = sorted({f for job in self.plan.answer_jobs() for f in self.plan.requests(*job)
                          if f.endswith(".jsonl")})
        files, overrides = self.plan.sources
        try:
            self._rerun = dryrun.needrun(self.plan.root, self.dir, files, overrides, targets)
        except Exception as exc:  # noqa: BLE001  Snakemake's own error, said in one line
            why = " ".join(str(exc).split())[:600] or type(exc).__name__
            self.warnings.append(f"snakemake -n could not plan the run ({why}): built request files are "
                                 f"counted as not yet known")
        return self._rerun

    def _replay(self, job: SimpleNamespace) -> bool:
        """Run `job` in the scratch folder after every rerun job it reads from; False where one of
        them is not a rule the plan replays, or fails."""
        key = job.output[0]
        if key not in self._replayed:
            self._replayed[key] = False
            upstream = [self._rerun[f] for f in job.input if f in self._rerun]
            if job.rule in REPLAYED and all(self._replay(j) for j in upstream):
                self._replayed[key] = self._run(job)
        return self._replayed[key]

    def _run(self, job: SimpleNamespace) -> bool:
        from snakemake.iocontainers import Namedlist

        if self._scratch is None:
            self._scratch = tempfile.TemporaryDirectory(prefix="lrworld-plan-")
        scratch = Path(self._scratch.name)
        for f in job.output:
            (scratch / f).parent.mkdir(parents=True, exist_ok=True)
        # what a rerun job writes is read from the scratch folder, the rest as built
        here = SimpleNamespace(**{**vars(job), "threads": 1, "input": Namedlist(
            job.input, custom_map=lambda f: str((scratch if f in self._rerun else self.dir) / f)),
            "output": Namedlist(job.output, custom_map=lambda f: str(scratch / f))})
        try:
            resolve(REPLAYED[job.rule])(here, _QUIET)
        except Exception as exc:  # noqa: BLE001  the run's job fails the same way; the plan says so
            self.warnings.append(f"{job.output[0]}: the {job.rule} job the run reruns fails here ({exc}): "
                                 f"the prompts built from it are counted as not yet known")
            return False
        return True
