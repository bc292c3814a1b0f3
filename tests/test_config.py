import copy

import pytest
import yaml

from lrworld.config import experiments
from lrworld.config.assembly import validate
from lrworld.core.schema import ConfigError

BASE = yaml.safe_load(open("config.yaml"))


def bad(mutate):
    cfg = copy.deepcopy(BASE)
    mutate(cfg)
    with pytest.raises(ConfigError) as exc:
        validate(cfg)
    msg = str(exc.value)
    assert "\n" not in msg
    return msg


def test_shipped_config_is_valid():
    validate(copy.deepcopy(BASE))


def test_misspelled_measure():
    msg = bad(lambda c: c["datasets"]["ml100k"].__setitem__("measures", ["attr_genere"]))
    assert msg.startswith("config: datasets.ml100k.measures[0]: unknown measure 'attr_genere'")


@pytest.mark.parametrize("name", ["smol/../x", "..", "a b", "x;rm -rf", "$(id)", "../up"])
def test_model_names_that_are_not_path_safe(name):
    msg = bad(lambda c: c["models"].__setitem__(name, {"backend": "random"}))
    assert "models" in msg and repr(name) in msg


def test_dataset_name_with_slash():
    msg = bad(lambda c: c["datasets"].__setitem__("a/b", c["datasets"]["ml100k"]))
    assert msg.startswith("config: datasets: 'a/b' is not a valid name")


def test_unknown_key_is_named():
    msg = bad(lambda c: c["questions"].__setitem__("histroy_length", 5))
    assert msg.startswith("config: questions.histroy_length: unknown key")


@pytest.mark.parametrize("key,value", [("history_length", 0), ("per_measure", 0), ("history_length", "5")])
def test_impossible_values(key, value):
    msg = bad(lambda c: c["questions"].__setitem__(key, value))
    assert msg.startswith(f"config: questions.{key}:")


def test_api_key_in_config_is_refused():
    msg = bad(lambda c: c["models"].__setitem__("gpt", {"backend": "openai", "api_key": "sk-x"}))
    assert "environment" in msg


def test_misspelled_model_option_is_named():
    msg = bad(lambda c: c["models"]["smollm2-135m"].__setitem__("max_new_token", 8))
    assert msg.startswith("config: models.smollm2-135m.max_new_token: unknown key")


def test_source_needs_exactly_one_kind():
    msg = bad(lambda c: c["datasets"]["ml100k"]["source"].__setitem__("path", "/data"))
    assert "datasets.ml100k.source" in msg


def test_a_price_needs_a_configured_model_and_both_rates():
    msg = bad(lambda c: c["prices"].__setitem__("gpt-4o-mini", {"input_per_mtok": 0.15, "output_per_mtok": 0.6}))
    assert msg.startswith("config: prices.gpt-4o-mini: no model of that name under models")
    msg = bad(lambda c: c["prices"].__setitem__("gpt-4-0613", {"input_per_mtok": 30}))
    assert msg.startswith("config: prices.gpt-4-0613")


def test_facts_min_witnesses_is_one_or_two():
    cfg = copy.deepcopy(BASE)
    cfg["facts"]["min_witnesses"] = 2
    validate(cfg)
    msg = bad(lambda c: c["facts"].update(min_witnesses=3))
    assert msg == "config: facts.min_witnesses: 3 is not one of [1, 2]"


def test_experiments_paper_needs_a_paper_row_that_ran():
    msg = bad(lambda c: c["models"]["smollm2-135m"].__setitem__("experiments", "paper"))
    assert msg.startswith("config: models.smollm2-135m.experiments: paper answers the runs the paper made of the "
                          "model's paper row, and it has no paper_name")
    msg = bad(lambda c: c["models"]["random"].__setitem__("experiments", "paper"))
    assert "the paper made none of 'RANDOM'" in msg
    msg = bad(lambda c: c["models"]["random"].__setitem__("experiments", "all"))
    assert msg.startswith("config: models.random.experiments:")


def test_an_image_is_asked_only_of_a_model_that_reads_images():
    def visual(c):
        c["datasets"]["ml100k"]["extra_variants"] = {"attr_genre": ["visual"]}
    # no measure of ML-100K shows items by their images
    assert bad(visual).startswith("config: variants: visual sends the image of the latest history item with the "
                                  "prompt, and datasets.ml100k measure 'attr_genre' does not show items by their images")
    # on multimodal: asked of LlaVA-1.6 and the chance row, not of SmolLM2 (it reads no images)
    cfg = copy.deepcopy(BASE)
    cfg["models"]["llava-v1.6-mistral-7b"]["enabled"] = True
    cfg["datasets"]["ml100k"]["measures"].append("multimodal")
    cfg["datasets"]["ml100k"]["extra_variants"] = {"multimodal": ["visual"]}
    validate(cfg)
    asked = {m: experiments.model_variants(cfg, cfg["models"][m], "ml100k", "multimodal")
             for m in ("llava-v1.6-mistral-7b", "random", "smollm2-135m", "shortcut-gold-prior")}
    assert asked == {"llava-v1.6-mistral-7b": ["zero_shot", "visual"], "random": ["zero_shot", "visual"],
                     "smollm2-135m": ["zero_shot"], "shortcut-gold-prior": ["zero_shot"]}
