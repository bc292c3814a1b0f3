"""A code change re-runs exactly the rules whose scripts import the changed module, directly or
not: in a scratch copy of the checkout, every package module is changed in turn. Each module's
expected rules come from the standard library's bytecode scan (tests/workflow/test_code_closure.py's
oracle). Every module's rule set is checked against the closures the digests hash; the real
digests (every rule's, re-computed) for a module of seven distinct rule sets; and the real
`snakemake -n` must plan exactly those rules with "params have changed" (the code digest) and
nothing else for that reason, for three modules (each dry run a few seconds of planning on CI's two
cores): those of the smallest, a middle and the largest rule set."""

import re
from pathlib import Path

import pytest
import yaml

from lrworld.config.assembly import fill_defaults, validate
from lrworld.workflow.plan import Plan
from tests.graph import copy_checkout, job_counts, snakemake
from tests.workflow.test_code_closure import oracle

pytestmark = pytest.mark.slow
ROOT = Path(__file__).resolve().parents[2]
COPY = ["Snakefile", "rules", "scripts", "lrworld", "envs", "docs"]
TOUCH = "\n# changed by tests/workflow/test_code_change_plans.py\n"


def rule_scripts(repo: Path) -> dict[str, str]:
    out = {}
    for f in (repo / "rules").glob("*.smk"):
        for m in re.finditer(r'(?ms)^rule (\w+):.*?^    script:\n\s+"\.\./scripts/([^"]+)"', f.read_text()):
            out[m.group(1)] = m.group(2)
    return out


def planned(stdout: str) -> dict[str, set[str]]:
    """{rule: the reasons of its jobs} of a dry run (each job's `reason:` line, split at ';')."""
    out, rule = {}, None
    for line in stdout.splitlines():
        s = line.strip()
        if s.startswith(("rule ", "localrule ")) and s.endswith(":"):
            rule = s.split()[1].rstrip(":")
        elif s.startswith("reason:") and rule:
            reasons = {r.split(":")[0].strip().lower() for r in s[len("reason:"):].split(";")}
            out.setdefault(rule, set()).update(reasons)
    return out


def copy_repo(dest: Path) -> Path:
    return copy_checkout(dest, COPY)


@pytest.fixture(scope="module")
def built(tmp_path_factory, shared_data):
    base = tmp_path_factory.mktemp("closure")
    # one copy of the checkout (another copy would plan nothing new: tests/provenance/test_relocatable.py)
    repos = [copy_repo(base / "repo")]
    work = base / "work"
    work.mkdir()
    cfg = {"seed": 3, "cache_dir": str(work / "cache"), "questions": {"history_length": 5, "per_measure": 20},
           # the analyses off and no rule mining: the graph's cheap rules cover the rule sets checked here
           "analysis": {"enabled": False},
           "datasets": {"ml": {"domain": "movie", "format": "ml-100k",
                               "source": {"path": str(shared_data / "movielens-100k/raw")},
                               "measures": ["attr_genre", "mem_item_item"]}},
           "models": {"random": {"backend": "random", "seed": 0}}}
    (work / "config.yaml").write_text(yaml.safe_dump(cfg))
    snakemake(work, snakefile=repos[0] / "Snakefile")
    validate(cfg)
    return repos, work, Plan(fill_defaults(cfg), repos[0])


def test_every_module_changes_exactly_the_rules_that_import_it(built):
    repos, work, plan = built
    scripts = rule_scripts(repos[0])
    closures = {r: oracle(repos[0] / "scripts" / s, repos[0]) for r, s in scripts.items()}
    # the code stamps (rules/code.smk) carry their scripts' digests: a stamp re-runs with them
    closures["code_stamp"] = set().union(*(closures[r] for r in Plan.STAMPED_SCRIPTS if r in closures))
    scripts.pop("code_stamp")
    digests = {r: plan.code(s) for r, s in scripts.items()}
    # what decides a rule's digest: its closure, the files plan.code hashes (appending a comment
    # changes no closure, so one closure per rule holds for every module touched below)
    files = {r: {(repos[0] / f).resolve() for f in plan.code_files(s)} for r, s in scripts.items()}

    def imports(module: Path) -> set[str]:
        rules = {r for r, fs in files.items() if module.resolve() in fs}
        return rules | ({"code_stamp"} if rules & set(Plan.STAMPED_SCRIPTS) else set())

    groups: dict[frozenset, Path] = {}
    for module in sorted((repos[0] / "lrworld").rglob("*.py")):
        expected = {r for r, fs in closures.items() if module.resolve() in fs}
        assert imports(module) == expected, module.relative_to(repos[0])
        groups.setdefault(frozenset(expected), module.relative_to(repos[0]))
    assert len(groups) > 20  # the modules fall into many distinct rule sets (60 at the time of writing)

    # the real digests (each round re-computes every rule's closure and digest, about a second on
    # CI's two cores) for one module of seven rule sets spread over their sizes, an __init__ among
    # them: the rules that import it, and no other, get a new digest
    spread = sorted(groups.items(), key=lambda kv: (len(kv[0]), str(kv[1])))
    sample = dict(spread[i * (len(spread) - 1) // 5] for i in range(6))
    sample.update([next(kv for kv in spread if kv[1].name == "__init__.py")])
    for expected, rel in sample.items():
        module = repos[0] / rel
        text = module.read_text()
        module.write_text(text + TOUCH)
        try:
            changed = {r for r, s in scripts.items() if plan.code(s) != digests[r]}
            changed |= {"code_stamp"} if changed & set(Plan.STAMPED_SCRIPTS) else set()
        finally:
            module.write_text(text)
        assert changed == expected, rel

    # the real graph: the rules this config has jobs of, for one module of each distinct rule set
    in_plan = set(job_counts(snakemake(work, "-n", "--forceall", snakefile=repos[0] / "Snakefile").stdout)) - {"all"}
    assert snakemake(work, "-n", snakefile=repos[0] / "Snakefile").stdout.count("Nothing to be done") == 1

    def dry_run(item):
        (expected, rel), repo = item, repos[0]
        module = repo / rel
        text = module.read_text()
        module.write_text(text + TOUCH)
        try:
            out = snakemake(work, "-n", snakefile=repo / "Snakefile").stdout
        finally:
            module.write_text(text)
        # this config plans score's and table's stamps only (no SRBench LLM lists)
        stamp = {"code_stamp"} if any(module.resolve() in closures[s] for s in ("score", "table")) else set()
        return rel, planned(out), (set(expected) - {"code_stamp"} | stamp) & in_plan

    by_size = sorted(groups.items(), key=lambda kv: (len(kv[0] & in_plan), str(kv[1])))
    by_size = [kv for kv in by_size if kv[0] & in_plan]  # a module none of this config's rules import plans nothing
    picked = [by_size[0], by_size[len(by_size) // 2], by_size[-1]]
    for rel, plan_, expected in map(dry_run, picked):
        plan_.pop("all", None)
        # every rule whose script imports the module re-runs ...
        assert expected <= set(plan_), (rel, expected - set(plan_))
        for rule, reasons in plan_.items():
            # ... and nothing else, except what reads their outputs (Snakemake names only the
            # first reason of a job that an upstream job already re-runs)
            if rule not in expected:
                assert reasons == {"input files updated by another job"}, (rel, rule, reasons)
            else:
                assert reasons <= {"params have changed since last execution", "input files updated by another job"}, (rel, rule, reasons)
