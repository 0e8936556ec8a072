"""MLPerf Power: the Lenovo 8xB200 llama3.1-8b Offline + Server pair against the official v5.1
table, the power checks re-applied, located errors, and the energy figures the analysis takes."""

from __future__ import annotations

import json
import shutil
from collections.abc import Iterator
from pathlib import Path

import pytest

from evidencepack._cli import main
from evidencepack.mlperf.energy import energy_figures
from evidencepack.mlperf.importer import import_path
from evidencepack.mlperf.models import ImportReport, MlperfResult
from evidencepack.mlperf.query import load_results
from evidencepack.store import Store

from .conftest import replace_in
from .test_importer import printed_precision_equal

LENOVO = "closed/Lenovo/results/SR780a_V3_B200SXMx8_TRT/llama3.1-8b"


@pytest.fixture(scope="module")
def power_tree(shared_data: Path) -> Path:
    return shared_data / "mlperf" / "v5.1-power"


@pytest.fixture(scope="module")
def imported(power_tree: Path) -> Iterator[tuple[dict[str, MlperfResult], ImportReport]]:
    with Store() as store:
        report = import_path(store, power_tree, round="v5.1")
        yield {r.scenario: r for r in load_results(store)}, report


def test_the_pair_reports_the_official_watts(
    imported: tuple[dict[str, MlperfResult], ImportReport], shared_data: Path
) -> None:
    results, report = imported
    assert report.rejected == ()
    table = json.loads((shared_data / "mlperf" / "v5.1" / "summary_results.json").read_text())
    rows = {r["Scenario"]: r for r in table if r["Location"].startswith(LENOVO)}
    assert set(rows) == set(results) == {"Offline", "Server"}
    for scenario, row in rows.items():
        power = results[scenario].power
        assert power is not None
        assert power.source == "measured"
        assert power.metric_unit == row["Power_Units"] == "Watts"
        assert printed_precision_equal(power.metric_value, row["Power_Result"])
        assert power.average_watts == power.metric_value
        assert printed_precision_equal(results[scenario].headline_value, row["Performance_Result"])
    offline = results["Offline"].power
    assert offline is not None
    assert (offline.window_begin, offline.window_end) == (
        "08-01-2025 00:39:24.362",
        "08-01-2025 00:50:04.745",
    )
    assert offline.readings == 640
    assert offline.window_s == pytest.approx(640.383)


def test_power_checks_rerun(imported: tuple[dict[str, MlperfResult], ImportReport]) -> None:
    results, _ = imported
    for result in results.values():
        rows = {c.rule: c for c in result.checks}
        assert rows["power.files"].status == "pass"
        assert rows["power.session"].status == "pass"
        assert rows["power.window"].status == "pass"
        # the sample rewrote the submitter's folder names in three logs (MANIFEST): their
        # SHA-1 no longer matches what the power client and server recorded
        hashes = rows["power.file_hashes"]
        assert hashes.status == "fail"
        assert "differ: power/client.log, power/ptd_logs.txt, power/server.log" in hashes.actual


def test_energy_per_million_tokens(imported: tuple[dict[str, MlperfResult], ImportReport]) -> None:
    results, _ = imported
    offline = results["Offline"]
    figures = energy_figures(offline)
    assert figures is not None
    assert offline.tokens_per_s is not None
    assert figures.average_watts == pytest.approx(9436.05296875)
    assert figures.kwh_per_million_tokens == pytest.approx(
        9436.05296875 / offline.tokens_per_s * 1e6 / 3.6e6
    )
    assert figures.scope.startswith("whole system")
    assert figures.source == "measured"


def test_show_and_list_carry_power(power_tree: Path, tmp_path: Path, capsys) -> None:  # type: ignore[no-untyped-def]
    db = tmp_path / "e.duckdb"
    main(["mlperf", "import", str(power_tree), "--db", str(db), "--round", "v5.1"])
    capsys.readouterr()
    key = "v5.1/closed/Lenovo/SR780a_V3_B200SXMx8_TRT/llama3.1-8b/Server"
    assert main(["mlperf", "show", key, "--db", str(db)]) == 0
    out = capsys.readouterr().out
    assert "  figure         9011.07 Watts" in out
    assert "  per 1M tokens  " in out
    assert main(["mlperf", "list", "--db", str(db), "--json"]) == 0
    rows = {r["key"]: r for r in json.loads(capsys.readouterr().out)["results"]}
    assert rows[key]["power_watts"] == pytest.approx(9011.066666666662)
    assert rows[key]["power_unit"] == "Watts"
    assert rows[key]["power_source"] == "measured"


def _copy(power_tree: Path, tmp_path: Path) -> Path:
    tree = tmp_path / "v5.1"
    shutil.copytree(power_tree / "closed", tree / "closed")
    return tree


def test_readings_that_do_not_cover_the_window_are_a_located_error(
    power_tree: Path, tmp_path: Path
) -> None:
    tree = _copy(power_tree, tmp_path)
    spl = tree / LENOVO / "Offline" / "performance" / "run_1" / "spl.txt"
    lines = spl.read_text(encoding="utf-8").splitlines(keepends=True)
    spl.write_text("".join(lines[: len(lines) // 2]), encoding="utf-8")
    with Store() as store:
        report = import_path(store, tree)
    (rejected,) = report.rejected
    assert rejected.reason.startswith(f"{spl}:1-{len(lines) // 2}: the readings")
    assert "do not cover LoadGen's power window 00:39:24.362000..00:50:04.745000" in rejected.reason
    assert "mlperf_log_detail.txt:71)" in rejected.reason


def test_a_reading_that_is_not_a_number_is_located(power_tree: Path, tmp_path: Path) -> None:
    tree = _copy(power_tree, tmp_path)
    spl = tree / LENOVO / "Server" / "performance" / "run_1" / "spl.txt"
    replace_in(spl, "Watts,2493.", "Watts,x2493.")
    with Store() as store:
        report = import_path(store, tree)
    (rejected,) = report.rejected
    assert rejected.reason == f"{spl}:1: not a 'Time,<time>,Watts,<W>,...' reading"


def test_window_outside_the_testing_phase_fails(power_tree: Path, tmp_path: Path) -> None:
    tree = _copy(power_tree, tmp_path)
    server = tree / LENOVO / "Offline" / "performance" / "power" / "server.json"
    data = json.loads(server.read_text(encoding="utf-8"))
    data["phases"]["testing"][-1][0] -= 60  # the testing phase now ends before power_end
    server.write_text(json.dumps(data), encoding="utf-8")
    with Store() as store:
        import_path(store, tree)
        offline = next(r for r in load_results(store) if r.scenario == "Offline")
    row = {c.rule: c for c in offline.checks}["power.window"]
    assert row.status == "fail"
    assert not offline.checks_ok


def test_the_official_table_power_row_is_checked(
    power_tree: Path, shared_data: Path, tmp_path: Path
) -> None:
    """The pair beside v5.1's own table: each figure is held to the table's power row."""
    tree = _copy(power_tree, tmp_path)
    shutil.copy(shared_data / "mlperf" / "v5.1" / "summary_results.json", tree)
    with Store() as store:
        import_path(store, tree)
        results = {r.scenario: r for r in load_results(store)}
    for scenario, watts in (("Offline", 9436.05296875), ("Server", 9011.0666666667)):
        power = results[scenario].power
        assert power is not None
        assert (power.table_value, power.table_unit) == (watts, "Watts")
        row = {c.rule: c for c in results[scenario].checks}["power.official_table"]
        assert row.status == "pass", row
    assert results["Offline"].round_source == "folder"
