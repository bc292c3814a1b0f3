"""Refusals name their cause and the fix in one line: a model named like an internal role, a
template whose labels cannot be matched, a measure with no buildable question, a checkpoint that
is not tensors only (never torch's advice to load it unsafely)."""

import copy
from pathlib import Path

import pandas as pd
import pytest
import torch
import yaml

from lrworld.config import assembly as lrw_config
from lrworld.config.checks import CheckError, check_template
from lrworld.core.schema import ConfigError
from lrworld.core.tensors import UnsafeCheckpoint, load_tensors
from lrworld.questions.build import QuestionError, build_questions
from lrworld.recsys.checkpoint import load_rec_model

ROOT = Path(__file__).resolve().parents[2]
BASE = yaml.safe_load((ROOT / "config.yaml").read_text())


def test_a_model_named_like_the_captioner_is_refused_at_start():
    cfg = copy.deepcopy(BASE)
    cfg["models"]["captioner"] = {"backend": "random"}
    with pytest.raises(ConfigError) as info:
        lrw_config.validate(cfg)
    assert str(info.value).endswith("models.captioner: the name 'captioner' is the image captioner's (config key "
                                    "captioner:) (its answers and cache file would be that role's); rename the model")


def test_labels_with_inline_candidates_is_refused_at_start_naming_the_line(tmp_path):
    t = tmp_path / "t.txt"
    t.write_text("History: ${history}\nOptions: ${candidates_inline}\nAnswer with one of ${labels}.\n")
    with pytest.raises(CheckError) as info:
        check_template(t)
    assert str(info.value).startswith(f"{t}:2: ${{candidates_inline}} lists the options without their labels, but "
                                      "the template asks for one of ${labels}")
    t.write_text("History: ${history}\nWhich of ${candidates_inline} comes next?\n")  # text answers: fine
    check_template(t)


def test_a_measure_with_no_buildable_question_names_the_field_and_the_fix():
    inter = pd.DataFrame({"user_id": [1] * 8 + [2] * 8, "item_id": list(range(8)) * 2, "timestamp": list(range(16))})
    items = pd.DataFrame({"item_id": list(range(8)), "title": [f"t{i}" for i in range(8)],
                          "genres": [[] for _ in range(8)]})
    with pytest.raises(QuestionError) as info:
        build_questions("ml", "movie", "attr_genre", inter, items, history_length=5, n_questions=20, seed=0)
    line = str(info.value)
    assert line == ("ml/attr_genre: no question could be built (2 windows: the item has no value in items.genres); "
                    "the dataset's format or metadata gives no 'genres' for these items: add metadata that has it "
                    "(datasets.ml.metadata), or remove attr_genre from datasets.ml.measures")


class Hostile:
    def __reduce__(self):
        return (print, ("ran",))


def test_a_checkpoint_that_is_not_tensors_only_is_refused_naming_the_file(tmp_path, capsys):
    path = tmp_path / "rec.pt"
    torch.save({"name": "gru4rec", "state_dict": Hostile()}, path)
    for load in (lambda: load_tensors(path), lambda: load_rec_model(path)):
        with pytest.raises(UnsafeCheckpoint) as info:
            load()
        line = str(info.value)
        assert line.startswith(f"{path}: refused as a ") and "not loadable as tensors only" in line
        assert "weights_only" not in line and "\n" not in line
    assert "ran" not in capsys.readouterr().out
    garbage = tmp_path / "garbage.pt"
    garbage.write_bytes(b"not a checkpoint")
    with pytest.raises(UnsafeCheckpoint, match=r"garbage.pt: refused as a checkpoint: not loadable as tensors only"):
        load_tensors(garbage)
