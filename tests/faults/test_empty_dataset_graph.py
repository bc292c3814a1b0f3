"""Through the real graph: a 5-core reviews head whose products have no metadata
ended the ingest job with exit code 0 and an empty dataset; now the run fails in one line naming
the reviews file, and no ingest output is left."""

import pytest
import yaml

from tests.data.test_amazon import _five_core_head
from tests.graph import snakemake

pytestmark = pytest.mark.slow


def test_a_5core_head_with_no_metadata_fails_the_run_in_one_line(tmp_path):
    raw = tmp_path / "raw"
    _five_core_head(raw, 100, set)
    cfg = {"seed": 1, "cache_dir": str(tmp_path / "cache"), "variants": ["zero_shot"],
           "datasets": {"amz": {"domain": "product", "format": "amazon-2018", "prefix": "Home_and_Kitchen",
                                "measures": ["kg_brand"], "source": {"path": str(raw)}}},
           "models": {"random": {"backend": "random", "seed": 0}}}
    (tmp_path / "config.yaml").write_text(yaml.safe_dump(cfg))
    proc = snakemake(tmp_path, "results/data/amz/ingest_report.json", check=False)
    assert proc.returncode != 0
    log = (tmp_path / "logs/ingest/amz.log").read_text()
    hits = [line for line in log.splitlines() if "none of the 100 reviews'" in line]
    assert len(hits) == 1 and "Home_and_Kitchen_5.json" in hits[0] and "has a metadata row" in hits[0], log
    assert "Traceback" not in log
    assert not (tmp_path / "results/data/amz").exists() or not any((tmp_path / "results/data/amz").iterdir())
