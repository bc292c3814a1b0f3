"""Loaders that turn published dataset layouts into the aligned Parquet contract (see `contract`)."""
