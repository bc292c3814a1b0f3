"""The invocation folder's id (what names its reply-digest records in a shared cache): kept when
the folder is moved, new when it is copied and the original is still there."""

import shutil

from lrworld.inference.folder_id import folder_lineage


def _id_in(folder, monkeypatch):
    monkeypatch.chdir(folder)
    return folder_lineage()[0]


def test_a_moved_folder_keeps_its_id_and_a_copy_takes_its_own(tmp_path, monkeypatch):
    (tmp_path / "a").mkdir()
    first = _id_in(tmp_path / "a", monkeypatch)
    assert _id_in(tmp_path / "a", monkeypatch) == first and len(first) == 12

    shutil.copytree(tmp_path / "a", tmp_path / "b")
    shutil.copytree(tmp_path / "a", tmp_path / "c")
    copies = _id_in(tmp_path / "b", monkeypatch), _id_in(tmp_path / "c", monkeypatch)
    assert len({first, *copies}) == 3
    assert _id_in(tmp_path / "b", monkeypatch) == copies[0]  # made once, then read
    assert _id_in(tmp_path / "a", monkeypatch) == first  # the original is untouched
    monkeypatch.chdir(tmp_path / "b")
    assert folder_lineage() == [copies[0], first]  # a copy reads its original's records until it has its own

    shutil.move(tmp_path / "a", tmp_path / "moved")
    assert _id_in(tmp_path / "moved", monkeypatch) == first


def test_a_folder_from_before_the_path_was_kept_keeps_its_id(tmp_path, monkeypatch):
    (tmp_path / ".snakemake").mkdir()
    (tmp_path / ".snakemake" / "lrworld-folder-id").write_text("0123456789ab\n")
    assert _id_in(tmp_path, monkeypatch) == "0123456789ab"
    assert (tmp_path / ".snakemake" / "lrworld-folder-id").read_text().split() == ["0123456789ab", str(tmp_path.resolve())]
    shutil.copytree(tmp_path / ".snakemake", tmp_path / "copy" / ".snakemake")
    monkeypatch.chdir(tmp_path / "copy")
    assert folder_lineage()[1:] == ["0123456789ab"] and folder_lineage()[0] != "0123456789ab"


def test_a_folder_whose_path_is_not_ascii_has_an_id_and_its_copy_another(tmp_path, monkeypatch):
    (tmp_path / "données").mkdir()
    first = _id_in(tmp_path / "données", monkeypatch)
    shutil.copytree(tmp_path / "données", tmp_path / "copie")
    assert _id_in(tmp_path / "données", monkeypatch) == first != _id_in(tmp_path / "copie", monkeypatch)
