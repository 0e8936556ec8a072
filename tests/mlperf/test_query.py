"""Reading results back: by key, and the filtered listing behind 'mlperf list'."""

from __future__ import annotations

from pathlib import Path

import pytest

from evidencepack.errors import StoreError
from evidencepack.mlperf.importer import import_path
from evidencepack.mlperf.query import list_results, load_results
from evidencepack.store import Store


@pytest.fixture
def store(v51: Path, shared_data: Path):  # type: ignore[no-untyped-def]
    with Store() as store:
        import_path(store, v51 / "closed" / "AMD")
        import_path(store, v51 / "closed" / "Intel")
        import_path(store, shared_data / "loadgen")
        yield store


def test_filters_are_case_insensitive_and_ordered(store: Store) -> None:
    rows = list_results(store, benchmark="LLAMA2-70B", scenario="interactive", accelerator="mi325x")
    keys = [r.key for r in rows]
    assert keys == sorted(keys)
    assert keys
    assert all(r.scenario == "Interactive" and "MI325X" in (r.accelerator or "") for r in rows)
    assert {r.benchmark for r in rows} == {"llama2-70b-99", "llama2-70b-99.9"}


def test_folder_name_and_family_filters(store: Store) -> None:
    by_folder = list_results(store, benchmark="llama3_1-8b")
    assert by_folder
    assert {r.benchmark for r in by_folder} == {"llama3.1-8b"}
    assert {r.accelerators_total for r in by_folder} == {0, 4}  # CPU-only and Arc B60 systems
    # the canonical name is also the model family, which takes in the edge benchmark
    by_family = list_results(store, benchmark="llama3.1-8b")
    assert {r.benchmark for r in by_family} == {"llama3.1-8b", "llama3.1-8b-edge"}
    assert set(by_folder) < set(by_family)
    assert [r.key for r in list_results(store, benchmark="llama3.1-8b-edge")] == [
        r.key for r in by_family if r.benchmark == "llama3.1-8b-edge"
    ]


def test_loadgen_rows_have_no_hardware(store: Store) -> None:
    rows = {r.key: r for r in list_results(store, benchmark="gptj")}
    assert sorted(rows) == ["loadgen/gptj_Offline_perf", "loadgen/gptj_Server_perf"]
    assert rows["loadgen/gptj_Server_perf"].accelerators_total is None


def test_no_match_is_empty(store: Store) -> None:
    assert list_results(store, scenario="MultiStream") == []
    assert load_results(store, []) == []


def test_a_corrupted_record_is_a_store_error(store: Store) -> None:
    store.execute(
        "UPDATE mlperf_results SET record = '{\"key\": 1}' WHERE key = 'loadgen/gptj_Server_perf'"
    )
    with pytest.raises(StoreError, match="loadgen/gptj_Server_perf does not match"):
        load_results(store, ["loadgen/gptj_Server_perf"])
