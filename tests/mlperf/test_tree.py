"""Finding results: v5.1 and v4.x trees, the v6 sample layout, LoadGen folders."""

from __future__ import annotations

from pathlib import Path

from evidencepack.mlperf.tree import find_results


def test_v51_tree_finds_every_result(shared_data: Path) -> None:
    root = shared_data / "mlperf" / "v5.1"
    found = list(find_results(root))
    assert len(found) == len(list(root.rglob("mlperf_log_detail.txt"))) == 416
    assert [f.results_dir for f in found] == sorted(f.results_dir for f in found)
    assert {f.round_dir for f in found} == {"v5.1"}
    assert {f.division for f in found} == {"closed", "open"}
    assert all(f.detail and f.summary and f.system_json and f.measurements for f in found)


def test_v51_compliance_and_measurements_folders(shared_data: Path) -> None:
    root = shared_data / "mlperf" / "v5.1"
    location = "closed/AMD/results/8xMI300X_2xEPYC_9575F/llama2-70b-99/Interactive"
    (found,) = find_results(root / location)
    assert found.location == location
    assert (found.submitter, found.system, found.benchmark_dir) == (
        "AMD",
        "8xMI300X_2xEPYC_9575F",
        "llama2-70b-99",
    )
    base = (root / "closed/AMD").resolve()  # the walker reports resolved paths
    tail = "8xMI300X_2xEPYC_9575F/llama2-70b-99/Interactive"
    assert found.test06 == base / "compliance" / tail / "TEST06/verify_accuracy.txt"
    assert found.measurements == base / "measurements" / tail / "8xMI300X_2xEPYC_9575F.json"
    assert found.user_conf == base / "measurements" / tail / "user.conf"


def test_a_run_folder_inside_a_tree_is_its_result(shared_data: Path) -> None:
    run = (
        shared_data
        / "mlperf/v5.1/closed/AMD/results/8xMI300X_2xEPYC_9575F/llama2-70b-99/Offline"
        / "performance/run_1"
    )
    (found,) = find_results(run)
    assert found.in_tree
    assert found.results_dir == run.parent.parent.resolve()


def test_v41_lowercase_scenarios_and_measurement_names(shared_data: Path) -> None:
    found = {f.location: f for f in find_results(shared_data / "mlperf" / "v4.1")}
    neural = [f for f in found.values() if f.submitter == "NeuralMagic"]
    assert sorted(f.scenario_dir for f in neural) == ["offline", "server"]
    for f in neural:
        assert f.measurements is not None
        assert f.measurements.name == f"{f.system}.json"  # not cpu_info.json beside it
    nvidia = [f for f in found.values() if f.submitter == "NVIDIA"]
    assert all(f.detail is None and f.summary is not None for f in nvidia)
    assert {f.measurements.name for f in nvidia if f.measurements} == {
        "H200-SXM-141GBx8_TRT_Offline.json",
        "H200-SXM-141GBx8_TRT_Server.json",
    }


def test_v6_sample_layout(shared_data: Path) -> None:
    found = {f.scenario_dir: f for f in find_results(shared_data / "formats" / "mlperf")}
    assert sorted(found) == ["Interactive", "Offline", "Server"]
    server = found["Server"]
    # v6: measurements.json and user.conf sit in the results folder itself
    assert server.measurements == server.results_dir / "measurements.json"
    assert server.user_conf == server.results_dir / "user.conf"
    assert server.detail is None
    assert server.summary is None
    assert found["Offline"].detail is None
    assert found["Offline"].summary is not None
    assert all(f.division is None and f.round_dir is None for f in found.values())
    assert found["Interactive"].location == (
        "AMD/results/8xMI300X_2xEPYC_9575F/llama2-70b-99.9/Interactive"
    )


def test_loadgen_folders_outside_a_tree(shared_data: Path) -> None:
    found = list(find_results(shared_data / "loadgen"))
    assert [f.location for f in found] == sorted(
        p.name for p in (shared_data / "loadgen").iterdir() if p.is_dir()
    )
    assert not any(f.in_tree for f in found)
    (one,) = find_results(shared_data / "loadgen" / "gptj_Server_perf")
    assert one.detail is not None
    assert one.detail.name == "mlperf_log_detail.txt"


def test_nothing_found_in_an_unrelated_folder(tmp_path: Path) -> None:
    (tmp_path / "results" / "x").mkdir(parents=True)
    (tmp_path / "notes.txt").write_text("no logs here", encoding="utf-8")
    assert list(find_results(tmp_path)) == []
