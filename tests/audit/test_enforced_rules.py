"""The audit applies the builders' own rules (lrworld/questions/enforced.py): a negative that is a
history film under another id, a distractor naming the gold in another word order, a wrong tie
flag and a prompt edited after its hash each fail with their named check."""

import pandas as pd

from lrworld.audit.report import audit_dataset, to_markdown
from tests.audit.test_rawest import FACTS, _items, _kg
from tests.support.fixtures_audit import INTER, ITEMS_X, one, prompts_for

# item 17 is history film 3 ("Film 3 (2000)") under another id
ITEMS_ALIAS = pd.concat([ITEMS_X, pd.DataFrame({"item_id": ["17"], "title": ["Film 3"], "year": [2000],
                                                "genres": [["Drama"]]})], ignore_index=True)


def _run(qs, items=ITEMS_X, prompts=None, facts=None, inter=INTER):
    questions = {m: (f"results/questions/d/{m}.jsonl", q) for m, q in qs.items()}
    prompts = prompts_for(questions) if prompts is None else prompts
    return audit_dataset("d", "movie", questions, prompts, {}, inter, items, {}, None, facts)


def test_the_base_passes_every_check():
    audit, v = _run(one())
    assert v == [] and "All 27 checks passed" in to_markdown(audit)


def test_a_negative_that_is_a_history_film_under_another_id():
    qs = one(text_logline=lambda q: q["candidates"].__setitem__(0, "17"))  # user u met item 3
    qs["text_logline"][0]["item_texts"]["17"] = "Logline of film 17."
    _, v = _run(qs, ITEMS_ALIAS)
    assert [x.line() for x in v] == [
        "results/questions/d/text_logline.jsonl: d/text_logline/uu: negative_in_history: the negative item 17 is "
        "the same work as item 3 of user u's history"]
    # the same film under an id of its own passes
    _, v = _run(one(text_logline=lambda q: q["candidates"].__setitem__(0, "10")), ITEMS_ALIAS)
    assert v == []


def test_a_distractor_naming_the_gold_in_another_word_order():
    items = _items(["Ridley Scott"])
    _, v = _run({"kg_director": _kg(negatives=("Scott, Ridley", "Jane Campion", "John Woo"))}, items, prompts=[],
                facts=FACTS)
    assert sorted(x.check for x in v) == ["distractor_true_of_positive", "distractor_witnessed_of_positive"]
    assert "the distractor 'Scott, Ridley' is a value of item 6" in v[0].line() + v[1].line()


def test_a_tie_flag_the_interactions_contradict():
    def flag(value):
        return lambda q: q.update(tied_positive=value)
    # u met 5 at time 4 and 6 at time 5: not tied
    assert _run(one(text_logline=flag(False)))[1] == []
    _, v = _run(one(text_logline=flag(True)))
    assert [x.check for x in v] == ["tie_flag_wrong"]
    tied = INTER.copy()
    tied.loc[(tied.user_id == "u") & (tied.item_id == "6"), "timestamp"] = 4
    assert _run(one(text_logline=flag(True)), inter=tied)[1] == []


def test_a_prompt_edited_after_its_hash():
    qs = one()
    prompts = prompts_for({m: (f"results/questions/d/{m}.jsonl", q) for m, q in qs.items()})
    p = prompts[0][2][0]
    p["prompt"] = p["prompt"].replace("Answer:", "Answer (think of the director):")
    _, v = _run(qs, prompts=prompts)
    assert [(x.file, x.check) for x in v] == [(prompts[0][0], "prompt_sha256_stale")]
