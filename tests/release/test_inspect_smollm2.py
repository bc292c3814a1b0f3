"""Inspect agrees with a real model: SmolLM2-135M-Instruct served offline by xllamacpp on
127.0.0.1, asked by the release's Inspect task in generate mode (Inspect's `openai-api` provider)
and by lrworld's openai backend in generate mode, replies the same text to every question, and
Inspect's score (lrworld's parser, in the release) is lrworld's verdict, question by question."""

import json

import pytest

from lrworld.models import make_backend
from lrworld.models.base import PromptItem
from lrworld.release import interop
from lrworld.scoring.parse import parse_choice
from tests.release.test_interop_tools import MAN
from tests.support.llama_server import llama_server

pytestmark = pytest.mark.slow
MAX_TOKENS = 24
QUESTIONS = [  # (history, options, gold): real ML-100K titles, the default template's shape
    ("Toy Story (1995), GoldenEye (1995), Four Rooms (1995)", ["Comedy", "War", "Horror", "Western"], 0),
    ("Star Wars (1977), Return of the Jedi (1983), Empire Strikes Back, The (1980)",
     ["Documentary", "Sci-Fi", "Musical", "Film-Noir"], 1),
    ("Fargo (1996), Pulp Fiction (1994), Reservoir Dogs (1992)", ["Children's", "Musical", "Crime", "Fantasy"], 2),
    ("Scream (1996), Halloween (1978), Nightmare on Elm Street, A (1984)", ["Horror", "Romance", "War", "Animation"], 0),
    ("Casablanca (1942), Titanic (1997), Sleepless in Seattle (1993)", ["Western", "Sci-Fi", "Documentary", "Romance"], 3),
    ("Aladdin (1992), Lion King, The (1994), Beauty and the Beast (1991)", ["Animation", "Crime", "Film-Noir", "War"], 0),
]


@pytest.fixture(scope="module")
def release(tmp_path_factory):
    rel = tmp_path_factory.mktemp("release")
    rows = []
    for q, (history, options, gold) in enumerate(QUESTIONS):
        labels = ["A", "B", "C", "D"]
        prompt = (f"A user watched these movies: {history}.\nWhich genre is the movie the user will watch next?\n"
                  + "\n".join(f"{lab}. {o}" for lab, o in zip(labels, options)) + "\nAnswer:\n")
        rows.append({"qid": f"toy/mcq/{q}", "variant": "zero_shot", "prompt": prompt, "labels": labels,
                     "candidates": options, "answer_index": gold, "prompt_sha256": "x" * 64})
    (rel / "prompts/mcq").mkdir(parents=True)
    (rel / "prompts/mcq/zero_shot.jsonl").write_text("".join(json.dumps(r) + "\n" for r in rows))
    interop.write(rel, dict(MAN, measures=["mcq"], variants=["zero_shot"]))
    return rel, rows


@pytest.fixture(scope="module")
def url():
    with llama_server(n_ctx=2048, n_parallel=1, n_threads=1, cache_prompt=False, alias="smollm2") as base_url:
        yield base_url


def test_inspect_and_lrworlds_generate_mode_agree_on_every_question(release, url, tmp_path, monkeypatch):
    import importlib.util

    from inspect_ai import eval as inspect_eval

    rel, rows = release
    backend = make_backend("smollm2-server", {"backend": "openai", "model": "smollm2", "base_url": url,
                                              "mode": "generate", "temperature": 0.0, "max_tokens": MAX_TOKENS})
    replies = backend.answer([PromptItem(r["qid"], r["prompt"], tuple(r["labels"]), tuple(r["candidates"]))
                              for r in rows])
    ours = {r["qid"]: parse_choice(a.raw_text, r["labels"], r["candidates"]) for r, a in zip(rows, replies)}
    texts = {r["qid"]: a.raw_text for r, a in zip(rows, replies)}

    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("LLAMA_BASE_URL", url)
    monkeypatch.setenv("LLAMA_API_KEY", "EMPTY")
    spec = importlib.util.spec_from_file_location("lrworld_toy_inspect_smollm2", rel / "inspect_task.py")
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    [log] = inspect_eval(mod.lrworld_toy(mode="generate", max_tokens=MAX_TOKENS), model="openai-api/llama/smollm2",
                         log_dir=str(tmp_path / "logs"), display="none")
    assert log.status == "success", log.error
    by_qid = {s.id: s for s in log.samples}
    assert sorted(by_qid) == sorted(ours)
    for r in rows:
        s = by_qid[r["qid"]]
        assert s.output.completion == texts[r["qid"]], r["qid"]  # the same greedy reply
        picked = s.scores["lrworld_parsed"].answer
        assert picked == (r["labels"][ours[r["qid"]]] if ours[r["qid"]] is not None else None), r["qid"]
        assert (s.scores["lrworld_parsed"].value == "C") == (ours[r["qid"]] == r["answer_index"])
    assert any(v is not None for v in ours.values())  # SmolLM2's replies are read, not all missed
