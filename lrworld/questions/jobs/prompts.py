"""Rule prompts: a measure's questions rendered with one template variant."""

from __future__ import annotations

import logging

import pandas as pd

from lrworld.core import io
from lrworld.core.package_files import packaged
from lrworld.prompts.variants import images_of, render_variant_all
from lrworld.questions.measures import by_id


def run(job, log: logging.Logger) -> None:
    p = job.params
    # the `visual` variant sends each question's latest history image (the captions requests')
    images = images_of(list(io.read_jsonl(job.input.images[0]))) if job.input.get("images") else None
    prompts = render_variant_all(io.read_jsonl(job.input.questions), packaged(p.template),
                                 pd.read_parquet(job.input.item_table), job.wildcards.variant, seed=int(p.seed),
                                 kshot_default=int(p.kshot_k), exclude_values=dict(p.exclude_values),
                                 profile=by_id(job.wildcards.measure).profile, images=images,
                                 user_items=int(p.user_items))
    log.info("%d prompts rendered from %s", len(prompts), p.template)
    io.write_jsonl(job.output.prompts, prompts)
