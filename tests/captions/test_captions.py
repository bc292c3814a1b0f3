"""Captions for the multimodal measure: a tiny random-weight LLaVA built offline, an OpenAI-compatible
server on 127.0.0.1, locally generated images, through the one inference stage (the cache keys on
the image's sha256)."""

import base64
import logging

import pandas as pd
import pytest
from PIL import Image

from lrworld.captions import requests
from lrworld.captions.fetch import FetchPolicy
from lrworld.captions.images import CaptionError, collect
from lrworld.inference.cache import ResponseCache
from lrworld.inference.stage import fill_cache, read_answers
from lrworld.models import make_backend
from lrworld.questions.build import build_questions
from tests.support.fault_server import FaultServer
from tests.support.image_server import ImageServer
from tests.support.tiny_llava import build_tiny_llava

COLORS = {"1": (200, 30, 30), "2": (30, 200, 30), "3": (30, 30, 200)}
POLICY = FetchPolicy(max_bytes=1_000_000, timeout_s=10)
# the test image host runs on 127.0.0.1, which only this test-only switch lets through
LOCAL_HOST = FetchPolicy(max_bytes=1_000_000, timeout_s=10, trusted_addresses=frozenset({"127.0.0.1"}))


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


def caption(items, cfg, cache_dir, policy, image_dir=None, prompt=None):
    """The captions path of the graph: requests, the answer rule's work (the inference stage), the
    table read back from the cache. Returns the table, its report and how many were asked."""
    reqs, images_report = requests.build("d", items, prompt or requests.instruction(), cache_dir / "images", policy,
                                         image_dir=image_dir)
    cache = ResponseCache(cache_dir / "captioner.sqlite")
    info = fill_cache(reqs, lambda: make_backend("captioner", cfg), cache)
    answers = [a for _, a in read_answers(reqs, info["identity"], cache)]
    table, report = requests.captions_table(reqs, answers, info["identity"], images_report)
    return table, report, info["asked"]


def test_llava_captions_local_folder_and_url_with_cache(tmp_path, images, tiny_llava):
    # item 4 has only a URL (a local image host); item 5 has nothing; item 2's URL is never used
    with ImageServer() as srv:
        items = pd.DataFrame({"item_id": ["1", "2", "4", "5"],
                              "poster_url": [None, "http://unused", srv.url("/poster.png"), None]})
        cfg = {"backend": "llava", "model": str(tiny_llava), "max_new_tokens": 6, "device": "cpu"}
        table, report, asked = caption(items, cfg, tmp_path / "cache", LOCAL_HOST, image_dir=images)
        assert list(table["item_id"]) == ["1", "2", "4"] and asked == 3
        assert (report["from_folder"], report["downloaded"], report["no_image"]) == (2, 1, 1)
        assert all(isinstance(c, str) and c for c in table["caption"])
        assert report["captioner"]["model"].startswith("sha256:")  # a local folder is keyed by its weights
        # a rerun asks the model nothing and downloads nothing: same image bytes, same captioner
        table2, report2, asked2 = caption(items, cfg, tmp_path / "cache", LOCAL_HOST, image_dir=images)
        assert asked2 == 0 and table2.equals(table)
        assert report2["already_downloaded"] == 1 and srv.hits["/poster.png"] == 1
        # another instruction is another request: asked again
        _, _, asked3 = caption(items, cfg, tmp_path / "cache", LOCAL_HOST, image_dir=images,
                               prompt="Describe the colours.")
        assert asked3 == 3


def test_openai_compatible_captioner(tmp_path, images, monkeypatch):
    monkeypatch.setenv("CAPTION_KEY", "sk-test")
    items = pd.DataFrame({"item_id": ["1", "2"], "poster_url": [None, None]})
    with FaultServer() as srv:
        cfg = {"backend": "openai", "model": "gpt-4o-mini", "base_url": srv.base_url, "api_key_env": "CAPTION_KEY",
               "max_retries": 0}
        table, report, _ = caption(items, cfg, tmp_path / "cache", POLICY, image_dir=images)
        req = srv.last_request[requests.instruction()]
    assert len(table) == 2 and table["caption"].str.startswith("The answer is").all()
    parts = req["messages"][-1]["content"]
    assert parts[0] == {"type": "text", "text": requests.instruction()}
    assert parts[1]["image_url"]["url"].startswith("data:image/png;base64,")
    assert base64.b64decode(parts[1]["image_url"]["url"].split(",", 1)[1]) in \
        {(images / f"{i}.png").read_bytes() for i in "12"}
    assert report["captioner"]["backend"] == "openai" and "sk-test" not in str(report)


def test_figure3_instruction_is_a_template_file():
    text = requests.instruction()
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


def test_image_dir_files_are_named_by_item_id_and_must_be_images(tmp_path, images, caplog):
    caplog.set_level(logging.INFO, logger="lrworld.progress")
    (images / "4.jpg").write_text("OPENAI_API_KEY=sk-not-an-image")  # a .jpg that is not one
    (images / "notes.txt").write_text("ignored: not an image extension")
    (images / "7.JPEG").write_bytes((images / "1.png").read_bytes())  # extension case and format do not matter
    items = pd.DataFrame({"item_id": ["1", "2", "3", "4", "7", "8"], "poster_url": [None] * 6})
    found, report = collect(items, images, tmp_path / "dl", POLICY)
    assert sorted(found) == ["1", "2", "3", "7"] and found["7"].name == "7.JPEG"
    assert (report["from_folder"], report["no_image"], report["skipped"]) == (4, 1, {"not_image": 1})
    progress = [r.getMessage() for r in caplog.records if r.name == "lrworld.progress"]
    assert progress[-1].startswith("images: 100%|") and " 6/6 [" in progress[-1]  # one line per item checked
    with pytest.raises(CaptionError, match="image_dir .*missing: not a folder"):
        collect(items, tmp_path / "missing", tmp_path / "dl", POLICY)


def test_offline_without_image_dir_stops_at_once_with_one_clear_line(tmp_path):
    calls = []

    def offline(url, policy):  # what a machine without network gets for every URL
        from lrworld.captions.fetch import Unreachable

        calls.append(url)
        raise Unreachable("posters.example: cannot resolve ([Errno -3] Temporary failure in name resolution)")

    items = pd.DataFrame({"item_id": [str(i) for i in range(500)],
                          "poster_url": [f"https://posters.example/{i}.jpg" for i in range(500)]})
    with pytest.raises(CaptionError, match=r"^no poster could be fetched: set image_dir or run online \(500 items"):
        collect(items, None, tmp_path / "dl", POLICY, fetch=offline)
    assert len(calls) == 3  # not one attempt (and one timeout) per poster


def test_offline_with_an_image_dir_uses_the_folder_and_skips_the_rest(tmp_path, images):
    from lrworld.captions.fetch import Unreachable

    def offline(url, policy):
        raise Unreachable("no network")

    items = pd.DataFrame({"item_id": ["1", "2", "3"] + [str(i) for i in range(10, 20)],
                          "poster_url": [None] * 3 + [f"https://posters.example/{i}.jpg" for i in range(10, 20)]})
    found, report = collect(items, images, tmp_path / "dl", POLICY, fetch=offline)
    assert sorted(found) == ["1", "2", "3"] and report["skipped"] == {"offline": 7, "unreachable": 3}
