from lrworld.tracks.srbench.extract import extract, hallucination_rate, read_numbers

UNIVERSE = {1: "1", 50: "50", 242: "242", 300: "300"}


def test_list_markers_are_not_ids():
    assert read_numbers("1. 242\n2) 50\n(3) 300\n#4 1\n- 50\n* 242") == [242, 50, 300, 1, 50, 242]


def test_extract_drops_hallucinations_and_duplicates_and_truncates():
    e = extract("1. 242\n2. 50\n3. 9999\n4. 242\n5. 300\n6. 1", UNIVERSE, k=3)
    assert e.items == ["242", "50", "300"]
    assert e.hallucinated == [9999]
    assert e.n_duplicates == 1
    assert e.numbers == [242, 50, 9999, 242, 300, 1]
    assert e.hallucination_rate == 1 / 6


def test_free_text_numbers_in_order():
    assert extract("I recommend 50, 300 and 1.", UNIVERSE, 10).items == ["50", "300", "1"]
    assert extract("rated 4.5, so 50", UNIVERSE, 10).items == ["50"]
    # a year inside a title is read, and is a hallucination for ML-100K (ids stop at 1682)
    e = extract("242: Kolya (1996)", UNIVERSE, 10)
    assert e.items == ["242"] and e.hallucinated == [1996]


def test_no_numbers():
    e = extract("I cannot recommend anything.", UNIVERSE, 5)
    assert e.items == [] and e.hallucination_rate == 0.0


def test_hallucination_rate_is_micro_averaged():
    exs = [extract("1 2 3", UNIVERSE, 5), extract("50 300", UNIVERSE, 5), extract("none", UNIVERSE, 5)]
    h = hallucination_rate(exs)
    assert h["n_numbers"] == 5 and h["n_hallucinated"] == 2
    assert h["hallucination_rate"] == 2 / 5
    assert h["no_valid_id_rate"] == 1 / 3


def test_digits_inside_tokens_are_not_ids():
    assert read_numbers("B007IY97U0 and the 2nd one, id_7; ID 50") == [50]
    assert read_numbers("50,300;1") == [50, 300, 1]
