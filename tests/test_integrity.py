"""A pack's decision follows from exactly the bytes it packs, and nothing is trusted silently.

Each test here failed on the tool before these guarantees (issue 10): a file swapped between two
reads, a glob-like name, a FIFO, links out of a cited tree, a tool's summary that disagrees with
its own rows, LoadGen runs that are impossible or INVALID, pooled score sets, a summary and its
per-request file counted twice, and empty "successful" requests.
"""

from __future__ import annotations

import dataclasses
import hashlib
import json
import os
import shutil
from pathlib import Path

import duckdb
import pytest

from evidencepack import pipeline as pipeline_module
from evidencepack._cli import main
from evidencepack.analyze import gather as gather_module
from evidencepack.analyze.models import CheckResult, DecisionDocument, Quality
from evidencepack.analyze.quality import judge_score_sets
from evidencepack.errors import InputError
from evidencepack.intake import intake as intake_module
from evidencepack.intake import mlperf_refs as mlperf_refs_module
from evidencepack.intake.collect import Collector, copy_inputs
from evidencepack.intake.snapshot import Snapshots
from evidencepack.mlperf import build as build_module
from evidencepack.pack.layout import STORE_NAME
from evidencepack.pipeline import BuildOptions, CompileOptions, build, check, compile_pack
from evidencepack.readers import registry as registry_module
from evidencepack.spec.load import load_spec
from evidencepack.store import Store

from .inputs.builders import requests, vllm_result, write_json
from .test_pipeline import _edit

H200_SCORES = "evidence/h200-vllm/scores.jsonl"
SAMPLE_MI325X_RUN = (
    "evidence/mlperf/closed/SampleVendor/results/8xMI325X_vLLM/llama2-70b-99/Server/"
    "performance/run_1"
)


def _unpin(spec: Path, path: str) -> None:
    """Drop the sha256 pin under ``path`` so a test may change the file."""
    lines = spec.read_text().splitlines(keepends=True)
    out = []
    skip = False
    for line in lines:
        if skip and line.strip().startswith("sha256:"):
            skip = False
            continue
        skip = line.strip() == f"- path: {path}"
        out.append(line)
    spec.write_text("".join(out))


def _all_failed(scores: Path) -> bytes:
    """The same score file with every item failed."""
    out = []
    for line in scores.read_text().splitlines():
        record = json.loads(line)
        if "score" in record:
            record["score"] = 0
        if "passed" in record:
            record["passed"] = False
        out.append(json.dumps(record))
    return ("\n".join(out) + "\n").encode()


def _check(spec: Path, cid: str, check_id: str) -> CheckResult:
    decision = check(spec, CompileOptions())
    return next(c for c in decision.checks if c.id == check_id and c.candidate == cid)


# -- 1. each input read once ---------------------------------------------------------------------


@pytest.mark.no_pdf  # reads the pack's JSON, store or HTML only (tests/pdf_cache.py)
def test_a_file_swapped_between_reads_cannot_split_decision_from_pack(
    samples: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The file is replaced by an all-fail copy while it is parsed and put back afterwards: the
    decision must rest on the bytes that are packed (before: it judged the all-fail bytes and
    packed the original ones)."""
    spec = samples / "pack.yaml"
    _unpin(spec, H200_SCORES)
    scores = samples / H200_SCORES
    original = scores.read_bytes()
    failed = _all_failed(scores)
    real = intake_module.read_input

    def swapping(path: Path, **kwargs: object) -> object:
        scores.write_bytes(failed)
        try:
            return real(path, **kwargs)  # type: ignore[arg-type]
        finally:
            scores.write_bytes(original)

    monkeypatch.setattr(intake_module, "read_input", swapping)
    out = tmp_path / "pack"
    result = build(spec, out, BuildOptions(compile=CompileOptions()))
    assert (out / "inputs" / H200_SCORES).read_bytes() == original
    quality = next(q for q in result.decision.quality if q.candidate == "h200-vllm")
    assert quality.estimate == pytest.approx(0.885)
    assert quality.meets_bar


@pytest.mark.no_pdf  # reads the pack's JSON, store or HTML only (tests/pdf_cache.py)
def test_an_mlperf_log_swapped_while_it_is_parsed_cannot_split_decision_from_pack(
    samples: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A cited MLPerf result's detail log says INVALID only while LoadGen's log is parsed: the
    decision must rest on the packed (VALID) bytes. Before, the importer hashed the file in one
    read and parsed it in another, so the pack and the decision could differ."""
    detail = samples / SAMPLE_MI325X_RUN / "mlperf_log_detail.txt"
    original = detail.read_bytes()
    invalid = original.replace(
        b'"key": "result_validity", "value": "VALID"',
        b'"key": "result_validity", "value": "INVALID"',
    )
    assert invalid != original
    real = build_module.parse_run

    def swapping(*logs: Path | None, **names: str | None) -> object:
        detail.write_bytes(invalid)
        try:
            return real(*logs, **names)
        finally:
            detail.write_bytes(original)

    monkeypatch.setattr(build_module, "parse_run", swapping)
    out = tmp_path / "pack"
    result = build(samples / "pack.yaml", out, BuildOptions(compile=CompileOptions()))
    references = [r for r in result.decision.references if r.candidate == "mi325x-vllm"]
    assert [r.validity for r in references] == ["VALID"]  # before: none (read as INVALID)
    assert (out / "inputs" / SAMPLE_MI325X_RUN / "mlperf_log_detail.txt").read_bytes() == original


def test_a_cited_file_is_hashed_once_not_again_by_its_reader(
    samples: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A reader is handed the collector's record of the file (the digest of the one read that
    made the snapshot): no cited run or score file is hashed a second time."""

    def second_hash(path: Path, **_: object) -> object:
        raise AssertionError(f"{path} hashed a second time")

    monkeypatch.setattr(registry_module, "file_record", second_hash)
    decision = check(samples / "pack.yaml", CompileOptions())
    assert decision.verdict == "PASS"
    read = [f for f in decision.inputs if f.role in ("runs", "scores") and f.format]
    assert len(read) == 18  # 15 runs and 3 score sets, each read once under its own digest
    assert len({f.sha256 for f in read}) == 18


@pytest.mark.no_pdf  # reads the pack's JSON, store or HTML only (tests/pdf_cache.py)
def test_a_spec_edited_while_it_is_parsed_cannot_split_decision_from_pack(
    samples: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The spec's chosen candidate is changed on disk right after the build has parsed it: the
    packed spec must be the one the decision followed (before: it was parsed from one read and
    packed from another, so the pack carried the edit its decision never saw)."""
    spec = samples / "pack.yaml"
    original = spec.read_bytes()
    assert b"chosen: mi325x-vllm" in original
    edited = original.replace(b"chosen: mi325x-vllm", b"chosen: h200-vllm")
    real_load = pipeline_module.load_spec

    def load_then_edit(*args: object, **kwargs: object) -> object:
        loaded = real_load(*args, **kwargs)  # type: ignore[arg-type]
        if kwargs.get("read_from") is not None:  # the parse the decision follows (its snapshot)
            spec.write_bytes(edited)
        return loaded

    monkeypatch.setattr(pipeline_module, "load_spec", load_then_edit)
    out = tmp_path / "pack"
    result = build(spec, out, BuildOptions(compile=CompileOptions()))
    assert spec.read_bytes() == edited  # the edit really happened mid-build
    assert result.decision.chosen == "mi325x-vllm"
    assert (out / "inputs" / "pack.yaml").read_bytes() == original
    packed = json.loads((out / "decision.json").read_text())
    assert packed["spec_sha256"] == hashlib.sha256(original).hexdigest()


def test_a_glob_like_name_reads_that_file_not_its_neighbour(samples: Path) -> None:
    """``s[c]ores.jsonl`` is its own file; DuckDB must not read it as a pattern matching the
    uncited ``scores.jsonl`` beside it."""
    spec = samples / "pack.yaml"
    folder = samples / "evidence/h200-vllm"
    (folder / "s[c]ores.jsonl").write_bytes(_all_failed(folder / "scores.jsonl"))
    _unpin(spec, H200_SCORES)
    _edit(spec, f"- path: {H200_SCORES}", "- path: evidence/h200-vllm/s[c]ores.jsonl")
    decision = check(spec, CompileOptions())
    quality = next(q for q in decision.quality if q.candidate == "h200-vllm")
    assert quality.estimate == 0.0
    assert not quality.meets_bar


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="needs FIFOs")
def test_a_fifo_is_refused_by_name_not_read(samples: Path) -> None:
    spec = samples / "pack.yaml"
    fifo = samples / "evidence/h200-vllm/pipe.jsonl"
    os.mkfifo(fifo)
    _edit(
        spec,
        f"- path: {H200_SCORES}",
        "- path: evidence/h200-vllm/pipe.jsonl\n        - path: " + H200_SCORES,
    )
    result = _check(spec, "h200-vllm", "PROV-FILES")
    assert result.status == "FAIL"
    assert "pipe.jsonl" in result.reason
    assert "not a regular file" in result.reason


# -- 3. links -------------------------------------------------------------------------------------

MI325X_SERVER = "evidence/mlperf/closed/SampleVendor/results/8xMI325X_vLLM/llama2-70b-99/Server"


@pytest.mark.no_pdf  # reads the pack's JSON, store or HTML only (tests/pdf_cache.py)
def test_a_link_out_of_a_cited_tree_is_refused_by_name(samples: Path, tmp_path: Path) -> None:
    secret = tmp_path / "secret.conf"
    secret.write_text("*.Server.target_qps = 1\n")
    link = samples / MI325X_SERVER / "performance" / "run_1" / "user.conf"
    link.symlink_to(secret)
    result = _check(samples / "pack.yaml", "mi325x-vllm", "PROV-FILES")
    assert result.status == "FAIL"
    assert f"{MI325X_SERVER}/performance/run_1/user.conf -> {secret}" in result.reason
    out = tmp_path / "pack"
    built = build(samples / "pack.yaml", out, BuildOptions(compile=CompileOptions()))
    assert built.decision.verdict == "FAIL"
    assert not any(p.read_bytes() == secret.read_bytes() for p in out.rglob("*") if p.is_file())


def test_a_link_inside_the_spec_folder_is_followed(samples: Path) -> None:
    """A link whose target stays inside the spec's folder is not a finding."""
    inside = samples / "evidence" / "notes.txt"
    inside.write_text("run notes\n")
    (samples / MI325X_SERVER / "notes.txt").symlink_to(inside)
    result = _check(samples / "pack.yaml", "mi325x-vllm", "PROV-FILES")
    assert result.status == "PASS"


def test_a_tree_cited_by_every_candidate_is_imported_once(
    samples: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The sample's three candidates cite one MLPerf tree: one import serves them all."""
    calls: list[Path] = []
    real = mlperf_refs_module.import_path

    def counting(store: object, path: Path, **kwargs: object) -> object:
        calls.append(path)
        return real(store, path, **kwargs)  # type: ignore[arg-type]

    monkeypatch.setattr(mlperf_refs_module, "import_path", counting)
    decision = check(samples / "pack.yaml", CompileOptions())
    assert calls == [samples.resolve() / "evidence" / "mlperf"]
    assert len(decision.references) == 3


# -- 2. one way in: runs through the store, the PROV-DATA check ----------------------------------


def _aiperf_pair(samples: Path, shared_data: Path, *, double_p99: bool, empty: int = 0) -> Path:
    """The real AIPerf summary and its own per-request file, cited for h200-vllm; ``empty``
    requests of the file edited to have produced no output token."""
    folder = samples / "evidence" / "aiperf"
    folder.mkdir()
    source = shared_data / "formats" / "aiperf" / "generated"
    lines = (source / "profile_export.jsonl").read_text().splitlines()
    for i in range(empty):
        record = json.loads(lines[i])
        record["metrics"]["output_sequence_length"]["value"] = 0
        lines[i] = json.dumps(record)
    (folder / "profile_export.jsonl").write_text("\n".join(lines) + "\n")
    summary = json.loads((source / "profile_export_aiperf.json").read_text())
    if double_p99:
        summary["time_to_first_token"]["p99"] *= 2
    (folder / "profile_export_aiperf.json").write_text(json.dumps(summary))
    spec = samples / "pack.yaml"
    _edit(
        spec,
        "        - path: evidence/h200-vllm/runs/qps_5.5\n",
        "        - path: evidence/h200-vllm/runs/qps_5.5\n"
        "        - path: evidence/aiperf/profile_export_aiperf.json\n"
        "        - path: evidence/aiperf/profile_export.jsonl\n",
    )
    return spec


def _aiperf_runs(decision: DecisionDocument) -> list[str]:
    """The AIPerf runs of h200-vllm, as the fit list names them (fitting or not)."""
    return [f.subject for f in decision.fit if f.candidate == "h200-vllm" and "aiperf" in f.subject]


def test_a_doubled_summary_p99_beside_its_rows_fails_prov_data(
    samples: Path, shared_data: Path
) -> None:
    spec = _aiperf_pair(samples, shared_data, double_p99=True)
    decision = check(spec, CompileOptions())
    result = next(c for c in decision.checks if c.id == "PROV-DATA" and c.candidate == "h200-vllm")
    assert result.status == "FAIL"
    assert "evidence/aiperf/profile_export_aiperf.json" in result.reason
    assert "TTFT p99 68.4" in result.reason  # the doubled figure, named
    assert decision.verdict == "FAIL"
    # one run (the per-request file, its summary cross-checked against it)
    assert _aiperf_runs(decision) == ["evidence/aiperf/profile_export.jsonl"]


def test_a_summary_and_its_rows_are_one_load_point(samples: Path, shared_data: Path) -> None:
    spec = _aiperf_pair(samples, shared_data, double_p99=False)
    decision = check(spec, CompileOptions())
    runs = [f for f in decision.fit if f.candidate == "h200-vllm" and f.kind == "run"]
    assert len(runs) == 6  # the five LoadGen runs and one AIPerf run
    # the AIPerf run measured another model: shown, never sizing the candidate
    (aiperf,) = [f for f in runs if "aiperf" in f.subject]
    assert not aiperf.fits
    assert any(r.startswith("model ") for r in aiperf.reasons)
    result = next(c for c in decision.checks if c.id == "PROV-DATA" and c.candidate == "h200-vllm")
    # the sweep now mixes LoadGen and AIPerf: said, with the runs of each
    assert "mixes tools" in result.reason
    assert "aiperf (evidence/aiperf/profile_export.jsonl)" in result.reason


def test_a_summary_stays_paired_with_rows_that_had_empty_outputs(
    samples: Path, shared_data: Path
) -> None:
    """The rows count 3 empty "successes" as failed; the summary still counts them completed:
    still one run, the empty outputs said."""
    spec = _aiperf_pair(samples, shared_data, double_p99=False, empty=3)
    decision = check(spec, CompileOptions())
    assert _aiperf_runs(decision) == ["evidence/aiperf/profile_export.jsonl"]
    empty = [f for f in decision.findings if "aiperf" in f.subject and f.kind == "empty-output"]
    assert empty
    assert "3 of 40 requests" in empty[0].detail
    kinds = {f.kind for f in decision.findings if "aiperf" in f.subject}
    assert "empty-output" in kinds


MI_RUNS = "evidence/mi325x-vllm/runs"


def _set_key(detail: Path, key: str, value: object) -> None:
    lines = detail.read_text().splitlines(keepends=True)
    out = []
    for line in lines:
        record = json.loads(line.split(":::MLLOG", 1)[1])
        if record["key"] == key:
            record["value"] = value
            line = ":::MLLOG " + json.dumps(record) + "\n"
        out.append(line)
    detail.write_text("".join(out))


def test_a_negative_loadgen_ttft_p99_fails_prov_data(samples: Path) -> None:
    detail = samples / MI_RUNS / "qps_2.2" / "mlperf_log_detail.txt"
    _set_key(detail, "result_first_token_99.00_percentile_latency_ns", -5_000_000)
    decision = check(samples / "pack.yaml", CompileOptions())
    result = next(
        c for c in decision.checks if c.id == "PROV-DATA" and c.candidate == "mi325x-vllm"
    )
    assert result.status == "FAIL"
    assert f"{MI_RUNS}/qps_2.2" in result.reason
    assert "TTFT p99 is negative (-5 ms)" in result.reason
    capacity = next(c for c in decision.capacity if c.candidate == "mi325x-vllm")
    assert capacity.operating_point_run != f"{MI_RUNS}/qps_2.2"


def test_a_loadgen_summary_that_contradicts_its_detail_log_fails(samples: Path) -> None:
    summary = samples / MI_RUNS / "qps_2.2" / "mlperf_log_summary.txt"
    text = summary.read_text()
    line = next(x for x in text.splitlines() if x.startswith("Completed samples per second"))
    summary.write_text(text.replace(line, "Completed samples per second    : 9.99"))
    result = _check(samples / "pack.yaml", "mi325x-vllm", "PROV-DATA")
    assert result.status == "FAIL"
    assert f"{MI_RUNS}/qps_2.2/mlperf_log_summary.txt" in result.reason
    assert "samples per second is 9.99 in the summary" in result.reason


def test_a_repeated_loadgen_key_is_a_finding_not_last_wins(samples: Path) -> None:
    folder = samples / MI_RUNS / "qps_2.2"
    (folder / "mlperf_log_summary.txt").unlink()
    detail = folder / "mlperf_log_detail.txt"
    line = next(
        x for x in detail.read_text().splitlines() if '"result_completed_samples_per_sec"' in x
    )
    record = json.loads(line.split(":::MLLOG", 1)[1])
    record["value"] = 50.0
    with detail.open("a") as handle:
        handle.write(":::MLLOG " + json.dumps(record) + "\n")
    decision = check(samples / "pack.yaml", CompileOptions())
    result = next(
        c for c in decision.checks if c.id == "PROV-DATA" and c.candidate == "mi325x-vllm"
    )
    assert result.status == "FAIL"
    assert "result_completed_samples_per_sec = 50.0 logged again" in result.reason
    capacity = next(c for c in decision.capacity if c.candidate == "mi325x-vllm")
    assert capacity.operating_point_run != f"{MI_RUNS}/qps_2.2"


def _invalid_but_fast(samples: Path) -> Path:
    """qps_3.2 (LoadGen: INVALID) edited to look within the SLO."""
    folder = samples / MI_RUNS / "qps_3.2"
    (folder / "mlperf_log_summary.txt").unlink()
    detail = folder / "mlperf_log_detail.txt"
    _set_key(detail, "result_first_token_99.00_percentile_latency_ns", 1.5e9)
    _set_key(detail, "result_99.00_percentile_latency_ns", 2.9e10)
    return samples / "pack.yaml"


def test_an_invalid_loadgen_run_is_never_the_operating_point(samples: Path) -> None:
    decision = check(_invalid_but_fast(samples), CompileOptions())
    capacity = next(c for c in decision.capacity if c.candidate == "mi325x-vllm")
    assert capacity.operating_point_run == f"{MI_RUNS}/qps_2.2"
    assert capacity.accelerators == 9
    point = next(lp for lp in capacity.load_points if lp.run == f"{MI_RUNS}/qps_3.2")
    assert any(m.startswith("mlperf-loadgen judged the run INVALID") for m in point.misses)
    result = next(
        c for c in decision.checks if c.id == "PROV-DATA" and c.candidate == "mi325x-vllm"
    )
    assert result.status == "WARN"
    assert "qps_3.2" in result.reason


def test_a_prov_data_waiver_never_moves_the_operating_point(samples: Path) -> None:
    """A waiver covers the check's result (WARN becomes waived), never the evidence: the
    INVALID run stays out of sizing, and the waiver shows in the verdict."""
    spec = _invalid_but_fast(samples)
    with spec.open("a") as handle:
        handle.write(
            "waivers:\n  - {check: PROV-DATA, candidate: mi325x-vllm, reason: rerun pending, "
            "approver: A. Example, expires: 2027-01-31}\n"
        )
    decision = check(spec, CompileOptions())
    capacity = next(c for c in decision.capacity if c.candidate == "mi325x-vllm")
    assert capacity.operating_point_run == f"{MI_RUNS}/qps_2.2"
    assert capacity.accelerators == 9
    assert decision.recommendation == "mi325x-vllm"
    assert decision.verdict == "PASS WITH WAIVERS"
    result = next(
        c for c in decision.checks if c.id == "PROV-DATA" and c.candidate == "mi325x-vllm"
    )
    assert result.waived is not None


# -- 4. no silent aggregation --------------------------------------------------------------------


def _three_score_sets(samples: Path, shared_data: Path) -> Path:
    """h200-vllm scored by two inspect-ai scorers on the same 5 items and a promptfoo set."""
    folder = samples / "evidence" / "evals"
    folder.mkdir()
    inspect = next((shared_data / "formats/inspect-ai/generated").glob("*arith*.eval"))
    shutil.copyfile(inspect, folder / "arith.eval")
    shutil.copyfile(
        shared_data / "formats/promptfoo/generated/results.json", folder / "results.json"
    )
    spec = samples / "pack.yaml"
    _unpin(spec, H200_SCORES)
    _edit(
        spec,
        f"- path: {H200_SCORES}",
        "- path: evidence/evals/arith.eval\n        - path: evidence/evals/results.json",
    )
    _edit(spec, "metric: pass_rate", "metric: accuracy")
    return spec


def _judged(spec: Path, tmp: Path) -> Quality:
    """The bar judged on h200-vllm's score sets as read (before the fit rules, which keep the
    eval harness's sets of other models from judging the candidate at all)."""
    loaded = load_spec(spec)
    with Store() as store:
        evidence = gather_module.gather(loaded, store, Collector(loaded, Snapshots(tmp)))
    return judge_score_sets(
        loaded.spec.model_copy(
            update={"fit": loaded.spec.fit.model_copy(update={"min_score_items": 1})}
        ),
        "h200-vllm",
        evidence["h200-vllm"].scores,
    )


def test_score_sets_of_different_scorers_are_never_pooled(
    samples: Path, shared_data: Path, tmp_path: Path
) -> None:
    spec = _three_score_sets(samples, shared_data)
    quality = _judged(spec, tmp_path)
    # 5 items, not 13 (the sample dataset's 395 other items count as failed)
    assert quality.items_scored == quality.scored_rows == 5
    assert quality.judged_set == "inspect-ai/arith/includes/accuracy"
    assert "because its metric is the spec's accuracy and it has the most items" in quality.reason
    assert "not pooled with inspect-ai/arith/match/accuracy (5 items)" in quality.reason
    assert quality.other_sets == (
        "inspect-ai/arith/match/accuracy",
        "promptfoo/What is {{a}} + {{b}}? Answer: {{answer}}/assertions/pass",
    )


def test_the_spec_names_the_score_set_the_bar_is_judged_on(
    samples: Path, shared_data: Path, tmp_path: Path
) -> None:
    spec = _three_score_sets(samples, shared_data)
    _edit(
        spec,
        "  direction: higher_is_better\n",
        "  direction: higher_is_better\n  score_set: {scorer: match}\n",
    )
    quality = _judged(spec, tmp_path)
    assert quality.judged_set == "inspect-ai/arith/match/accuracy"
    assert "named by the spec's scoring.score_set" in quality.reason


def test_items_repeated_across_files_of_one_set_are_counted_once(samples: Path) -> None:
    spec = samples / "pack.yaml"
    scores = samples / H200_SCORES
    shutil.copyfile(scores, scores.with_name("scores-again.jsonl"))
    _edit(
        spec,
        f"- path: {H200_SCORES}",
        "- path: evidence/h200-vllm/scores-again.jsonl\n        - path: " + H200_SCORES,
    )
    quality = next(q for q in check(spec, CompileOptions()).quality if q.candidate == "h200-vllm")
    assert quality.n_items == 400
    assert quality.estimate == pytest.approx(0.885)
    assert "400 item(s) repeated across" in quality.reason


def test_an_item_scored_twice_differently_refuses_the_set(samples: Path) -> None:
    spec = samples / "pack.yaml"
    scores = samples / H200_SCORES
    scores.with_name("scores-failed.jsonl").write_bytes(_all_failed(scores))
    _edit(
        spec,
        f"- path: {H200_SCORES}",
        "- path: evidence/h200-vllm/scores-failed.jsonl\n        - path: " + H200_SCORES,
    )
    quality = next(q for q in check(spec, CompileOptions()).quality if q.candidate == "h200-vllm")
    assert quality.estimate is None
    assert not quality.meets_bar
    assert "refused: item" in quality.reason


# -- 5. every check names its model, file and figure ---------------------------------------------


def test_scores_of_other_models_are_named_and_never_claim_quality(
    samples: Path, shared_data: Path
) -> None:
    """The eval harness scored echo-baseline and mockllm/model, not the envelope's model: FIT
    names each set's model, and C2 finds no scores of the candidate model to rest on."""
    decision = check(_three_score_sets(samples, shared_data), CompileOptions())
    fits = [f for f in decision.fit if f.candidate == "h200-vllm" and f.kind == "scores"]
    assert fits
    assert not any(f.fits for f in fits)
    models = " ".join(r for f in fits for r in f.reasons)
    assert "model 'echo-baseline'" in models or "model 'mockllm/model'" in models
    c2 = next(c for c in decision.checks if c.id == "C2" and c.candidate == "h200-vllm")
    assert c2.status == "FAIL"
    assert "no scores of the candidate model" in c2.reason


def _vllm_with_empty_outputs(samples: Path, empty: int) -> Path:
    """A ``vllm bench serve`` result whose ``empty`` last successes produced no token (empty
    text, 0 output tokens, TTFT 0.0), aggregated by the tool as successes."""
    r = requests(n=40, seed=3)
    lens, ttfts, itls, lat = list(r.output_lens), list(r.ttfts), list(r.itls), list(r.latencies)
    for i in range(40 - empty, 40):
        lens[i], ttfts[i], itls[i], lat[i] = 0, 0.0, [], 0.002
    r = dataclasses.replace(r, output_lens=lens, ttfts=ttfts, itls=itls, latencies=lat)
    result = vllm_result(r, request_rate=2.0)
    result["generated_texts"] = ["" if n == 0 else "x" * n for n in lens]
    result["model_id"] = "acme/contract-summariser-70b-fp8 (sample)"
    write_json(samples / "evidence" / "vllm-run.json", result)
    spec = samples / "pack.yaml"
    _edit(
        spec,
        "        - path: evidence/h200-vllm/runs/qps_5.5\n",
        "        - path: evidence/h200-vllm/runs/qps_5.5\n        - path: evidence/vllm-run.json\n",
    )
    # the synthetic requests are short and few: this test lets their lengths and size fit
    _edit(
        spec,
        "headroom: 0.25\n",
        "headroom: 0.25\nfit: {token_tolerance: 1.0, tail_tolerance: 1.0, min_duration_s: 0.1, "
        "min_requests: 1}\n",
    )
    return spec


def test_empty_successful_requests_count_as_errors(samples: Path) -> None:
    decision = check(_vllm_with_empty_outputs(samples, 10), CompileOptions())
    capacity = next(c for c in decision.capacity if c.candidate == "h200-vllm")
    point = next(lp for lp in capacity.load_points if lp.run == "evidence/vllm-run.json")
    assert point.error_rate == pytest.approx(10 / 40)
    result = next(c for c in decision.checks if c.id == "PROV-DATA" and c.candidate == "h200-vllm")
    assert "evidence/vllm-run.json (acme/contract-summariser-70b-fp8 (sample))" in result.reason
    assert "10 of 40 requests the tool counted as successful produced no output token" in (
        result.reason
    )


def test_the_spec_can_say_an_empty_output_is_valid(samples: Path) -> None:
    spec = _vllm_with_empty_outputs(samples, 10)
    _edit(spec, "task:\n", "task:\n  empty_output_is_valid: true\n")
    decision = check(spec, CompileOptions())
    capacity = next(c for c in decision.capacity if c.candidate == "h200-vllm")
    point = next(lp for lp in capacity.load_points if lp.run == "evidence/vllm-run.json")
    assert point.error_rate == 0.0


# -- 6. decision.json, the store, the report and check --json show each finding -----------------


@pytest.mark.no_pdf  # reads the pack's JSON, store or HTML only (tests/pdf_cache.py)
def test_findings_reach_decision_store_report_and_check_json(
    samples: Path, shared_data: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    spec = _aiperf_pair(samples, shared_data, double_p99=True)
    assert main(["check", "--json", str(spec)]) == 1
    listed = json.loads(capsys.readouterr().out)["findings"]
    doubled = [f for f in listed if f["kind"] == "summary-disagrees"]
    assert doubled
    assert doubled[0]["figure"] == "TTFT p99"
    assert doubled[0]["candidate"] == "h200-vllm"
    assert (
        doubled[0]["evidence"][0]["pack_path"]
        == "inputs/evidence/aiperf/profile_export_aiperf.json"
    )
    out = tmp_path / "pack"
    build(spec, out, BuildOptions(compile=CompileOptions()))
    decision = json.loads((out / "decision.json").read_text())
    assert decision["findings"] == listed
    with duckdb.connect(str(out / STORE_NAME), read_only=True) as con:
        rows = con.execute(
            "SELECT subject, figure, severity FROM findings WHERE kind = 'summary-disagrees'"
        ).fetchall()
    summary = "evidence/aiperf/profile_export_aiperf.json"
    run = "evidence/aiperf/profile_export.jsonl"
    assert (f"{summary} (summary of {run})", "TTFT p99", "FAIL") in rows
    html = (out / "report.html").read_text()
    assert "Data findings (PROV-DATA)" in html
    assert "TTFT p99 68.4" in html


def test_checks_name_model_file_and_figure(samples: Path) -> None:
    decision = check(samples / "pack.yaml", CompileOptions())
    reasons = {c.id: c.reason for c in decision.checks if c.candidate == "mi325x-vllm"}
    model = "acme/contract-summariser-70b-fp8 (sample)"
    capacity = next(c for c in decision.capacity if c.candidate == "mi325x-vllm")
    op = next(lp for lp in capacity.load_points if lp.run == capacity.operating_point_run)
    assert op.ttft_p99_ms is not None
    assert (
        f"({op.run}, {model}: TTFT p99 {op.ttft_p99_ms:.1f} ms; TPOT p99 {op.tpot_p99_ms:.1f} ms)"
        in reasons["SLO-MET"]
    )
    assert f"({model} in evidence/mi325x-vllm/scores.jsonl)" in reasons["QUALITY"]
    assert f"5 serving run(s) of {model}" in reasons["C4"]
    assert f"5 run(s) of {model}" not in reasons["PROV-DATA"]  # a finding, not the PASS text
    # the sweep's top point, INVALID for latency above a valid point: a note naming run and
    # model, not a warning
    (note,) = next(
        c.notes for c in decision.checks if c.candidate == "mi325x-vllm" and c.id == "PROV-DATA"
    )
    assert note.startswith(f"evidence/mi325x-vllm/runs/qps_3.2 ({model}): LoadGen judged")


def test_inspect_reads_a_glob_like_name_as_itself(
    samples: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    folder = samples / "evidence/h200-vllm"
    cited = folder / "s[c]ores.jsonl"
    cited.write_bytes(_all_failed(folder / "scores.jsonl"))
    assert main(["inspect", "--json", str(cited)]) == 0
    report = json.loads(capsys.readouterr().out)[0]
    assert report["file"]["path"] == str(cited)
    assert report["score_sets"][0]["n_passed"] == 0


def test_a_private_copy_changed_before_packing_is_refused_by_its_spec_path(
    samples: Path, tmp_path: Path
) -> None:
    """The pack copy is checked against the digest the analysis used; a mismatch names the file
    as the spec does (and its pack path), never the private copy's temporary name."""
    with Store() as store:
        compiled = compile_pack(samples / "pack.yaml", CompileOptions(), store, tmp_path / "snap")
    collected = compiled.collected
    pack_path = f"inputs/{H200_SCORES}"
    copy = collected.sources[pack_path]
    copy.chmod(0o600)
    copy.write_bytes(copy.read_bytes() + b"\n")
    with pytest.raises(InputError) as refused:
        copy_inputs(collected, tmp_path / "pack")
    assert refused.value.message == (
        f"{H200_SCORES} ({pack_path}): changed while the pack was being built"
    )
