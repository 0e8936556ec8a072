"""``run.json``'s model: what ``measure`` writes is validated (not-finite numbers written as
null), and what the readers read is validated with the file and field named."""

from __future__ import annotations

import json
import shutil
from pathlib import Path
from typing import Any

import jsonschema
import pytest

from evidencepack.errors import CouldNotRun, InputError
from evidencepack.measure.record import write_record
from evidencepack.mlperf.measure_record import MeasureRunRecord
from evidencepack.readers.formats.measure_run import read_companion
from evidencepack.schemas import schemas_dir

from ..conftest import SAMPLE_SPEC

SAMPLE_RUN = SAMPLE_SPEC.parent / "evidence" / "h200-vllm" / "runs" / "qps_4.0"


def _record() -> dict[str, Any]:
    return json.loads((SAMPLE_RUN / "run.json").read_text(encoding="utf-8"))


def _validator() -> jsonschema.Draft202012Validator:
    schema = json.loads((schemas_dir() / "measure-run.v1.schema.json").read_text(encoding="utf-8"))
    return jsonschema.Draft202012Validator(schema)


def test_every_sample_record_is_the_model_and_the_schema() -> None:
    records = sorted(SAMPLE_SPEC.parent.glob("evidence/*/runs/*/run.json"))
    assert len(records) == 19  # 15 of pack.yaml, 4 of pack-api.yaml (the hosted API)
    for path in records:
        text = path.read_text(encoding="utf-8")
        MeasureRunRecord.model_validate_json(text)
        assert list(_validator().iter_errors(json.loads(text))) == [], path


def test_not_finite_numbers_are_written_as_null(tmp_path: Path) -> None:
    record = _record()
    record["loadgen"]["target_qps"] = float("inf")
    record["request"]["sampling"] = {"temperature": float("nan"), "top_p": 0.9}
    record["requests"]["input_tokens_mean"] = float("-inf")
    write_record(tmp_path / "run.json", record)
    text = (tmp_path / "run.json").read_text(encoding="utf-8")
    assert "Infinity" not in text
    assert "NaN" not in text
    written = json.loads(text)
    assert written["loadgen"]["target_qps"] is None
    assert written["request"]["sampling"] == {"temperature": None, "top_p": 0.9}
    assert written["requests"]["input_tokens_mean"] is None
    assert list(_validator().iter_errors(written)) == []


def test_a_record_that_is_not_one_is_not_written(tmp_path: Path) -> None:
    record = _record()
    del record["requests"]["ok"]
    with pytest.raises(CouldNotRun, match=r"not valid at requests\.ok: Field required"):
        write_record(tmp_path / "run.json", record)
    assert not (tmp_path / "run.json").exists()


@pytest.mark.parametrize(
    ("edit", "where", "message"),
    [
        ('"failed": 0', '"failed": "none"', r"\$\.requests\.failed: .*valid integer"),
        (
            '"input_tokens_mean": 1795.47',
            '"input_tokens_mean": NaN',
            r"\$\.requests\.input_tokens_mean: .*finite",
        ),
        (
            '"scenario": "Server"',
            '"scenario": "Sever"',
            r"\$\.loadgen\.scenario: Input should be 'Server' or 'Offline'",
        ),
        ('"complete": true', '"complete": true, "completed": true', r"\$\.completed: Extra inputs"),
    ],
)
def test_the_reader_names_the_file_and_field(
    tmp_path: Path, edit: str, where: str, message: str
) -> None:
    folder = Path(shutil.copytree(SAMPLE_RUN, tmp_path / "qps_4.0"))
    record = folder / "run.json"
    text = record.read_text(encoding="utf-8")
    assert edit in text
    record.write_text(text.replace(edit, where), encoding="utf-8")
    with pytest.raises(InputError, match=message) as caught:
        read_companion(folder / "requests.jsonl", "evidence/run/requests.jsonl")
    assert caught.value.file == "evidence/run/run.json"


def test_the_sample_record_reads_as_before() -> None:
    companion = read_companion(SAMPLE_RUN / "requests.jsonl")
    assert companion is not None
    assert (companion.sent, companion.ok, companion.failed) == (500, 500, 0)
    assert companion.identity.runtime_name == "vllm"
    assert companion.identity.runtime_version == "0.9.2"
    assert companion.identity.model_name == "acme/contract-summariser-70b-fp8 (sample)"


def test_measure_reads_its_own_record_through_the_model(tmp_path: Path) -> None:
    from evidencepack.measure.run import read_result

    folder = tmp_path / "point"
    folder.mkdir()
    record = _record()
    record["complete"] = False
    record["stop_reason"] = "stopped by the user"
    (folder / "run.json").write_text(json.dumps(record), encoding="utf-8")
    result = read_result("point", folder)
    assert (result.complete, result.stop_reason, result.ok) == (False, "stopped by the user", 500)
    record["requests"]["ok"] = "500"
    (folder / "run.json").write_text(json.dumps(record), encoding="utf-8")
    with pytest.raises(
        CouldNotRun, match=r"run\.json: the run record is not valid at requests\.ok"
    ):
        read_result("point", folder)
