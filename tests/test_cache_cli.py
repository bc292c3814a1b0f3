"""`lrworld cache list|purge`: a cache's models, sizes and identities; purge by model and identity."""

import json

from lrworld.cli import main
from lrworld.inference.cache import ResponseCache, cache_key

A = {"backend": "hf", "model": "m", "weights_sha256": "a" * 64}
B = {"backend": "hf", "model": "m", "weights_sha256": "b" * 64}


def fill(path, identity, n):
    cache = ResponseCache(path)
    for i in range(n):
        cache.store_answer(cache_key(identity, f"p{i}"), {"raw_text": "A"}, identity, "m")
    cache.close()


def test_list_and_purge_by_model_and_identity(tmp_path, capsys):
    folder = tmp_path / "cache"
    fill(folder / "m.sqlite", A, 3)
    fill(folder / "m.sqlite", B, 2)
    fill(folder / "r.sqlite", {"backend": "random", "seed": 0}, 4)
    (tmp_path / "config.yaml").write_text("cache_dir: cache\n")
    assert main(["cache", "list", "--json", "-d", str(tmp_path)]) == 0
    listed = json.loads(capsys.readouterr().out)
    by_model = {m["model"]: m for m in listed["models"]}
    assert {k: v["entries"] for k, v in by_model.items()} == {"m": 5, "r": 4}
    assert sorted(i["entries"] for i in by_model["m"]["identities"]) == [2, 3]
    assert all(m["bytes"] > 0 for m in listed["models"])
    id_b = next(i["id"] for i in by_model["m"]["identities"] if i["identity"] == B)
    assert main(["cache", "list", "-d", str(tmp_path)]) == 0
    text = capsys.readouterr().out
    assert "m: 5 answers" in text and "r: 4 answers" in text and id_b[:12] in text and "weights_sha256=" + "b" * 64 in text

    assert main(["cache", "purge", "m", "--identity", id_b[:10], "--cache-dir", str(folder)]) == 0
    assert "purged 2 answers of m" in capsys.readouterr().out
    assert len(ResponseCache(folder / "m.sqlite")) == 3
    assert main(["cache", "purge", "r", "--cache-dir", str(folder)]) == 0
    assert len(ResponseCache(folder / "r.sqlite")) == 0 and len(ResponseCache(folder / "m.sqlite")) == 3


def test_purge_errors_are_one_line(tmp_path, capsys):
    fill(tmp_path / "m.sqlite", A, 1)
    fill(tmp_path / "m.sqlite", B, 1)
    assert main(["cache", "purge", "nope", "--cache-dir", str(tmp_path)]) == 2
    assert capsys.readouterr().err.strip().endswith("no cache for model 'nope'; cached models: m")
    from lrworld.inference.cache import identity_key

    unused = next(c for c in "0123456789abcdef" if not identity_key(A).startswith(c) and not identity_key(B).startswith(c))
    assert main(["cache", "purge", "m", "--identity", unused, "--cache-dir", str(tmp_path)]) == 2
    assert "matches 0 identities" in capsys.readouterr().err


def test_a_cache_written_before_identities_lists_and_purges(tmp_path, capsys):
    import sqlite3

    db = sqlite3.connect(tmp_path / "old.sqlite")
    db.execute("CREATE TABLE responses (key TEXT PRIMARY KEY, record TEXT NOT NULL)")
    db.execute("INSERT INTO responses VALUES ('k', '{\"raw_text\": \"A\"}')")
    db.commit()
    db.close()
    assert main(["cache", "list", "--cache-dir", str(tmp_path)]) == 0
    assert "recorded before identities were kept" in capsys.readouterr().out
    assert main(["cache", "purge", "old", "--cache-dir", str(tmp_path)]) == 0


def test_purge_takes_only_a_model_name_and_only_lrworld_caches(tmp_path, capsys):
    """A path (relative, traversing, absolute) is refused; a foreign SQLite file named
    like a model is left byte-identical (no table emptied, none created); `--identity ''` is not
    'every identity'."""
    import sqlite3

    folder = tmp_path / "cache"
    fill(folder / "m.sqlite", A, 3)
    victim = tmp_path / "victim.sqlite"  # someone else's database that happens to have a `responses` table
    db = sqlite3.connect(victim)
    db.execute("CREATE TABLE responses (id INTEGER, body TEXT)")
    db.execute("INSERT INTO responses VALUES (1, 'keep me')")
    db.commit()
    db.close()
    empty = folder / "other.sqlite"  # a database with no tables, in the cache folder itself
    sqlite3.connect(empty).close()
    before = {p: p.read_bytes() for p in (victim, empty)}
    for name in ("../victim", "../../../victim", str(tmp_path / "victim"), "a/b", "..", ""):
        assert main(["cache", "purge", name, "--cache-dir", str(folder)]) == 2
        assert "is not a model name" in capsys.readouterr().err
    assert main(["cache", "purge", "other", "--cache-dir", str(folder)]) == 2
    assert "not an lrworld response cache (tables: none); left untouched" in capsys.readouterr().err
    for ident in ("", " ", "%"):
        assert main(["cache", "purge", "m", "--identity", ident, "--cache-dir", str(folder)]) == 2
        assert "is not an identity id or prefix" in capsys.readouterr().err
    assert main(["cache", "list", "--json", "--cache-dir", str(folder)]) == 0
    out = capsys.readouterr()
    assert [m["model"] for m in json.loads(out.out)["models"]] == ["m"] and "skipped" in out.err
    assert {p: p.read_bytes() for p in before} == before
    assert len(ResponseCache(folder / "m.sqlite")) == 3


def test_list_and_purge_across_shards(tmp_path, capsys):
    """A model's answers in the pre-shard file and in two answer jobs' shards: listed as one model,
    an identity purged from every shard holding it."""
    from lrworld.inference import shards

    folder = tmp_path / "cache"
    fill(shards.legacy_file(folder, "m"), A, 2)
    fill(shards.shard_file(folder, "m", "lrworld", "ml", shards.writer_id()), A, 3)
    fill(shards.shard_file(folder, "m", "srbench", "beauty", shards.writer_id()), B, 4)
    assert main(["cache", "list", "--json", "--cache-dir", str(folder)]) == 0
    (m,) = json.loads(capsys.readouterr().out)["models"]
    assert m["model"] == "m" and m["entries"] == 9 and len(m["shards"]) == 3
    assert sorted((i["identity"]["weights_sha256"][0], i["entries"]) for i in m["identities"]) == [("a", 5), ("b", 4)]
    id_a = next(i["id"] for i in m["identities"] if i["identity"] == A)
    assert main(["cache", "purge", "m", "--identity", id_a[:8], "--cache-dir", str(folder)]) == 0
    assert "purged 5 answers of m" in capsys.readouterr().out
    assert [len(ResponseCache(p)) for p in shards.shards(folder, "m")] == [0, 0, 4]
    assert main(["cache", "purge", "m", "--cache-dir", str(folder)]) == 0
    assert "purged 4 answers of m" in capsys.readouterr().out
