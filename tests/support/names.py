"""Names a test may give to a thing of its own without colliding with what a registry holds: a
recipe of docs/extending.md may have registered the test's favourite name already."""

from __future__ import annotations

import re


def unregistered_variant(stem: str) -> str:
    """`stem`, or `stem_<i>`: the first that no registered variant kind's pattern matches."""
    from lrworld.prompts.variants import name_pattern

    return next(n for n in (stem, *(f"{stem}_{i}" for i in range(1, 100))) if not re.fullmatch(name_pattern(), n))
