"""The paper's run as it ran it (lrworld/paper/experiments.py): the variants per dataset and
measure, the measures per model, and the prompts each model asked, from the printed figures."""

from lrworld.paper import experiments as E
from lrworld.paper import figures as P

AMAZON_NOISY = {"neu_user2items", "mem_user_user", "taxo_root", "multimodal", "attr_color", "taxo_leaf",
                "taxo_interm", "kg_brand"}


def test_variants_per_dataset_and_measure():
    beyond = {k: v for k, v in E.variants_per_measure().items() if v != ("zero_shot",)}
    assert beyond == {**{("amazon", m): ("zero_shot", "noisy") for m in AMAZON_NOISY},
                      **{("movielens", m): ("zero_shot", *E.SHUFFLES) for m in ("kg_cast", "kg_director", "attr_genre")},
                      ("netflix", "text_logline"): ("zero_shot", "cot", "kshot")}
    # zero-shot on every measure of every dataset, LastFM's two included
    counts = P.question_counts()
    assert set(E.variants_per_measure()) == {(d, m) for d, per in counts.items() for m in per}


def test_measures_per_model():
    runs = E.runs()
    for gpt4 in ("GPT-4", "GPT-4-Turbo"):  # Table 5's measure only
        assert runs[gpt4] == {("amazon", "mem_item_item", "zero_shot"), ("netflix", "mem_item_item", "zero_shot")}
    assert runs["GPT-4o"] - runs["GPT-4"] == {("lastfm", m, "zero_shot") for m in ("next_artist", "attr_artist_genre")}
    for big in ("Llama3-70B", "Llama3.1-70B", "Qwen2-72B"):  # Table 25: every Amazon measure
        assert {m for d, m, v in runs[big] if d == "amazon" and v == "zero_shot"} == set(P.question_counts()["amazon"])
    assert not any(d == "movielens" for d, _, _ in runs["Llama3.1-70B"] | runs["Qwen2-72B"])
    assert runs["LLaRA"] == {("lastfm", m, "zero_shot") for m in ("next_artist", "attr_artist_genre")}


def test_prompts_per_model():
    got = E.prompts_per_model()
    # zero-shot 38,485 (all four datasets) + noisy on Amazon's 8 measures 16,170 + five answer
    # orders on MovieLens' 3 x 297 + cot and kshot on Netflix's 488 text questions
    assert 38_485 + 16_170 + 5 * 3 * 297 + 2 * 488 == 60_086
    assert got["Llama-3"] == got["Qwen-2"] == got["GPT-4o-mini"] == 60_086
    assert got["GPT-4"] == got["GPT-4-Turbo"] == 305 + 454 and got["GPT-4o"] == 305 + 454 + 244
    assert got["Llama3-70B"] == got["Qwen2-72B"] == 17_593 + 16_170 + 3 * 488
    assert got["GPT-3.5-Turbo"] == 38_241 and got["Falcon"] == 38_241 + 4_455
    assert sum(got.values()) == 608_427  # answers over the 18 models


def test_prompts_per_experiment():
    per = E.prompts_per_experiment()
    assert per["Llama-3"] == {"zero_shot": 38_485, "noisy": 16_170, "shuffle": 4_455, "cot": 488, "kshot": 488}
    assert per["GPT-4"] == {"zero_shot": 305 + 454}
    assert {m: sum(v.values()) for m, v in per.items()} == E.prompts_per_model()
