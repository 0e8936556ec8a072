"""MLPerf Inference v6.0: the sample of the official tree against its own summary_results.json.

The sample holds gpt-oss-120b (accuracy.txt ending in loose ``'exact_match': ...`` lines),
llama3.1-405b (``np.int64(...)`` values), qwen3-vl-235b-a22b (samples/s and queries/s, a JSON
``{"f1": ...}``) and a non-LLM benchmark (yolo-99) that must be skipped, not rejected.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from evidencepack._cli import main
from evidencepack.errors import InputError
from evidencepack.mlperf.accuracy import read_accuracy
from evidencepack.mlperf.importer import import_path
from evidencepack.mlperf.loadgen_log import DETAIL_NAME, SUMMARY_NAME
from evidencepack.mlperf.loadgen_run import parse_run
from evidencepack.mlperf.models import ImportReport
from evidencepack.mlperf.query import load_results
from evidencepack.store import Store

from .test_importer import printed_precision_equal

LLM_MODELS = ("llama", "mixtral", "deepseek", "gptj", "gpt-oss", "qwen3-vl")
# the official table's accuracy names -> accuracy.txt's keys
_TABLE_METRIC = {
    "ROUGE1": "rouge1",
    "ROUGE2": "rouge2",
    "ROUGEL": "rougeL",
    "ROUGELSUM": "rougeLsum",
    "TOKENS_PER_SAMPLE": "tokens_per_sample",
    "GEN_LEN": "gen_len",
    "F1_HIERARCHICAL": "f1",
    "exact_match": "exact_match",
}


@pytest.fixture(scope="module")
def v60(shared_data: Path) -> Path:
    return shared_data / "mlperf" / "v6.0-sample"


@pytest.fixture(scope="module")
def table(v60: Path) -> list[dict[str, Any]]:
    rows: list[dict[str, Any]] = json.loads((v60 / "summary_results.json").read_text())
    return rows


@pytest.fixture(scope="module")
def imported(v60: Path) -> Iterator[tuple[Store, ImportReport]]:
    store = Store()
    report = import_path(store, v60, round="v6.0")
    yield store, report
    store.close()


def _location(row: dict[str, Any]) -> str:
    """v6.0's table writes ``./<division>/.../<scenario>/performance/run_1``."""
    return str(Path(row["Location"]).parent.parent)


def _is_llm(row: dict[str, Any]) -> bool:
    return any(m in row["Model"] for m in LLM_MODELS)


def _table_accuracy(text: str) -> dict[str, float]:
    pairs = re.findall(r"([A-Za-z_0-9]+):\s*([-\d.eE]+)", text)
    return {_TABLE_METRIC[name]: float(value) for name, value in pairs if name in _TABLE_METRIC}


def test_llm_rows_reproduce_the_official_table(
    imported: tuple[Store, ImportReport], table: list[dict[str, Any]]
) -> None:
    store, report = imported
    assert report.rejected == ()
    ours = {r.location: r for r in load_results(store)}
    llm_rows = [row for row in table if _is_llm(row)]
    assert llm_rows
    assert {_location(row) for row in llm_rows} == set(ours)
    mismatches = []
    for row in llm_rows:
        result = ours[_location(row)]
        checks = {
            "value": printed_precision_equal(result.headline_value, row["Performance_Result"]),
            "label kept": result.official_unit_label == row["Performance_Units"],
            "scenario": result.scenario == row["Scenario"],
            "validity": result.validity == "VALID",
            "benchmark": result.benchmark == row["Model"],
            "round": result.round == "v6.0",
        }
        for metric, value in _table_accuracy(row["Accuracy"]).items():
            checks[f"accuracy {metric}"] = printed_precision_equal(
                result.accuracy.get(metric), value
            )
        mismatches.extend(f"{row['Location']}: {name}" for name, ok in checks.items() if not ok)
    assert mismatches == []


def test_non_llm_rows_are_skipped_with_the_reason(
    imported: tuple[Store, ImportReport], table: list[dict[str, Any]], v60: Path
) -> None:
    _, report = imported
    # The importer reports resolved paths (../shared may be a symlink): compare resolved ones.
    expected = {str(v60.resolve() / _location(row)) for row in table if not _is_llm(row)}
    assert expected
    assert {s.location for s in report.skipped} == expected
    for skipped in report.skipped:
        assert "not an LLM benchmark" in skipped.reason
        assert "out of scope" in skipped.reason


def test_import_of_the_round_exits_0(v60: Path, tmp_path: Path, capsys: Any) -> None:
    assert main(["mlperf", "import", str(v60), "--db", str(tmp_path / "e.duckdb")]) == 0
    out = capsys.readouterr().out
    assert "0 rejected" in out
    assert "skipped" in out


def test_v60_results_identify_their_round_by_seeds(imported: tuple[Store, ImportReport]) -> None:
    store, _ = imported
    for result in load_results(store):
        assert result.seed_round == "v6.0", result.key


def test_closed_qwen3_vl_is_checked_against_its_accuracy_target(
    imported: tuple[Store, ImportReport], v60: Path
) -> None:
    store, _ = imported
    qwen = [r for r in load_results(store) if r.benchmark == "qwen3-vl-235b-a22b"]
    assert {r.scenario for r in qwen} == {"Offline", "Server"}
    for result in qwen:
        text = v60 / result.location / "accuracy" / "accuracy.txt"
        f1 = float(re.findall(r'"f1":\s*([\d.]+)', text.read_text())[-1])
        (row,) = [c for c in result.checks if c.rule == "round.accuracy.f1"]
        assert row.status == ("pass" if f1 >= 0.7903 * 0.99 else "fail")
        assert row.actual == f"{f1:g}"


def test_gpt_oss_loose_lines_are_the_metrics(v60: Path) -> None:
    (path,) = v60.glob("open/*/results/*/gpt-oss-120b/Offline/accuracy/accuracy.txt")
    text = path.read_text()
    last = re.findall(r"^'exact_match':\s*([\d.]+)\s*$", text, flags=re.M)[-1]
    result = read_accuracy(path)
    assert result.metrics == {"exact_match": float(last)}
    assert text.splitlines()[result.metrics_line - 1].startswith("'exact_match'")
    assert result.hash == re.findall(r"^hash=(\w+)", text, flags=re.M)[-1]


def test_numpy_reprs_are_read_as_numbers(v60: Path, tmp_path: Path) -> None:
    (path,) = v60.glob("open/AMD/results/*/llama3.1-405b/Offline/accuracy/accuracy.txt")
    text = path.read_text()
    wrapped = dict(re.findall(r"'(\w+)': np\.\w+\((\d+)\)", text))
    assert wrapped
    result = read_accuracy(path)
    for key, value in wrapped.items():
        assert result.metrics[key] == float(value)
    # np.float64 too, and the numpy 1 spelling (no wrapper) gives the same metrics
    variant = tmp_path / "accuracy.txt"
    variant.write_text(re.sub(r"'rougeL': ([\d.]+)", r"'rougeL': np.float64(\1)", text))
    assert read_accuracy(variant).metrics == result.metrics
    plain = tmp_path / "plain.txt"
    plain.write_text(re.sub(r"np\.\w+\((\d+)\)", r"\1", text))
    assert read_accuracy(plain).metrics == result.metrics


@pytest.mark.parametrize(
    ("line", "expected"),
    [
        ("'exact_match': 83.5, 'tokens_per_sample': 700.1", {"exact_match": 83.5,
                                                              "tokens_per_sample": 700.1}),
        ('{"f1": 0.79}', {"f1": 0.79}),
        ("{'rouge1': np.float64(44.1), 'gen_len': np.int64(12)}", {"rouge1": 44.1,
                                                                   "gen_len": 12.0}),
    ],
)  # fmt: skip
def test_accuracy_line_variants(tmp_path: Path, line: str, expected: dict[str, float]) -> None:
    path = tmp_path / "accuracy.txt"
    path.write_text(f"Results\n\n{line}\n\nhash=abc\n")
    assert read_accuracy(path).metrics == expected


# -- SingleStream and MultiStream: whole-query early-stopping estimates, per-query percentiles --


def _latency_rows(table: list[dict[str, Any]]) -> list[dict[str, Any]]:
    return [r for r in table if r["Performance_Units"] == "Latency (ms)"]


def test_latency_scenarios_give_the_tables_headline(v60: Path, table: list[dict[str, Any]]) -> None:
    """yolo-99 is out of scope for import, but its logs are real SingleStream and MultiStream
    LoadGen 6.0 output: the headline must be the official table's, from either file."""
    rows = _latency_rows(table)
    assert {r["Scenario"] for r in rows} == {"SingleStream", "MultiStream"}
    for row in rows:
        run = v60 / row["Location"]
        both = parse_run(run / DETAIL_NAME, run / SUMMARY_NAME)  # the cross-check passes
        alone = parse_run(None, run / SUMMARY_NAME)
        for log in (both, alone):
            assert log.headline_unit == "Latency (ms)"
            assert printed_precision_equal(log.headline_value, row["Performance_Result"])
            assert log.headline_value == log.early_stopping_estimate_ms


def test_multistream_compares_per_query_percentiles(v60: Path, table: list[dict[str, Any]]) -> None:
    (row,) = [r for r in table if r["Scenario"] == "MultiStream"]
    run = v60 / row["Location"]
    detail = (run / DETAIL_NAME).read_text()
    per_query = {
        f"p{float(p):g}": int(v) / 1e6
        for p, v in re.findall(r'"result_([\d.]+)_percentile_per_query_latency_ns", "value": (\d+)',
                               detail)
    }  # fmt: skip
    assert per_query
    log = parse_run(run / DETAIL_NAME, run / SUMMARY_NAME)
    for key, value in per_query.items():
        assert log.latency_ms[key] == pytest.approx(value)


def test_a_summary_whose_estimate_disagrees_is_a_contradiction(
    v60: Path, table: list[dict[str, Any]], tmp_path: Path
) -> None:
    (row,) = [r for r in table if r["Scenario"] == "SingleStream"]
    run = v60 / row["Location"]
    text = (run / SUMMARY_NAME).read_text()
    estimate = re.search(r"Early stopping 90.0th percentile estimate: (\d+)", text)
    assert estimate
    changed = text.replace(estimate.group(0), estimate.group(0)[:-1] + "9" + "0")
    (tmp_path / SUMMARY_NAME).write_text(changed)
    with pytest.raises(InputError) as caught:
        parse_run(run / DETAIL_NAME, tmp_path / SUMMARY_NAME)
    assert any("early-stopping estimate" in p for p in caught.value.problems)


def test_without_a_whole_query_estimate_the_plain_percentile_is_the_headline(
    v60: Path, table: list[dict[str, Any]], tmp_path: Path
) -> None:
    (row,) = [r for r in table if r["Scenario"] == "SingleStream"]
    text = (v60 / row["Location"] / SUMMARY_NAME).read_text()
    # an older summary, or a token run whose blocks are TTFT and TPOT only
    variant = text.replace("Early Stopping Result:", "TTFT Early Stopping Result:")
    (tmp_path / SUMMARY_NAME).write_text(variant)
    p90 = re.search(r"^90.00 percentile latency \(ns\)\s*:\s*(\d+)", text, flags=re.M)
    assert p90
    log = parse_run(None, tmp_path / SUMMARY_NAME)
    assert log.early_stopping_estimate_ms is None
    assert log.headline_value == pytest.approx(int(p90.group(1)) / 1e6)


def test_token_singlestream_keeps_the_plain_p90(shared_data: Path) -> None:
    """v5.1 llama3.1-8b-edge: early_stopping_latency_ss is the TTFT estimate there; the table
    reports the plain 90th percentile."""
    root = shared_data / "mlperf" / "v5.1"
    rows = [
        r
        for r in json.loads((root / "summary_results.json").read_text())
        if r["Scenario"] == "SingleStream" and (root / r["Location"]).is_dir()
    ]
    assert rows
    for row in rows:
        run = root / row["Location"] / "performance" / "run_1"
        log = parse_run(run / DETAIL_NAME, run / SUMMARY_NAME)
        assert printed_precision_equal(log.headline_value, row["Performance_Result"])


def test_loose_lines_one_metric_each_are_read_together(tmp_path: Path) -> None:
    path = tmp_path / "accuracy.txt"
    path.write_text(
        "FINAL SCORE: 83.57%\n\nPrinting for submission_checker:\n\n"
        "'exact_match': 83.568\n'tokens_per_sample': 1234.5\n\nhash=abc\n"
    )
    result = read_accuracy(path)
    assert result.metrics == {"exact_match": 83.568, "tokens_per_sample": 1234.5}
    assert result.metrics_line == 5
