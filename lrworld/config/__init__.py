"""The run's config: its schema assembled from the registries, validated, defaults filled, and the
config files combined. Above every registry it reads (pyproject's [tool.importlinter] floors)."""
