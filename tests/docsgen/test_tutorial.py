"""docs/tutorial.md as a newcomer runs it. Every `bash` block is read from the page; the fast test
checks that each command names something that exists (a make target, an `lrworld` subcommand with
arguments its parser takes, a file the page wrote or the checkout holds). The `tutorial` test runs
every block, in order, in a fresh clone of the checkout (`pytest -m tutorial`; it takes
minutes): the clone borrows this checkout's installed `.venv` for `make setup`, which `.ci/run`
has just run, and is otherwise exactly the page's commands."""

from __future__ import annotations

import re
import shlex
import subprocess
from pathlib import Path

import pytest

from lrworld import cli

ROOT = Path(__file__).resolve().parents[2]
PAGE = ROOT / "docs" / "tutorial.md"


def blocks() -> list[str]:
    return re.findall(r"```bash\n(.*?)```", PAGE.read_text(encoding="utf-8"), re.S)


def commands() -> list[str]:
    """Each block's logical lines (continuations joined, heredoc bodies left out)."""
    out = []
    for block in blocks():
        text = block.replace("\\\n", " ")
        heredoc = None
        for line in text.splitlines():
            if heredoc:
                heredoc = None if line.strip() == heredoc else heredoc
                continue
            if m := re.search(r"<<'?(\w+)'?", line):
                heredoc = m.group(1)
            if line.strip():
                out.append(line.strip())
    return out


def test_the_page_has_the_tutorials_steps():
    cmds = commands()
    assert cmds[1] == "make setup run"
    assert any("lrworld explain" in c for c in cmds) and any("lm_eval" in c for c in cmds)
    assert any("snakemake --profile profiles/local --configfile config.yaml mine.yaml" in c for c in cmds)


def test_every_lrworld_command_parses_and_every_make_target_exists():
    makefile = (ROOT / "Makefile").read_text()
    parser = cli._parser()
    for cmd in commands():
        words = shlex.split(cmd)
        if words[:1] == ["make"]:
            for target in words[1:]:
                assert re.search(rf"^{target}:", makefile, re.M), f"tutorial: make {target}: no such target"
        if "-m" in words and words[words.index("-m") + 1] == "lrworld":
            args = words[words.index("-m") + 2:]
            parser.parse_args(args)  # SystemExit (a failed test) on an unknown command or option


@pytest.mark.tutorial
def test_the_tutorial_runs_in_a_fresh_clone(tmp_path):
    clone = tmp_path / "lrworld"
    subprocess.run(["git", "clone", "-q", str(ROOT), str(clone)], check=True)
    (clone / ".venv").symlink_to(ROOT / ".venv")
    script = ["set -euxo pipefail", f"cd {shlex.quote(str(clone))}"]
    for block in blocks():
        for line in block.splitlines():
            if line.startswith("git clone "):
                continue  # the clone above
            script.append(line.replace("make setup run", "make run"))
    done = subprocess.run(["bash", "-c", "\n".join(script)], capture_output=True, text=True, timeout=3000)
    assert done.returncode == 0, done.stdout[-4000:] + done.stderr[-4000:]
    table = (clone / "results/tables/ml100k.md").read_text()
    assert "| smollm2-server |" in table and "| smollm2-135m |" in table
    assert "lrworld_ml100k" in done.stdout
    # the checkout stays clean: the default run rewrites its committed snippet byte for byte, and
    # the own-model run writes its own under results/ (only the page's mine.yaml is new; the
    # borrowed .venv link is this test's)
    status = subprocess.run(["git", "-C", str(clone), "status", "--porcelain", "--", ".", ":!.venv"],
                            capture_output=True, text=True)
    assert status.stdout.splitlines() == ["?? mine.yaml"], status.stdout
    assert (clone / "results/docs/generated/ml100k.md").exists()
