"""The llava backend as a model entry (the paper's LlaVA-1.6 row): the multimodal prompts as text
alone, and the `visual` variant's, each with the image of its latest history item (the paper's
Table 4), answered through the one inference stage by a tiny random-weight LLaVA built offline."""

import hashlib

import pandas as pd
import pytest
from PIL import Image

from lrworld.captions import requests
from lrworld.captions.fetch import FetchPolicy
from lrworld.inference.cache import ResponseCache
from lrworld.inference.stage import fill_cache, to_item
from lrworld.models import make_backend
from lrworld.models.registry import capabilities
from lrworld.prompts.variants import images_of
from lrworld.prompts.render import template_path
from lrworld.prompts.variants import render_variant_all
from lrworld.questions.build import build_questions
from tests.support.tiny_llava import build_tiny_llava

N = 12


@pytest.fixture(scope="module")
def tiny_llava(tmp_path_factory):
    return build_tiny_llava(tmp_path_factory.mktemp("llava") / "tiny")


def multimodal(tmp_path):
    """Multimodal questions over 12 items, each with its own image and caption, and the images the
    captions were made of (as the caption requests list them)."""
    folder = tmp_path / "images"
    folder.mkdir()
    for i in range(N):
        Image.new("RGB", (40, 40), (20 * i, 255 - 20 * i, 90)).save(folder / f"{i}.png")
    items = pd.DataFrame({"item_id": [str(i) for i in range(N)], "title": [f"T{i}" for i in range(N)]})
    inter = pd.DataFrame({"user_id": ["u"] * 6 + ["v"] * 6, "item_id": [str(i) for i in range(6)] * 2,
                          "timestamp": list(range(6)) * 2})
    caps = {str(i): f"a poster with {i} people" for i in range(N)}
    qs, _ = build_questions("d", "movie", "multimodal", inter, items, 5, None, 0, item_texts=caps)
    reqs, _ = requests.build("d", items, "describe", tmp_path / "downloads", FetchPolicy(1_000_000, 10),
                             image_dir=folder)
    return qs, items, folder, images_of(reqs)


def test_the_visual_variant_sends_the_latest_history_items_image(tmp_path):
    qs, items, folder, images = multimodal(tmp_path)
    tpl = template_path("movie", "multimodal", "zero_shot")
    zero = render_variant_all(qs, tpl, items, "zero_shot")
    seen = render_variant_all(qs, tpl, items, "visual", images=images)
    assert len(qs) >= 1 and len(seen) == len(zero) == len(qs)
    for z, v, q in zip(zero, seen, qs):
        last = folder / f"{q['history'][-1]}.png"
        assert v["prompt"] == z["prompt"] and v["answer_index"] == z["answer_index"]  # the same text, the same gold
        assert v["image_paths"] == [str(last.resolve())] and "image_paths" not in z
        assert v["image_sha256"] == [hashlib.sha256(last.read_bytes()).hexdigest()]
        assert v["variant_meta"]["image_item"] == q["history"][-1] and "request" not in v["variant_meta"]
    with pytest.raises(ValueError, match="no captioned image of the latest history item"):
        render_variant_all(qs, tpl, items, "visual", images={})


def test_llava_answers_the_text_prompts_and_the_image_prompts(tmp_path, tiny_llava):
    qs, items, _, images = multimodal(tmp_path)
    tpl = template_path("movie", "multimodal", "zero_shot")
    zero = render_variant_all(qs, tpl, items, "zero_shot")
    seen = render_variant_all(qs, tpl, items, "visual", images=images)
    cfg = {"backend": "llava", "model": str(tiny_llava), "max_new_tokens": 3, "device": "cpu"}
    assert capabilities(cfg).reads_images
    cache = ResponseCache(tmp_path / "llava.sqlite")
    info = fill_cache(zero + seen, lambda: make_backend("llava-v1.6-mistral-7b", cfg), cache)
    # the same text with and without its image: two requests, two answers (the cache keys on the image)
    assert info["asked"] == 2 * len(qs)
    assert fill_cache(zero + seen, lambda: make_backend("llava-v1.6-mistral-7b", cfg), cache)["asked"] == 0
    two = dict(zero[0], image_paths=[seen[0]["image_paths"][0]] * 2, image_sha256=["x", "y"])
    with pytest.raises(ValueError, match="has 2 images; it reads one or none"):
        make_backend("llava-v1.6-mistral-7b", cfg).answer([to_item(two)])
