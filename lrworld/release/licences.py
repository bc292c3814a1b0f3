"""What a release may be shared under, per raw-data format (the terms of the source the questions
were built from; the release carries item titles and interactions). Read before publishing one."""

NOTES = {
    "ml-100k": "MovieLens (GroupLens usage licence): research use only, no commercial use, cite Harper & "
               "Konstan 2015; no redistribution without GroupLens' permission",
    "ml-latest": "MovieLens (GroupLens usage licence): research use only, no commercial use, cite Harper & "
                 "Konstan 2015; no redistribution without GroupLens' permission",
    "recbole-atomic": "RecBole's atomic copy of MovieLens: the GroupLens usage licence applies (research use, "
                      "no redistribution without permission); RecBole code is MIT",
    "amazon-2018": "Amazon Review Data 2018 (McAuley lab): research and non-commercial use",
    "amazon-2014": "Amazon Review Data 2014 (McAuley lab): research and non-commercial use",
    "netflix": "Netflix Prize data: non-commercial research terms of the Netflix Prize rules",
    "netflix-prize": "Netflix Prize data: non-commercial research terms of the Netflix Prize rules",
    "lastfm-llara": "LLaRA's LastFM split (HetRec 2011 Last.fm-2k): non-commercial use, cite Last.fm and HetRec 2011",
}
UNKNOWN = "no licence note for this format: check the source's terms before sharing the release"


def notes(entry: dict) -> dict:
    """{source: note} for a dataset entry: its raw format and each metadata file it joined."""
    out = {f"format {entry.get('format')}": NOTES.get(entry.get("format"), UNKNOWN)}
    for key in sorted(entry.get("metadata") or {}):
        if key not in ("min_alignment", "year_tolerance", "source"):
            out[f"metadata {key}"] = "joined metadata: the terms of its own source apply (see docs/datasets.md)"
    return out
