"""The planned weights identity (results/models/<model>.identity.json, written from the graph's
params) must be the one the answers were asked and read with: weights swapped after the graph was
planned, or answers asked with other weights, end the job in one line instead of mixing models."""

from __future__ import annotations

WEIGHT_KEYS = ("weights_sha256", "resolved_revision")


class IdentityMismatch(RuntimeError):
    """The weights an answer or score job sees are not those the graph planned with."""


def check(planned: dict, identity: dict, path: str, what: str) -> None:
    """Raise IdentityMismatch when a weight key the plan recorded differs in `identity`."""
    for key in WEIGHT_KEYS:
        want = planned.get(key)
        if want is not None and identity.get(key) != want:
            raise IdentityMismatch(
                f"{path}: {key} {want[:12]} was planned, but {what} has {str(identity.get(key))[:12]}: "
                f"the model's files changed during the run; rerun snakemake")
