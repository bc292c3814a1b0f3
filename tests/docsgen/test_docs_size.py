"""The docs stay readable: README at most 120 lines, the pages people write under docs/ at most
130 KB together, no page over 2,500 words (a page that needs more is two pages). What the code
writes is not counted: a page that opens with a `<!-- written by ... -->` header (the reference
pages of `lrworld reference`, the runs' docs/generated/ snippets) and a block between
`<!-- NAME:start (written by ...) -->` and `<!-- NAME:end -->` (`make docs`, the benchmarks), so
a new registry entry's reference row never pushes the docs over."""

import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
README_LINES, DOCS_BYTES, PAGE_WORDS = 120, 130_000, 2500
GENERATED_PAGE = "<!-- written by "
GENERATED_BLOCK = re.compile(r"<!-- (\w+):start \(written by [^\n]*?-->.*?<!-- \1:end -->", re.S)


def pages(root: Path = ROOT) -> list[Path]:
    return sorted(p for p in (root / "docs").rglob("*") if p.is_file() and p.suffix in (".md", ".rst"))


def written(path: Path) -> str:
    """The part of a page people write."""
    text = path.read_text(encoding="utf-8")
    return "" if text.startswith(GENERATED_PAGE) else GENERATED_BLOCK.sub("", text)


def size(path: Path) -> int:
    return len(written(path).encode("utf-8"))


def words(path: Path) -> int:
    return len(written(path).split())


def test_readme_is_at_most_120_lines():
    assert len((ROOT / "README.md").read_text(encoding="utf-8").splitlines()) <= README_LINES


def test_the_written_docs_are_at_most_130_kb_together():
    total = sum(size(p) for p in pages())
    biggest = sorted(pages(), key=lambda p: -size(p))[:5]
    assert total <= DOCS_BYTES, f"docs/ pages people write are {total:,} bytes; largest: " + ", ".join(
        f"{p.relative_to(ROOT)} {size(p):,}" for p in biggest)


def test_what_the_code_writes_is_not_counted(tmp_path):
    (tmp_path / "docs/reference").mkdir(parents=True)
    (tmp_path / "docs/reference/x.md").write_text("<!-- written by `lrworld reference` -->\n# Keys\n| a | b |\n")
    (tmp_path / "docs/page.md").write_text(
        "Intro.\n<!-- graph:start (written by `python -m lrworld.docsgen.blocks`; do not edit by hand) -->\n"
        "230 modules\n<!-- graph:end -->\nEnd `<!-- NAME:start ... -->` quoted.\n")
    assert [written(p) for p in pages(tmp_path)] == ["Intro.\n\nEnd `<!-- NAME:start ... -->` quoted.\n", ""]
    assert [words(p) for p in pages(tmp_path)] == [7, 0]


@pytest.mark.parametrize("page", pages(), ids=lambda p: p.relative_to(ROOT).as_posix())
def test_no_page_is_over_2500_words(page):
    assert words(page) <= PAGE_WORDS, f"{page.relative_to(ROOT)}: {words(page):,} words"
