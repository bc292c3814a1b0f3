"""The paper's run as it ran it (lrworld/paper/experiments.py): the variants per dataset and
measure, the measures per model, and the prompts each model asked, from the printed figures and
the runs its figures show as images (Figures 5 and 9)."""

from lrworld.paper import experiments as E
from lrworld.paper import figures as P

AMAZON_NOISY = {"neu_user2items", "mem_user_user", "taxo_root", "multimodal", "attr_color", "taxo_leaf",
                "taxo_interm", "kg_brand"}
KS = (1, 2, 3, 4, 5)  # config/paper.yaml's analysis.kshot.series
FIG_5_9 = {"Llama-3", "Qwen-2", "Llama3-70B", "Qwen2-72B", "GPT-4o-mini"}  # §5.4's five


def test_variants_per_dataset_and_measure():
    beyond = {k: v for k, v in E.variants_per_measure().items() if v != ("zero_shot",)}
    assert beyond == {**{("amazon", m): ("zero_shot", "noisy") for m in AMAZON_NOISY - {"multimodal"}},
                      ("amazon", "multimodal"): ("zero_shot", "noisy", "visual"),  # Tables 23 and 4
                      ("movielens", "multimodal"): ("zero_shot", "visual"),
                      ("netflix", "multimodal"): ("zero_shot", "visual"),
                      **{("movielens", m): ("zero_shot", *E.SHUFFLES) for m in ("kg_cast", "kg_director", "attr_genre")},
                      # Figure 5 (text) and Figure 9 (memory-based user-user), both on Netflix
                      ("netflix", "text_logline"): ("zero_shot", "cot", "kshot"),
                      ("netflix", "mem_user_user"): ("zero_shot", "cot", "kshot")}
    # zero-shot on every measure of every dataset, LastFM's two included
    counts = P.question_counts()
    assert set(E.variants_per_measure()) == {(d, m) for d, per in counts.items() for m in per}
    # the k-shot series at the caller's k, in k's order
    assert E.variants_per_measure((2, 10))[("netflix", "mem_user_user")] == ("zero_shot", "cot", "kshot2", "kshot10")


def test_measures_per_model():
    runs = E.runs()
    for gpt4 in ("GPT-4", "GPT-4-Turbo"):  # Table 5's measure only
        assert runs[gpt4] == {("amazon", "mem_item_item", "zero_shot"), ("netflix", "mem_item_item", "zero_shot")}
    assert runs["GPT-4o"] - runs["GPT-4"] == {("lastfm", m, "zero_shot") for m in ("next_artist", "attr_artist_genre")}
    for big in ("Llama3-70B", "Llama3.1-70B", "Qwen2-72B"):  # Table 25: every Amazon measure
        assert {m for d, m, v in runs[big] if d == "amazon" and v == "zero_shot"} == set(P.question_counts()["amazon"])
    assert not any(d == "movielens" for d, _, _ in runs["Llama3.1-70B"] | runs["Qwen2-72B"])
    assert {d for d, _, _ in runs["Llama3.1-70B"]} == {"amazon"}  # in neither Table 23 nor §5.4
    assert runs["LLaRA"] == {("lastfm", m, "zero_shot") for m in ("next_artist", "attr_artist_genre")}
    # LlaVA-1.6: Tables 2, 3, 22 on all 31 measures, Table 6's orders, Table 4's image on multimodal
    llava = runs["LlaVA-1.6"]
    assert {(d, m) for d, m, v in llava if v == "zero_shot"} == {
        (d, m) for d, per in P.question_counts().items() if d != "lastfm" for m in per}
    assert {(d, m) for d, m, v in llava if v == "visual"} == {(d, "multimodal") for d in ("amazon", "movielens", "netflix")}
    assert {m for d, m, v in llava if v.startswith("shuffle")} == {"kg_cast", "kg_director", "attr_genre"}
    assert {m for m, r in E.runs().items() if ("netflix", "mem_user_user", "cot") in r} == FIG_5_9


def test_prompts_per_model():
    got = E.prompts_per_model(KS)
    mem_uu, text = 3_059, 488  # Netflix's mem_user_user and text_logline questions
    # zero-shot 38,485 (all four datasets) + noisy on Amazon's 8 measures 16,170 + five answer
    # orders on MovieLens' 3 x 297 + cot and five k-shot runs on Netflix's two measures
    assert 38_485 + 16_170 + 5 * 3 * 297 + 6 * (text + mem_uu) == 80_392
    assert got["Llama-3"] == got["Qwen-2"] == got["GPT-4o-mini"] == 80_392
    assert got["GPT-4"] == got["GPT-4-Turbo"] == 305 + 454 and got["GPT-4o"] == 305 + 454 + 244
    # Table 25's Amazon, §5.4's Netflix text and user-user, Table 23's noisy
    assert got["Llama3-70B"] == got["Qwen2-72B"] == 17_593 + 16_170 + 7 * (text + mem_uu) == 58_592
    assert got["Llama3.1-70B"] == 17_593
    # zero-shot only (Tables 2, 3, 22: 38,241 without LastFM), with Table 6's orders
    assert got["GPT-3.5-Turbo"] == 38_241 and got["Falcon"] == 38_241 + 4_455 == 42_696
    assert got["Phi-3"] == 38_485 + 4_455  # also LastFM (Table 8)
    # LlaVA-1.6: 31 measures, Table 6's orders, and Table 4's image on 2,530 + 107 + 432 multimodal questions
    assert got["LlaVA-1.6"] == 38_241 + 4_455 + 3_069 == 45_765
    assert sum(got.values()) == 719_144  # answers over the 18 models
    # without a series, one plain kshot run per measure
    assert E.prompts_per_model()["Llama-3"] == 80_392 - 4 * (text + mem_uu)


def test_prompts_per_experiment():
    per = E.prompts_per_experiment(KS)
    assert per["Llama-3"] == {"zero_shot": 38_485, "noisy": 16_170, "shuffle": 4_455, "cot": 3_547, "kshot": 5 * 3_547}
    assert per["LlaVA-1.6"] == {"zero_shot": 38_241, "shuffle": 4_455, "visual": 3_069}
    assert per["GPT-4"] == {"zero_shot": 305 + 454}
    assert {m: sum(v.values()) for m, v in per.items()} == E.prompts_per_model(KS)


def test_model_runs_on_one_dataset():
    runs = E.model_runs("Qwen2-72B", "netflix", KS)
    assert runs == {"text_logline": ["zero_shot", "cot", *(f"kshot{k}" for k in KS)],
                    "mem_user_user": ["zero_shot", "cot", *(f"kshot{k}" for k in KS)]}
    assert E.model_runs("GPT-4", "movielens") == {} and E.model_runs("nobody", "amazon") == {}


def test_printed_ablation_figures():
    assert E.printed_figure("amazon", "Llama-3", "kg_brand", "noisy") == ("23", 0.7252)
    assert E.printed_figure("netflix", "LlaVA-1.6", "multimodal", "visual") == ("4", 0.3125)
    assert E.printed_figure("movielens", "Qwen-2", "kg_director", "shuffle") == ("6", 0.6322)  # 63.22 / 100
    assert E.printed_figure("netflix", "Llama-3", "text_logline", "cot") is None  # Figure 5: an image
    assert E.printed_figure("amazon", "Falcon", "kg_brand", "noisy") is None  # not in Table 23
