"""A full disk ("No space left on device") while a pack is written (issue 42, left from round
two): exit 3, and the message names the pack folder asked for (``-o``), not only the system's
words or a hidden working folder's name; nothing is published."""

from __future__ import annotations

import errno
import pathlib
from pathlib import Path

import pytest

from evidencepack._cli import main
from evidencepack.core import _atomic
from evidencepack.errors import EXIT_COULD_NOT_RUN


def _full(*_args: object, **_kwargs: object) -> None:
    raise OSError(errno.ENOSPC, "No space left on device")


def _build(samples: Path, out: Path, capsys: pytest.CaptureFixture[str]) -> str:
    code = main(["build", str(samples / "pack.yaml"), "-o", str(out)])
    err = capsys.readouterr().err
    assert code == EXIT_COULD_NOT_RUN, err
    assert "No space left on device" in err
    assert not out.exists()
    assert [p.name for p in out.parent.iterdir() if p.name.startswith(f".{out.name}.")] == []
    return err


def test_a_full_disk_in_the_atomic_write_names_the_output_folder(
    samples: Path,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    out = tmp_path / "pack"
    monkeypatch.setattr(_atomic.os, "fsync", _full)
    err = _build(samples, out, capsys)
    assert f"beside {out}:" in err, err


def test_a_full_disk_writing_a_pack_document_names_the_output_folder(
    samples: Path,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    out = tmp_path / "pack"
    written = pathlib.Path.write_bytes

    def full_for_the_report(self: Path, data: bytes) -> int:
        if self.name == "report.pdf":  # written without a file name in the system's error
            _full()
        return written(self, data)

    monkeypatch.setattr(pathlib.Path, "write_bytes", full_for_the_report)
    err = _build(samples, out, capsys)
    assert err.startswith(f"evidencepack: error: {out}: cannot write the pack's report.pdf"), err


def test_a_full_disk_writing_the_predicate_names_the_output_folder(
    samples: Path,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    out = tmp_path / "pack"
    real = _atomic.os.fsync
    calls = {"n": 0}

    def full_after_the_marker(fd: int) -> None:
        calls["n"] += 1
        if calls["n"] > 1:  # the working folder's marker is written first
            _full()
        real(fd)

    monkeypatch.setattr(_atomic.os, "fsync", full_after_the_marker)
    err = _build(samples, out, capsys)
    assert f"{out}: cannot write the pack" in err, err
