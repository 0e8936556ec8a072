"""Whole rounds: non-LLM folders skipped by the checker's own name rules, v5.0's interactive
benchmark folders kept apart, and LoadGen's error rule read from a summary alone."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from evidencepack._cli import main
from evidencepack.mlperf.benchmarks import out_of_scope_benchmark
from evidencepack.mlperf.importer import import_path
from evidencepack.mlperf.loadgen_log import DETAIL_NAME, SUMMARY_NAME
from evidencepack.mlperf.query import list_results, load_results
from evidencepack.mlperf.show import describe
from evidencepack.store import Store

from .conftest import replace_in

AMD = "closed/AMD/results/8xMI300X_2xEPYC_9575F/llama2-70b-99"


@pytest.mark.parametrize(
    ("folder", "official"),
    [
        ("bert-base-pruned90-none-bert-99", "bert-99"),
        ("obert-large-pruned95-bert-99.9", "bert-99.9"),
        ("mobilenet-edgetpu", "resnet"),
        ("resnet50-int8-sparse", "resnet"),
        ("retinanet", "retinanet"),
        ("llama2-70b-99", None),
        ("llama2-70b-99-pruned", None),  # an LLM needs model_mapping.json: no guessing
    ],
)
def test_checker_guesses_non_llm_names(folder: str, official: str | None) -> None:
    assert out_of_scope_benchmark(folder) == official


def test_open_division_suffixed_bert_is_skipped_not_rejected(
    copy_result, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    results = copy_result(f"{AMD}/Interactive")
    submitter = tmp_path / "v5.1" / "open" / "Some_Org"
    bert = submitter / "results" / "sys1" / "bert-base-pruned90-none-bert-99" / "Offline"
    shutil.copytree(results, bert)
    (submitter / "systems").mkdir(parents=True)
    (submitter / "systems" / "sys1.json").write_text('{"division": "open"}', encoding="utf-8")
    db = tmp_path / "e.duckdb"
    assert main(["mlperf", "import", str(tmp_path / "v5.1"), "--db", str(db)]) == 0
    out = capsys.readouterr().out
    assert "imported 1 result(s)" in out
    assert "0 rejected, 1 skipped" in out
    assert str(bert) in out
    assert (
        "'bert-base-pruned90-none-bert-99' (the checker reads it as bert-99) is not an LLM" in out
    )


def _v50_interactive_tree(copy_result, tmp_path: Path) -> Path:
    """The v5.1 AMD system's Interactive run filed the v5.0 way (llama2-70b-interactive-99/
    Server), beside its ordinary Offline run and a copy of that Offline run filed under the
    interactive folder (what Dell published in v5.0)."""
    interactive = copy_result(f"{AMD}/Interactive")
    offline = copy_result(f"{AMD}/Offline")
    system = interactive.parent.parent
    new = system / "llama2-70b-interactive-99"
    new.mkdir()
    shutil.move(interactive, new / "Server")
    shutil.copytree(offline, new / "Offline")
    submitter = system.parent.parent
    for part in ("measurements", "compliance"):
        old = submitter / part / system.name / "llama2-70b-99"
        if (old / "Interactive").is_dir():
            shutil.move(old / "Interactive", old.with_name("llama2-70b-interactive-99") / "Server")
    return tmp_path


def test_offline_run_in_interactive_folder_is_no_second_offline_result(
    copy_result, tmp_path: Path
) -> None:
    tree = _v50_interactive_tree(copy_result, tmp_path)
    with Store() as store:
        report = import_path(store, tree, round="v5.0")
        plain = list_results(store, benchmark="llama2-70b-99")
        family = list_results(store, benchmark="llama2-70b")
        results = {r.key: r for r in load_results(store)}
    prefix = "v5.0/closed/AMD/8xMI300X_2xEPYC_9575F"
    assert report.rejected == ()
    assert report.skipped == ()
    assert [(r.key.removeprefix(prefix), r.benchmark, r.scenario) for r in plain] == [
        ("/llama2-70b-99/Offline", "llama2-70b-99", "Offline"),
        ("/llama2-70b-interactive-99/Server", "llama2-70b-99", "Interactive"),
    ]
    assert [(r.key.removeprefix(prefix), r.benchmark, r.scenario) for r in family] == [
        ("/llama2-70b-99/Offline", "llama2-70b-99", "Offline"),
        ("/llama2-70b-interactive-99/Offline", "llama2-70b-interactive-99", "Offline"),
        ("/llama2-70b-interactive-99/Server", "llama2-70b-99", "Interactive"),
    ]
    filed = results[f"{prefix}/llama2-70b-interactive-99/Offline"]
    assert filed.model_family == "llama2-70b"
    rows = {c.rule: c for c in filed.checks}
    assert rows["round.benchmark"].actual == "llama2-70b-99"  # held to llama2-70b-99's rules
    text = describe(results[f"{prefix}/llama2-70b-interactive-99/Server"])
    assert "  scenario     Interactive (LoadGen ran Server; the folder" in text


def test_list_shows_interactive_apart(copy_result, tmp_path: Path, capsys) -> None:  # type: ignore[no-untyped-def]
    tree = _v50_interactive_tree(copy_result, tmp_path)
    db = tmp_path / "e.duckdb"
    assert main(["mlperf", "import", str(tree), "--db", str(db), "--round", "v5.0"]) == 0
    capsys.readouterr()
    assert main(["mlperf", "list", "--db", str(db)]) == 0
    out = capsys.readouterr().out
    assert "/Server (Interactive)  VALID" in out
    assert "llama2-70b-99/Offline " in out


def test_summary_only_error_rule(copy_result) -> None:  # type: ignore[no-untyped-def]
    results = copy_result(f"{AMD}/Offline")
    run = results / "performance" / "run_1"
    (run / DETAIL_NAME).unlink()
    tree = results.parents[5]
    with Store() as store:
        import_path(store, tree)
        (clean,) = load_results(store)
    row = {c.rule: c for c in clean.checks}["loadgen.errors"]
    assert (row.status, row.actual) == ("pass", "0 error(s)")
    assert row.source.startswith(str(run / SUMMARY_NAME) + ":")
    replace_in(
        run / SUMMARY_NAME,
        "No errors encountered during test.",
        "2 ERRORS encountered. See detailed log.",
    )
    with Store() as store:
        import_path(store, tree)
        (broken,) = load_results(store)
    row = {c.rule: c for c in broken.checks}["loadgen.errors"]
    assert (row.status, row.actual) == ("fail", "2 error(s)")
    assert not broken.checks_ok
