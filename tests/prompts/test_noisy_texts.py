"""`noisy` on a measure whose items are shown by a text only (text_logline, multimodal): the noise
item is one the measure shows a text of elsewhere, and its text goes with it into the prompt."""

import pandas as pd

from lrworld.prompts.render import template_path
from lrworld.prompts.variants import render_variant_all

ITEMS = pd.DataFrame({"item_id": [str(i) for i in range(1, 13)], "title": [f"T{i}" for i in range(1, 13)],
                      "year": 2000})
TEXTS = {str(i): f"the story of film number {i}" for i in range(1, 13)}


def q(user, history, candidates):
    shown = [*history, *candidates]
    return {"qid": f"d/text_logline/u{user}", "dataset": "d", "measure": "text_logline", "qtype": "mcq",
            "user_id": str(user), "history": history, "candidate_kind": "item", "candidates": candidates,
            "answer_index": 0, "item_field": "plot", "item_texts": {i: TEXTS[i] for i in shown}}


def test_the_noise_item_of_a_text_measure_is_shown_by_its_text():
    qs = [q(1, ["1", "2", "3"], ["4", "5", "6", "7"]), q(2, ["8", "9", "10"], ["11", "12", "1", "2"])]
    out = render_variant_all(qs, template_path("movie", "text_logline", "zero_shot"), ITEMS, "noisy", seed=0,
                             kshot_default=3, profile="history")
    for p, question in zip(out, qs):
        (swap,) = p["variant_meta"]["replaced"] if "variant_meta" in p else p["meta"]["replaced"]
        assert swap["noise_item"] not in question["history"] + question["candidates"]
        assert TEXTS[swap["noise_item"]] in p["prompt"] and TEXTS[swap["item"]] not in p["prompt"].split("\n\n")[1]
