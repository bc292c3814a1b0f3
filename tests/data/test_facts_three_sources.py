"""A name is a gold only when every source covering the film gives it: with three sources, two
agreeing are not enough."""

import pandas as pd

from lrworld.data.facts import Facts, reconcile


def _three_sources():
    items = pd.DataFrame({"item_id": ["1", "2"], "title": ["Film 1", "Film 2"], "year": [2000, 2001]})
    facts = Facts()
    facts.record("a", pd.DataFrame({"item_id": ["1", "2"], "director": [["Ridley Scott", "Ken Loach"], ["Tony Scott"]]}),
                 ["director"])
    facts.record("b", pd.DataFrame({"item_id": ["1", "2"], "director": [["Ridley Scott", "Ken Loach"], ["Tony Scott"]]}),
                 ["director"])
    facts.record("c", pd.DataFrame({"item_id": ["1", "2"], "director": [["Ridley Scott"], ["Jane Campion"]]}),
                 ["director"])
    return items, facts


def test_a_name_two_of_three_sources_give_is_not_agreed():
    out, table, _ = reconcile(*_three_sources(), require_agreement=True)
    by = out.set_index("item_id")
    # film 1: all three give Ridley Scott; Ken Loach is a and b's only, so not a gold
    assert list(by.loc["1", "director"]) == ["Ridley Scott"] and by.loc["1", "director_witnesses"] == 3
    assert list(by.loc["1", "director_other"]) == ["Ken Loach"]
    status = table[table.item_id == "1"].set_index("value")["status"].to_dict()
    assert status == {"Ridley Scott": "agreed", "Ken Loach": "not_agreed"}
    # film 2: a and b say Tony Scott, c says Jane Campion: no name every source gives, dropped
    assert list(by.loc["2", "director"]) == []
    assert by.loc["2", "director_dropped"] == "sources_disagree: a: Tony Scott; b: Tony Scott; c: Jane Campion"
