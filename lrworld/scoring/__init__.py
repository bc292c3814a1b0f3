"""Parsing model answers and computing the paper's metrics."""
