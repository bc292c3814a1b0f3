"""Traditional recommenders used as baselines by the benchmark tracks.

``lrworld.recsys.sequential``: GRU4Rec, Caser, SASRec, Popularity with one interface
(``make_model``, ``fit``, ``score``, ``pick``); ``lrworld.recsys.cf``: NCF, NGCF, LightGCN. Nothing
is imported here: the plan reads `lrworld.recsys.training` without loading torch.
"""
