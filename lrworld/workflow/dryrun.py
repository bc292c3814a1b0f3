"""The jobs a run would run, as Snakemake decides it: an in-process dry run of the Snakefile on the
directory, with the run's config files and `--config` settings and Snakemake's default rerun
triggers (a missing or older output, changed params, input set, code or software environment: the
local profile's). `lrworld plan` counts a built file as it is only where this says the run leaves
it, so the plan and the run share one definition of out of date.
"""

from __future__ import annotations

from pathlib import Path
from types import SimpleNamespace


def needrun(root: Path, directory: Path, configfiles, overrides: dict, targets) -> dict[str, SimpleNamespace]:
    """{output path: its job} of every job the run would run to make `targets` (paths relative to
    `directory`), each job as its script sees it: rule, input, output, params, wildcards, threads.
    Raises Snakemake's error where it cannot plan the run (the run could not either)."""
    from snakemake.api import SnakemakeApi
    from snakemake.iocontainers import Namedlist
    from snakemake.settings.enums import Quietness
    from snakemake.settings.types import (ConfigSettings, DAGSettings, ExecutionSettings, OutputSettings,
                                          ResourceSettings, StorageSettings)

    with SnakemakeApi(OutputSettings(quiet={Quietness.ALL})) as api:
        workflow = api.workflow(ResourceSettings(cores=1), ConfigSettings(
            configfiles=[Path(f) for f in configfiles], config=dict(overrides or {})), StorageSettings(),
            snakefile=root / "Snakefile", workdir=directory)
        # rerun-incomplete, as the profiles run: a file a killed job left is rebuilt, not refused
        dag = workflow.dag(DAGSettings(targets=frozenset(targets), force_incomplete=True))
        dag.execute_workflow(executor="dryrun", execution_settings=ExecutionSettings(lock=False))
        jobs = [SimpleNamespace(rule=j.rule.name, input=Namedlist(j.input, plainstr=True),
                                output=Namedlist(j.output, plainstr=True), params=j.params, wildcards=j.wildcards,
                                threads=j.threads, log=[])
                for j in dag.workflow_api._workflow.dag.needrun_jobs(exclude_finished=False)]
    return {f: job for job in jobs for f in job.output}
