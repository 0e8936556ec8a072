"""Content probing: every container, and the bad files a user can hand in."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from evidencepack.errors import InputError
from evidencepack.readers.detect import probe_file
from evidencepack.readers.registry import read_input


def test_containers(tmp_path: Path) -> None:
    cases = {
        "a.json": (json.dumps({"a": 1}, indent=2), "json"),
        "b.json": ('{"a": 1}', "json"),
        "c.json": ('{"a": 1}\n{"a": 2}\n', "jsonl"),
        "d.json": ("\n\n[1, 2]\n", "json"),
        "e.txt": ("item_id,score\nx,1\n", "csv"),
        "f.txt": (":::MLLOG {}\n", "text"),
        "g.txt": ("   \n", "empty"),
    }
    for name, (text, container) in cases.items():
        (tmp_path / name).write_text(text)
        assert probe_file(tmp_path / name).container == container, name


@pytest.mark.parametrize(
    ("content", "message"),
    [
        (b"", "unknown format: the content \\(an empty file\\)"),
        (b"\x00\x01\x02\xff\xfe", "unknown format: the content \\(binary data\\)"),
        (b'{\n  "benchmarks": [\n    {"type_": "generative_benchmark"', "line 3 .*truncated JSON"),
        (b'{\n  "a": 1,,\n}', "line 2 column 10: malformed JSON"),
        (b"PK\x03\x04 not really a zip", "truncated or corrupt zip"),
        (b"hello world\n", "unknown format: the content \\(text\\)"),
        # Text that opens with a bracket is text, not broken JSON.
        (b"[server]\nhost = a\n", "unknown format: the content \\(text\\)"),
        (b"[results](http://x) of the run\n", "unknown format: the content \\(text\\)"),
        (b"[notes]\n", "unknown format: the content \\(text\\)"),
        # A YAML file of no known tool: its keys are named.
        (b"serving_mode: agg\nisl: 4000\n", "YAML or text with top-level keys isl, serving_mode"),
        # A JSON array that is broken is still called broken.
        (b'[\n  {"a": 1},,\n]', "line 2 column 12: malformed JSON"),
        (b'[{"a": 1}, {"a"', "truncated JSON"),
        (b"[null, 1,,]", "malformed JSON"),
    ],
)
def test_bad_files(tmp_path: Path, content: bytes, message: str) -> None:
    path = tmp_path / "input.json"
    path.write_bytes(content)
    with pytest.raises(InputError, match=message):
        read_input(path)


def test_missing_file_and_folder(tmp_path: Path) -> None:
    with pytest.raises(InputError, match="no such file"):
        read_input(tmp_path / "nope.json")
    with pytest.raises(InputError, match="is a folder"):
        read_input(tmp_path)
