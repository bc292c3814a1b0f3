"""Shortcut answerers, one module each; each registers itself with `@register_shortcut`
(lrworld/models/shortcut.py)."""

from lrworld.core.registry import discover

discover(__name__)
