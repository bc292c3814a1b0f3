"""Prompt rendering from template files (templates are data: lrworld/templates/<domain>/<measure>/<variant>.txt)."""
