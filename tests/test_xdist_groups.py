"""`make test`'s queue on the xdist workers (tests/conftest.py): tests that share an expensive fixture
of tests/ (a session build, a module's model) form one unit, queued together (contiguous, so a
module fixture is set up once) and ranked by the slow tests they hold."""

from types import SimpleNamespace as NS

from tests.conftest import xdist_units


def fixture(scope, baseid="tests"):
    return [NS(scope=scope, baseid=baseid)]


class item:  # noqa: N801  (a stand-in for pytest.Item: hashable, as the grouping's dict keys need)
    def __init__(self, module, **fixtures):
        self.module, self._fixtureinfo = NS(__name__=module), NS(name2fixturedefs=fixtures)


def test_tests_sharing_a_fixture_share_a_unit_transitively_and_the_rest_stand_alone():
    build, model = fixture("session"), fixture("session", "tests/models")
    per_module = fixture("module", "tests/release/test_release_pipeline.py")
    a = item("tests.a", answer_upstream=build, shared_data=fixture("session"))
    b = item("tests.b", answer_upstream=build, smollm2_choice=model)  # links the build's unit to the model's
    c = item("tests.c", smollm2_choice=model, tmp_path=fixture("function"))
    d1, d2 = item("tests.d", packed=per_module), item("tests.d", packed=per_module, tmp_path=fixture("function"))
    e = item("tests.e", packed=per_module)  # the same definition in another module: another instance
    lone = item("tests.f", shared_data=fixture("session"), tmp_path_factory=fixture("session", ""))
    units = xdist_units([a, b, c, d1, d2, e, lone])
    assert units[a] == units[b] == units[c] is not None
    assert units[d1] == units[d2] is not None and len({units[a], units[d1], units[e]}) == 3
    assert units[lone] is None  # shared_data and pytest's own fixtures cost nothing to set up twice
