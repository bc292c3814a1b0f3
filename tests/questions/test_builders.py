"""A measure's question builder is one kind of thing: a "module:attr" reference to a function
(lrworld/questions/builders.py), called as the measure's source (windows or its artifact) says."""

import inspect

import pytest

from lrworld.questions import knowledge, measures
from lrworld.questions.builders import ARTIFACT, WINDOWS, builder, source

# the leading parameters each source's builder is called with (lrworld/questions/builders.py)
CALLED_WITH = {WINDOWS: ["measure", "dataset", "windows", "items", "seed"],
               ARTIFACT: ["interactions", None, "n_questions", "seed", "dataset"]}


@pytest.mark.parametrize("m", measures.MEASURES, ids=lambda m: m.id)
def test_every_measures_builder_resolves_to_a_function_taking_its_sources_arguments(m):
    fn = builder(m)
    params = list(inspect.signature(fn).parameters)
    want = CALLED_WITH[source(m)]
    assert [p if w is not None else None for p, w in zip(params, want)] == want, m.id
    extra = {"item_texts", "limit", "exclude"} if source(m) == WINDOWS else {"display"}
    assert extra <= set(params), m.id


def test_a_bad_reference_is_refused_naming_the_dataset_and_measure():
    m = measures.by_id("attr_genre")
    with pytest.raises(ValueError, match=r"^d/attr_genre: measure 'attr_genre': question builder 'nope': "
                                         r"'nope' is not a 'module:attr' reference"):
        knowledge.build(type(m)(**{**m.__dict__, "builder": "nope"}), "d", [], None, 0)
    with pytest.raises(ValueError, match=r"question builder 'lrworld.questions.knowledge:nothing': .*has no 'nothing'"):
        builder(type(m)(**{**m.__dict__, "builder": "lrworld.questions.knowledge:nothing"}))
