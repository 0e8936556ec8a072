"""The per-file size limit on run and score files (1 GiB, against hostile input) is raised only
explicitly: ``max_file_bytes`` on a spec reference, ``inspect --max-file-bytes``,
``read_input(max_bytes=)``; a file read over the default says so (a warning on what was read,
PROV-FILES WARN in a check), and every other file keeps the default.

A file over 1 GiB is too slow to write in a test, so the default is lowered here (the modules
read ``limits.MAX_INPUT_FILE_BYTES`` when they check) below the size of real, small files."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from pydantic import ValidationError

from evidencepack import api
from evidencepack.core import limits
from evidencepack.errors import InputError
from evidencepack.readers.registry import read_input
from evidencepack.spec.models import ReadRef
from tests.hostile.harness import run

AIPERF = "formats/aiperf/generated/profile_export.jsonl"


def test_a_file_over_the_default_is_read_only_under_a_raised_limit(
    shared_data: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    path = shared_data / AIPERF
    size = path.stat().st_size
    monkeypatch.setattr(limits, "MAX_INPUT_FILE_BYTES", size - 1)
    with pytest.raises(InputError) as refused:
        read_input(path)
    assert f"{path}: {size} bytes, over the limit of {size - 1} bytes" in refused.value.message
    assert "max_file_bytes" in refused.value.message  # says how to raise it
    parsed = read_input(path, max_bytes=size)
    assert parsed.runs
    assert parsed.runs[0].requests_completed
    assert parsed.warnings[0] == (
        f"{size} bytes, over the default limit of {size - 1} bytes for an evidence file: read "
        "because the limit was raised for it (max_file_bytes)"
    )
    assert api.read_input(path, max_file_bytes=size).warnings == parsed.warnings  # the API's
    monkeypatch.setattr(limits, "MAX_INPUT_FILE_BYTES", size)  # at the default: nothing said
    assert not any("default limit" in w for w in read_input(path).warnings)


def test_a_spec_raises_the_limit_for_its_references_and_the_check_says_so(
    samples: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The default lowered to 100,000 bytes: every sample run folder's ``requests.jsonl``
    (230-310 KB) is over it, its LoadGen logs and score files are not. One candidate's run
    references raise the limit; the other candidate's files keep the default."""
    monkeypatch.setattr(limits, "MAX_INPUT_FILE_BYTES", 100_000)
    spec = samples / "pack.yaml"
    text = spec.read_text()
    runs = re.findall(r"(?m)^        - path: (evidence/h200-vllm/runs/[^\n]+)\n", text)
    assert len(runs) == 5
    for ref in runs:
        text = text.replace(
            f"- path: {ref}\n", f"- path: {ref}\n          max_file_bytes: 400000\n"
        )
    spec.write_text(text)
    decision = api.check(spec)
    prov = {c.candidate: c for c in decision.checks if c.id == "PROV-FILES"}
    raised, kept = prov["h200-vllm"], prov["mi325x-vllm"]
    assert raised.status == "WARN", raised.reason
    for ref in runs:
        size = (samples / ref / "requests.jsonl").stat().st_size
        said = f"{ref}/requests.jsonl: " + limits.over_default_input_limit(size)
        assert said in raised.reason
    assert "over the limit" not in raised.reason
    assert kept.status == "FAIL"
    size = (samples / "evidence/mi325x-vllm/runs/qps_1.4/requests.jsonl").stat().st_size
    assert f"qps_1.4/requests.jsonl: {size} bytes, over the limit of 100000 bytes" in kept.reason
    assert "max_file_bytes on its reference" in kept.reason  # how to raise it


@pytest.mark.parametrize("value", [0, -1, (1 << 40) + 1, "8GiB", 1.5, True])
def test_max_file_bytes_is_a_whole_number_up_to_a_tib(value: object) -> None:
    with pytest.raises(ValidationError):
        ReadRef.model_validate({"path": "runs/big.jsonl", "max_file_bytes": value})
    assert ReadRef.model_validate({"path": "x", "max_file_bytes": 1 << 40}).max_file_bytes


def test_inspect_takes_the_limit_from_its_option(shared_data: Path) -> None:
    path = shared_data / AIPERF
    size = path.stat().st_size
    ran = run(["inspect", "--max-file-bytes", str(size - 1), str(path)])
    assert ran.code == 1, ran.err
    assert f"{size} bytes, over the limit of {size - 1} bytes" in ran.out + ran.err
    ran = run(["inspect", "--max-file-bytes", str(size), str(path)])
    assert ran.code == 0, ran.err
    for bad in ("0", "1.5", str((1 << 40) + 1)):
        ran = run(["inspect", "--max-file-bytes", bad, str(path)])
        assert ran.code == 2
        assert "--max-file-bytes" in ran.err
