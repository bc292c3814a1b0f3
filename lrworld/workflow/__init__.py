"""Helpers the Snakemake rules files use: code closure, input functions, resources."""
