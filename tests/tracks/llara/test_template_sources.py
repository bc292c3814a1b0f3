"""Every LLaRA template that claims to be LLaRA's (prompts.LLARA_SOURCES) is the line(s) it cites, as
LLaRA's load_prompt reads them, compared with a copy of LLaRA's files (fixtures/llara_9733f73/); a
template not registered there is lrworld's own wording and must be listed as such."""

from lrworld.tracks.llara.prompts import LLARA_SOURCES, RELEASED_TEMPLATES, TEMPLATE_DIR, load_instructions, template_path
from tests.tracks.llara.llara_source import FIXTURE, lines

OWN = {"generic"}  # lrworld's wording for sets built from interactions tables


def test_each_llara_template_is_the_line_it_cites():
    for name, (relpath, cited) in LLARA_SOURCES.items():
        theirs = lines(relpath)
        assert load_instructions(name) == [theirs[k - 1] for k in cited], name


def test_released_prompt_files_are_llaras_files_byte_for_byte():
    for kind, name in RELEASED_TEMPLATES.items():
        relpath, cited = LLARA_SOURCES[name]
        assert template_path(name).read_bytes() == (FIXTURE / relpath).read_bytes(), kind
        assert len(cited) == len(lines(relpath)) == 3


def test_every_template_is_llaras_or_declared_ours():
    names = {str(p.relative_to(TEMPLATE_DIR).with_suffix("")) for p in TEMPLATE_DIR.rglob("*.txt")}
    assert names == set(LLARA_SOURCES) | OWN


def test_the_movielens_line_says_10_as_llaras_does():
    # LLaRA trains and tests with 20 candidates (--cans_num 20) on a line that says 10
    assert "Choose the answer from the following 10 movie titles: [CansHere]. Answer:" in load_instructions("movielens")[0]
