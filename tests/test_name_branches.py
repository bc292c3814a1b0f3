"""No code outside the registries branches on the name of a backend, dataset format, recommender or
measure: what an entry can do is a property of its entry (a backend's `Capabilities`, a format's
`item_ids`, a measure's `needs`), so a new entry, built in or from a plugin, is treated like the
built-in ones. The scan reads the package's syntax trees: a comparison with a registered name
(`backend == "hf"`, `fmt in ("ml-100k", ...)`) and a literal collection of such names (a set of API
backends, a table keyed by formats) are findings unless listed in ALLOWED with the reason. The
Snakefile and rules/*.smk have no registry of their own: any string literal there that is a
registered name is a finding (read with Python's tokenizer, which reads Snakemake's syntax)."""

import ast
import io
import tokenize
from pathlib import Path

from lrworld.data.formats import FORMATS
from lrworld.models.registry import backends
from lrworld.questions.measures import MEASURES
from lrworld.recsys.registry import recommenders

ROOT = Path(__file__).resolve().parents[1]

# (file, registered name) -> why the mention is not a branch on what the entry can do
ALLOWED = {
    # a registry's own declarations name entries: a join lists the formats it reads, a model table
    # maps a recommender's name to its class
    **{(f"lrworld/data/joins/{f}.py", n): "a join declares the formats it reads (`formats=`)"
       for f, names in {"abo": ("amazon-2018", "amazon-2014"), "hetrec_directors": ("ml-latest", "ml-100k"),
                        "hetrec_lastfm": ("lastfm-llara",), "imdb_details": ("ml-100k",),
                        "llmrec_netflix": ("netflix", "netflix-prize"),
                        "netflix_metadata": ("netflix", "netflix-prize", "ml-latest")}.items() for n in names},
    **{("lrworld/recsys/cf.py", n): "the CF models' own name -> class table" for n in ("ncf", "ngcf", "lightgcn")},
    **{("lrworld/recsys/sequential.py", n): "the sequential models' own name -> class table"
       for n in ("gru4rec", "caser", "sasrec", "popularity")},
    **{("lrworld/tracks/llara/hybrid/entries.py", n): "LLaRA's paper spells its recommenders (display names)"
       for n in ("gru4rec", "caser", "sasrec")},
    **{(f, "popularity"): "an output table named popularity (item popularity), not the recommender"
       for f in ("lrworld/workflow/analysis.py", "rules/analysis.smk")},
    # not a backend: the same word in another sense
    ("lrworld/core/runlog.py", "openai"): "the openai client's logger name",
    ("lrworld/provenance/environment.py", "openai"): "the openai package, whose version is recorded",
    ("lrworld/questions/knowledge.py", "random"): "answer_policy 'random', not the backend",
    ("lrworld/release/interop.py", "random"): "answer_policy 'random' in the card's gold sentence, not the backend",
    # the IMDb join's own registry entry names the formats it serves (a declaration, like a
    # format's); Netflix items carry no IMDb id and are matched by title + year
    **{("lrworld/data/joins/imdb_datasets.py", f): "the join's declared formats; Netflix matched by title + year"
       for f in ("netflix", "netflix-prize", "ml-100k", "ml-latest")},
    **{(f, "netflix"): "the paper's dataset named netflix, not the format"
       for f in ("lrworld/paper/figures.py", "lrworld/scoring/paper_comparison.py")},
    ("lrworld/tracks/srbench/prompts.py", "ml-100k"): "SRBench's dataset named ml-100k (its prompt words)",
    # the model named random is the tables' reference row (a `models` key the default config
    # ships), not the backend
    **{(f, "random"): "the model named random: the tables' reference row"
       for f in ("lrworld/analysis/load.py", "lrworld/analysis/scores.py", "lrworld/scoring/table.py")},
    # Measure ids in the ground truth: the prototypes table's measure column (to be emptied, not
    # extended).
    ("lrworld/groundtruth/questions.py", "neu_item2users"): "pending: prototypes table's measure column",
    ("lrworld/groundtruth/questions.py", "neu_user2items"): "pending: prototypes table's measure column",
}


def registered() -> dict[str, set[str]]:
    return {"backend": set(backends().names()), "format": set(FORMATS.names()),
            "recommender": set(recommenders().names()), "measure": {m.id for m in MEASURES}}


def _strings(node) -> list[str]:
    if isinstance(node, ast.Constant) and isinstance(node.value, str):
        return [node.value]
    if isinstance(node, (ast.Tuple, ast.List, ast.Set)):
        return [v for e in node.elts for v in _strings(e)]
    return []


def _own_module(rel: str, name: str) -> bool:
    """A backend or format module names itself where it registers."""
    return rel.startswith(("lrworld/models/backends/", "lrworld/data/formats/")) and \
        Path(rel).stem == name.replace("-", "_")


def _rule_literals(path: Path) -> list[tuple[int, str]]:
    """(line, value) of every plain string literal of a Snakefile or rules file."""
    out = []
    for tok in tokenize.generate_tokens(io.StringIO(path.read_text(encoding="utf-8")).readline):
        if tok.type == tokenize.STRING:
            try:
                value = ast.literal_eval(tok.string)
            except ValueError:  # an f-string: not a literal name
                continue
            if isinstance(value, str):
                out.append((tok.start[0], value))
    return out


def findings(root: Path, names: dict[str, set[str]]) -> list[tuple[str, int, str, str]]:
    """(file, line, kind, name) of every comparison with, or literal collection of, registered names,
    in the package and the rules' scripts; of every literal registered name in the Snakefile and
    the rules."""
    out = [(path.relative_to(root).as_posix(), line, kind, value)
           for path in sorted([root / "Snakefile", *(root / "rules").glob("*.smk")]) if path.exists()
           for line, value in _rule_literals(path) for kind, known in names.items() if value in known]
    for path in sorted([*(root / "lrworld").rglob("*.py"), *(root / "scripts").glob("*.py")]):
        rel = path.relative_to(root).as_posix()
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.Compare):
                values = [v for side in (node.left, *node.comparators) for v in _strings(side)]
                kinds = names
            elif isinstance(node, (ast.Set, ast.Tuple, ast.List, ast.Dict)):
                values = ([v for k in node.keys if k is not None for v in _strings(k)] if isinstance(node, ast.Dict)
                          else _strings(node))
                # a tuple of measure ids is a measure list (a config, a table order), not a branch
                kinds = {k: v for k, v in names.items() if k != "measure"}
            else:
                continue
            for value in values:
                for kind, known in kinds.items():
                    if value in known and not _own_module(rel, value):
                        out.append((rel, node.lineno, kind, value))
    return sorted(set(out))


def test_no_code_outside_the_registries_branches_on_an_entrys_name():
    found = [f for f in findings(ROOT, registered()) if (f[0], f[3]) not in ALLOWED]
    assert found == [], ("code branches on a registered name; make it a property of the registry entry "
                         "(or list it in ALLOWED with the reason):\n" +
                         "\n".join(f"{p}:{line}: {kind} {name!r}" for p, line, kind, name in found))


def test_every_allowed_mention_is_still_there():
    # an entry the code does not need is dropped, so the list stays what the code does
    present = {(p, n) for p, _, _, n in findings(ROOT, registered())}
    assert sorted(set(ALLOWED) - present) == []


def test_the_scan_finds_a_branch_on_a_backend_and_a_format_name(tmp_path):
    pkg = tmp_path / "lrworld/workflow"
    pkg.mkdir(parents=True)
    (pkg / "x.py").write_text('def f(cfg, fmt):\n    if cfg.get("backend") == "hf":\n        return 1\n'
                              '    return fmt in ("ml-100k", "other")\n\nAPI = {"openai"}\n')
    names = {"backend": {"hf", "openai"}, "format": {"ml-100k"}, "recommender": set(), "measure": set()}
    (tmp_path / "rules").mkdir()
    (tmp_path / "rules/gt.smk").write_text('rule r:\n    params:\n        n=lambda wc: W.count(wc.dataset, '
                                           '"neu_item2users"),\n        kind=f"mem_{x}",\n')
    names = {**names, "measure": {"neu_item2users"}}
    assert findings(tmp_path, names) == [("lrworld/workflow/x.py", 2, "backend", "hf"),
                                         ("lrworld/workflow/x.py", 4, "format", "ml-100k"),
                                         ("lrworld/workflow/x.py", 6, "backend", "openai"),
                                         ("rules/gt.smk", 3, "measure", "neu_item2users")]
