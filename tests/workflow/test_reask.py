from types import SimpleNamespace

from lrworld.workflow.reask import from_workflow, re_asks


def test_which_invocations_re_ask():
    assert re_asks(["answer"]) and re_asks(["results/answers/lrworld/ml/random.json"])
    assert re_asks(["./results/answers/srbench/beauty/random.json"]) and re_asks([], forceall=True)
    assert not re_asks(["score", "table"]) and not re_asks(["results/scores/ml/random/a/zero_shot.json"])
    assert not re_asks()
    assert not from_workflow(SimpleNamespace(dag_settings=None))  # the Snakefile being read, a lint
    assert from_workflow(SimpleNamespace(dag_settings=SimpleNamespace(forcerun={"answer"}, forceall=False)))
