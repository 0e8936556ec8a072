"""MLPerf Endpoints: the checker's corpus in v1.0 and v0.7 layouts, the docs' worked examples."""

from __future__ import annotations

import csv
import datetime as dt
import json
import shutil
from pathlib import Path
from typing import Any

import pytest

from evidencepack._cli import main
from evidencepack.mlperf.context import ImportContext
from evidencepack.mlperf.endpoints_build import build_curve
from evidencepack.mlperf.endpoints_checks import publication_checks
from evidencepack.mlperf.endpoints_import import load_endpoints
from evidencepack.mlperf.endpoints_models import EndpointsCurve
from evidencepack.mlperf.endpoints_power import provisioned_power, tps_per_kw
from evidencepack.mlperf.endpoints_read import accuracy_scores, find_endpoints
from evidencepack.mlperf.endpoints_rules import compute_regions
from evidencepack.mlperf.importer import import_path
from evidencepack.store import Store

from .conftest import replace_in

VALID_V10 = "endpoints/v1.0/Standardized/valid_standardized/acme_h100x8_001/llama3_1-8b"
VALID_V07 = "endpoints/v0.7/Standardized/valid_standardized/acme_h100x8_001/llama3_1-8b"
CURVE = "valid_standardized/results/acme_h100x8_001/llama3_1-8b"


@pytest.fixture(scope="module")
def endpoints(shared_data: Path) -> Path:
    return shared_data / "mlperf" / "endpoints"


@pytest.fixture(scope="module")
def v10(endpoints: Path) -> Path:
    return endpoints / "submission-cli-1.5.3.0" / "test_submissions"


@pytest.fixture(scope="module")
def v07(endpoints: Path) -> Path:
    return endpoints / "submission-cli-0.1.4.2" / "test_submissions"


def _curves(path: Path) -> dict[str, EndpointsCurve]:
    return {
        c.submission: c for c in (build_curve(f, ImportContext()) for f in find_endpoints(path))
    }


def _one(path: Path) -> EndpointsCurve:
    (curve,) = _curves(path).values()
    return curve


def _failed(curve: EndpointsCurve) -> set[str]:
    return {c.rule for c in curve.failed}


def test_the_valid_submission_imports_in_v10_with_the_files_figures(
    v10: Path, tmp_path: Path, capsys: Any
) -> None:
    db = tmp_path / "e.duckdb"
    assert main(["mlperf", "import", str(v10 / "valid_standardized"), "--db", str(db)]) == 0
    assert "imported 1 result(s)" in capsys.readouterr().out
    with Store(db) as store:
        (curve,) = load_endpoints(store, [VALID_V10])
    assert curve.failed == ()
    assert [p.concurrency for p in curve.points] == [16, 20, 88, 256, 512, 768, 1000]
    # r256 by hand from result_summary.json (ns), point.yaml and accuracy_results.json
    r256 = next(p for p in curve.points if p.concurrency == 256)
    assert r256.system_tps == 4000.0
    assert r256.tps_per_user == 181.8182  # as stated; 1000 / 5.5 ms
    assert r256.ttft_p90_ms == pytest.approx(197.14)
    assert r256.ttft_ms == pytest.approx({"50": 102.5, "90": 197.14, "95": 220.8})
    assert r256.tpot_p90_ms == pytest.approx(5.5)
    assert r256.tpot_ms == pytest.approx({"50": 4.0, "90": 5.5, "95": 6.0, "99": 6.5})
    assert (r256.issued, r256.completed, r256.failed) == (20000, 20000, 0)
    assert r256.duration_s == 1200.0
    assert r256.output_tokens == 4_800_000.0
    assert r256.accuracy["llm-perf-dataset-v1/rouge1"] == 45.12
    assert r256.tps_per_user_v07 is None
    assert r256.ttft_p99_ms is None
    assert (r256.steady_status, r256.steady_verdict, r256.window_s) == (
        "windowable",
        "STEADY STATE",
        1200.0,
    )
    assert r256.window_super_passes == (1, 4)
    assert r256.steady_official
    assert r256.region == "high"
    # system_power.json: (2 x 350 + 8 x 700 + 1 x 3,500) x 1.50 (air) = 14,700 W
    assert curve.power.watts == pytest.approx(14_700.0)
    assert curve.power.tier == "computed"
    assert r256.tps_per_kw == pytest.approx(4000 / 14.7)
    assert curve.regions is not None
    assert (curve.regions.c_max, curve.regions.c_min) == (1000, 16)
    assert curve.points[-1].offline == "elected"
    assert curve.accelerators_total == 8
    assert curve.model_name == "llama3.1-8b"
    assert curve.availability == "Available"


def test_the_valid_submission_imports_in_v07_under_its_own_definitions(v07: Path) -> None:
    with Store() as store:
        report = import_path(store, v07 / "valid_standardized")
        (curve,) = load_endpoints(store, [VALID_V07])
    assert report.rejected == ()
    assert curve.layout == "v0.7"
    assert curve.failed == ()
    point = next(p for p in curve.points if p.concurrency == 38)
    # run_metadata.json by hand: system_tps 306.94, tps_per_user 2.4 (v0.7's definition),
    # ttft 312.5 (TTFT p99): never stored under the v1.0 names
    assert point.system_tps == 306.94
    assert point.tps_per_user_v07 == 2.4
    assert point.tps_per_user is None
    assert point.ttft_p99_ms == 312.5
    assert point.ttft_p90_ms is None
    assert point.ttft_ms["90"] == 280.0
    assert point.ttft_ms["99.9"] == 316.572
    assert point.tpot_p90_ms == 5.5
    assert point.accuracy == {
        "llm-perf-dataset-v1/rouge1": 45.12,
        "llm-perf-dataset-v1/rouge2": 22.01,
        "llm-perf-dataset-v1/rougeL": 30.45,
    }
    assert curve.power.watts is None
    assert "system_tps / concurrency" in curve.definitions


def test_percentile_keys_written_with_a_decimal_point_read_the_same(
    v10: Path, tmp_path: Path
) -> None:
    tree = tmp_path / "valid_standardized"
    shutil.copytree(v10 / "valid_standardized", tree)
    summary = tree / "results/acme_h100x8_001/llama3_1-8b/r256/result_summary.json"
    text = summary.read_text(encoding="utf-8")
    for key in ("50", "90", "95", "99"):
        text = text.replace(f'"{key}":', f'"{key}.0":')
    summary.write_text(text, encoding="utf-8")
    assert '"90.0":' in text
    curve = _one(tmp_path)
    r256 = next(p for p in curve.points if p.concurrency == 256)
    assert r256.ttft_p90_ms == pytest.approx(197.14)
    assert r256.tpot_ms == pytest.approx({"50": 4.0, "90": 5.5, "95": 6.0, "99": 6.5})
    assert curve.failed == ()


# The rule each broken submission of the corpus breaks, as the checker's messages name it.
BROKEN = {
    "invalid_submission": {"model-name-valid", "point-count", "low-concurrency-coverage"},
    "sub_a": {"point-duration"},  # r16 is Low Concurrency (C_min 4): 600 s < 1,200 s
    "sub_b": {"point-duration"},
    "sub_c": {"model-name-valid", "point-duration"},
    "sub_d": {"model-name-valid", "point-duration"},
    "sub_e": {"model-name-valid", "point-duration"},
    "sub_f": {"model-name-valid", "point-duration"},
    "sub_g": {"ultra-low-concurrency-coverage", "model-name-valid"},
    "sub_h": {"ultra-low-concurrency-coverage", "model-name-valid"},
    "sub_i": {"point-duration"},
    "sub_j": {"low-concurrency-coverage", "accuracy-coverage"},
}


def test_each_broken_submission_is_flagged_with_the_checkers_rule(v10: Path) -> None:
    curves = _curves(v10)
    assert set(curves) == {*BROKEN, "valid_standardized"}
    assert curves["valid_standardized"].failed == ()
    for submission, rules in BROKEN.items():
        assert rules <= _failed(curves[submission]), submission
    # sub_j's Low Concurrency for C_max 16,384 and C_min 32 is 33-57: no point there
    low = next(c for c in curves["sub_j"].failed if c.rule == "low-concurrency-coverage")
    assert low.expected == "at least one point in Low Concurrency (33-57)"
    assert low.severity == "reject"
    sub_a = next(c for c in curves["sub_a"].failed if c.rule == "point-duration")
    assert (sub_a.point, sub_a.severity) == (16, "flag")


def test_the_region_table_of_the_rules_reproduces(endpoints: Path) -> None:
    table = endpoints / "submission-cli-1.5.3.0" / "regions_appendix_b.tsv"
    with table.open(encoding="utf-8") as handle:
        rows = list(csv.DictReader(handle, delimiter="\t"))
    assert len(rows) == 14
    for row in rows:
        bounds = compute_regions(int(row["c_max"]), int(row["c_min"]))
        got = {
            "low_latency": bounds.ultra_low,
            "low_concurrency": bounds.low,
            "med_concurrency": bounds.medium,
            "high_concurrency": bounds.high,
            "margin": bounds.margin,
        }
        for column, span in got.items():
            assert row[column] == f"{span[0]}-{span[1]}", (row, column)
    # the docs' worked examples: C_max 1,024 and 256
    b1024 = compute_regions(1024, 32)
    assert (b1024.low, b1024.medium, b1024.high, b1024.margin) == (
        (33, 42),
        (43, 131),
        (132, 1024),
        (1025, 1127),
    )
    b256 = compute_regions(256, 8)
    assert (b256.low, b256.medium, b256.high, b256.margin) == (
        (9, 14),
        (15, 47),
        (48, 256),
        (257, 282),
    )
    with pytest.raises(ValueError, match="C_max must be > 32"):
        compute_regions(32, 8)


def test_the_power_worked_example_reproduces() -> None:
    example = {
        "cpu": {"count": 2, "tdp_per_unit": 350, "link": "https://vendor.example/cpu-spec"},
        "accelerator": {"count": 8, "tdp_per_unit": 700, "link": "https://vendor.example/a"},
        "scale_up_network": {"count": 1, "tdp_per_unit": 3500, "link": "https://vendor.example/s"},
        "overhead_fraction": 0.30,
    }
    power = provisioned_power(example, "system_power.json")
    assert power.watts == pytest.approx(12_740.0)
    assert power.tier == "computed"
    assert round(tps_per_kw(25_000.0, power) or 0) == 1962
    declared = provisioned_power({"provisioned_power_w": 9000}, "p.json")
    assert (declared.watts, declared.tier) == (9000.0, "declared")
    # the checker's node_sets shape with an MLCommons default: MLC Estimated Power
    estimated = provisioned_power(
        {
            "cooling": "liquid",
            "node_sets": [
                {
                    "nodes_provisioned": 1,
                    "power_method": "component_sum",
                    "components": {
                        "cpu": {"count_per_node": 2, "tdp_per_unit": {"value_w": 350}},
                        "accelerator": {
                            "count_per_node": 8,
                            "tdp_per_unit": {"value_w": 700, "source_type": "mlc_default"},
                        },
                        "scale_up_network": {
                            "method": "declared_tdp",
                            "switch_count": 1,
                            "tdp_per_switch": {"value_w": 3500},
                        },
                    },
                }
            ],
        },
        "p.json",
    )
    assert (estimated.watts, estimated.tier) == (pytest.approx(12_740.0), "mlc_estimated")
    assert provisioned_power(None, None).problems == ("no system_power.json",)


def _copy_valid(v10: Path, tmp_path: Path) -> Path:
    shutil.copytree(v10 / "valid_standardized", tmp_path / "valid_standardized")
    return tmp_path / CURVE


def test_the_offline_98_percent_rule(v10: Path, tmp_path: Path) -> None:
    curve_dir = _copy_valid(v10, tmp_path)
    replace_in(curve_dir / "r1000/point.yaml", "offline: elected\n", "")
    offline = curve_dir / "r13368"
    shutil.copytree(curve_dir / "r1000", offline)
    replace_in(offline / "point.yaml", "concurrency: 1000\n", "concurrency: 13368\n")
    text = (offline / "point.yaml").read_text(encoding="utf-8")
    (offline / "point.yaml").write_text("offline: dedicated\n" + text, encoding="utf-8")
    # 0.98 x 4,500 (the C_max point) = 4,410: 4,400 falls short
    replace_in(offline / "result_summary.json", '"system_tps": 4500.0', '"system_tps": 4400.0')
    curve = _one(tmp_path)
    rule = next(c for c in curve.checks if c.rule == "offline-ordering")
    assert (rule.status, rule.point, rule.severity) == ("fail", 13368, "flag")
    assert "4410" in rule.expected
    assert next(p for p in curve.points if p.concurrency == 13368).region == "offline"
    replace_in(offline / "result_summary.json", '"system_tps": 4400.0', '"system_tps": 4420.0')
    rule = next(c for c in _one(tmp_path).checks if c.rule == "offline-ordering")
    assert rule.status == "pass"


def test_a_drifting_point_is_a_range_and_one_system_per_curve(v10: Path, tmp_path: Path) -> None:
    curve_dir = _copy_valid(v10, tmp_path)
    replace_in(curve_dir / "r256/point.yaml", "verdict: STEADY STATE", "verdict: drifting_up")
    replace_in(
        curve_dir / "r88/system_desc.json",
        '"system_name": "ACME H100x8 Node"',
        '"system_name": "B"',
    )
    replace_in(
        curve_dir / "r20/point.yaml", "duration_s: 1200.0", "duration_s: 900.0"
    )  # a Low point's window under 1,200 s
    curve = _one(tmp_path)
    r256 = next(p for p in curve.points if p.concurrency == 256)
    assert not r256.steady_official
    failed = {(c.rule, c.point) for c in curve.failed}
    assert ("steady-state-basis", 256) in failed
    assert ("system-description-consistency", None) in failed
    assert ("point-duration", 20) in failed
    consistency = next(c for c in curve.failed if c.rule == "system-description-consistency")
    assert "system_name" in consistency.actual
    (curve_dir / "r768/system_desc.json").unlink()
    (curve_dir.parent / "system_power.json").unlink()
    unpowered = _one(tmp_path)
    power = next(c for c in unpowered.failed if c.rule == "power-descriptor")
    assert (power.severity, power.actual) == ("reject", "no system_power.json")
    assert all(p.tps_per_kw is None for p in unpowered.points)
    desc = next(c for c in unpowered.failed if c.rule == "system-description-present")
    assert desc.actual == "missing at r768"


def test_publication_status_at_the_decision_date(v10: Path, tmp_path: Path) -> None:
    preview = _copy_valid(v10, tmp_path)
    for desc in preview.glob("r*/system_desc.json"):
        replace_in(
            desc,
            '"system_availability_status": "Available"',
            '"system_availability_status": "Preview", "target_availability_date": "2026-11-30"',
        )
    built = _one(tmp_path)
    assert (built.availability, built.available_by) == ("Preview", "2026-11-30")
    (before,) = publication_checks(built, dt.date(2026, 11, 1))
    assert before.status == "pass"
    (after,) = publication_checks(built, dt.date(2026, 12, 4))
    assert (after.rule, after.status) == ("publication-preview", "fail")
    assert "past its date by 4 day(s)" in after.actual
    (undated,) = publication_checks(built, None)
    assert undated.status == "skip"
    rdi = built.model_copy(update={"availability": "RDI"})
    assert [c.rule for c in publication_checks(rdi, None)] == ["publication-rdi"]
    serviced = built.model_copy(
        update={"availability": "Available", "division": "Serviced", "prices_disclosed": False}
    )
    (prices,) = publication_checks(serviced, dt.date(2026, 12, 4))
    assert (prices.rule, prices.status) == ("publication-serviced-prices", "fail")


def test_mlperf_show_names_each_points_rules(v10: Path, tmp_path: Path, capsys: Any) -> None:
    db = tmp_path / "e.duckdb"
    assert main(["mlperf", "import", str(v10 / "sub_a"), "--db", str(db)]) == 0
    capsys.readouterr()
    key = "endpoints/v1.0/Standardized/sub_a/sys_mi355x_8gpu/gpt-oss-120b"
    assert main(["mlperf", "show", key, "--db", str(db)]) == 0
    out = capsys.readouterr().out
    assert "  FAIL       point-duration                     r16     (flag)" in out
    assert "      expected >= 1200 s (low)" in out
    assert "    r4      concurrency-in-range, point-duration, steady-state-basis" in out
    assert "14,700 W provisioned (computed; cooling air, overhead 0.5)" in out
    assert main(["mlperf", "show", key, "--db", str(db), "--json"]) == 0
    shown = json.loads(capsys.readouterr().out)
    assert shown["key"] == key
    assert main(["mlperf", "list", "--db", str(db)]) == 0
    listed = capsys.readouterr().out
    assert listed.startswith("MLPerf Endpoints (curves over concurrency")
    assert (
        f"{key}\n  v1.0   7 points  accel 8     power 14,700 W (computed)  rules 2 FAIL" in listed
    )
    assert main(["mlperf", "list", "--db", str(db), "--json"]) == 0
    (row,) = json.loads(capsys.readouterr().out)["endpoints"]
    assert (row["key"], row["points"], row["power_tier"]) == (key, 7, "computed")
    assert main(["mlperf", "show", key + "x", "--db", str(db)]) == 1  # an input error
    assert "did you mean" in capsys.readouterr().err


def test_the_declared_steady_state_status_must_match_its_window(v10: Path, tmp_path: Path) -> None:
    curve_dir = _copy_valid(v10, tmp_path)
    # r512 declares windowable over super-passes 1-3 only: the trend test needs 4
    replace_in(curve_dir / "r512/point.yaml", "super_pass_end: 4", "super_pass_end: 3")
    curve = _one(tmp_path)
    failed = {(c.rule, c.point) for c in curve.failed}
    assert ("steady-state-consistency", 512) in failed
    passed = {(c.rule, c.point) for c in curve.checks if c.status == "pass"}
    assert ("steady-state-consistency", 256) in passed


def test_each_broken_submission_is_flagged_in_the_v07_layout_too(v07: Path) -> None:
    curves = _curves(v07)
    assert set(curves) == {*BROKEN, "valid_standardized"}
    valid = curves["valid_standardized"]
    assert valid.failed == ()
    assert valid.regions is not None
    # v0.7 fixed C_min at 32: Low 33-42 (r38), Medium 43-130 (r88), High 131-1000
    assert (valid.regions.c_min, valid.regions.low, valid.regions.medium) == (
        32,
        (33, 42),
        (43, 130),
    )
    for submission in BROKEN:
        assert "low-concurrency-coverage" in _failed(curves[submission]), submission
    assert "point-count" in _failed(curves["invalid_submission"])
    assert "ultra-low-concurrency-coverage" in _failed(curves["sub_g"])
    # v1.0-only rules are not judged on v0.7 results
    offline = next(c for c in valid.checks if c.rule == "offline-point-present")
    assert offline.status == "skip"
    assert offline.actual.startswith("not a v0.7 rule (v1.0 only)")


def test_accuracy_in_the_clients_own_shape(shared_data: Path) -> None:
    client = next((shared_data / "mlperf/v6.1-endpoint-shapes").rglob("accuracy_results.json"))
    scores = accuracy_scores(json.loads(client.read_text(encoding="utf-8")))
    assert scores == {"shopify_product_catalogue::q3vl": pytest.approx(0.7878950642363143)}
    assert accuracy_scores({"accuracy_scores": {"d": {"score": 0.5}}}) == {"d": 0.5}
