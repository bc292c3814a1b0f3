"""LLaRA's released data (arXiv 2312.02445, repo ljy0ustc/LLaRA) and the same task built from any
interactions table.

Released sets (``data/llara/{movielens,steam,lastfm}/*.jsonl``, lossless conversions of LLaRA's
pickles): one row per sequence, ``seq`` = the last 10 items padded at the END with a pad id,
``len_seq`` = number of real items, ``next`` = the item to predict. MovieLens rows hold
``[item_id, rating]`` pairs and item ids are ``ml-100k movie_id - 1``.

Titles: MovieLens from ml-100k ``u.item``, without the year and in the one display form every
track uses (:func:`lrworld.data.titles.display_title`: "Matrix, The" -> "The Matrix"); Steam and
LastFM from ``id2name.txt`` (``id::name``, stripped).

LLaRA's loaders drop rows with ``len_seq < 3`` (``session_data4frame``); :func:`load_llara_split`
does the same by default and reports how many rows it dropped.
"""

from __future__ import annotations

import json
import os
from dataclasses import dataclass, field
from pathlib import Path
from typing import Iterable

import pandas as pd

from lrworld.config.assembly import entry_defaults
from lrworld.data.contract import DataError, sort_interactions
from lrworld.data.formats.ml_100k import read_u_item
from lrworld.data.movielens import split_title_year
from lrworld.data.titles import display_title

# LLaRA's padding ids (data/*_data.py: self.padding_item_id)
PAD_IDS = {"movielens": 1682, "steam": 3581, "lastfm": 4606}
SEQ_LEN = 10
MIN_LEN_SEQ = 3  # LLaRA: train_data[train_data['len_seq'] >= 3]


@dataclass(frozen=True)
class Example:
    """One next-item question: the user's last items (chronological, no padding) and the target."""

    qid: str
    history: tuple[int, ...]
    next: int
    # Items the user is known to have interacted with, excluded from negatives. For LLaRA's
    # released rows this is the history window (all LLaRA knew too); for sets built from an
    # interactions table it is the user's whole history up to and including the target.
    seen: tuple[int, ...] = ()
    row_index: int | None = None
    user_id: str | None = None


@dataclass
class LlaraSet:
    """Everything a dataset contributes: item names, evaluation rows and training examples."""

    name: str
    item_names: dict[int, str]
    test: list[Example]
    val: list[Example] = field(default_factory=list)
    train: list[Example] = field(default_factory=list)
    n_dropped_short: int = 0
    # Maps the internal integer ids back to the pipeline's string ids (interactions builds only).
    item_ids: list[str] | None = None
    notes: list[str] = field(default_factory=list)

    @property
    def n_items(self) -> int:
        return max(self.item_names) + 1 if self.item_names else 0


# ---------------------------------------------------------------- titles


def ml100k_title(raw: str) -> str:
    """A u.item title field as the track shows it: the year dropped (as LLaRA's ``[:-7]`` does) and
    the trailing article moved to the front. LLaRA's own ``get_mv_title`` only knew ", The", ", A"
    and ", An" and garbled some ("Affair to Remember, An" -> "A Affair to Remembern"). ML-100K's
    placeholder ``unknown`` (no title, no year) is "" (never drawn as a candidate, as in LLaRA)."""
    title, year = split_title_year(raw)
    return "" if year is None and title == "unknown" else display_title(title)


def load_ml100k_titles(u_item: str | os.PathLike) -> dict[int, str]:
    """LLaRA item id (movie_id - 1) -> display title, from ml-100k ``u.item`` read by the spine's
    ``ml-100k`` format (the one reader of the GroupLens files)."""
    items = read_u_item(Path(u_item))
    if items.empty:
        raise DataError(f"{u_item}: no rows")
    return {int(i) - 1: ml100k_title(t) for i, t in zip(items["item_id"], items["title_raw"].fillna(""))}


def llara_mv_title(field: str) -> str:
    """LLaRA's MovieLens title of a u.item title field, verbatim (``data/movielens_data.py:61-66,
    74``): the last 7 characters (" (1995)") cut, then the first of ", The", ", A", ", An" found
    anywhere moved to the front, garbles included ("Affair to Remember, An" -> "A Affair to
    Remembern"). The titles a released LLaRA checkpoint was trained with (``title_form: llara``)."""
    s = field[:-7]
    for sub in (", The", ", A", ", An"):
        if sub in s:
            return sub[2:] + " " + s.replace(sub, "")
    return s


def load_llara_ml100k_titles(u_item: str | os.PathLike) -> dict[int, str]:
    """LLaRA's ``get_movie_id2name``: u.item read as ISO-8859-1, each line cut at its newline and split
    on "|", id = field 0 - 1, title = :func:`llara_mv_title` of field 1."""
    out: dict[int, str] = {}
    with open(u_item, encoding="ISO-8859-1") as fh:
        for lineno, line in enumerate(fh, 1):
            fields = line.strip("\n").split("|")
            if len(fields) < 2 or not fields[0].isdigit():
                raise DataError(f"{u_item}:{lineno}: expected 'movie_id|title|...', got {line[:60]!r}")
            out[int(fields[0]) - 1] = llara_mv_title(fields[1])
    if not out:
        raise DataError(f"{u_item}: no rows")
    return out


def load_id2name(path: str | os.PathLike) -> dict[int, str]:
    """``id::name`` per line (Steam, LastFM); names stripped as LLaRA does."""
    out: dict[int, str] = {}
    with open(path, encoding="utf-8") as fh:
        for lineno, line in enumerate(fh, 1):
            line = line.rstrip("\r\n")
            if not line.strip():
                continue
            parts = line.split("::")
            if len(parts) < 2 or not parts[0].strip().isdigit():
                raise DataError(f"{path}:{lineno}: expected 'id::name', got {line[:60]!r}")
            iid = int(parts[0])
            if iid in out:
                raise DataError(f"{path}:{lineno}: duplicate id {iid}")
            out[iid] = parts[1].strip()
    if not out:
        raise DataError(f"{path}: no rows")
    return out


# ---------------------------------------------------------------- released rows


def _item_id(value, where: str) -> int:
    # MovieLens rows hold [item_id, rating] pairs; the others plain ids.
    if isinstance(value, list):
        if len(value) != 2:
            raise DataError(f"{where}: expected [item_id, rating], got {value!r}")
        value = value[0]
    if isinstance(value, bool) or not isinstance(value, int):
        raise DataError(f"{where}: item id must be an integer, got {value!r}")
    return value


def read_llara_rows(path: str | os.PathLike, dataset: str) -> list[dict]:
    """Parse and validate one released jsonl file. Returns dicts with row_index, history, next."""
    pad = PAD_IDS[dataset]
    rows = []
    with open(path, encoding="utf-8") as fh:
        for lineno, line in enumerate(fh, 1):
            if not line.strip():
                continue
            where = f"{path}:{lineno}"
            try:
                rec = json.loads(line)
            except json.JSONDecodeError as exc:
                raise DataError(f"{where}: not valid JSON ({exc.msg})") from None
            for key in ("seq", "len_seq", "next"):
                if key not in rec:
                    raise DataError(f"{where}: missing field {key!r}")
            seq = rec["seq"]
            if not isinstance(seq, list) or len(seq) != SEQ_LEN:
                raise DataError(f"{where}: seq must be a list of {SEQ_LEN} items")
            ids = [_item_id(v, where) for v in seq]
            n = rec["len_seq"]
            if not isinstance(n, int) or not 0 <= n <= SEQ_LEN:
                raise DataError(f"{where}: len_seq must be an integer in 0..{SEQ_LEN}, got {n!r}")
            real = [i for i in ids if i != pad]
            if ids[:len(real)] != real:
                raise DataError(f"{where}: padding {pad} must only follow the items, got {ids}")
            # Released quirk (Steam test row 914, 976 LastFM train rows): len_seq 1 with an all-padding
            # seq, i.e. a user's first interaction. LLaRA drops them (len_seq < 3); so do we.
            if len(real) != n and not (n == 1 and not real):
                raise DataError(f"{where}: len_seq is {n} but seq holds {len(real)} items")
            nxt = _item_id(rec["next"], where)
            if nxt == pad:
                raise DataError(f"{where}: next is the padding id {pad}")
            rows.append({"row_index": rec.get("row_index", lineno - 1), "history": real, "len_seq": n, "next": nxt,
                         "where": where})
    return rows


def _check_known(rows: list[dict], names: dict[int, str]) -> None:
    for r in rows:
        for i in [*r["history"], r["next"]]:
            if i not in names:
                raise DataError(f"{r['where']}: item {i} has no title")


def load_llara_split(path: str | os.PathLike, dataset: str, split: str, names: dict[int, str],
                     min_len_seq: int = MIN_LEN_SEQ) -> tuple[list[Example], int]:
    """Examples of one released split; rows with len_seq < min_len_seq are dropped (LLaRA does)."""
    rows = read_llara_rows(path, dataset)
    _check_known(rows, names)
    kept = [r for r in rows if r["len_seq"] >= min_len_seq]
    out = [Example(qid=f"{dataset}:{split}:{r['row_index']}", history=tuple(r["history"]), next=r["next"],
                   seen=tuple(r["history"]), row_index=r["row_index"]) for r in kept]
    return out, len(rows) - len(kept)


def windows(seq: list[int], seq_len: int = SEQ_LEN, start: int = 1) -> Iterable[tuple[tuple[int, ...], int]]:
    """(last <= seq_len items before t, item t) for every t >= start: next-item training pairs."""
    for t in range(start, len(seq)):
        yield tuple(seq[max(0, t - seq_len):t]), seq[t]


def examples_from_rows(rows: list[dict], prefix: str, expand_prefixes: bool = False) -> list[Example]:
    """Training examples from released rows: the row itself, or (expand_prefixes) every
    next-item pair inside ``history + [next]`` (used for Val rows of users disjoint from test)."""
    out = []
    for r in rows:
        if expand_prefixes:
            for k, (h, t) in enumerate(windows([*r["history"], r["next"]])):
                out.append(Example(qid=f"{prefix}:{r['row_index']}:{k}", history=h, next=t, seen=h))
        elif r["history"]:
            out.append(Example(qid=f"{prefix}:{r['row_index']}", history=tuple(r["history"]), next=r["next"],
                               seen=tuple(r["history"])))
    return out


def load_ml100k_udata(path: str | os.PathLike) -> pd.DataFrame:
    """ml-100k ``u.data`` as user_id, item_id (LLaRA id = movie_id - 1), timestamp, sorted."""
    df = pd.read_csv(path, sep="\t", names=["user_id", "movie_id", "rating", "timestamp"])
    if df[["user_id", "movie_id", "timestamp"]].isna().any().any():
        raise DataError(f"{path}: empty fields")
    df["item_id"] = df["movie_id"].astype(int) - 1
    return df.sort_values(["user_id", "timestamp", "item_id"], kind="mergesort")[["user_id", "item_id", "timestamp"]]


def sequences_excluding(df: pd.DataFrame, eval_examples: list[Example]) -> tuple[list[list[int]], int]:
    """Chronological per-user item sequences of ``df`` (user_id, item_id, sorted by time), leaving
    out every user who could be the author of an evaluation row (their items contain all of the
    row's history + target). LLaRA's MovieLens train file is not available here and its rows
    cannot be matched to ml-100k users one-to-one, so excluding all candidates is the honest way
    to train on u.data without seeing a test target. Returns (sequences, n_users_excluded)."""
    user_items = df.groupby("user_id", sort=True)["item_id"].apply(list)
    item_sets = {u: set(v) for u, v in user_items.items()}
    excluded: set = set()
    for ex in eval_examples:
        need = {*ex.history, ex.next}
        excluded.update(u for u, s in item_sets.items() if need <= s)
    seqs = [v for u, v in user_items.items() if u not in excluded]
    return seqs, len(excluded)


# ---------------------------------------------------------------- dataset assembly


def load_released(name: str, cfg: dict) -> LlaraSet:
    """Build a :class:`LlaraSet` from a ``config["llara"]["datasets"][name]`` entry.

    Keys: ``kind`` (movielens|steam|lastfm, default = name), ``path`` (folder with
    Test_data.jsonl / Val_data.jsonl / id2name.txt), ``titles`` (u.item for MovieLens),
    ``train_files`` (jsonl names in ``path`` used as training rows as they are),
    ``train_expand`` (jsonl names whose rows are expanded into every prefix, e.g. Val_data.jsonl),
    ``train_udata`` (ml-100k u.data: users who could author a test row are excluded),
    ``min_len_seq`` (default 3), ``title_form`` (MovieLens: ``display`` or LLaRA's own, ``llara``).
    """
    cfg = entry_defaults(("llara", "datasets"), cfg)
    kind = cfg.get("kind", name)
    if kind not in PAD_IDS:
        raise ValueError(f"llara.datasets.{name}.kind: {kind!r} is not one of {sorted(PAD_IDS)}")
    root = Path(cfg["path"])
    if kind == "movielens":
        titles = cfg.get("titles") or root / "u.item"
        names = (load_llara_ml100k_titles if cfg["title_form"] == "llara" else load_ml100k_titles)(titles)
    else:
        names = load_id2name(cfg.get("titles") or root / "id2name.txt")
    min_len = cfg["min_len_seq"]
    test, dropped = load_llara_split(root / cfg["test_file"], kind, "test", names, min_len)
    notes = [f"test: {len(test)} rows kept, {dropped} dropped (len_seq < {min_len}, as LLaRA)"]
    train: list[Example] = []
    for fname in cfg["train_files"]:
        rows = read_llara_rows(root / fname, kind)
        _check_known(rows, names)
        part = examples_from_rows(rows, f"{kind}:train:{fname}")
        notes.append(f"train: {len(part)} examples from {fname} (rows as released)")
        train += part
    for fname in cfg["train_expand"]:
        rows = read_llara_rows(root / fname, kind)
        _check_known(rows, names)
        part = examples_from_rows(rows, f"{kind}:train:{fname}", expand_prefixes=True)
        notes.append(f"train: {len(part)} examples from every prefix of the {len(rows)} sequences in {fname}")
        train += part
    if cfg.get("train_udata"):
        seqs, n_ex = sequences_excluding(load_ml100k_udata(cfg["train_udata"]), test)
        part = [Example(qid=f"{kind}:train:udata:{u}:{k}", history=h, next=t, seen=h)
                for u, s in enumerate(seqs) for k, (h, t) in enumerate(windows(s))]
        notes.append(f"train: {len(part)} next-item windows from {len(seqs)} u.data users "
                     f"({n_ex} users excluded: their items contain a whole test row)")
        train += part
    return LlaraSet(name=name, item_names=names, test=test, train=train, n_dropped_short=dropped, notes=notes)


def build_from_interactions(interactions: pd.DataFrame, items: pd.DataFrame, seq_len: int = SEQ_LEN,
                            seed: int = 0, min_len_seq: int = MIN_LEN_SEQ, name: str = "interactions") -> LlaraSet:
    """The LLaRA task from the pipeline's aligned tables, with a chronological leave-one-out split.

    For each user (rows sorted by user_id, timestamp, item_id, as the data contract guarantees):
    the last interaction is the test target, the one before it the validation target, and every
    earlier interaction a training target. Histories are the ``seq_len`` items right before the
    target, so a training example never contains the user's validation or test item (no future
    interaction in the training part). Test rows need ``min_len_seq`` history items (LLaRA's
    filter). Negatives later exclude everything the user interacted with. ``seed`` is accepted so
    that callers can pass one config; the split itself is deterministic.
    """
    del seed  # deterministic; candidates.draw_candidates takes the seed
    need = {"user_id", "item_id", "timestamp"}
    if missing := need - set(interactions.columns):
        raise DataError(f"interactions: missing column(s) {sorted(missing)}")
    if not {"item_id", "title"} <= set(items.columns):
        raise DataError("items: needs item_id and title")
    df = interactions[["user_id", "item_id", "timestamp"]].copy()
    df["user_id"] = df["user_id"].astype(str)
    df["item_id"] = df["item_id"].astype(str)
    df = sort_interactions(df)  # the contract's order, ties by numeric-aware item id
    # Repeated consumption: keep the first time a user meets an item (LLaRA's sets have no repeats
    # within a window, and a repeat target would sit in its own negatives' exclusion set).
    df = df.drop_duplicates(["user_id", "item_id"], keep="first")
    titles = items.assign(item_id=items["item_id"].astype(str)).drop_duplicates("item_id").set_index("item_id")["title"]
    missing_titles = sorted(set(df["item_id"]) - set(titles.index))
    if missing_titles:
        raise DataError(f"items: {len(missing_titles)} interacted item(s) have no title, e.g. {missing_titles[:3]}")
    item_ids = sorted(set(df["item_id"]))
    index = {iid: k for k, iid in enumerate(item_ids)}
    names = {k: str(titles[iid]).strip() for iid, k in index.items()}
    train, val, test = [], [], []
    for user, grp in df.groupby("user_id", sort=True):
        seq = [index[i] for i in grp["item_id"]]
        seen = tuple(seq)
        n = len(seq)
        if n < 2:
            continue
        for t, (h, target) in enumerate(windows(seq, seq_len), start=1):
            ex = Example(qid=f"{name}:{user}:{t}", history=h, next=target, seen=seen, user_id=user)
            if t == n - 1:
                if len(h) >= min_len_seq:
                    test.append(Example(qid=f"{name}:test:{user}", history=h, next=target, seen=seen, user_id=user))
            elif t == n - 2:
                val.append(Example(qid=f"{name}:val:{user}", history=h, next=target, seen=seen, user_id=user))
            else:
                train.append(ex)
    notes = [f"chronological leave-one-out over {df['user_id'].nunique()} users: {len(train)} train, "
             f"{len(val)} val, {len(test)} test examples (test needs >= {min_len_seq} history items)"]
    return LlaraSet(name=name, item_names=names, test=test, val=val, train=train, item_ids=item_ids, notes=notes)
