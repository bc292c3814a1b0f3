"""Every audit check, each with a hand-made question or prompt file that violates it."""

import copy

import pytest

from lrworld.core.io import sha256_text
from lrworld.audit.report import audit_all, audit_dataset, to_markdown
from tests.support.fixtures_audit import INTER, ITEMS_X, TEMPLATE, base_questions, with_histories, prompts_for, one
from tests.support.names import unregistered_variant


def run(qs_by_measure, prompts=None):
    questions = {m: (f"results/questions/d/{m}.jsonl", qs) for m, qs in qs_by_measure.items()}
    prompts = prompts_for(questions) if prompts is None else prompts
    return audit_dataset("d", "movie", questions, prompts, {}, INTER, ITEMS_X, {})


def rehash(p):
    """A prompt edited as its renderer would have written it: the hash follows the text."""
    p["prompt_sha256"] = sha256_text(p["prompt"])


def checks_of(violations):
    return {v.check for v in violations}


def test_the_valid_base_passes():
    audit, violations = run(one())
    assert violations == [] and audit["passed"] and audit["checked"] == {"questions": 7, "prompts": 7}
    assert "All 27 checks passed" in to_markdown(audit)


def test_the_markdown_marks_short_measures_and_single_source_golds():
    questions = {m: (f"results/questions/d/{m}.jsonl", qs) for m, qs in one().items()}
    reports = {"mem_item_item": {"requested": 5, "short": {"reason": "1 of 5 questions: 9 targets tried"}},
               "attr_genre": {"requested": 1, "gold_sources": {
                   "questions": 1, "single_source": 1, "two_or_more": 0, "single_source_share": 1.0,
                   "sources": ["ml-100k"], "dropped": {}}}}
    audit, _ = audit_dataset("d", "movie", questions, prompts_for(questions), reports, INTER, ITEMS_X, {})
    md = to_markdown(audit)
    assert "| mem_item_item\u00a7 | " in md and "| attr_genre\u2021 | " in md
    assert "\u00a7 short measures (fewer questions than asked): mem_item_item: 1 of 5 questions: 9 targets tried." in md
    assert "attr_genre: 100% single-source (ml-100k)." in md
    assert "\u00a7" not in to_markdown(run(one())[0])


def test_answer_equal_to_a_negative_by_id():
    def edit(q):
        q["candidates"][4] = q["candidates"][q["answer_index"]]
    _, v = run(one(mem_item_item=edit))
    assert checks_of(v) >= {"answer_equals_negative"}
    line = next(x for x in v if x.check == "answer_equals_negative").line()
    assert line.startswith("results/questions/d/mem_item_item.jsonl: d/mem_item_item/1: answer_equals_negative: ")


def test_answer_equal_to_a_negative_by_display_text():
    qs = one()
    prompts = prompts_for({m: ("", q) for m, q in qs.items()})
    (p,) = next(ps for path, _, ps in prompts if "text_logline" in path)
    p["candidates"][0] = p["candidates"][1].upper() + "!"  # reads the same after normalisation
    p["prompt"] += "\n" + "\n".join(f"{lab}. {t}" for lab, t in zip(p["labels"], p["candidates"]))
    rehash(p)
    _, v = run(qs, prompts)
    assert [x.check for x in v] == ["answer_equals_negative"] and "text_logline" in v[0].file


@pytest.mark.parametrize("measure,edit", [
    ("text_logline", lambda q: q["candidates"].__setitem__(0, "2")),  # u watched 2
    ("neu_user2items", lambda q: q["candidates"].__setitem__(1, "8")),  # v watched 8
    ("neu_item2users", lambda q: q["candidates"].__setitem__(2, "u")),  # u watched item 6
    ("mem_user_user", lambda q: q["candidates"].__setitem__(1, "u")),  # the target user itself
    ("mem_item_item", lambda q: q["candidates"].__setitem__(1, "1")),  # the target item itself
    ("assoc_rule", lambda q: q["candidates"].__setitem__(1, "2")),  # an antecedent
])
def test_negative_from_the_history(measure, edit):
    _, v = run(one(**{measure: edit}))
    assert "negative_in_history" in checks_of(v), v
    assert all(x.file == f"results/questions/d/{measure}.jsonl" for x in v if x.check == "negative_in_history")


def test_positive_inside_the_shown_history():
    def edit(q):
        q["history"] = ["1", "2", "3", "4", "6"]
    _, v = run(one(text_logline=edit, attr_genre=edit))
    assert {x.file for x in v if x.check == "positive_in_shown_history"} == {
        "results/questions/d/text_logline.jsonl", "results/questions/d/attr_genre.jsonl"}


def test_distractor_true_of_the_positive():
    _, v = run(one(attr_genre=lambda q: q["candidates"].__setitem__(2, "war")))  # item 6 is Drama and War
    assert checks_of(v) == {"distractor_true_of_positive"}
    assert "'war' is a value of item 6" in v[0].line()


def test_answer_not_true_of_the_positive():
    _, v = run(one(attr_genre=lambda q: q.__setitem__("answer_index", 1)))  # Comedy
    assert "answer_not_true_of_positive" in checks_of(v)


def test_two_candidates_with_one_display_text():
    qs = one()
    prompts = prompts_for({m: ("", q) for m, q in qs.items()})
    (p,) = next(ps for path, _, ps in prompts if "mem_item_item" in path)
    p["candidates"][5] = p["candidates"][6]
    p["prompt"] = p["prompt"].replace("5: ", "5: " + p["candidates"][6] + "\n")
    rehash(p)
    _, v = run(qs, prompts)
    assert [x.check for x in v] == ["duplicate_display_text"]
    assert v[0].line().startswith("results/prompts/d/mem_item_item/zero_shot.jsonl: d/mem_item_item/1: ")


@pytest.mark.parametrize("break_it", [
    lambda p: p["candidates"].__setitem__(2, ""),  # no text
    lambda p: p["candidates"].__setitem__(2, "nan"),  # a missing value rendered as text
    lambda p: p.__setitem__("prompt", p["prompt"].replace("C. ", "")),  # the label is not shown
])
def test_candidate_label_or_text_missing_from_the_prompt(break_it):
    qs = one()
    prompts = prompts_for({m: ("", q) for m, q in qs.items()})
    (p,) = next(ps for path, _, ps in prompts if "attr_genre" in path)
    break_it(p)
    rehash(p)
    _, v = run(qs, prompts)
    assert [x.check for x in v] == ["candidate_missing_in_prompt"]


def test_prompt_that_disagrees_with_its_question():
    qs = one()
    prompts = prompts_for({m: ("", q) for m, q in qs.items()})
    (p,) = next(ps for path, _, ps in prompts if "attr_genre" in path)
    p["answer_index"] = 2
    _, v = run(qs, prompts)
    assert [x.check for x in v] == ["prompt_disagrees_with_question"]
    # a question without a prompt
    prompts = prompts_for({m: ("", q) for m, q in qs.items()})
    next(ps for path, _, ps in prompts if "attr_genre" in path).clear()
    _, v = run(qs, prompts)
    assert [(x.check, x.qid) for x in v] == [("prompt_disagrees_with_question", "d/attr_genre/uu")]


def _many(n, slot_of):
    base = with_histories(copy.deepcopy(base_questions()))["attr_genre"]
    out = []
    for k in range(n):
        q = copy.deepcopy(base)
        s = slot_of(k)
        q["qid"] = f"d/attr_genre/u{k}"
        q["candidates"] = ["Comedy", "Horror", "Western"][:s] + ["Drama"] + ["Comedy", "Horror", "Western"][s:]
        q["answer_index"] = s
        out.append(q)
    return out


def test_slot_uniformity_fails_from_200_questions_and_is_reported_below():
    audit, v = run({"attr_genre": _many(200, lambda k: 0 if k % 5 else 1)})
    assert [x.check for x in v] == ["slot_uniformity"] and v[0].qid == "(all questions)"
    assert audit["measures"]["attr_genre"]["slots"]["counts"] == [160, 40, 0, 0]
    audit, v = run({"attr_genre": _many(199, lambda k: 0)})
    assert v == [] and audit["measures"]["attr_genre"]["slots"]["verdict"] == "reported (n < 200)"
    audit, v = run({"attr_genre": _many(200, lambda k: k % 4)})
    assert v == [] and audit["measures"]["attr_genre"]["slots"]["verdict"] == "pass"


def test_equal_slot_sequences_of_two_measures():
    seq = [3, 1, 4, 1, 5, 9, 2, 6, 5, 3]

    def table_questions(measure, base):
        out = []
        for k, s in enumerate(seq):
            q = copy.deepcopy(base)
            q["qid"] = f"d/{measure}/{k}"
            ans = q["candidates"][q["answer_index"]]
            rest = [c for c in q["candidates"] if c != ans]
            q["candidates"] = rest[:s] + [ans] + rest[s:]
            q["answer_index"] = s
            out.append(q)
        return out

    base = with_histories(copy.deepcopy(base_questions()))
    qs = {"mem_item_item": table_questions("mem_item_item", base["mem_item_item"]),
          "assoc_rule": table_questions("assoc_rule", base["assoc_rule"])}
    audit, v = run(qs)
    assert [x.check for x in v] == ["equal_slot_sequences"] and audit["equal_slot_sequences"]["pairs_compared"] == 1
    # five questions are too few to tell a shared stream from chance (10^-5 > 10^-6)
    audit, v = run({m: q[:5] for m, q in qs.items()})
    assert v == [] and audit["equal_slot_sequences"]["pairs_too_short"] == 1


def test_equal_slot_sequences_across_datasets():
    qs = _many(12, lambda k: k % 4)
    other = [dict(q, qid=q["qid"].replace("d/", "e/"), dataset="e") for q in qs]
    audit, v = audit_all({"d": {"attr_genre": ("qd.jsonl", qs)}, "e": {"attr_genre": ("qe.jsonl", other)}})
    assert not audit["passed"] and v[0].check == "equal_slot_sequences" and v[0].file == "qe.jsonl"
    shifted = [dict(q, answer_index=(q["answer_index"] + 1) % 4) for q in other]
    audit, v = audit_all({"d": {"attr_genre": ("qd.jsonl", qs)}, "e": {"attr_genre": ("qe.jsonl", shifted)}})
    assert audit["passed"] and v == []


@pytest.fixture
def toy_variants():
    """Two variants that reverse the candidates, registered for one test: `flip` says it permutes
    (registry metadata), `flop` does not (each under a name no registered variant has)."""
    from lrworld.prompts import variants

    def reverse(q, ctx):
        return (*variants.permuted(q, list(range(len(q["candidates"])))[::-1]), "")

    flip, flop = unregistered_variant("flip"), unregistered_variant("flop")
    variants.register_variant(flip, permutes=True)(reverse)
    variants.register_variant(flop)(reverse)
    yield variants, flip, flop
    for name in (flip, flop):
        variants.VARIANT_KINDS._entries.pop(name)


def test_a_permuting_variant_of_any_name_moves_the_answer(toy_variants):
    from lrworld.audit.checks import prompt_checks
    from lrworld.prompts.render import ItemTexts, render

    variants, flip, flop = toy_variants
    (q,) = one()["attr_genre"]
    assert q["answer_index"] != len(q["candidates"]) - 1 - q["answer_index"]  # reversing moves it
    for variant, expected in [(flip, []), (flop, ["prompt_disagrees_with_question"])]:
        tq, meta, _ = variants.VARIANT_KINDS.get(variant).prepare(q, None)
        p = dict(render(TEMPLATE, tq, ItemTexts(ITEMS_X)), variant=variant, variant_meta=meta)
        assert p["answer_index"] == len(q["candidates"]) - 1 - q["answer_index"]
        assert [v.check for v in prompt_checks("results/prompts/d/attr_genre/x.jsonl", p, q)] == expected


@pytest.mark.parametrize("name, pattern, why", [
    ("n", None, "'n' is a reserved word"),
    ("reverse", None, "'reverse' is a reserved word"),  # Snakemake's own: the provenance rule's outputs
    ("cis", r"ci_\w+", "'ci_low' is a reserved word"),
    ("Flip", None, "lower-case letters"),
])
def test_a_variant_name_that_collides_with_a_reserved_word_is_refused(name, pattern, why):
    from lrworld.prompts.variants import VARIANT_KINDS, register_variant

    with pytest.raises(ValueError, match=why):
        register_variant(name, pattern)(lambda q, ctx: (q, {}, ""))
    assert name not in VARIANT_KINDS
