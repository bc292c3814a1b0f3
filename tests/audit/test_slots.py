"""The audit's slot test: Pearson's chi-square against uniform slots, as scipy.stats computes it."""

import math

from scipy.stats import chisquare

from lrworld.audit import slots


def test_uniformity_is_scipys_chisquare_and_its_verdicts():
    for counts in ([160, 40, 0, 0], [50, 50, 50, 50], [3, 1, 0, 2, 4, 0, 1, 1, 2, 6], [70, 40, 45, 45]):
        drawn = [s for s, c in enumerate(counts) for _ in range(c)]
        got = slots.uniformity(drawn, len(counts))
        ref = chisquare(counts)
        assert got["counts"] == counts
        assert math.isclose(got["chi2"], ref.statistic, rel_tol=1e-12)
        assert math.isclose(got["p"], ref.pvalue, rel_tol=1e-9, abs_tol=1e-300), counts
    # 160/40/0/0: chi2 = (110^2 + 10^2 + 2 * 50^2) / 50 = 344, p far below ALPHA with n = 200
    assert slots.uniformity([0] * 160 + [1] * 40, 4)["chi2"] == 344.0
    assert slots.uniformity([0] * 160 + [1] * 40, 4)["verdict"] == "fail"
    assert slots.uniformity([0, 1, 2, 3] * 50, 4) | {"counts": None} == {
        "n": 200, "n_slots": 4, "counts": None, "chi2": 0.0, "p": 1.0, "verdict": "pass"}
    assert slots.uniformity([], 4)["verdict"] == "empty"
