"""One registry of question builders (lrworld/questions/builders.py): every measure's builder is in
it, of the kind its measure needs, and a builder asked for as the other kind is refused."""

import pytest

from lrworld.groundtruth import questions as _registers_ground_truth  # noqa: F401
from lrworld.questions import knowledge, measures
from lrworld.questions.builders import ARTIFACT, BUILDERS, WINDOWS, builder


def test_every_measure_names_a_registered_builder_of_its_kind():
    for m in measures.MEASURES:
        assert BUILDERS.get(m.builder).source == (ARTIFACT if m.artifact else WINDOWS), m.id
    assert BUILDERS.names() == ["assoc_rule", "field_values", "item_text", "item_title", "mem_item_item",
                                "mem_user_user", "neu_item2users", "neu_user2items"]
    assert BUILDERS.get("assoc_rule").build.__name__ == "build_assoc_rule_questions"


def test_a_builder_of_the_other_kind_is_refused():
    with pytest.raises(ValueError, match="question builder 'assoc_rule' builds from artifact, not from windows"):
        builder("assoc_rule", WINDOWS)
    m = measures.by_id("attr_genre")
    with pytest.raises(ValueError, match=r"^d/attr_genre: unknown question builder 'nope'"):
        knowledge.build(type(m)(**{**m.__dict__, "builder": "nope"}), "d", [], None, 0)
