"""The traditional model saved by llara_baseline gives hybrid prompts the same item embeddings."""

import pytest
import torch

from lrworld.recsys.checkpoint import load_rec_model, save_rec_model
from lrworld.recsys.sequential import Popularity, make_model
from lrworld.tracks.llara.hybrid.tokens import item_table


@pytest.mark.parametrize("name", ["gru4rec", "caser", "sasrec"])
def test_round_trip_keeps_item_table(tmp_path, name):
    torch.manual_seed(0)
    m = make_model(name, 12, hidden=8)
    save_rec_model(tmp_path / "m.pt", m, name, 12, {"hidden": 8})
    back = load_rec_model(tmp_path / "m.pt")
    assert item_table(back).shape == (13, 8)
    assert torch.equal(item_table(back), item_table(m))
    save_rec_model(tmp_path / "again" / "m.pt", m, name, 12, {"hidden": 8})
    assert (tmp_path / "again" / "m.pt").read_bytes() == (tmp_path / "m.pt").read_bytes()  # bytes from contents only


def test_popularity_has_no_embeddings(tmp_path):
    save_rec_model(tmp_path / "p.pt", Popularity(5), "popularity", 5, {})
    with pytest.raises(ValueError, match="popularity has no item embeddings"):
        load_rec_model(tmp_path / "p.pt")
