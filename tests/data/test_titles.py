"""One title form: MovieLens' trailing articles moved to the front, once, at ingest."""

import re

import pytest

from lrworld.data.ingest import ingest
from lrworld.data.titles import display_title
from lrworld.tracks.llara.data import load_ml100k_titles

# an article left at the end of the title or of an alternate title in parentheses
TRAILING = re.compile(r", (The|A|An|La|Le|Les|L'|Il|Der|Die|Das|Det|O)(\s*\(|\)|$)")


@pytest.mark.parametrize("raw,expected", [
    ("Matrix, The", "The Matrix"),
    ("Clockwork Orange, A", "A Clockwork Orange"),
    ("Affair to Remember, An", "An Affair to Remember"),
    ("Postino, Il", "Il Postino"),
    ("Enfants du paradis, Les", "Les Enfants du paradis"),
    ("Haine, La", "La Haine"),
    ("Enfer, L'", "L'Enfer"),
    ("Boot, Das", "Das Boot"),
    # inside the alternate titles, as MovieLens writes them
    ("Star Maker, The (Uomo delle stelle, L')", "The Star Maker (L'Uomo delle stelle)"),
    ("Double vie de Véronique, La (Double Life of Veronique, The)",
     "La Double vie de Véronique (The Double Life of Veronique)"),
    ("Maybe, Maybe Not (Bewegte Mann, Der)", "Maybe, Maybe Not (Der Bewegte Mann)"),
    ("Matrix, The (1999)", "The Matrix (1999)"),
    ("Good, The Bad and The Ugly, The", "The Good, The Bad and The Ugly"),
    # not the form: unchanged
    ("Toy Story", "Toy Story"),
    ("The Matrix", "The Matrix"),
    ("Die xue shuang xiong (Killer, The)", "Die xue shuang xiong (The Killer)"),
    ("Crossing Guard, Love", "Crossing Guard, Love"),
])
def test_display_title(raw, expected):
    assert display_title(raw) == expected


def test_real_ml100k_titles_are_rewritten_once_at_ingest(shared_data):
    inter, items, _, report = ingest("ml", {"format": "ml-100k", "merge_same_work": False},
                                     shared_data / "movielens-100k/raw", {})
    by_id = items.set_index("item_id")
    assert report["display_titles"]["rewritten"] == 389 and report["display_titles"]["titles"] == 1682
    assert (by_id.loc["12", "title"], by_id.loc["12", "original_title"]) == ("The Usual Suspects", "Usual Suspects, The")
    assert by_id.loc["1", "title"] == by_id.loc["1", "original_title"] == "Toy Story"
    assert not [t for t in items["title"] if TRAILING.search(t)]
    # 342 of the file's titles end in ", The" / ", A" / ", An" before the year
    assert sum(bool(re.search(r", (The|A|An)$", t)) for t in items["original_title"]) == 342


def test_switch_off_keeps_the_file_form(shared_data):
    _, items, _, report = ingest("ml", {"format": "recbole-atomic", "prefix": "ml-100k", "display_titles": False},
                                 shared_data / "movielens-100k/recbole-atomic", {})
    assert "display_titles" not in report and "original_title" not in items.columns
    assert items.set_index("item_id").loc["12", "title"] == "Usual Suspects, The"


def test_every_track_shows_the_same_title(shared_data):
    """The LLaRA track's MovieLens titles (its own u.item reader) equal the ingested ones without year."""
    raw = shared_data / "movielens-100k/raw"
    # every id of the file (the LLaRA track keeps ML-100K's ids as published)
    _, items, _, _ = ingest("ml", {"format": "ml-100k", "merge_same_work": False}, raw, {})
    llara = load_ml100k_titles(raw / "u.item")
    ingested = dict(zip(items["item_id"].astype(int) - 1, items["title"]))
    differ = {i: (t, ingested[i]) for i, t in llara.items() if t != ingested[i]}
    assert differ == {266: ("", "unknown")}  # ML-100K's placeholder for a missing title, never a candidate
    assert llara[11] == "The Usual Suspects" and llara[0] == "Toy Story"


def test_imdb_join_is_unaffected(shared_data):
    raw, details = shared_data / "movielens-100k/raw", {"imdb_details": shared_data /
                                                        "movielens-100k/imdb-details/movielens100k_details.json"}
    on = ingest("ml", {"format": "ml-100k"}, raw, details)[3]["joins"]["imdb_details"]
    off = ingest("ml", {"format": "ml-100k", "display_titles": False}, raw, details)[3]["joins"]["imdb_details"]
    assert on == off and on["aligned"] == 1450
