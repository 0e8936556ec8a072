"""Bounded everything (issue 23, item 5): sizes before reading, decompression by ratio, JSON
by depth, dates and numbers by their documented ranges, each a located error with the
documented exit code, in a subprocess under a memory limit and a timeout."""

from __future__ import annotations

import io
import re
import struct
import zipfile
from pathlib import Path

import pytest

from ..conftest import REPO_ROOT
from ..test_hostile import _prov_files, _zstd_rle_bomb
from .harness import assert_refused, run

SCORES = "evidence/h200-vllm/scores.jsonl"
SAMPLES = REPO_ROOT / "samples"
SMALL_MEMORY = 1 << 30
"""Less than any of these inputs would take to read whole."""


def _sparse(path: Path, size: int) -> Path:
    with path.open("wb") as handle:
        handle.truncate(size)
    return path


def test_a_sparse_2gib_scores_file_is_refused_by_size(samples: Path) -> None:
    scores = samples / SCORES
    scores.unlink()
    _sparse(scores, 2 << 30)
    spec = samples / "pack.yaml"
    spec.write_text(re.sub(r"(?m)^\s+sha256: f5cb68bb.*\n", "", spec.read_text()))
    ran = run(["check", "--json", str(spec)])
    assert ran.code == 1, ran.err
    assert "Traceback" not in ran.err
    found = _prov_files(ran, "h200-vllm")
    assert found["status"] == "FAIL"
    assert f"{SCORES}: 2147483648 bytes, over the limit of 1073741824" in found["reason"]
    assert ran.seconds < 60
    ran = run(["inspect", str(scores)], memory=SMALL_MEMORY)
    assert_refused(ran, 1, str(scores), "over the limit of 1073741824 bytes")


def test_inspect_of_a_huge_single_line_file(tmp_path: Path) -> None:
    huge = _sparse(tmp_path / "one-line.txt", 900 << 20)
    ran = run(["inspect", str(huge)], memory=SMALL_MEMORY)
    assert_refused(ran, 1, str(huge), "unknown format")


def test_a_zstd_member_past_the_ratio_is_refused(tmp_path: Path, shared_data: Path) -> None:
    """A member of 64 KiB that the directory says inflates to 1 GiB (within the per-member
    limit) is refused by ratio before a byte is decompressed."""
    source = next((shared_data / "formats/inspect-ai/generated").glob("*.eval"))
    frame = _zstd_rle_bomb(2 << 30)
    buffer = io.BytesIO()
    with zipfile.ZipFile(source) as old, zipfile.ZipFile(buffer, "w") as new:
        for info in old.infolist():
            data = frame if info.filename == "header.json" else b"{}"
            new.writestr(zipfile.ZipInfo(info.filename), data)
    data = bytearray(buffer.getvalue())
    with zipfile.ZipFile(io.BytesIO(bytes(data))) as check:
        offset = check.getinfo("header.json").header_offset
    data[offset + 8 : offset + 10] = struct.pack("<H", 93)
    data[offset + 22 : offset + 26] = struct.pack("<I", 1 << 30)
    central = data.index(b"PK\x01\x02")
    while data[central + 46 : central + 46 + len("header.json")] != b"header.json":
        central = data.index(b"PK\x01\x02", central + 4)
    data[central + 10 : central + 12] = struct.pack("<H", 93)
    data[central + 24 : central + 28] = struct.pack("<I", 1 << 30)
    bomb = tmp_path / "bomb.eval"
    bomb.write_bytes(bytes(data))
    ran = run(["inspect", str(bomb)], memory=SMALL_MEMORY)
    assert_refused(ran, 1, str(bomb), "header.json", "past 200 times its size")


DEEP = "[" * 100_000 + "]" * 100_000


def test_deeply_nested_json_is_a_located_error(tmp_path: Path) -> None:
    deep = tmp_path / "deep.json"
    deep.write_text(DEEP)
    assert_refused(run(["inspect", str(deep)]), 1, str(deep), "nested deeper")
    lines = tmp_path / "scores.jsonl"  # a real score file whose fifth line nests too deep
    real = (SAMPLES / SCORES).read_text().splitlines(keepends=True)
    lines.write_text("".join(real[:4]) + '{"b": ' + DEEP + "}\n" + "".join(real[4:]))
    assert_refused(run(["inspect", str(lines)]), 1, f"{lines}: line 5")
    evidence = tmp_path / "evidence"
    evidence.mkdir()
    (evidence / "deep.json").write_text(DEEP)
    ran = run(["init", str(evidence)])
    assert_refused(ran, 1, "no evidence evidencepack can read")
    prompts = tmp_path / "prompts.jsonl"
    prompts.write_text('{"prompt": "a"}\n{"prompt": ' + DEEP + "}\n")
    args = ["measure", "--endpoint", "http://127.0.0.1:9", "--model", "m", "--prompts"]
    ran = run([*args, str(prompts), "-o", str(tmp_path / "run"), "--scenario", "offline"])
    assert_refused(ran, 1, f"{prompts}:2", "not JSON")


@pytest.mark.parametrize(
    ("pattern", "new", "message"),
    [
        (r"(?m)^  date: 2026-11-30", "  date: 0001-01-01", "decision.date: 0001-01-01 is before"),
        (r"(?m)^  utilisation: .*", "  utilisation: 1.0e-320", "traffic.utilisation: 9.99989e-321"),
    ],
    ids=["year-one", "denormal-utilisation"],
)
def test_dates_and_numbers_out_of_range_are_located(
    samples: Path, tmp_path: Path, pattern: str, new: str, message: str
) -> None:
    spec = samples / "pack.yaml"
    text, count = re.subn(pattern, new, spec.read_text(), count=1)
    assert count == 1
    spec.write_text(text)
    ran = run(["build", str(spec), "-o", str(tmp_path / "pack"), "--archive"])
    assert_refused(ran, 1, f"{spec}:", message)
    assert not (tmp_path / "pack").exists()
