"""Analyses of the paper's tables and figures, rebuilt from the graph's files (rules/analysis.smk).

Every function here takes plain records or DataFrames, so each is unit-testable on hand-computed
fixtures; the Snakemake entry points are `scripts/analysis_*.py`.
"""
