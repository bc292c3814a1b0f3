"""Provenance of every number: records built beside each score and table, and the walk back from
a table cell to the raw data files (`lrworld explain`, `lrworld verify`).

- `environment`: versions, git state, host and job times, secret redaction.
- `record`: the per-score and per-table records, written by rules/provenance.smk.
- `trace`: reading records back: explain a cell, list its per-question records, verify hashes.
"""

RECORD_FORMAT = "lrworld.provenance/1"
