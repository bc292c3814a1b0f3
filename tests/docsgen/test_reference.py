"""The reference pages are what the code writes now: a registry entry, config key or command
added without regenerating them (`make docs`) fails here."""

from pathlib import Path

from lrworld import cli
from lrworld.docsgen import reference

ROOT = Path(__file__).resolve().parents[2]


def test_committed_reference_pages_are_current():
    pages = reference.pages(cli._parser())
    committed = {p.name: p.read_text(encoding="utf-8") for p in (ROOT / "docs" / "reference").glob("*.md")}
    stale = sorted(name for name, text in pages.items() if committed.get(name) != text)
    assert not stale, f"docs/reference/{stale[0]} is stale: run `make docs`"
    assert set(committed) == set(pages), "docs/reference holds a page the code does not write"


def test_config_page_lists_every_schema_key_with_its_default_and_comment():
    page = reference.config_page()
    assert "| `seed` | integer | `2024` | numpy seeds are >= 0" in page
    assert "| `questions.ties` | \"numeric\" \\| \"string\" \\| \"drop\" | `\"numeric\"` | items that share" in page
    # a dataset entry's own keys, under a placeholder name
    assert "| `datasets.<name>.domain` |" in page


def test_cli_page_lists_every_subcommand_and_option():
    page = reference.cli_page(cli._parser())
    for command in ("explain", "verify", "pack", "cache list", "cache purge", "status", "plan", "reference"):
        assert f"## `lrworld {command}`" in page
    assert "| `--configfile` |" in page


def test_the_pages_do_not_depend_on_what_the_process_imported_before():
    # a track registers its own answer backend when imported (the LLaRA track's, by the plan or a
    # test in the same process); the backends page lists what a `models` entry may name, always
    import lrworld.tracks.llara.hybrid.backend  # noqa: F401

    page = reference.backends_page()
    assert page == (ROOT / "docs" / "reference" / "backends.md").read_text(encoding="utf-8")
    assert "llara_hybrid" not in page and "| `shortcut` |" in page
