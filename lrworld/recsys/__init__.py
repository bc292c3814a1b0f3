"""Traditional recommenders used as baselines by the benchmark tracks.

``lrworld.recsys.sequential``: GRU4Rec, Caser, SASRec, Popularity with one interface
(``make_model``, ``fit``, ``score``, ``pick``).
"""

from lrworld.recsys.sequential import MODELS, Caser, GRU4Rec, Popularity, SASRec, fit, make_model, pick, score

__all__ = ["MODELS", "Caser", "GRU4Rec", "Popularity", "SASRec", "fit", "make_model", "pick", "score"]
