"""Loading a torch checkpoint as tensors only: a file that needs arbitrary objects rebuilt is code,
and is refused in one line naming the file, without torch's advice to load it unsafely. Saving one
so that its bytes depend on its contents only."""

from __future__ import annotations

import os
import re

from lrworld.core.io import atomic_path


class UnsafeCheckpoint(ValueError):
    """A checkpoint that is not tensors only (or not a checkpoint at all)."""


def load_tensors(path: str | os.PathLike, what: str = "checkpoint"):
    import torch

    try:
        return torch.load(path, map_location="cpu", weights_only=True)
    except FileNotFoundError:
        raise
    except Exception as exc:  # torch raises UnpicklingError, RuntimeError, ... with its own advice
        found = re.search(r"GLOBAL ([\w.]+)", str(exc))
        why = f"it needs {found.group(1)} rebuilt, which is code" if found else f"{type(exc).__name__}"
        raise UnsafeCheckpoint(f"{path}: refused as a {what}: not loadable as tensors only ({why}); lrworld loads "
                               f"only files it wrote, or state_dicts saved from a copy you trust; delete it and "
                               f"rerun the rule that writes it") from None


def save_tensors(obj, path: str | os.PathLike) -> None:
    """torch.save `obj` to `path`, whole or not at all, in bytes that depend on `obj` only. Given a
    file name, torch names the zip's inner folder after it, so a checkpoint written beside under a
    temporary name would carry that random name, and two runs of one training (a resumed build and
    a clean one) would write files with other digests; given an open file, torch names it `archive`."""
    import torch

    with atomic_path(path) as tmp:
        with open(tmp, "wb") as fh:
            torch.save(obj, fh)
