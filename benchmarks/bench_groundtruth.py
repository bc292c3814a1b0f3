"""Benchmark the ground truth of the five hit10 factors on synthetic power-law data.

    python benchmarks/bench_groundtruth.py --scale 0.01          # ~250k interactions, quick
    python benchmarks/bench_groundtruth.py --scale 1             # 25M interactions, 162k x 62k

Part 1 (baselines, at --baseline-scale, a size where the dense baselines still run):
  rule mining: ours (mlxtend hmine on a sparse frame of frequent items) vs mlxtend apriori on
  the same sparse frame vs plain mlxtend apriori on a dense one-hot frame of every item; the three
  rule sets are checked equal. Similarity: ours (sparse, sampled targets) vs sklearn
  cosine_similarity on the dense matrix (n x n); answers checked equal.
Part 2 (--scale): the whole ground truth of all five factors, time per stage and peak RSS.
--write-docs: the ratios, then the whole run's figures, into docs/results.md's bench_groundtruth
block, stamped with the date, the machine's load and this command (benchmarks/docs_block.py).
"""

from __future__ import annotations

import argparse
import gc
import resource
import sys
import time
from pathlib import Path

import numpy as np
import pandas as pd

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from benchmarks import docs_block  # noqa: E402

DOCS = Path(__file__).resolve().parents[1] / "docs" / "results.md"

FULL = {"users": 162_000, "items": 62_000, "interactions": 25_000_000}


def peak_rss_gib() -> float:
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 2**20  # Linux: KiB


def synthetic(scale: float, seed: int = 0, alpha_items: float = 1.0, alpha_users: float = 1.2) -> pd.DataFrame:
    """Power-law interactions in contract order: item popularity ~ 1/(rank+1)^alpha_items, user
    activity Pareto-like (>= 5 each). Ids are zero-padded strings, so id order = code order."""
    rng = np.random.default_rng(seed)
    n_u = max(50, int(FULL["users"] * scale))
    n_i = max(50, int(FULL["items"] * scale))
    n = int(FULL["interactions"] * scale)
    act = 1.0 / (np.arange(n_u) + 1.0) ** (1.0 / alpha_users)
    counts = np.maximum(5, np.floor(act / act.sum() * n)).astype(np.int64)
    counts = rng.permutation(counts)
    # trim / pad to exactly n
    counts = np.minimum(counts, n_i // 2)
    extra = n - counts.sum()
    if extra > 0:
        counts += np.bincount(rng.integers(0, n_u, extra), minlength=n_u)
    counts = np.minimum(counts, n_i // 2)
    p = 1.0 / (np.arange(n_i) + 1.0) ** alpha_items
    p /= p.sum()
    perm_items = rng.permutation(n_i)  # popularity rank independent of id
    items = perm_items[rng.choice(n_i, size=int(counts.sum()), p=p)]
    users = np.repeat(np.arange(n_u), counts)
    ts = np.arange(len(users), dtype=np.int64)  # strictly increasing within a user
    uw, iw = len(str(n_u)), len(str(n_i))
    uid = pd.array([f"u{k:0{uw}d}" for k in range(n_u)], dtype="str")
    iid = pd.array([f"i{k:0{iw}d}" for k in range(n_i)], dtype="str")
    return pd.DataFrame({"user_id": uid.take(users), "item_id": iid.take(items),
                         "rating": np.full(len(users), np.nan), "timestamp": ts})


def cpu_seconds() -> float:
    """User + system CPU seconds of this process (all threads). On a shared machine wall time
    depends on the neighbours; CPU time / cores used estimates an uncontended run."""
    ru = resource.getrusage(resource.RUSAGE_SELF)
    return ru.ru_utime + ru.ru_stime


class Timer:
    def __init__(self):
        self.rows = []

    def __call__(self, name, fn, *a, **kw):
        gc.collect()
        t0, c0 = time.perf_counter(), cpu_seconds()
        out = fn(*a, **kw)
        dt, dc = time.perf_counter() - t0, cpu_seconds() - c0
        self.rows.append((name, dt, peak_rss_gib()))
        print(f"  {name:<44s} {dt:9.2f} s wall {dc:9.2f} s CPU   peak RSS {peak_rss_gib():6.2f} GiB", flush=True)
        return out


def rule_baselines(scale, args):
    from mlxtend.frequent_patterns import apriori, association_rules

    from lrworld.groundtruth.rules import canonical_rules, mine_rules
    from lrworld.groundtruth.transactions import transaction_matrix

    inter = synthetic(scale, seed=1)
    print(f"\n== rule-mining baselines at scale {scale}: {len(inter):,} interactions, "
          f"{inter.user_id.nunique():,} users, {inter.item_id.nunique():,} items")
    T = Timer()
    kw = dict(min_support=args.min_support, min_confidence=args.min_confidence, max_len=args.max_len,
              window=args.window)
    ours, st = T("rules: hmine, sparse frame (ours)", mine_rules, inter, algorithm="hmine", **kw)
    fp_sparse, _ = T("rules: fpgrowth, sparse frame", mine_rules, inter, algorithm="fpgrowth", **kw)
    ap_sparse, _ = T("rules: apriori, sparse frame", mine_rules, inter, algorithm="apriori", **kw)

    def dense_apriori():
        X, ids, _ = transaction_matrix(inter, args.window)
        dense = pd.DataFrame(X.toarray(), columns=[str(i) for i in ids])
        fi = apriori(dense, min_support=args.min_support, use_colnames=True, max_len=args.max_len)
        return canonical_rules(association_rules(fi, num_itemsets=len(dense), metric="confidence",
                                                 min_threshold=args.min_confidence))

    ref = T("rules: plain mlxtend apriori, dense one-hot", dense_apriori)
    same = (ours.drop(columns=["support", "confidence", "lift"]).equals(ref.drop(columns=["support", "confidence", "lift"]))
            and np.allclose(ours[["support", "confidence", "lift"]], ref[["support", "confidence", "lift"]])
            and ours[["antecedents", "consequents"]].equals(ap_sparse[["antecedents", "consequents"]])
            and ours[["antecedents", "consequents"]].equals(fp_sparse[["antecedents", "consequents"]]))
    print(f"  rules: {st['n_transactions']:,} transactions, {len(ours):,} rules; identical to dense apriori: {same}")
    r = {n: t for n, t, _ in T.rows}
    o = r["rules: hmine, sparse frame (ours)"]
    print(f"  RATIO vs ours (hmine-sparse): dense-apriori {r['rules: plain mlxtend apriori, dense one-hot'] / o:.1f}x, "
          f"apriori-sparse {r['rules: apriori, sparse frame'] / o:.1f}x, fpgrowth-sparse {r['rules: fpgrowth, sparse frame'] / o:.1f}x")
    size = f"{scale} ({len(inter):,} interactions)"
    return [(f"rule mining: {name} / ours (mlxtend hmine, sparse frame); rule sets equal: {same}", size,
             r[row] / o, o) for name, row in (("plain mlxtend apriori, dense one-hot", "rules: plain mlxtend apriori, dense one-hot"),
                                              ("apriori, sparse frame", "rules: apriori, sparse frame"),
                                              ("fpgrowth, sparse frame", "rules: fpgrowth, sparse frame"))]



def similarity_baselines(scale, args):
    from sklearn.metrics.pairwise import cosine_similarity

    from lrworld.groundtruth.similarity import similar_pairs
    from lrworld.groundtruth.transactions import binary_matrix, index_interactions

    inter = synthetic(scale, seed=1)
    print(f"\n== similarity baselines at scale {scale}: {len(inter):,} interactions, "
          f"{inter.user_id.nunique():,} users, {inter.item_id.nunique():,} items")
    T = Timer()
    idx = index_interactions(inter)
    B = binary_matrix(idx)
    out = []
    for kind in ("item", "user"):
        pairs, _ = T(f"similarity {kind}: sparse, {args.n_questions} targets (ours)", similar_pairs, inter, kind,
                     args.n_questions, threshold=args.threshold, seed=0, dataset="syn")
        M = (B.T if kind == "item" else B).toarray()
        S = T(f"similarity {kind}: sklearn cosine_similarity dense", cosine_similarity, M)
        ids = idx.item_ids if kind == "item" else idx.user_ids
        pos = {x: i for i, x in enumerate(ids)}
        ok = all(int(np.argmax(S[pos[t], [pos[c] for c in g.candidate]])) == 0 for t, g in pairs.groupby("target", sort=False))
        a, b = T.rows[-2][1], T.rows[-1][1]
        del S
        print(f"  RATIO dense-cosine / sparse ({kind}) = {b / a:.1f}x  (dense matrix {M.shape[0]}x{M.shape[0]}, "
              f"{M.shape[0] ** 2 * 8 / 2**20:.0f} MiB); answers = dense argmax: {ok}")
        out.append((f"{kind} cosine: sklearn dense {M.shape[0]:,}x{M.shape[0]:,} / ours (sparse, "
                     f"{args.n_questions} targets); answers equal: {ok}", f"{scale} ({len(inter):,} interactions)", b / a, a))
        del M
    return out


def full(scale, args):
    import torch

    from lrworld.groundtruth import questions as Q
    from lrworld.groundtruth.neumf import embeddings_frame, train_neumf
    from lrworld.groundtruth.prototypes import all_prototypes
    from lrworld.groundtruth.rules import mine_rules
    from lrworld.groundtruth.similarity import similar_pairs

    torch.set_num_threads(args.threads)
    T = Timer()
    t_all = time.perf_counter()
    inter = T("generate synthetic data", synthetic, scale, 0)
    print(f"\n== all five factors at scale {scale}: {len(inter):,} interactions, "
          f"{inter.user_id.nunique():,} users, {inter.item_id.nunique():,} items, {args.threads} torch threads")
    t_gt = time.perf_counter()
    rules, st = T("assoc_rule: mine rules (hmine sparse)", mine_rules, inter, args.min_support,
                  args.min_confidence, args.max_len, args.window)
    print(f"    {st}")
    ip, ist = T("mem_item_item: similar pairs", similar_pairs, inter, "item", args.n_questions, args.threshold, 0,
                 dataset="syn")
    up, ust = T("mem_user_user: similar pairs", similar_pairs, inter, "user", args.n_questions, args.threshold, 0,
                 dataset="syn")
    print(f"    {ist}\n    {ust}")
    res = T("neumf: train", train_neumf, inter, epochs=args.epochs, batch_size=args.batch_size, lr=args.lr,
            num_neg=args.num_neg, seed=0, device=args.device, eval_users=args.eval_users)
    emb = embeddings_frame(res)
    proto, pst = T("neu_*: k-means prototypes", all_prototypes, emb, inter, args.n_questions, k=10, seed=0,
                    threads=args.threads, dataset="syn")
    pairs = pd.concat([ip, up], ignore_index=True)
    qs = {}
    qs["assoc_rule"] = T("questions assoc_rule", Q.build_assoc_rule_questions, inter, rules, args.n_questions, 0, "syn")
    qs["mem_item_item"] = T("questions mem_item_item", Q.build_mem_item_item_questions, inter, pairs, args.n_questions, 0, "syn")
    qs["mem_user_user"] = T("questions mem_user_user", Q.build_mem_user_user_questions, inter, pairs, args.n_questions, 0, "syn")
    qs["neu_item2users"] = T("questions neu_item2users", Q.build_neu_item2users_questions, inter, proto, args.n_questions, 0, "syn")
    qs["neu_user2items"] = T("questions neu_user2items", Q.build_neu_user2items_questions, inter, proto, args.n_questions, 0, "syn")
    gt = time.perf_counter() - t_gt
    print(f"  questions per measure: { {m: len(v[0]) for m, v in qs.items()} }; NeuMF held-out HR@10 {res['hr10']:.3f}")
    print(f"  TOTAL ground truth (excluding data generation): {gt:.1f} s wall; whole run {time.perf_counter() - t_all:.1f} s "
          f"wall, {cpu_seconds():.1f} s CPU; peak RSS {peak_rss_gib():.2f} GiB")
    head = (f"All five factors at scale {scale} ({len(inter):,} interactions, {inter.user_id.nunique():,} users, "
            f"{inter.item_id.nunique():,} items, {args.threads} torch threads, NeuMF {args.epochs} epoch(s), held-out "
            f"HR@10 {res['hr10']:.3f}): {gt:.1f} s wall for the ground truth, {cpu_seconds():.1f} s CPU for the "
            f"whole run, peak RSS {peak_rss_gib():.2f} GiB.")
    return "\n".join([head, "", "| stage | s wall |", "|---|---:|"] + [f"| {n} | {t:.2f} |" for n, t, _ in T.rows])


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--scale", type=float, default=0.01, help="fraction of 25M interactions/162k users/62k items")
    ap.add_argument("--baseline-scale", type=float, default=0.01, help="scale of the rule-mining baselines")
    ap.add_argument("--similarity-baseline-scale", type=float, default=0.05,
                    help="scale of the dense-cosine baselines (at 0.1 the dense user-user matrix crashed OpenBLAS here)")
    ap.add_argument("--skip-baselines", action="store_true")
    ap.add_argument("--skip-full", action="store_true")
    ap.add_argument("--n-questions", type=int, default=200)
    ap.add_argument("--min-support", type=float, default=0.01)
    ap.add_argument("--min-confidence", type=float, default=0.01)
    ap.add_argument("--max-len", type=int, default=3)
    ap.add_argument("--window", type=int, default=20)
    ap.add_argument("--threshold", type=float, default=0.01)
    ap.add_argument("--epochs", type=int, default=1)
    ap.add_argument("--num-neg", type=int, default=1)
    ap.add_argument("--batch-size", type=int, default=65536)
    ap.add_argument("--lr", type=float, default=0.005)
    ap.add_argument("--eval-users", type=int, default=1000)
    ap.add_argument("--threads", type=int, default=2)
    ap.add_argument("--device", default="auto")
    ap.add_argument("--write-docs", action="store_true", help="write the figures into docs/results.md's block")
    args = ap.parse_args(argv)
    load_before = docs_block.load()
    ratios, whole = [], None
    if not args.skip_baselines:
        ratios = rule_baselines(args.baseline_scale, args) + similarity_baselines(args.similarity_baseline_scale, args)
    if not args.skip_full:
        whole = full(args.scale, args)
    if args.write_docs:
        docs_block.write(DOCS, "bench_groundtruth", docs_text(ratios, whole), docs_block.command(argv), load_before)


def docs_text(ratios: list[tuple], whole: str | None) -> str:
    """Ratios first (each baseline's time over ours, side by side in this run), then the whole run."""
    lines = ["| baseline / ours | scale | ratio | ours (s) |", "|---|---|---:|---:|"]
    lines += [f"| {name} | {size} | {ratio:.1f}x | {ours:.2f} |" for name, size, ratio, ours in ratios]
    return "\n".join((lines if ratios else []) + ([""] if ratios and whole else []) + ([whole] if whole else []))


if __name__ == "__main__":
    main()
