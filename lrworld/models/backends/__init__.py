"""Model backends, one module each; each registers itself with `@register_backend`."""

from lrworld.core.registry import discover

discover(__name__)
