"""Importing real MLPerf trees and LoadGen runs, checked against the official round table."""

from __future__ import annotations

import json
import shutil
from collections.abc import Iterator
from decimal import Decimal
from pathlib import Path

import pytest

from evidencepack.errors import InputError
from evidencepack.mlperf.importer import import_path
from evidencepack.mlperf.models import MlperfResult
from evidencepack.mlperf.query import load_results
from evidencepack.mlperf.show import describe
from evidencepack.store import Store

from .conftest import AMD_INTERACTIVE, replace_in

LLM_MODELS = ("llama", "mixtral", "deepseek", "gptj")


@pytest.fixture(scope="module")
def v51_store(shared_data: Path) -> Iterator[Store]:
    """The whole v5.1 slice, imported once for this module."""
    store = Store()
    report = import_path(store, shared_data / "mlperf" / "v5.1")
    assert report.rejected == ()
    yield store
    store.close()


def printed_precision_equal(ours: float | None, printed: float) -> bool:
    """Our value rounded to the decimals the table prints equals the table's value."""
    if ours is None:
        return False
    exponent = Decimal(repr(printed)).as_tuple().exponent
    assert isinstance(exponent, int)
    return Decimal(repr(ours)).quantize(Decimal(1).scaleb(exponent)) == Decimal(repr(printed))


def test_v51_matches_the_official_table(v51_store: Store, shared_data: Path) -> None:
    root = shared_data / "mlperf" / "v5.1"
    table = json.loads((root / "summary_results.json").read_text(encoding="utf-8"))
    rows = [
        r
        for r in table
        if any(m in r["Model"] for m in LLM_MODELS) and (root / r["Location"]).is_dir()
    ]
    ours = {r.location: r for r in load_results(v51_store)}
    mismatches = []
    for row in rows:
        result = ours.get(row["Location"])
        if result is None:
            mismatches.append(f"{row['Location']}: not imported")
            continue
        per_node = None if row["a#"] == "" else int(row["a#"])
        # the value is compared, not the label: the table labels some tokens/s figures
        # Queries/s (llama3.1-8b Interactive); the label is kept beside the physical unit
        checks = {
            "headline": printed_precision_equal(result.headline_value, row["Performance_Result"]),
            "label kept": result.official_unit_label == row["Performance_Units"],
            "scenario": result.scenario == row["Scenario"],
            # a# is per node ("" for CPU-only systems, whose JSON says 0)
            "a#": (result.accelerators_per_node or None) == per_node,
            "nodes": result.nodes == row["Nodes"],
            "total": result.accelerators_total == (per_node or 0) * row["Nodes"],
            "precision": result.precision_raw == row["weight_data_types"],
        }
        mismatches.extend(f"{row['Location']}: {name}" for name, ok in checks.items() if not ok)
    print(f"compared {len(rows)} LLM rows of summary_results.json with the imported results")
    assert len(rows) == 416
    assert mismatches == []


def test_v51_interactive_tokens_labelled_queries(v51_store: Store) -> None:
    (dell,) = load_results(
        v51_store, ["v5.1/closed/Dell/XE9680L_B200_SXM_180GBx8_TRT/llama3.1-8b/Interactive"]
    )
    assert (dell.headline_value, dell.headline_unit) == (102907.0, "Tokens/s")
    assert dell.official_unit_label == "Queries/s"  # the official table's label
    assert dell.headline_value == dell.tokens_per_s
    shown = describe(dell)
    assert (
        "102907 Tokens/s (the official table labels it Queries/s; the figure is Tokens/s)" in shown
    )


def test_v51_keys_and_shapes(v51_store: Store) -> None:
    (amd,) = load_results(
        v51_store, ["v5.1/closed/AMD/8xMI325X_2xEPYC_9575F_1/llama2-70b-99/Server"]
    )
    assert amd.round == "v5.1"
    assert amd.round_source == "folder"
    assert (amd.division, amd.submitter, amd.benchmark, amd.model_family) == (
        "closed",
        "AMD",
        "llama2-70b-99",
        "llama2-70b",
    )
    assert amd.accelerators_total == 8
    assert amd.primary_runtime is not None
    assert amd.primary_runtime.name == "vLLM"
    assert [p.name for p in amd.platform] == ["ROCm"]
    assert "ROCm" in amd.stack_raw
    assert amd.accuracy["rouge1"] > 43.9869
    assert amd.test06 == "pass"
    roles = {s.role for s in amd.sources}
    assert roles == {
        "detail",
        "summary",
        "system",
        "measurements",
        "user_conf",
        "accuracy",
        "test06",
    }
    files = v51_store.rows(
        "SELECT count(*) AS n FROM files f JOIN mlperf_result_files r USING (sha256, path) "
        "WHERE r.key = ?",
        [amd.key],
    )
    assert files[0]["n"] == len(amd.sources)


def test_v51_interactive_is_server_with_interactive_limits(v51_store: Store) -> None:
    interactive = [r for r in load_results(v51_store) if r.scenario == "Interactive"]
    assert len(interactive) == 68
    llama = [r for r in interactive if r.model_family == "llama2-70b"]
    assert llama
    assert {r.ttft_limit_ms for r in llama} == {450.0}
    assert all(r.ttft_p99_ms is not None and r.ttft_p99_ms < 450 for r in llama)


def test_v51_open_division_names_map_to_their_benchmark(v51_store: Store) -> None:
    krai = [r for r in load_results(v51_store) if r.submitter == "Krai"]
    assert {r.benchmark for r in krai} == {"llama2-70b-99.9"}
    sglang = [r for r in krai if r.primary_runtime and r.primary_runtime.name == "SGLang"]
    assert sglang
    assert {r.primary_runtime.version for r in sglang if r.primary_runtime} == {"0.4.9"}
    assert all("summary_results.json" in " ".join(r.notes) for r in krai)
    assert {r.scenario for r in krai} == {"Offline", "Server", "Interactive"}


def test_v51_missing_accuracy_txt_is_coped_with(v51_store: Store) -> None:
    results = load_results(v51_store)
    no_accuracy = [r for r in results if not any(s.role == "accuracy" for s in r.sources)]
    assert len(no_accuracy) == 17
    for result in no_accuracy:
        (row,) = [c for c in result.checks if c.rule == "round.accuracy"]
        assert (row.status, row.actual) == ("skip", "not found")


def test_reimport_adds_no_rows(v51_store: Store, shared_data: Path) -> None:
    def counts() -> list[int]:
        tables = ("mlperf_results", "mlperf_checks", "mlperf_systems", "files")
        return [v51_store.rows(f"SELECT count(*) AS n FROM {t}")[0]["n"] for t in tables]

    before = counts()
    amd = shared_data / "mlperf" / "v5.1" / "closed" / "AMD"
    report = import_path(v51_store, amd)
    assert report.imported == ()
    assert len(report.unchanged) == len(list(amd.rglob("mlperf_log_detail.txt"))) == 18
    assert counts() == before


def test_v41_inferred_tokens_and_lowercase_folders(shared_data: Path) -> None:
    with Store() as store:
        report = import_path(store, shared_data / "mlperf" / "v4.1")
        results = {r.key: r for r in load_results(store)}
    assert report.rejected == ()
    gptj = results["v4.1/closed/NVIDIA/H200-SXM-141GBx8_TRT/gptj-99/Offline"]
    assert (gptj.headline_value, gptj.headline_unit, gptj.tokens_inferred) == (
        20086.1,
        "Tokens/s",
        True,
    )
    assert gptj.log_source == "summary"
    assert gptj.precision_raw is not None
    lowercase = results[
        "v4.1/open/NeuralMagic/4xH100-SXM-80GB_vLLM_GPTQ-reference-cpu-pytorch-v2.3.1-default_config"
        "/llama2-70b-99/Server"
    ]
    assert lowercase.location.endswith("/llama2-70b-99/server")
    assert lowercase.scenario == "Server"
    assert lowercase.headline_value == pytest.approx(1164.04, abs=0.01)
    assert lowercase.accelerators_total == 4  # "4" and "1" given as strings
    assert lowercase.primary_runtime is not None
    assert (lowercase.primary_runtime.name, lowercase.primary_runtime.version) == ("vLLM", "0.5.2")


def test_v40_transcribed_summaries(shared_data: Path) -> None:
    with Store() as store:
        report = import_path(store, shared_data / "mlperf" / "v4.0-transcribed")
        results = {r.key: r for r in load_results(store)}
    assert report.rejected == ()
    assert len(results) == 4
    assert all(r.log_source == "summary" and r.round == "v4.0" for r in results.values())
    gaudi = results["v4.0/closed/Intel-HabanaLabs/HLS-Gaudi2-PT/llama2-70b-99.9/Server"]
    assert gaudi.headline_value == 6287.47
    assert gaudi.ttft_p99_ms == pytest.approx(1621.209252)
    assert [c.name for c in gaudi.runtime] == ["PyTorch"]
    assert [(c.name, c.version) for c in gaudi.platform] == [("SynapseAI", "1.14.98")]
    tpu = results["v4.0/closed/Google/tpu_v5e_x4/gptj-99/Offline"]
    assert (tpu.headline_value, tpu.headline_unit) == (10.1502, "Samples/s")
    assert tpu.accelerators_total == 4
    assert [c.name for c in tpu.runtime] == ["Saxml", "JAX"]
    assert all(r.checks_ok for r in results.values()), [
        (r.key, [c for c in r.checks if c.status == "fail"]) for r in results.values()
    ]


def test_v6_sample_layout(shared_data: Path) -> None:
    with Store() as store:
        report = import_path(store, shared_data / "formats" / "mlperf")
        results = {r.scenario: r for r in load_results(store)}
    # the sample's Server folder holds only measurements.json and user.conf
    (missing,) = report.rejected
    assert missing.location.endswith("/llama2-70b-99.9/Server")
    assert "missing performance logs" in missing.reason
    interactive = results["Interactive"]
    # no round folder and no division folder: the seeds and the system JSON say them
    assert (interactive.round, interactive.round_source) == ("v5.1", "seeds")
    assert interactive.division == "closed"
    assert interactive.key == "v5.1/closed/AMD/8xMI300X_2xEPYC_9575F/llama2-70b-99.9/Interactive"
    assert interactive.headline_value == 8840.42
    # the sample's measurements.json sits in Server/ only (see test_tree), so none here
    assert interactive.precision is None
    assert "no measurements JSON" in interactive.notes[0]
    offline = results["Offline"]
    assert offline.log_source == "summary"
    assert offline.headline_value == 27803.9


@pytest.mark.parametrize(
    ("folder", "validity", "bench", "scenario"),
    [
        ("llama2-70b_Offline_perf", "VALID", "llama2-70b-99", "Offline"),
        ("llama2-70b_Server_perf", "VALID", "llama2-70b-99", "Server"),
        ("llama2-70b-interactive_Server_perf", "VALID", "llama2-70b-99", "Interactive"),
        ("gptj_Offline_perf", "VALID", "gptj-99", "Offline"),
        ("gptj_Server_perf", "VALID", "gptj-99", "Server"),
        ("custom_Server_overload_perf", "INVALID", None, "Server"),
    ],
)
def test_every_loadgen_run(
    shared_data: Path, folder: str, validity: str, bench: str | None, scenario: str
) -> None:
    with Store() as store:
        report = import_path(store, shared_data / "loadgen" / folder)
        (result,) = load_results(store)
    assert report.imported == (f"loadgen/{folder}",)
    assert (result.validity, result.benchmark, result.scenario) == (validity, bench, scenario)
    assert result.round is None
    if validity == "INVALID":
        assert result.invalid_reasons == (
            "TTFT constrain not met: Reduce target QPS to improve latency.",
        )
        assert not result.checks_ok
    else:
        assert result.checks_ok


def test_loadgen_folder_of_runs_skips_the_accuracy_run(shared_data: Path) -> None:
    with Store() as store:
        report = import_path(store, shared_data / "loadgen")
    assert len(report.imported) == 6
    (skipped,) = report.skipped
    assert skipped.location.endswith("llama2-70b_Offline_acc")
    assert "AccuracyOnly" in skipped.reason
    assert report.ok


# --- bad input ------------------------------------------------------------------------------


def two_results(copy_result) -> tuple[Path, Path]:  # type: ignore[no-untyped-def]
    good = copy_result(AMD_INTERACTIVE.replace("llama2-70b-99/", "llama2-70b-99.9/"))
    bad = copy_result(AMD_INTERACTIVE)
    return good, bad


def test_truncated_detail_rejects_one_result_not_the_others(copy_result, tmp_path: Path) -> None:
    good, bad = two_results(copy_result)
    detail = bad / "performance/run_1/mlperf_log_detail.txt"
    lines = detail.read_text(encoding="utf-8").splitlines(keepends=True)
    detail.write_text("".join(lines[:-3]) + lines[-3][:40], encoding="utf-8")
    with Store() as store:
        report = import_path(store, tmp_path)
        stored = store.rows("SELECT location, reason FROM mlperf_rejections ORDER BY location")
    assert report.imported == ("v5.1/closed/AMD/8xMI300X_2xEPYC_9575F/llama2-70b-99.9/Interactive",)
    (rejection,) = report.rejected
    assert rejection.problems == (
        f"{detail}:{len(lines) - 2}: truncated or invalid JSON: Unterminated string starting at "
        "(column 18)",
    )
    assert stored == [{"location": str(bad), "reason": rejection.reason}]


def test_missing_system_json_rejects(copy_result, tmp_path: Path) -> None:
    copy_result()
    system = next((tmp_path / "v5.1").rglob("systems/*.json"))
    system.unlink()
    with Store() as store:
        report = import_path(store, tmp_path)
    (rejection,) = report.rejected
    assert rejection.reason == f"{system}: missing (every result needs its system description)"


def test_unknown_benchmark_rejects(copy_result, tmp_path: Path) -> None:
    results = copy_result()
    renamed = results.parent.with_name("llama9-1t")
    shutil.move(results.parent, renamed)
    with Store() as store:
        report = import_path(store, tmp_path)
    (rejection,) = report.rejected
    assert "unknown benchmark 'llama9-1t'" in rejection.reason


def test_non_utf8_model_mapping_rejects_the_result_not_the_import(
    copy_result, tmp_path: Path
) -> None:
    results = copy_result()
    renamed = results.parent.with_name("llama9-1t")
    shutil.move(results.parent, renamed)
    mapping = renamed.parents[2] / "model_mapping.json"
    mapping.write_bytes(b'{"llama9-1t": "llama2-70b-99 \xe9"}')
    with Store() as store:
        report = import_path(store, tmp_path)
    (rejection,) = report.rejected
    assert rejection.reason.startswith(f"{mapping}: cannot read")


def test_scenario_folder_contradicting_the_log_rejects(copy_result, tmp_path: Path) -> None:
    results = copy_result()
    shutil.move(results, results.with_name("Offline"))
    with Store() as store:
        report = import_path(store, tmp_path)
    (rejection,) = report.rejected
    assert "the log ran Server but the result folder" in rejection.reason
    assert ":" in rejection.reason.split(" ")[0]  # file:line


def test_non_json_system_rejects_with_line(copy_result, tmp_path: Path) -> None:
    copy_result()
    system = next((tmp_path / "v5.1").rglob("systems/*.json"))
    replace_in(system, '"division"', "division")
    with Store() as store:
        report = import_path(store, tmp_path)
    (rejection,) = report.rejected
    assert rejection.reason.startswith(f"{system}:")
    assert "not valid JSON" in rejection.reason


def test_a_known_key_with_other_files_is_rejected(copy_result, tmp_path: Path) -> None:
    results = copy_result()
    with Store() as store:
        assert import_path(store, tmp_path).imported
        replace_in(results / "accuracy/accuracy.txt", "'rouge1': 44.4542", "'rouge1': 44.4543")
        report = import_path(store, tmp_path)
        count = store.rows("SELECT count(*) AS n FROM mlperf_results")[0]["n"]
    assert report.imported == ()
    (rejection,) = report.rejected
    assert "is already taken by an earlier import" in rejection.reason
    assert count == 1


def test_path_problems_raise(tmp_path: Path) -> None:
    with Store() as store:
        with pytest.raises(InputError, match="no such file or folder"):
            import_path(store, tmp_path / "nope")
        with pytest.raises(InputError, match="no MLPerf results here"):
            import_path(store, tmp_path)
        with pytest.raises(InputError, match="unknown MLPerf round 'v9.9'"):
            import_path(store, tmp_path, round="v9.9")


def test_load_results_by_key(v51_store: Store) -> None:
    keys = [
        "v5.1/closed/NVIDIA/B200-SXM-180GBx8_TRT/llama3.1-8b/Interactive",
        "no/such/key",
        "v5.1/closed/Intel/1-node-2S-GNR_128C/llama3_1-8b/Offline",
    ]
    found = load_results(v51_store, keys)
    assert [r.key for r in found] == sorted(keys[::2])
    intel: MlperfResult = found[0]
    assert intel.benchmark == "llama3.1-8b"
    assert intel.accelerator is None  # "N/A": a CPU system
    assert intel.accelerators_per_node == 0


def test_v50_interactive_benchmark_folder(copy_result, tmp_path: Path) -> None:
    """v5.0 named interactive runs as a benchmark with a Server folder; rebuild that shape."""
    results = copy_result()
    system = results.parent.parent
    old = system / "llama2-70b-99"
    new = system / "llama2-70b-interactive-99"
    shutil.move(old / "Interactive", old / "Server")
    shutil.move(old, new)
    submitter = system.parent.parent
    for part in ("measurements", "compliance"):
        moved = submitter / part / system.name / "llama2-70b-99"
        shutil.move(moved / "Interactive", moved / "Server")
        shutil.move(moved, moved.with_name("llama2-70b-interactive-99"))
    with Store() as store:
        report = import_path(store, tmp_path, round="v5.0")
        (result,) = load_results(store)
    assert report.rejected == ()
    assert result.key == "v5.0/closed/AMD/8xMI300X_2xEPYC_9575F/llama2-70b-interactive-99/Server"
    assert (result.benchmark, result.scenario) == ("llama2-70b-99", "Interactive")
    assert result.round_source == "argument"
    rows = {c.rule: c for c in result.checks}
    assert rows["round.ttft_p99"].expected == "< 450 ms (llama2-70b-99 Interactive)"
    assert rows["round.seeds"].status == "fail"  # a v5.1 log checked against v5.0's seeds
    assert result.test06 == "pass"
    assert result.precision == "fp8"
