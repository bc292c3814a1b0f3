"""Whether an invocation re-asks answers it already has: `--forcerun answer` (`-R answer`), a
forced answer summary (`-R results/answers/...`) or `--forceall`.

The per-file readers of an answer job (`score`, `srbench_llm_lists`) take its summary as an
ancient input, so that another measure's new prompts do not re-run them; Snakemake then never
checks their params while the answer job re-runs, and the new replies would reach the scores only
on the next invocation. When the invocation re-asks, the summary is a plain input instead and every
reader of a re-run answer job re-runs in the same invocation (those whose replies did not change
rewrite the same files)."""

from __future__ import annotations

from collections.abc import Iterable

ANSWER_RULE = "answer"
ANSWERS = "results/answers/"


def re_asks(forcerun: Iterable[str] = (), forceall: bool = False) -> bool:
    return forceall or any(t == ANSWER_RULE or str(t).lstrip("./").startswith(ANSWERS) for t in forcerun)


def from_workflow(workflow) -> bool:
    """`re_asks` for the running Snakemake workflow (False where it has no DAG settings: a lint)."""
    dag = getattr(workflow, "dag_settings", None)
    return bool(dag) and re_asks(dag.forcerun or (), bool(dag.forceall))
