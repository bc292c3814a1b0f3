"""The results table's heatmap and radar (lrworld/analysis/plots.py): the values drawn are the
table's, degenerate cells are marked, and a rebuild writes the same bytes."""

import numpy as np
import pandas as pd
import pytest

from lrworld.analysis import plots

VALUES = pd.DataFrame({"model": ["random", "smol"], "assoc_rule": [0.12, 0.08], "mem_item_item": [0.10, np.nan],
                       "attr_genre": [0.30, 0.24]})
DEGENERATE = pd.DataFrame({"model": ["random", "smol"], "assoc_rule": [False, False], "mem_item_item": [False, False],
                           "attr_genre": [False, True]})


@pytest.fixture
def drawn(monkeypatch):
    """The figures the functions draw, kept open before they are saved."""
    figs = []
    save = plots._done
    monkeypatch.setattr(plots, "_done", lambda fig, stem: figs.append(fig) or save(fig, stem))
    return figs


def test_heatmap_draws_the_values_with_marks(tmp_path, drawn):
    paths = plots.heatmap(VALUES, DEGENERATE, tmp_path / "heatmap", "ml")
    assert [p[-4:] for p in paths] == [".png", ".svg"]
    ax = drawn[0].axes[0]
    np.testing.assert_array_equal(ax.images[0].get_array().filled(np.nan), VALUES.iloc[:, 1:].to_numpy(float))
    assert ax.images[0].get_clim() == (0, 1)  # one scale for every table
    assert sorted(t.get_text() for t in ax.texts) == ["0.08", "0.10", "0.12", "0.24\u2020", "0.30"]  # no text for NaN
    assert [t.get_text() for t in ax.get_yticklabels()] == ["random", "smol"]


def test_radar_has_one_closed_polygon_per_model(tmp_path, drawn):
    labels = ["association rules", "memory item-item", "<movie, genre>"]
    plots.radar(VALUES, labels, tmp_path / "radar", "ml")
    ax = drawn[0].axes[0]
    assert ax.name == "polar" and [t.get_text() for t in ax.get_xticklabels()] == labels
    lines = ax.get_lines()
    assert [ln.get_label() for ln in lines] == ["random", "smol"]
    np.testing.assert_allclose(lines[1].get_ydata(), [0.08, 0.0, 0.24, 0.08])  # closed; a missing cell at 0
    np.testing.assert_allclose(lines[0].get_xdata()[:3], [0, 2 * np.pi / 3, 4 * np.pi / 3])


def test_radar_needs_three_axes_and_rebuilds_byte_identical(tmp_path, drawn):
    plots.radar(VALUES[["model", "assoc_rule", "attr_genre"]], ["a", "b"], tmp_path / "two", "ml")
    assert "3 or more measures (2 here)" in drawn[0].axes[0].texts[0].get_text()
    first = [open(p, "rb").read() for p in plots.heatmap(VALUES, DEGENERATE, tmp_path / "h1", "ml")]
    again = [open(p, "rb").read() for p in plots.heatmap(VALUES, DEGENERATE, tmp_path / "h1", "ml")]
    assert first == again
