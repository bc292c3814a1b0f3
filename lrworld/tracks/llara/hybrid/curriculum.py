"""LLaRA's curriculum: the chance that a micro-batch is hybrid (behavioural tokens) rather than
text-only ([PH]), two ways (``llara.train.curriculum``, docs/llara.md):

- ``paper``: the share rises linearly to ``hybrid_share`` over the whole run (the paper's
  description: the model moves from text-only to hybrid prompts);
- ``code``: as LLaRA's public code runs it. Its ``TrainCollater`` keeps the step counter
  (``cur_step``, from 1) in the collate function; each of the ``num_workers`` DataLoader workers
  holds its own copy, fed every ``num_workers``-th batch, and the workers are re-created every
  epoch, so the counter restarts. Its bound is ``max_epochs * (n // batch_size) // num_workers``,
  so the share tops out near ``1 / max_epochs`` (0.2 with LLaRA's 5 epochs) and then resets.

Both toss one coin per micro-batch (LLaRA: ``random.random()`` in each collate call), drawn from
``rng_for(seed, dataset, "llara_curriculum", k)`` with ``k`` the micro-batch's global index.
"""

from __future__ import annotations

from lrworld.core.seeding import rng_for

MODES = ("paper", "code")


def threshold(k: int, hp: dict, n_examples: int) -> float:
    """The hybrid share of global micro-batch ``k`` (0-based) before ``hybrid_share`` scales it."""
    if hp.get("curriculum", "paper") == "paper":
        total = int(hp["max_steps"]) * int(hp["accumulate_grad_batches"])
        return (k + 1) / total
    workers, bs = int(hp["num_workers"]), int(hp["batch_size"])
    per_epoch = max(n_examples // bs, 1)  # DataLoader(drop_last=True)
    bound = max(int(hp["max_epochs"]) * per_epoch // workers, 1)
    cur_step = (k % per_epoch) // workers + 1  # this batch's worker's counter, fresh each epoch
    return cur_step / bound


def is_hybrid(k: int, hp: dict, n_examples: int, seed: int, dataset: str) -> bool:
    u = rng_for(seed, dataset, "llara_curriculum", str(k)).random()
    return bool(u < float(hp["hybrid_share"]) * threshold(k, hp, n_examples))
