"""MLPerf Inference v6.1: the sample against its official ``summary.json`` (a dict of rows),
power rows kept apart from performance rows, the endpoint tool's results, and v6.1 systems."""

from __future__ import annotations

import json
import shutil
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from evidencepack._cli import main
from evidencepack.mlperf.importer import import_path
from evidencepack.mlperf.models import ImportReport
from evidencepack.mlperf.query import list_results, load_results
from evidencepack.mlperf.system import normalise_system
from evidencepack.store import Store

from .conftest import replace_in
from .test_importer import printed_precision_equal

_TABLE_METRIC = {
    "ROUGE1": "rouge1",
    "ROUGE2": "rouge2",
    "ROUGEL": "rougeL",
    "TOKENS_PER_SAMPLE": "tokens_per_sample",
}
AMD_OFFLINE = "./closed/AMD/results/8xMI355X_2xEPYC_9575F/llama2-70b-99.9/Offline/performance/run_1"
DGX = "closed/Atlas_Inference/results/DGX_Spark_GB10/qwen3.6-27b/SingleStream"
STRIX = "closed/Atlas_Inference/results/Strix_Halo/qwen3.6-27b/SingleStream"


@pytest.fixture(scope="module")
def v61(shared_data: Path) -> Path:
    return shared_data / "mlperf" / "v6.1-sample"


@pytest.fixture(scope="module")
def imported(v61: Path) -> Iterator[tuple[Store, ImportReport]]:
    store = Store()
    report = import_path(store, v61)
    yield store, report
    store.close()


def _equal(ours: float | None, printed: float) -> bool:
    """To the table's digits: v6.1 prints whole tokens/s as ``103275.0``."""
    if ours is not None and float(printed).is_integer() and round(ours) == printed:
        return True
    return printed_precision_equal(ours, printed)


def _location(row: dict[str, Any]) -> str:
    return str(Path(row["Location"]).parent.parent)


def test_import_of_the_sample_exits_0(v61: Path, tmp_path: Path, capsys: Any) -> None:
    assert main(["mlperf", "import", str(v61), "--db", str(tmp_path / "e.duckdb")]) == 0
    assert "imported 6 result(s)" in capsys.readouterr().out


def test_rows_reproduce_the_official_table(imported: tuple[Store, ImportReport], v61: Path) -> None:
    store, report = imported
    table = json.loads((v61 / "summary.json").read_text(encoding="utf-8"))
    assert isinstance(table, dict)
    assert report.rejected == ()
    ours = {r.location: r for r in load_results(store)}
    performance = [r for r in table.values() if r["Units"] not in ("Watts", "millijoules")]
    assert {_location(r) for r in performance} == set(ours)
    mismatches = []
    for row in table.values():
        result = ours[_location(row)]
        if row["Units"] in ("Watts", "millijoules"):
            power = result.power
            checks = {
                "power value": power is not None and _equal(power.metric_value, row["Result"]),
                "power unit": power is not None and power.metric_unit == row["Units"],
            }
        else:
            checks = {
                "value": _equal(result.headline_value, row["Result"]),
                "label kept": result.official_unit_label == row["Units"],
                "validity": result.validity == "VALID",
                "scenario": result.scenario == row["Scenario"],
                "benchmark": result.benchmark == row["Model"],
                "round": result.round == row["version"],
                "accelerator": result.accelerator == row["accelerator_model_name"],
            }
            pairs = [p.split(":") for p in row["Accuracy"].split("  ") if ":" in p]
            for name, value in pairs:
                metric = _TABLE_METRIC[name.strip()]
                checks[metric] = printed_precision_equal(result.accuracy.get(metric), float(value))
            # the endpoint tool's score; the excerpt holds no accuracy folder for Strix_Halo
            if not pairs and result.location != STRIX:
                checks["accuracy"] = printed_precision_equal(
                    result.accuracy.get("accuracy"), float(row["Accuracy"])
                )
        mismatches.extend(
            f"{row['Location']}: {n} {result.headline_value} {result.accuracy}"
            for n, ok in checks.items()
            if not ok
        )
    assert mismatches == []


def test_endpoint_results_of_both_layouts(imported: tuple[Store, ImportReport], v61: Path) -> None:
    store, _ = imported
    ours = {r.location: r for r in load_results(store)}
    for location in (DGX, STRIX):
        data = json.loads((v61 / location / "performance" / "result_summary.json").read_text())
        result = ours[location]
        assert result.log_source == "endpoint"
        assert result.headline_value == pytest.approx(data["latency"]["avg"] / 1e6)
        assert result.ttft_p99_ms == pytest.approx(data["ttft"]["percentiles"]["99.0"] / 1e6)
        assert result.query_count == data["n_samples_completed"]
        rows = {c.rule: c.status for c in result.checks}
        assert rows["endpoint.complete"] == rows["endpoint.failed_samples"] == "pass"
        assert rows["round.seeds"] == rows["round.min_duration"] == "pass"
    assert (
        "early_stopping_percentiles"
        in (v61 / STRIX / "performance" / "result_summary.json").read_text()
    )
    assert ours[DGX].accuracy["bfcl_v4::function_calling"] == pytest.approx(0.8723618090452261)
    accuracy = {c.rule: c for c in ours[DGX].checks}["round.accuracy"]
    assert accuracy.status == "skip"
    assert "no accuracy target known for qwen3.6-27b" in accuracy.expected


def test_system_missing_from_an_excerpt_is_read_from_the_table(
    imported: tuple[Store, ImportReport],
) -> None:
    store, _ = imported
    (strix,) = [r for r in load_results(store) if r.location == STRIX]
    assert strix.accelerator == "AMD Radeon 8060S Graphics"
    assert strix.accelerators_total == 1
    assert any("system described by the official table" in n for n in strix.notes)


def _copy(v61: Path, tmp_path: Path) -> Path:
    tree = tmp_path / "v6.1"
    shutil.copytree(v61, tree)
    return tree


def _add_rows(tree: Path, *rows: dict[str, Any]) -> None:
    path = tree / "summary.json"
    table = json.loads(path.read_text(encoding="utf-8"))
    base = next(r for r in table.values() if r["Location"] == AMD_OFFLINE)
    for number, extra in enumerate(rows, start=900):
        table[str(number)] = {**base, **extra}
    path.write_text(json.dumps(table, indent=1), encoding="utf-8")


def test_a_power_row_is_kept_apart_from_its_performance_row(v61: Path, tmp_path: Path) -> None:
    tree = _copy(v61, tmp_path)
    _add_rows(tree, {"Result": 5123.4, "Units": "Watts", "has_power": True})
    with Store() as store:
        report = import_path(store, tree)
        (amd,) = [
            r
            for r in load_results(store)
            if r.key.endswith("AMD/8xMI355X_2xEPYC_9575F/llama2-70b-99.9/Offline")
        ]
        (row,) = [r for r in list_results(store) if r.key == amd.key]
    assert report.rejected == ()
    assert amd.headline_value == pytest.approx(106517, abs=0.5)  # not the power row's 5123.4
    assert amd.power is not None
    assert (amd.power.source, amd.power.metric_value, amd.power.metric_unit) == (
        "table",
        5123.4,
        "Watts",
    )
    assert amd.power.joules_per_token == pytest.approx(5123.4 / amd.tokens_per_s)
    assert (row.power_source, row.power_watts, row.power_unit) == ("table", 5123.4, "Watts")


def test_two_power_rows_for_one_result_are_a_located_error(v61: Path, tmp_path: Path) -> None:
    tree = _copy(v61, tmp_path)
    _add_rows(tree, {"Result": 5123.4, "Units": "Watts"}, {"Result": 5200.0, "Units": "Watts"})
    db = tmp_path / "e.duckdb"
    assert main(["mlperf", "import", str(tree), "--db", str(db)]) == 1
    with Store(db) as store:
        report = import_path(store, tree)
    (rejected,) = report.rejected
    assert rejected.location.endswith("AMD/results/8xMI355X_2xEPYC_9575F/llama2-70b-99.9/Offline")
    assert f"{tree / 'summary.json'}: 2 power rows for one result" in rejected.reason
    assert "row '900', " in rejected.reason
    assert "row '901'" in rejected.reason


def test_design_power_from_the_table(v61: Path, tmp_path: Path) -> None:
    tree = _copy(v61, tmp_path)
    path = tree / "summary.json"
    replace_in(path, '"design_power_watts":null', '"design_power_watts":10200')
    with Store() as store:
        import_path(store, tree)
        watts = {r.design_power_watts for r in load_results(store)}
    assert watts == {10200.0}


def test_endpoint_run_with_failed_samples_is_invalid(v61: Path, tmp_path: Path) -> None:
    tree = _copy(v61, tmp_path)
    replace_in(
        tree / DGX / "performance" / "result_summary.json",
        '"n_samples_failed": 0',
        '"n_samples_failed": 3',
    )
    with Store() as store:
        import_path(store, tree)
        (dgx,) = [r for r in load_results(store) if r.location == DGX]
    assert dgx.validity == "INVALID"
    assert dgx.invalid_reasons == ("3 sample(s) failed",)
    assert {c.rule: c.status for c in dgx.checks}["endpoint.failed_samples"] == "fail"


def test_truncated_endpoint_result_is_rejected_with_its_place(v61: Path, tmp_path: Path) -> None:
    tree = _copy(v61, tmp_path)
    path = tree / STRIX / "performance" / "result_summary.json"
    path.write_text(path.read_text(encoding="utf-8")[:500], encoding="utf-8")
    with Store() as store:
        report = import_path(store, tree)
    (rejected,) = report.rejected
    assert rejected.reason.startswith(f"{path}:")
    assert "not valid JSON" in rejected.reason


def test_mixed_accelerators_and_design_power() -> None:
    system = normalise_system(
        {
            "accelerator_model_name": "NVIDIA H200-SXM-141GB + NVIDIA L40S",
            "accelerators_per_node": ["8", 2],
            "number_of_nodes": 2,
            "design_power_watts": "10200",
        },
        path="s.json",
        system_id="x",
    )
    assert [(t.name, t.per_node) for t in system.accelerator_types] == [
        ("NVIDIA H200-SXM-141GB", 8),
        ("NVIDIA L40S", 2),
    ]
    assert system.accelerator == "NVIDIA H200-SXM-141GB + NVIDIA L40S"
    assert (system.accelerators_per_node, system.accelerators_total) == (10, 20)
    assert system.design_power_watts == 10200.0
    bad = normalise_system({"design_power_watts": "TBD W"}, path="s.json", system_id="x")
    assert bad.design_power_watts is None
    assert bad.notes == ("design_power_watts: 'TBD W' is not a wattage",)


def test_a_mixed_accelerator_system_in_a_tree(v61: Path, tmp_path: Path, capsys: Any) -> None:
    tree = _copy(v61, tmp_path)
    system = tree / "closed" / "Atlas_Inference" / "systems" / "DGX_Spark_GB10.json"
    data = json.loads(system.read_text(encoding="utf-8"))
    data["accelerator_model_name"] = "NVIDIA GB10 + NVIDIA RTX PRO 6000"
    data["accelerators_per_node"] = ["1", "2"]
    data["design_power_watts"] = 1450
    system.write_text(json.dumps(data), encoding="utf-8")
    db = tmp_path / "e.duckdb"
    assert main(["mlperf", "import", str(tree), "--db", str(db)]) == 0
    key = "v6.1/closed/Atlas_Inference/DGX_Spark_GB10/qwen3.6-27b/SingleStream"
    capsys.readouterr()
    assert main(["mlperf", "show", key, "--db", str(db), "--json"]) == 0
    shown = json.loads(capsys.readouterr().out)
    assert shown["accelerator_types"] == [
        {"name": "NVIDIA GB10", "per_node": 1},
        {"name": "NVIDIA RTX PRO 6000", "per_node": 2},
    ]
    assert (shown["accelerators_total"], shown["design_power_watts"]) == (3, 1450.0)
    assert main(["mlperf", "show", key, "--db", str(db)]) == 0
    text = capsys.readouterr().out
    assert "  per node      1 x NVIDIA GB10, 2 x NVIDIA RTX PRO 6000" in text
    assert "  design power  1450 W" in text
