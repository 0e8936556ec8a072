"""Every endpoint-output shape of MLPerf Inference v6.1, the 20 MB legacy results.json included."""

from __future__ import annotations

import json
import math
import shutil
import tracemalloc
from pathlib import Path

import pytest

from evidencepack.mlperf.endpoint_result import read_endpoint_run
from evidencepack.mlperf.endpoint_shapes import read_legacy_results
from evidencepack.mlperf.importer import import_path
from evidencepack.mlperf.query import load_results
from evidencepack.store import Store

SERVER = "closed/Lambda/results/{}/qwen3-vl-235b-a22b/Server"
B200 = "B200-SXM-180GBx8_TRT"
GB300 = "GB300-NVL4_GB300-288GB_aarch64x4"
RESPONSES = 48_289


@pytest.fixture(scope="module")
def shapes(shared_data: Path) -> Path:
    return shared_data / "mlperf" / "v6.1-endpoint-shapes"


def _tree(shapes: Path, tmp_path: Path, fork: str, systems: list[str], v61: Path) -> Path:
    """A copy of one fork's Lambda results with a systems JSON per system (the shapes folder
    has none; any v6.1 system description will do for reading the performance files)."""
    root = tmp_path / fork
    shutil.copytree(shapes / fork, root)
    (root / "closed/Lambda/systems").mkdir()
    some = next((v61 / "closed").glob("*/systems/*.json"))
    for system in systems:
        shutil.copy(some, root / "closed/Lambda/systems" / f"{system}.json")
    return root


def _full_size_legacy(run: Path) -> Path:
    """The legacy results.json at full size: the stored header, then 48,289 inline responses
    (about 20.6 MB, as Lambda's original), closed as the client closes it."""
    truncated = run / "results.TRUNCATED.json"
    head = truncated.read_text(encoding="utf-8")
    truncated.unlink()
    cut = head.index('"responses": {') + len('"responses": {')
    response = json.dumps(
        '{\n  "category": "Furniture > Office Furniture > Workstations & Cubicles",\n'
        '  "brand": "VERSARE",\n  "is_secondhand": false\n}' + " " * 250
    )
    out = run / "results.json"
    with out.open("w", encoding="utf-8") as handle:
        handle.write(head[:cut])
        for i in range(RESPONSES):
            handle.write(("," if i else "") + f'\n    "{i:032x}": {response}')
        handle.write("\n  }\n}\n")
    return out


def test_the_legacy_results_json_is_read_in_bounded_memory(
    shapes: Path, shared_data: Path, tmp_path: Path
) -> None:
    root = _tree(shapes, tmp_path, "mlcommons-4bb63cd", [B200], shared_data / "mlperf/v6.1-sample")
    run = root / SERVER.format(B200) / "performance/run_1"
    legacy = _full_size_legacy(run)
    assert legacy.stat().st_size > 20_000_000
    tracemalloc.start()
    try:
        found = read_legacy_results(legacy, str(legacy))
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert found["responses"] == RESPONSES
    assert peak < 2_000_000, peak  # a 20 MB file; never held as text or objects
    with Store() as store:
        report = import_path(store, root)
        (result,) = load_results(store)
    assert report.rejected == ()
    # the header's figures, by hand
    assert result.query_count == RESPONSES
    assert result.samples_per_s == pytest.approx(69.41536196217709)
    assert result.accuracy == {"shopify_product_catalogue::q3vl": pytest.approx(0.7878950642363143)}
    assert result.validity == "VALID"
    assert result.tokens_per_s is None  # the legacy file counts no tokens


def test_a_legacy_file_cut_short_is_refused_naming_it(
    shapes: Path, shared_data: Path, tmp_path: Path
) -> None:
    root = _tree(shapes, tmp_path, "mlcommons-4bb63cd", [B200], shared_data / "mlperf/v6.1-sample")
    run = root / SERVER.format(B200) / "performance/run_1"
    (run / "results.TRUNCATED.json").rename(run / "results.json")
    with Store() as store:
        report = import_path(store, root)
    (rejected,) = report.rejected
    assert "results.json: not valid JSON" in rejected.reason
    assert "cut short" in rejected.reason


def test_the_plural_results_summary_and_the_metrics_snapshot(
    shapes: Path, shared_data: Path, tmp_path: Path
) -> None:
    root = _tree(
        shapes, tmp_path, "intel-ai-tce-5174fca", [B200, GB300], shared_data / "mlperf/v6.1-sample"
    )
    with Store() as store:
        report = import_path(store, root)
        results = {r.system: r for r in load_results(store)}
    assert report.rejected == ()
    plural = results[B200]
    # results_summary.json 0.1.0: no tps, so output tokens / duration, by hand
    assert plural.tokens_per_s == pytest.approx(2_072_536 / 695.652930922)
    assert plural.ttft_ms["p50"] == pytest.approx(515.330814)
    assert plural.accuracy["shopify_product_catalogue::q3vl"] == pytest.approx(0.78789506)
    snapshot = results[GB300]
    # report.txt: QPS 64.62, TPS 2772.98 (over the LoadGen window, 747.21 s; it cuts to two
    # decimals: 48,289 / 747.209 s = 64.626)
    assert math.floor((snapshot.samples_per_s or 0) * 100) / 100 == 64.62
    assert math.floor((snapshot.tokens_per_s or 0) * 100) / 100 == 2772.98
    assert snapshot.query_count == RESPONSES
    assert round(snapshot.ttft_ms["mean"], 2) == 734.44  # report.txt "Avg.: 734.44 ms"
    assert snapshot.validity == "VALID"
    run = read_endpoint_run(
        root / SERVER.format(GB300) / "performance/run_1/metrics_final_snapshot.json"
    )
    assert (run.issued, run.completed, run.failed) == (RESPONSES, RESPONSES, 0)
