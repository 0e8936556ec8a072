"""Many small run files cited one by one are read and stored in batches (issue 29): a few DuckDB
statements for a batch instead of about 17 per file. The batch must change nothing: the runs,
rows, checks and problems are those of each file read and stored alone, in the same order."""

from __future__ import annotations

import json
import os
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import numpy as np
import pytest

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
    statements[0] = 0
    batched = check(spec, CompileOptions())
    sent = statements[0]
    monkeypatch.setattr(intake, "BATCH_FILES", 1)  # every reference alone, as before
    statements[0] = 0
    alone = check(spec, CompileOptions())
    assert decision_json(batched) == decision_json(alone)
    assert sent < statements[0] - 10 * len(names)  # the batch staged and stored too
    text = decision_json(batched).decode()
    assert "evidence/many/run[5].json: cannot read: " in text
    assert "$.latencies[1]: negative" in text
    assert "evidence/many/notes.json: cannot read: " in text
    subjects = {r.subject for r in batched.comparability if r.kind == "run"}
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
