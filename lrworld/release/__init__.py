"""Benchmark releases (docs/release.md): `lrworld pack` freezes a dataset's questions,
prompts and what the audit needs into one folder with a manifest; a dataset entry
`source: {benchmark: <folder>}` scores models on exactly those files."""
