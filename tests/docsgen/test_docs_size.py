"""The docs stay readable: README at most 120 lines, everything under docs/ at most 180 KB
together, no page over 2,500 words (a page that needs more is two pages)."""

from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
README_LINES, DOCS_BYTES, PAGE_WORDS = 120, 180_000, 2500


def pages() -> list[Path]:
    return sorted(p for p in (ROOT / "docs").rglob("*") if p.is_file() and p.suffix in (".md", ".rst"))


def words(path: Path) -> int:
    return len(path.read_text(encoding="utf-8").split())


def test_readme_is_at_most_120_lines():
    assert len((ROOT / "README.md").read_text(encoding="utf-8").splitlines()) <= README_LINES


def test_the_docs_are_at_most_180_kb_together():
    total = sum(p.stat().st_size for p in pages())
    biggest = sorted(pages(), key=lambda p: -p.stat().st_size)[:5]
    assert total <= DOCS_BYTES, f"docs/ is {total:,} bytes; largest: " + ", ".join(
        f"{p.relative_to(ROOT)} {p.stat().st_size:,}" for p in biggest)


@pytest.mark.parametrize("page", pages(), ids=lambda p: p.relative_to(ROOT).as_posix())
def test_no_page_is_over_2500_words(page):
    assert words(page) <= PAGE_WORDS, f"{page.relative_to(ROOT)}: {words(page):,} words"

