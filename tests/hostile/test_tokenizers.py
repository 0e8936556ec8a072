"""Tokenizers attacked (issue 42): ``measure --tokenizer`` and ``envelope.model.tokenizer``
refuse hostile files at once, with the file and the key named, never aborting, hanging or
printing a traceback."""

from __future__ import annotations

import json
import os
import shutil
import struct
from pathlib import Path

import pytest

from ..conftest import SAMPLE_SPEC
from .harness import assert_refused, run


def _string(text: bytes) -> bytes:
    return struct.pack("<Q", len(text)) + text


def _kv_string(key: str, value: str) -> bytes:
    return _string(key.encode()) + struct.pack("<I", 8) + _string(value.encode())


def _gguf(pairs: list[bytes], *, announced: int | None = None) -> bytes:
    head = b"GGUF" + struct.pack("<IQQ", 3, 0, len(pairs) if announced is None else announced)
    return head + b"".join(pairs)


def _tokens(count: int, width: int = 1) -> bytes:
    """The ``tokenizer.ggml.tokens`` pair: ``count`` strings of ``width`` bytes each."""
    key = _string(b"tokenizer.ggml.tokens") + struct.pack("<IIQ", 9, 8, count)
    item = _string(b"a" * width)
    return key + item * count


@pytest.fixture
def prompts(tmp_path: Path) -> Path:
    path = tmp_path / "prompts.jsonl"
    path.write_text(json.dumps({"prompt": "hello"}) + "\n")
    return path


def _measure(tokenizer: Path, prompts: Path, tmp_path: Path) -> list[str]:
    return ["measure", "--endpoint", "http://127.0.0.1:9", "--model", "m", "--prompts",
            str(prompts), "-o", str(tmp_path / "run"), "--scenario", "offline",
            "--tokenizer", str(tokenizer)]  # fmt: skip


def test_a_ten_million_token_vocabulary_is_refused_not_aborted(
    tmp_path: Path, prompts: Path
) -> None:
    model = tmp_path / "big.gguf"
    with model.open("wb") as out:
        out.write(_gguf([_kv_string("tokenizer.ggml.model", "gpt2")], announced=2))
        out.write(_string(b"tokenizer.ggml.tokens") + struct.pack("<IIQ", 9, 8, 10_000_000))
        out.write(_string(b"t") * 10_000_000)  # 90 MB of one-byte tokens
    ran = run(_measure(model, prompts, tmp_path))
    assert_refused(ran, 1, str(model), "10000000 items")
    assert ran.seconds < 30
    assert not (tmp_path / "run").exists()


def test_a_sparse_file_announcing_150m_pairs_is_refused_at_once(
    tmp_path: Path, prompts: Path
) -> None:
    model = tmp_path / "sparse.gguf"
    with model.open("wb") as out:
        out.write(_gguf([], announced=150_000_000))
        out.truncate(2 << 30)  # 2 GiB, nearly all a hole
    ran = run(_measure(model, prompts, tmp_path))
    assert_refused(ran, 1, str(model), "150000000 key-value pairs")
    assert ran.seconds < 30


def test_one_token_of_two_million_characters_is_refused(tmp_path: Path, prompts: Path) -> None:
    model = tmp_path / "sp.gguf"
    pairs = [
        _kv_string("tokenizer.ggml.model", "llama"),
        _tokens(1, 2_000_000),
        _string(b"tokenizer.ggml.scores") + struct.pack("<IIQf", 9, 6, 1, 0.0),
    ]
    model.write_bytes(_gguf(pairs))
    ran = run(_measure(model, prompts, tmp_path))
    assert_refused(ran, 1, str(model), "tokenizer.ggml.tokens[0]", "2000000 characters")
    assert ran.seconds < 30


def test_a_tokenizer_json_nested_100000_levels_is_refused(tmp_path: Path, prompts: Path) -> None:
    deep = tmp_path / "tokenizer.json"
    deep.write_text('{"model": ' + "[" * 100_000 + "]" * 100_000 + "}")
    ran = run(_measure(deep, prompts, tmp_path))
    assert_refused(ran, 1, str(deep), "nested too deep")


def test_a_fifo_as_the_pinned_tokenizer_is_refused_without_blocking(
    tmp_path: Path, prompts: Path
) -> None:
    samples = Path(
        shutil.copytree(
            SAMPLE_SPEC.parent, tmp_path / "samples", ignore=shutil.ignore_patterns("generate")
        )
    )
    os.mkfifo(samples / "tokenizer.json")
    spec = samples / "pack.yaml"
    text = spec.read_text(encoding="utf-8")
    named = f'  model:\n    tokenizer:\n      path: tokenizer.json\n      sha256: "{"0" * 64}"\n'
    spec.write_text(text.replace("  model:\n", named, 1), encoding="utf-8")
    args = ["measure", "--endpoint", "http://127.0.0.1:9", "--prompts", str(prompts),
            "-o", str(tmp_path / "run"), "--scenario", "offline", "--spec", str(spec),
            "--candidate", "h200-vllm"]  # fmt: skip
    ran = run(args)
    assert_refused(ran, 2, str(samples / "tokenizer.json"), "FIFO")
    assert ran.seconds < 60


def test_a_tokenizer_pin_that_does_not_match_is_a_prov_files_failure(tmp_path: Path) -> None:
    """``envelope.model.tokenizer`` pinned to another sha256 (issue 42): check names the file
    in PROV-FILES for every candidate, with both digests (it gave exit 1 with verdict None)."""
    samples = Path(
        shutil.copytree(
            SAMPLE_SPEC.parent, tmp_path / "samples", ignore=shutil.ignore_patterns("generate")
        )
    )
    tokenizer = {"model": {"type": "WordLevel", "vocab": {"a": 0}, "unk_token": "a"}}
    (samples / "tokenizer.json").write_text(json.dumps(tokenizer), encoding="utf-8")
    spec = samples / "pack.yaml"
    text = spec.read_text(encoding="utf-8")
    named = f'  model:\n    tokenizer:\n      path: tokenizer.json\n      sha256: "{"0" * 64}"\n'
    spec.write_text(text.replace("  model:\n", named, 1), encoding="utf-8")
    ran = run(["check", str(spec), "--json"])
    assert_refused(ran, 1)
    decision = json.loads(ran.out)
    assert decision["verdict"] == "FAIL"
    files = [c for c in decision["checks"] if c["id"] == "PROV-FILES"]
    assert len(files) == 3
    for judged in files:
        assert judged["status"] == "FAIL"
        assert "tokenizer.json: sha256 " in judged["reason"]
        assert f"does not match the pinned {'0' * 64}" in judged["reason"]


def test_a_40_mb_tokenizer_json_is_announced_before_it_is_read(tmp_path: Path) -> None:
    """A 40 MB tokenizer.json takes tens of seconds to read (issue 42: "without a word of
    progress"): the progress line names it, with its size, before the read starts."""
    from evidencepack.core.progress import Progress
    from evidencepack.measure.tokenizer_file import load_tokenizer_file

    said: list[str] = []

    class Recorder:
        def stage(self, text: str) -> None:
            said.append(text)

        def count(self, label: str, n: int) -> None:
            pass

        def finish(self) -> None:
            pass

    tokenizer = {"model": {"type": "WordLevel", "vocab": {"a": 0, "b": 1}, "unk_token": "a"}}
    path = tmp_path / "tokenizer.json"
    # JSON whitespace makes the file large without a large vocabulary: the read stays quick.
    text = json.dumps(tokenizer).replace(", ", "," + " " * (40 << 20), 1)
    path.write_text(text, encoding="utf-8")
    assert path.stat().st_size > 40_000_000
    loaded = load_tokenizer_file(path, Progress(Recorder()))
    assert loaded.count("a b") >= 1
    assert said == [f"reading the tokenizer {path} (42 MB): a large vocabulary takes a while"]
