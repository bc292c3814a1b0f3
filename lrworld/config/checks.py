"""Checks of a config that the JSON schema cannot express, run at start by `config.validate`:
combinations that would run but measure nothing or the wrong thing, files a key names, and
secrets in places that end up in logs. Each failure is one line naming the key or file.
"""

from __future__ import annotations

import os
import re
import string
from pathlib import Path
from urllib.parse import parse_qsl, unquote, urlsplit

from lrworld.config import experiments
from lrworld.models.registry import capabilities
from lrworld.prompts.render import template_path
from lrworld.prompts.variants import refusal, template_variant
from lrworld.questions import measures as measure_registry

# The placeholders lrworld.prompts.render.render fills.
PLACEHOLDERS = ("history", "candidates", "labels", "target", "history_inline", "candidates_inline")
CANDIDATE_PLACEHOLDERS = ("candidates", "candidates_inline")
# Query parameters that carry credentials (`?api-key=...` on Azure-style endpoints).
SECRET_WORDS = ("key", "token", "secret", "password", "passwd", "sig", "auth", "code", "credential")


# Model names of the graph's own roles: a user model so named would be answered by the role's backend.
RESERVED_MODELS = {"captioner": "image captioner's (config key captioner:)"}
# A URL path segment that looks like a credential: an OpenAI-style key, or name=value / name:value
# of a secret word.
_KEY_SEGMENT = re.compile(r"(?i)^(sk|pk|rk|hf|ghp|xox[abp])[-_][A-Za-z0-9_-]{8,}$|(" + "|".join(
    ("key", "token", "secret", "password", "passwd", "auth", "credential")) + r")[^/]*[=:]")


SECRET_ENV = ("KEY", "TOKEN", "SECRET", "PASSWORD")


class CheckError(ValueError):
    pass


def check(config: dict) -> None:
    enabled = _enabled_models(config)
    _cache_dir(config)
    _price_keys(config)
    _reserved_model_names(config)
    _model_urls(config)
    for name, d in (config.get("datasets") or {}).items():
        _dataset_source(name, d)
    for name, m in config["models"].items():
        if line := experiments.problem(config, name, m):
            raise CheckError(line)
    _templates_and_refusals(config, enabled)
    check_cells(config, enabled)
    _model_measures(config, enabled)
    _model_files(enabled)


def _enabled_models(config: dict) -> dict:
    enabled = {k: v for k, v in config["models"].items() if v.get("enabled", True)}
    if not enabled:
        raise CheckError("models: every model is disabled (enabled: false): the run would build an empty "
                         "table; enable at least one")
    return enabled


def _price_keys(config: dict) -> None:
    for name in config.get("prices") or {}:
        if name not in config["models"] and name != "captioner":
            raise CheckError(f"prices.{name}: no model of that name under models (a price is keyed by the "
                             f"model's name in config.yaml, or captioner)")


def _reserved_model_names(config: dict) -> None:
    for name in config["models"]:
        if name in RESERVED_MODELS:
            raise CheckError(f"models.{name}: the name {name!r} is the {RESERVED_MODELS[name]} (its answers and cache "
                             f"file would be that role's); rename the model")


def _model_urls(config: dict) -> None:
    for name, m in config["models"].items():
        _base_url(f"models.{name}.base_url", m.get("base_url"))
    _base_url("captioner.base_url", (config.get("captioner") or {}).get("base_url"))


def _dataset_source(name: str, d: dict) -> None:
    """A dataset's download URLs, and a release pin only where the source is a release."""
    url = (d.get("source") or {}).get("url") if isinstance(d.get("source"), dict) else None
    entries = [url] if isinstance(url, str) else [e.get("url") for e in url or [] if isinstance(e, dict)]
    for i, u in enumerate(entries):
        # a source URL is a param of the fetch rule (.snakemake/metadata) and of the manifest:
        # no credentials, and nothing but http(s) (file:///proc/self/environ would be copied)
        _base_url(f"datasets.{name}.source.url" + (f"[{i}]" if not isinstance(url, str) else ""), u,
                  fix="download it yourself and give `path:`, or use a public URL")
    bench = (d.get("source") or {}).get("benchmark") if isinstance(d.get("source"), dict) else None
    if bench is None and "release_sha256" in (d.get("source") or {}):
        raise CheckError(f"datasets.{name}.source.release_sha256: pins a release's release.json, but the source "
                         f"is not a benchmark release; drop it, or give `benchmark:`")
    if isinstance(bench, dict):  # a release archive: the same policy as a raw download's URL
        _base_url(f"datasets.{name}.source.benchmark.url", bench.get("url"),
                  fix="download and unpack it yourself and give the folder (`benchmark: <folder>`)")


def check_cells(config: dict, models: dict) -> None:
    """What each model is asked (lrworld.config.experiments) it can answer: cot only by a model
    that writes before it answers."""
    for name, m in models.items():
        asked = {v for ds in config["datasets"] for _, v in experiments.model_cells(config, m, ds)}
        if "cot" in asked and capabilities(m).reads_prompt and m.get("mode") == "choice":
            raise CheckError(f"variants: cot asks the model to reason first, but models.{name} has mode: choice "
                             f"(it would score the token after \"Let's think step by step\"); use a mode: "
                             f"generate model for cot, or drop cot")


def _templates_and_refusals(config: dict, enabled: dict) -> None:
    """Per dataset and measure: every variant's template, then the variants the measure refuses."""
    for name, ds in config["datasets"].items():
        for measure in ds["measures"]:
            asked = experiments.dataset_variants(config, enabled, name, measure)
            for tv in dict.fromkeys(template_variant(v) for v in asked):
                check_template(template_path(ds["domain"], measure, tv))
            m = measure_registry.by_id(measure)
            for v in asked:
                if line := refusal(name, measure, v, m.profile, "captions" in m.needs):
                    raise CheckError(line)


def _model_measures(config: dict, enabled: dict) -> None:
    """A model's own `measures:` name only planned datasets and their measures."""
    for name, m in enabled.items():
        for ds, wanted in (m.get("measures") or {}).items():
            planned = (config["datasets"].get(ds) or {}).get("measures")
            if planned is None:
                raise CheckError(f"models.{name}.measures.{ds}: no dataset of that name is planned "
                                 f"(datasets: {', '.join(config['datasets'])})")
            if extra := [x for x in wanted if x not in planned]:
                raise CheckError(f"models.{name}.measures.{ds}: {extra[0]!r} is not a measure of datasets.{ds} "
                                 f"(its measures: {', '.join(planned)})")


def _model_files(enabled: dict) -> None:
    for name, m in enabled.items():
        files = capabilities(m).check_files
        if files is not None and (problem := files(name, m)):
            raise CheckError(problem)


def check_template(path: Path) -> None:
    """A prompt template: every placeholder known, no stray `$`, and the candidates shown."""
    if not path.exists():
        raise CheckError(f"{path}: template file not found")
    text = path.read_text(encoding="utf-8")
    tmpl = string.Template(text)
    names = []
    for m in tmpl.pattern.finditer(text):
        line = text.count("\n", 0, m.start()) + 1
        if m.group("invalid") is not None:
            snippet = text[m.start():m.start() + 12].split("\n")[0]
            raise CheckError(f"{path}:{line}: invalid placeholder {snippet!r}; write $$ for a literal $, "
                             f"placeholders are {', '.join('${' + p + '}' for p in PLACEHOLDERS)}")
        name = m.group("named") or m.group("braced")
        if name is not None:
            if name not in PLACEHOLDERS:
                raise CheckError(f"{path}:{line}: unknown placeholder ${{{name}}}; known: "
                                 f"{', '.join('${' + p + '}' for p in PLACEHOLDERS)}")
            names.append(name)
    if "labels" in names and "candidates_inline" in names and "candidates" not in names:
        line = text.count("\n", 0, text.index("candidates_inline")) + 1
        raise CheckError(f"{path}:{line}: ${{candidates_inline}} lists the options without their labels, but the "
                         f"template asks for one of ${{labels}}: no answer could be matched to an option (the audit "
                         f"would fail every prompt); use ${{candidates}} (one labelled line per option), or drop "
                         f"${{labels}}")
    if not set(names) & set(CANDIDATE_PLACEHOLDERS):
        raise CheckError(f"{path}: no ${{candidates}} (or ${{candidates_inline}}) placeholder: the prompts would "
                         f"show no options to choose from")


def _base_url(key: str, url, fix: str = "put the key in the environment (api_key_env)") -> None:
    if not url:
        return
    try:
        parts = urlsplit(str(url))
        parts.port  # noqa: B018 - raises on a bad port
    except ValueError as exc:
        raise CheckError(f"{key}: not a valid URL ({exc})") from None
    if parts.scheme not in ("http", "https") or not parts.hostname:
        raise CheckError(f"{key}: {parts.scheme}:// URL; only http(s)://host[:port]/... is fetched")
    if parts.username or parts.password:
        raise CheckError(f"{key}: credentials in the URL (user:...@host) end up in logs and provenance; "
                         f"remove them and {fix}")
    for name, _ in parse_qsl(parts.query, keep_blank_values=True):
        if any(w in name.lower() for w in SECRET_WORDS):
            raise CheckError(f"{key}: query parameter {name!r} looks like a credential; remove it and {fix}")
    if parts.fragment:  # never sent to a server, so only ever a place a key was pasted into
        raise CheckError(f"{key}: a #fragment in the URL is never sent to the server and ends up in logs and "
                         f"Snakemake's metadata; remove it (and any key in it: {fix})")
    secrets = {v for k, v in os.environ.items() if len(v) >= 8 and any(w in k.upper() for w in SECRET_ENV)}
    for seg in unquote(parts.path).split("/"):
        if _KEY_SEGMENT.search(seg) or seg in secrets or any(v in seg for v in secrets):
            raise CheckError(f"{key}: a path segment of the URL looks like a credential; remove it and {fix}")


def _cache_dir(config: dict) -> None:
    path = Path(config.get("cache_dir") or ".")
    existing = next((p for p in [path, *path.parents] if p.exists()), None)
    if existing is not None and not existing.is_dir():
        raise CheckError(f"cache_dir: {existing} is a file, not a folder; set cache_dir to a folder")
