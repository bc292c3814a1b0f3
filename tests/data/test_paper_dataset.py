"""The paper's dataset of a configured dataset: its paper_table, else what its format declares
(`paper_dataset=`), else its domain."""

from lrworld.data.paper_dataset import paper_dataset


def test_a_format_that_declares_the_papers_dataset_wins_over_the_domain():
    assert paper_dataset({"domain": "movie", "format": "netflix-prize"}) == "netflix"
    assert paper_dataset({"domain": "movie", "format": "netflix"}) == "netflix"
    assert paper_dataset({"domain": "movie", "format": "ml-latest"}) == "movielens"
    assert paper_dataset({"domain": "movie", "format": "netflix", "paper_table": None}) is None
