"""Ground truth for the five HitRate@1 factors of LRWorld (docs/groundtruth.md).

Artifacts (one Snakemake rule each, rules/groundtruth.smk):
  rules.mine_rules(interactions, min_support, min_confidence, max_len, window, algorithm) -> (rules, stats)
  similarity.similar_pairs(interactions, kind, n_targets, threshold, seed, ..., dataset=, display=, debias=)
                                                                                        -> (pairs, stats)
  neumf.train_neumf(interactions, epochs, factors, layers, lr, batch_size, num_neg, seed, device, ...)
      -> dict (state_dict, ids, log, hr10); neumf.train_neumf_seeds(interactions, seeds, seed, dataset=, ...)
      -> {"seeds": [dict, ...]}; neumf.embeddings_frame(result) -> embeddings (a `seed` column per training)
  prototypes.all_prototypes(embeddings, interactions, n_targets, k, seed, n_positives, dataset=, display=, margin=,
                            min_interactions=, debias=)                                 -> (table, stats)
  (debias: questions.distractors and max_gold_share, lrworld.questions.distractors; min_interactions:
  groundtruth.neural.min_interactions, eligibility.py)
Questions (spine record shape, qtype "hit10"):
  questions.py holds their builders, which a measure names as "module:attr" (lrworld.questions.builders):
  builder(measure)(interactions, artifact_df, n_questions, seed, dataset, display=[, debias=]) -> (list[dict], report)
Config: config["groundtruth"], defaults in the config schema; artifacts.ARTIFACTS names the files.
"""
