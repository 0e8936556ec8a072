"""Many small run files cited one by one are read and stored in batches (issue 29): a few DuckDB
statements for a batch instead of about 17 per file. The batch must change nothing: the runs,
rows, checks and problems are those of each file read and stored alone, in the same order."""

from __future__ import annotations

import json
import os
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from evidencepack.analyze.models import DecisionDocument
from evidencepack.errors import InputError
from evidencepack.intake import intake
from evidencepack.pipeline import CompileOptions, check, decision_json
from evidencepack.readers.base import ParsedInput
from evidencepack.readers.registry import read_input, stage_small_runs
from evidencepack.staging.context import ReadContext
from evidencepack.staging.stage import shared_staging
from evidencepack.store.connection import Connection
from evidencepack.store.staged import StagedRows

from ..test_pipeline import _edit
from .builders import requests, sglang_result, vllm_result, write_json

SHARED = Path(os.environ.get("EVIDENCEPACK_SHARED_DATA") or "../shared/data")
REAL_VLLM = SHARED / "formats" / "vllm" / "public" / "dstack_pd_3p1d_conc128_gpt-oss-120b.json"


def _varied(folder: Path, count: int) -> list[Path]:
    """vLLM and SGLang results of every shape a batch takes: old and new fields, failures,
    no per-request arrays, several percentile sets, a success with no output token, and
    files from a few requests to a few thousand."""
    folder.mkdir(parents=True, exist_ok=True)
    out = []
    for s in range(count):
        n = 3 + 7 * s if s < count - 2 else 1500 * (s - count + 3)
        r = requests(n=n, seed=s, failures=s % 4)
        if s % 5 == 1:  # a "success" that produced no token: counted as failed
            r.output_lens[0], r.itls[0] = 0, []
        if s % 3 == 0:
            value = sglang_result(r, new=bool(s % 2), details=s % 7 != 0)
        else:
            value = vllm_result(
                r,
                new=bool(s % 2),
                detailed=s % 7 != 0,
                max_concurrency=(s % 6) or None,
                percentiles=(50, 90, 95, 99) if s % 2 else (50, 99),
            )
        out.append(write_json(folder / f"run[{s}].json", value))
    return out


def _same(alone: ParsedInput, batched: ParsedInput) -> None:
    assert batched.runs == alone.runs
    assert batched.warnings == alone.warnings
    assert batched.file == alone.file
    if alone.requests is None:
        assert batched.requests is None
        return
    assert not isinstance(alone.requests, StagedRows)
    assert batched.requests is not None
    assert not isinstance(batched.requests, StagedRows)
    assert set(batched.requests) == set(alone.requests)
    for name, values in alone.requests.items():
        theirs = batched.requests[name]
        assert theirs.dtype == values.dtype, name
        assert np.array_equal(np.ma.getmaskarray(theirs), np.ma.getmaskarray(values)), name
        assert theirs.tolist() == values.tolist(), name


def test_a_batch_reads_every_file_as_it_is_read_alone(tmp_path: Path) -> None:
    paths = _varied(tmp_path / "runs", 24)
    if REAL_VLLM.is_file():
        paths.append(REAL_VLLM)
    with shared_staging():
        alone = [read_input(p) for p in paths]
        staged = stage_small_runs({p: str(p) for p in paths})
        assert set(staged) == set(paths)
        batched = [read_input(p, context=ReadContext(prestaged=staged)) for p in paths]
    for one, other in zip(alone, batched, strict=True):
        _same(one, other)
    assert any(check.ok is False for run in alone for check in run.runs[0].checks)


def test_a_file_with_a_bad_value_is_left_out_of_its_batch_and_named_alone(
    tmp_path: Path,
) -> None:
    paths = _varied(tmp_path / "runs", 5)[:3] + _varied(tmp_path / "more", 3)
    for bad in (paths[1], paths[4]):
        value = json.loads(bad.read_text())
        value["ttfts"][2] = -0.5
        bad.write_text(json.dumps(value))
    good = [p for p in paths if p not in (paths[1], paths[4])]
    with shared_staging():
        alone = [read_input(p, name=p.name) for p in good]
        staged = stage_small_runs({p: p.name for p in paths})
        assert set(staged) == set(good)
        batch = ReadContext(prestaged=staged)
        for path, one in zip(good, alone, strict=True):
            _same(one, read_input(path, name=path.name, context=batch))
        with pytest.raises(InputError, match=r"run\[1\]\.json: \$\.ttfts\[2\]: negative -500"):
            read_input(paths[1], name=paths[1].name, context=batch)


def _cite(samples: Path, names: list[str]) -> Path:
    spec = samples / "pack.yaml"
    anchor = "        - path: evidence/h200-vllm/runs/qps_2.0\n"
    _edit(spec, anchor, anchor + "".join(f"        - path: {n}\n" for n in names))
    return spec


@pytest.fixture
def statements() -> Iterator[list[int]]:
    """The DuckDB statements sent from now on (store, staging), counted."""
    count = [0]
    execute = Connection.execute

    def counted(self: Connection, *args: Any, **kwargs: Any) -> Any:
        count[0] += 1
        return execute(self, *args, **kwargs)

    Connection.execute = counted  # type: ignore[method-assign]
    yield count
    Connection.execute = execute  # type: ignore[method-assign]


@dataclass(frozen=True)
class _Checked:
    decision: DecisionDocument
    sent: int
    """DuckDB statements the check sent."""


def _together_and_alone(
    spec: Path, monkeypatch: pytest.MonkeyPatch, statements: list[int]
) -> tuple[_Checked, _Checked]:
    """The spec checked with its references read together, then each alone (as before)."""
    statements[0] = 0
    together = check(spec, CompileOptions())
    sent = statements[0]
    monkeypatch.setattr(intake, "BATCH_FILES", 1)
    statements[0] = 0
    alone = check(spec, CompileOptions())
    return _Checked(together, sent), _Checked(alone, statements[0])


def test_check_over_many_small_files_decides_as_one_by_one(
    samples: Path, monkeypatch: pytest.MonkeyPatch, statements: list[int]
) -> None:
    folder = samples / "evidence" / "many"
    paths = _varied(folder, 14)
    for path in paths:  # the candidate's model, so the runs are comparable
        value = json.loads(path.read_text())
        value["model_id"] = "acme/contract-summariser-70b-fp8 (sample)"
        path.write_text(json.dumps(value))
    bad = json.loads(paths[5].read_text())
    bad["latencies"][1] = -1.0
    paths[5].write_text(json.dumps(bad))
    # A summary without rows and the same run with them: companions, cross-checked; a file
    # not a result; a file with the bytes of another (its runs stored once).
    r = requests(n=30, seed=77)
    write_json(folder / "pair-summary.json", vllm_result(r, new=False, detailed=False))
    write_json(folder / "pair-detail.json", vllm_result(r))
    names = [f"evidence/many/{p.name}" for p in paths[:7]]
    write_json(folder / "notes.json", {"note": "not a result"})
    (folder / "same-bytes.json").write_bytes(paths[2].read_bytes())  # the same runs again
    names += ["evidence/many/pair-summary.json", "evidence/many/notes.json"]
    names += ["evidence/many/same-bytes.json"]
    names += [f"evidence/many/{p.name}" for p in paths[7:]] + ["evidence/many/pair-detail.json"]
    spec = _cite(samples, names)
    batched, alone = _together_and_alone(spec, monkeypatch, statements)
    assert decision_json(batched.decision) == decision_json(alone.decision)
    assert batched.sent < alone.sent - 10 * len(names)  # the batch staged and stored too
    text = decision_json(batched.decision).decode()
    assert "evidence/many/run[5].json: cannot read: " in text
    assert "$.latencies[1]: negative" in text
    assert "evidence/many/notes.json: cannot read: " in text
    subjects = {r.subject for r in batched.decision.comparability if r.kind == "run"}
    assert "evidence/many/pair-detail.json" in subjects
    assert "evidence/many/pair-summary.json" not in subjects  # joined to its detail run


def test_statements_per_added_small_file_stay_under_one(
    samples: Path, statements: list[int]
) -> None:
    folder = samples / "evidence" / "many"
    paths = [p for p in _varied(folder, 60) if p.stat().st_size <= intake.BATCH_FILE_BYTES]
    assert len(paths) > 40
    spec = _cite(samples, [])
    statements[0] = 0
    check(spec, CompileOptions())
    base = statements[0]
    spec = _cite(samples, [f"evidence/many/{p.name}" for p in paths])
    statements[0] = 0
    check(spec, CompileOptions())
    assert (statements[0] - base) / len(paths) < 1.0  # about 17 per file read alone


def _request_files(samples: Path) -> list[Path]:
    """Every sample run folder's ``requests.jsonl``, some edited: a failed request, a success
    that produced no token, a file of two requests."""
    paths = sorted((samples / "evidence").glob("*/runs/*/requests.jsonl"))
    assert len(paths) >= 10

    def rows(path: Path) -> list[dict[str, Any]]:
        return [json.loads(line) for line in path.read_text().splitlines()]

    def write(path: Path, records: list[dict[str, Any]]) -> None:
        path.write_text("".join(json.dumps(r) + "\n" for r in records))

    failed = rows(paths[1])
    failed[3] |= {"status": "failed", "error": "HTTP 503", "ttft_ms": None, "e2e_ms": None}
    write(paths[1], failed)
    empty = rows(paths[2])
    empty[0] |= {"output_tokens": 0, "itl_gaps_ms": []}
    write(paths[2], empty)
    write(paths[3], rows(paths[3])[:2])
    return paths


def test_measure_request_files_read_in_a_batch_as_alone(samples: Path) -> None:
    paths = _request_files(samples)
    with shared_staging():
        alone = [read_input(p, name=p.name) for p in paths]
        staged = stage_small_runs({p: p.name for p in paths})
        assert set(staged) == set(paths)
        batched = [read_input(p, name=p.name, context=ReadContext(prestaged=staged)) for p in paths]
    for one, other in zip(alone, batched, strict=True):
        _same(one, other)
    assert alone[2].runs[0].findings  # the empty output, counted as failed either way
    assert alone[1].runs[0].requests_failed == 1


def test_a_measure_request_file_with_a_bad_row_is_left_out_and_named_alone(
    samples: Path,
) -> None:
    paths = _request_files(samples)
    bad = paths[4]
    lines = bad.read_text().splitlines()
    lines[6] = lines[6].replace('"status": "ok"', '"status": "maybe"')
    bad.write_text("\n".join(lines) + "\n")
    with shared_staging():
        staged = stage_small_runs({p: p.name for p in paths})
        assert set(staged) == set(paths) - {bad}
        with pytest.raises(InputError, match=r"requests\.jsonl: line 7\$\.status: expected ok"):
            read_input(bad, name=bad.name, context=ReadContext(prestaged=staged))


def test_check_over_run_folders_decides_as_one_by_one(
    samples: Path, monkeypatch: pytest.MonkeyPatch, statements: list[int]
) -> None:
    """The sample's LoadGen run folders are read together: the rows beside each log staged in
    one batch, the logs' runs stored in one transaction, the summaries checked in one; the
    decision is the one of each folder read alone, with a folder whose rows cannot be read, one
    whose summary contradicts its log, and edited rows."""
    _request_files(samples)
    runs = samples / "evidence" / "mi325x-vllm" / "runs"
    summary = runs / "qps_2.2" / "mlperf_log_summary.txt"
    text = summary.read_text()
    line = next(x for x in text.splitlines() if x.startswith("Completed samples per second"))
    summary.write_text(text.replace(line, "Completed samples per second    : 9.99"))
    (runs / "qps_1.8" / "requests.jsonl").write_text('{"schema": "evidencepack.measure.request')
    together, alone = _together_and_alone(samples / "pack.yaml", monkeypatch, statements)
    assert decision_json(together.decision) == decision_json(alone.decision)
    folders = len(list((samples / "evidence").glob("*/runs/*/mlperf_log_detail.txt")))
    assert together.sent < alone.sent - 8 * folders
    text = decision_json(together.decision).decode()
    assert "samples per second is 9.99 in the summary" in text
