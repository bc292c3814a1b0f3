"""docs/generated/: the results tables as the docs quote them, written by the run."""
