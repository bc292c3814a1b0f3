"""Captions for the multimodal measure: a tiny random-weight LLaVA built offline, an OpenAI-compatible
server on 127.0.0.1, locally generated images, and the (image sha256, captioner) cache."""

import base64

import pandas as pd
import pytest
from PIL import Image

from lrworld.captions import captioners
from lrworld.captions.run import caption_items
from lrworld.questions.build import build_questions
from tests.support.fault_server import FaultServer
from tests.support.tiny_llava import build_tiny_llava

COLORS = {"1": (200, 30, 30), "2": (30, 200, 30), "3": (30, 30, 200)}


@pytest.fixture()
def images(tmp_path):
    folder = tmp_path / "images"
    folder.mkdir()
    for item, rgb in COLORS.items():
        Image.new("RGB", (48, 64), rgb).save(folder / f"{item}.png")
    return folder


@pytest.fixture(scope="module")
def tiny_llava(tmp_path_factory):
    return build_tiny_llava(tmp_path_factory.mktemp("llava") / "tiny")


class Counting:
    def __init__(self, inner):
        self.inner, self.calls = inner, 0

    def identity(self):
        return self.inner.identity()

    def caption(self, path):
        self.calls += 1
        return self.inner.caption(path)


def test_llava_captions_local_folder_and_url_with_cache(tmp_path, images, tiny_llava):
    # item 4 has only a URL (file:// stands in for the web: no network in tests); item 5 has nothing
    url = (images / "3.png").as_uri()
    items = pd.DataFrame({"item_id": ["1", "2", "4", "5"], "poster_url": [None, "http://unused", url, None]})
    cfg = {"backend": "llava", "model": str(tiny_llava), "max_new_tokens": 6, "device": "cpu"}
    cap = Counting(captioners.make(cfg))
    table, report = caption_items(items, cfg, tmp_path / "cache", image_dir=images, captioner=cap)
    assert list(table["item_id"]) == ["1", "2", "4"] and cap.calls == 3
    assert (report["from_folder"], report["downloaded"], report["no_image"]) == (2, 1, 1)
    assert all(isinstance(c, str) and c for c in table["caption"])
    assert report["captioner"]["model"].startswith("sha256:")  # a local folder is keyed by its weights
    # a rerun asks the model nothing: same image bytes, same captioner
    again = Counting(captioners.make(cfg))
    table2, report2 = caption_items(items, cfg, tmp_path / "cache", image_dir=images, captioner=again)
    assert again.calls == 0 and report2["cache_hits"] == 3 and table2.equals(table)
    # another instruction is another captioner: asked again
    prompt = tmp_path / "p.txt"
    prompt.write_text("Describe the colours.")
    other = Counting(captioners.make(dict(cfg, prompt_file=str(prompt))))
    caption_items(items, cfg, tmp_path / "cache", image_dir=images, captioner=other)
    assert other.calls == 3


def test_openai_compatible_captioner(tmp_path, images, monkeypatch):
    monkeypatch.setenv("CAPTION_KEY", "sk-test")
    items = pd.DataFrame({"item_id": ["1", "2"], "poster_url": [None, None]})
    with FaultServer() as srv:
        cfg = {"backend": "openai", "model": "gpt-4o-mini", "base_url": srv.base_url, "api_key_env": "CAPTION_KEY",
               "max_retries": 0}
        table, report = caption_items(items, cfg, tmp_path / "cache", image_dir=images)
        req = srv.last_request[captioners.instruction()]
    assert len(table) == 2 and table["caption"].str.startswith("The answer is").all()
    parts = req["messages"][-1]["content"]
    assert parts[0] == {"type": "text", "text": captioners.instruction()}
    assert parts[1]["image_url"]["url"].startswith("data:image/png;base64,")
    assert base64.b64decode(parts[1]["image_url"]["url"].split(",", 1)[1]) in \
        {(images / f"{i}.png").read_bytes() for i in "12"}
    assert report["captioner"]["backend"] == "openai" and "sk-test" not in str(report)


def test_figure3_instruction_is_a_template_file():
    text = captioners.instruction()
    for word in ("objects", "people", "text", "style", "mood"):
        assert word in text


def test_multimodal_questions_show_captions_only():
    items = pd.DataFrame({"item_id": [str(i) for i in range(12)], "title": [f"T{i}" for i in range(12)]})
    inter = pd.DataFrame({"user_id": ["u"] * 6 + ["v"] * 6, "item_id": ["0", "1", "2", "3", "4", "5"] * 2,
                          "timestamp": list(range(6)) * 2})
    caps = {str(i): f"a poster with {i} people" for i in range(11)}  # item 11: no image
    caps["10"] = caps["5"]  # same caption as the positive: never a negative
    qs, report = build_questions("d", "movie", "multimodal", inter, items, 5, None, 0, item_texts=caps)
    for q in qs:
        shown = [q["item_texts"][c] for c in q["candidates"]]
        assert len(set(shown)) == 4 and "10" not in q["candidates"] and "11" not in q["candidates"]
    with pytest.raises(ValueError, match="captions"):
        build_questions("d", "movie", "multimodal", inter, items, 5, None, 0)
