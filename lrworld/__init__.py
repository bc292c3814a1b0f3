"""lrworld: benchmarks of large language models in recommendation, built as a Snakemake graph.

The package holds the logic; `scripts/` are thin Snakemake entry points and `rules/` declare the graph.
"""

__version__ = "0.1.0"
