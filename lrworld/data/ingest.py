"""Ingest one configured dataset: read its published layout, join metadata, write the contract."""

from __future__ import annotations

from pathlib import Path

from lrworld.data import abo, amazon, contract, lastfm, metadata, movielens, netflix, titles
from lrworld.data.contract import DataError

FORMATS = {
    "ml-100k": lambda raw, cfg: movielens.load_ml100k(raw),
    "recbole-atomic": lambda raw, cfg: movielens.load_recbole_atomic(raw, cfg.get("prefix", "ml-100k")),
    "ml-latest": lambda raw, cfg: movielens.load_ml_latest(raw),
    "amazon-2018": amazon.load_amazon_2018,
    "netflix": netflix.load_netflix,
    "lastfm-llara": lastfm.load_lastfm_llara,
}

# Metadata files a dataset may name under `metadata:` (each is an input of the ingest rule).
METADATA_KEYS = ("imdb_details", "hetrec_directors", "netflix_metadata", "hetrec_lastfm_artists",
                 "hetrec_lastfm_tags", "hetrec_lastfm_user_taggedartists", "abo_listings", "abo_images")
_LASTFM_GENRE_KEYS = ("hetrec_lastfm_artists", "hetrec_lastfm_tags", "hetrec_lastfm_user_taggedartists")

# The files each format needs, relative to the raw folder (the ingest rule declares them as input).
def required_files(fmt: str, cfg: dict) -> list[str]:
    prefix = cfg.get("prefix", "ml-100k")
    if fmt == "amazon-2018":
        return amazon.required(cfg)
    if fmt == "netflix":
        return netflix.required(cfg)
    if fmt == "lastfm-llara":
        return lastfm.required(cfg)
    return {
        "ml-100k": ["u.data", "u.item"],
        "recbole-atomic": [f"{prefix}.inter", f"{prefix}.item"],
        "ml-latest": ["ratings.csv", "movies.csv"],
    }[fmt]


def ingest(name: str, cfg: dict, raw_dir: str | Path, metadata_paths: dict[str, str]):
    fmt = cfg["format"]
    if fmt not in FORMATS:
        raise DataError(f"datasets.{name}.format: unknown format {fmt!r}; choose one of {sorted(FORMATS)}")
    loaded = FORMATS[fmt](Path(raw_dir), cfg)
    # Loaders of dumps with quirks also return their own report (bad lines skipped, alignment rate).
    inter, items, users = loaded[:3]
    items = contract.finalize_items(items)
    report: dict = {"dataset": name, "format": fmt, "raw_interactions": int(len(inter))}
    if len(loaded) > 3:
        report[fmt] = loaded[3]
    if "imdb_details" in metadata_paths:
        items, report["imdb_details"] = metadata.join_imdb_details(
            items, metadata_paths["imdb_details"], int(cfg.get("metadata", {}).get("year_tolerance", 1)))
    if "hetrec_directors" in metadata_paths:
        items, report["hetrec_directors"] = metadata.join_hetrec_directors(items, metadata_paths["hetrec_directors"])
    if "netflix_metadata" in metadata_paths:
        items, report["netflix_metadata"] = netflix.join_netflix_metadata(
            items, metadata_paths["netflix_metadata"], int(cfg.get("metadata", {}).get("year_tolerance", 1)), inter)
    if ("abo_listings" in metadata_paths) != ("abo_images" in metadata_paths):
        raise DataError(f"datasets.{name}.metadata: ABO alignment needs both abo_listings and abo_images")
    if "abo_listings" in metadata_paths:
        items, report["abo"] = abo.join_abo(items, metadata_paths["abo_listings"], metadata_paths["abo_images"],
                                            cfg.get("on_bad_line", "error"))
    given = [k for k in _LASTFM_GENRE_KEYS if k in metadata_paths]
    if given and len(given) < len(_LASTFM_GENRE_KEYS):
        raise DataError(f"datasets.{name}.metadata: artist genres need all of {list(_LASTFM_GENRE_KEYS)}; "
                        f"missing {[k for k in _LASTFM_GENRE_KEYS if k not in given]}")
    if given:
        items, report["hetrec_lastfm_genres"] = lastfm.join_hetrec_genres(
            items, *(metadata_paths[k] for k in _LASTFM_GENRE_KEYS))
    if cfg.get("display_titles", True):
        # after every join: Netflix metadata is aligned by the file's own title form
        items, report["display_titles"] = titles.apply_display_titles(items)
    items = contract.finalize_items(items)
    inter = contract.finalize_interactions(inter, f"datasets.{name}")
    unknown = ~inter["item_id"].isin(items["item_id"])
    if unknown.any():
        raise DataError(f"datasets.{name}: {int(unknown.sum())} interactions name items missing from the item file "
                        f"(first: item {inter.loc[unknown, 'item_id'].iloc[0]})")
    users = contract.finalize_users(users.rename(columns=str))
    report.update({
        "interactions": int(len(inter)),
        "duplicates_dropped": int(report["raw_interactions"] - len(inter)),
        "users": int(inter["user_id"].nunique()),
        "items": int(len(items)),
        "items_with_interactions": int(inter["item_id"].nunique()),
    })
    return inter, items, users, report
