from lrworld.tracks.srbench import prompts

ITEMS = {str(i): {"index": i, "title": f"Movie {i} (199{i % 10})", "genres": ["Drama"] if i % 2 else []} for i in range(1, 11)}
HIST = [str(i) for i in range(1, 11)]


def test_templates_are_files():
    assert (prompts.TEMPLATE_DIR / "sequential.txt").exists() and (prompts.TEMPLATE_DIR / "role.txt").exists()


def test_few_shot_keeps_latest_five_in_order():
    p = prompts.render(HIST, ITEMS, k=10, dataset="ml-100k", mode="few_shot")
    assert "You are an expert recommender system" in p  # role instruction
    lines = [l for l in p.splitlines() if l[:1].isdigit()]
    assert lines == ["6: Movie 6 (1996)", "7: Movie 7 (1997) [Drama]", "8: Movie 8 (1998)",
                     "9: Movie 9 (1999) [Drama]", "10: Movie 10 (1990)"]
    assert "Answer with exactly 10 movie IDs" in p and "categories in brackets" in p


def test_full_mode_and_cap():
    assert "1: Movie 1" in prompts.render(HIST, ITEMS, 5, "ml-100k", "full")
    capped = prompts.render(HIST, ITEMS, 5, "ml-100k", "full", max_history=3)
    assert "7: Movie 7" not in capped and "8: Movie 8" in capped


def test_runs_differ_only_in_qid():
    a = prompts.prompt_items("ml-100k", ["u1"], {"u1": HIST}, ITEMS, 10, run=0)
    b = prompts.prompt_items("ml-100k", ["u1"], {"u1": HIST}, ITEMS, 10, run=1)
    assert a[0].prompt == b[0].prompt and a[0].qid != b[0].qid
    assert a[0].qid.endswith("run0") and a[0].labels == ()


def test_domain_words():
    assert "Recommend the 5 businesses" in prompts.render(HIST, ITEMS, 5, "yelp")


def test_items_without_title_show_index_only():
    items = {"B007IY97U0": {"index": 12, "title": "B007IY97U0", "genres": []}}
    p = prompts.render(["B007IY97U0"], items, 5, "beauty")
    assert "\n12\n" in p and "B007" not in p and "then its title" not in p
