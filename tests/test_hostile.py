"""A hostile-input corpus, generated here: every input gets a one-line error naming the file,
the documented exit code, no traceback, bounded time and memory, and loses no existing output.

Each case runs the real CLI in a subprocess under ``RLIMIT_AS`` and a timeout (a hang or an
unbounded allocation fails the test instead of the machine). Numbered as in issue 11.
"""

from __future__ import annotations

import contextlib
import errno
import gzip
import io
import json
import os
import re
import shutil
import struct
import subprocess
import sys
import tarfile
import zipfile
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import pytest
import yaml

from evidencepack.errors import CouldNotRun
from evidencepack.pack.archive import write_archive
from evidencepack.pack.layout import BUNDLE_NAME
from evidencepack.pack.publish import archive_path, publish, recover, staged_archive, staging_dir
from evidencepack.signing.keys import generate_keypair

from . import pdf_cache
from .conftest import REPO_ROOT, SAMPLE_SPEC, without_evidence
from .hostile.harness import SECONDS, Ran, assert_refused, run, snapshot
from .sigstore_testing.fixtures import KeyPack

# --- 1. resource exhaustion from tiny inputs ---------------------------------------------------


def _alias_bomb() -> str:
    lines = ['a0: &a0 ["lol", "lol", "lol", "lol", "lol", "lol", "lol", "lol", "lol"]']
    for i in range(1, 10):
        refs = ", ".join([f"*a{i - 1}"] * 9)
        lines.append(f"a{i}: &a{i} [{refs}]")
    return "\n".join(lines) + "\n"


@pytest.mark.parametrize(
    ("name", "text", "message"),
    [
        ("bomb.yaml", _alias_bomb(), "aliases are expanded"),
        ("deep.yaml", "a: " + "[" * 5000 + "]" * 5000 + "\n", "nesting deeper than 64"),
        ("huge.yaml", "a: " + "x" * (2 << 20) + "\n", "over the limit of 1048576 bytes"),
    ],
    ids=["alias-bomb", "deep-nesting", "oversized"],
)
def test_spec_bombs_are_refused_at_once(tmp_path: Path, name: str, text: str, message: str) -> None:
    spec = tmp_path / name
    spec.write_text(text)
    ran = run(["validate", str(spec)])
    assert_refused(ran, 1, str(spec), message)
    assert len(text) < 3 << 20  # the corpus stays small on disk
    assert ran.seconds < 30


def test_non_regular_files_are_refused_without_blocking(tmp_path: Path, key_pack: KeyPack) -> None:
    fifo = tmp_path / "pipe"
    os.mkfifo(fifo)
    assert_refused(run(["validate", str(fifo)]), 1, str(fifo), "FIFO")
    assert_refused(run(["inspect", str(fifo)]), 1, str(fifo), "FIFO")
    loadgen = tmp_path / "lg"
    loadgen.mkdir()
    assert_refused(run(["mlperf", "import", str(loadgen), "--db", str(fifo)]), 1, str(fifo), "FIFO")
    report = key_pack.folder / "report.pdf"
    pub = str(key_pack.keys.public_key)
    ran = run(["verify", str(report), "--bundle", str(fifo), "--key", pub])
    assert_refused(ran, 1, str(fifo), "FIFO")
    # A bundle symlinked to /dev/zero is refused, not read without end.
    before = snapshot(key_pack.folder)
    bundle = key_pack.folder / BUNDLE_NAME
    saved = bundle.read_bytes()
    bundle.unlink()
    bundle.symlink_to("/dev/zero")
    ran = run(["verify", str(key_pack.folder), "--key", pub])
    assert_refused(ran, 1, BUNDLE_NAME, "a device")
    assert ran.out.startswith("FAIL: ")
    bundle.unlink()
    bundle.write_bytes(saved)
    assert snapshot(key_pack.folder) == before


RUN_FOLDER = "evidence/h200-vllm/runs/qps_2.0"
MLPERF_RUN = (
    "evidence/mlperf/closed/SampleVendor/results/8xMI325X_vLLM/llama2-70b-99/Server"
    "/performance/run_1"
)


def _prov_files(ran: Ran, candidate: str) -> dict[str, str]:
    """The PROV-FILES check of ``candidate`` in the decision ``check --json`` printed."""
    decision = json.loads(ran.out)
    return next(
        c for c in decision["checks"] if c["id"] == "PROV-FILES" and c["candidate"] == candidate
    )


def _samples_copy(tmp_path_factory: pytest.TempPathFactory, name: str) -> Path:
    """A private copy of samples/ (as the ``samples`` fixture makes), for one module fixture."""
    target = tmp_path_factory.mktemp(name) / "samples"
    shutil.copytree(REPO_ROOT / "samples", target, ignore=shutil.ignore_patterns("generate"))
    return target


@dataclass(frozen=True)
class _FifoRuns:
    """The sample with a FIFO in a cited run folder: ``check --json`` and ``build`` of it."""

    samples: Path
    checked: Ran
    built: Ran
    out: Path


@pytest.fixture(scope="module")
def fifo_in_runs(tmp_path_factory: pytest.TempPathFactory) -> _FifoRuns:
    """Checked and built once (placeholder PDF: the tests read the decision and the file list),
    for the two tests that read what they printed and wrote."""
    if not hasattr(os, "mkfifo"):
        pytest.skip("needs FIFOs")
    samples = _samples_copy(tmp_path_factory, "fifo-runs")
    os.mkfifo(samples / RUN_FOLDER / "pipe.jsonl")
    spec = str(samples / "pack.yaml")
    out = samples.parent / "pack"
    with pdf_cache.no_pdf():
        return _FifoRuns(
            samples, run(["check", "--json", spec]), run(["build", spec, "-o", str(out)]), out
        )


def test_a_fifo_inside_a_cited_run_folder_is_named_without_blocking(
    fifo_in_runs: _FifoRuns,
) -> None:
    """A FIFO among a cited folder's files is never opened (that would wait for a writer
    forever): the candidate's PROV-FILES fails naming it, and the pack holds no copy of it."""
    ran = fifo_in_runs.checked
    assert ran.code == 1, ran.err
    assert "Traceback" not in ran.err
    found = _prov_files(ran, "h200-vllm")
    assert found["status"] == "FAIL"
    assert f"{RUN_FOLDER}/pipe.jsonl" in found["reason"]
    assert "not a regular file" in found["reason"]
    assert _prov_files(ran, "mi325x-vllm")["status"] == "PASS"
    built, out = fifo_in_runs.built, fifo_in_runs.out
    assert built.code == 1, built.err
    assert "Traceback" not in built.err
    assert (out / "decision.json").is_file(), built.err
    assert json.loads((out / "decision.json").read_text())["verdict"] == "FAIL"
    assert not list(out.rglob("pipe.jsonl"))


def test_the_fifo_finding_carries_no_path_of_the_building_machine(fifo_in_runs: _FifoRuns) -> None:
    built, out = fifo_in_runs.built, fifo_in_runs.out
    assert built.code == 1, built.err
    assert (out / "decision.json").is_file(), built.err
    decision = (out / "decision.json").read_text()
    assert f"{RUN_FOLDER}/pipe.jsonl" in decision
    assert str(fifo_in_runs.samples) not in decision


@pytest.fixture(scope="module")
def fifo_for_the_summary(tmp_path_factory: pytest.TempPathFactory) -> Ran:
    """``check --json`` of the sample with one cited MLPerf result's summary log replaced by a
    FIFO, run once for the two tests that read it."""
    if not hasattr(os, "mkfifo"):
        pytest.skip("needs FIFOs")
    samples = _samples_copy(tmp_path_factory, "fifo-summary")
    summary = samples / MLPERF_RUN / "mlperf_log_summary.txt"
    summary.unlink()
    os.mkfifo(summary)
    return run(["check", "--json", str(samples / "pack.yaml")])


def test_a_fifo_inside_a_cited_mlperf_tree_does_not_block(fifo_for_the_summary: Ran) -> None:
    ran = fifo_for_the_summary
    assert ran.code in (0, 1), ran.err
    assert "Traceback" not in ran.err
    assert ran.seconds < SECONDS
    assert _prov_files(ran, "mi325x-vllm")["status"] in ("PASS", "FAIL")


def test_a_fifo_inside_a_cited_mlperf_tree_is_named(fifo_for_the_summary: Ran) -> None:
    found = _prov_files(fifo_for_the_summary, "mi325x-vllm")
    assert found["status"] == "FAIL"
    assert "mlperf_log_summary.txt" in found["reason"]


def _zstd_rle_bomb(total: int) -> bytes:
    """A zstd frame of RLE blocks: 4 bytes per 128 KiB of zeros (here 64 KB -> 2 GiB)."""
    block = 128 << 10
    frame = bytearray(b"\x28\xb5\x2f\xfd\x00\x38")  # magic, no content size, 128 KiB window
    count = total // block
    for index in range(count):
        last = 1 if index == count - 1 else 0
        frame += struct.pack("<I", (block << 3) | (1 << 1) | last)[:3] + b"\x00"
    return bytes(frame)


def _with_zstd_member(source: Path, out: Path, member: str, frame: bytes) -> None:
    """A copy of the zip ``source`` whose ``member`` is ``frame`` as a method-93 (zstd) member
    declaring the frame's own length as its size."""
    buffer = io.BytesIO()
    with zipfile.ZipFile(source) as old, zipfile.ZipFile(buffer, "w") as new:
        for info in old.infolist():
            if info.filename == member:
                new.writestr(zipfile.ZipInfo(member), frame)  # stored, patched below
            else:
                new.writestr(zipfile.ZipInfo(info.filename), b"{}")
    data = bytearray(buffer.getvalue())
    with zipfile.ZipFile(io.BytesIO(bytes(data))) as check:
        offset = check.getinfo(member).header_offset
    data[offset + 8 : offset + 10] = struct.pack("<H", 93)
    central = data.index(b"PK\x01\x02")
    while data[central + 46 : central + 46 + len(member)] != member.encode():
        central = data.index(b"PK\x01\x02", central + 4)
    data[central + 10 : central + 12] = struct.pack("<H", 93)
    out.write_bytes(bytes(data))


def test_zstd_bomb_in_an_inspect_eval_is_capped(tmp_path: Path, shared_data: Path) -> None:
    source = next((shared_data / "formats/inspect-ai/generated").glob("*.eval"))
    bomb = tmp_path / "bomb.eval"
    _with_zstd_member(source, bomb, "header.json", _zstd_rle_bomb(2 << 30))
    assert bomb.stat().st_size < 200_000
    ran = run(["inspect", str(bomb)], memory=1 << 30)
    assert_refused(ran, 1, str(bomb), "header.json", "inflates past")


def test_tar_bomb_is_refused_before_anything_is_extracted(
    tmp_path: Path, key_pack: KeyPack
) -> None:
    bomb = tmp_path / "pack.tar.gz"
    header = tarfile.TarInfo("pack/inputs/zeros.bin")
    header.size = 3 << 30
    with bomb.open("wb") as raw, gzip.GzipFile(fileobj=raw, mode="wb", mtime=0) as zipped:
        zipped.write(header.tobuf(tarfile.PAX_FORMAT))
        for _ in range(16):
            zipped.write(bytes(1 << 20))
    scratch = tmp_path / "tmp"
    scratch.mkdir()
    ran = run(
        ["verify", str(bomb), "--key", str(key_pack.keys.public_key)], env={"TMPDIR": str(scratch)}
    )
    assert_refused(ran, 1, str(bomb), "compression bomb")
    assert list(scratch.iterdir()) == []  # nothing written, nothing left


# --- 2. tracebacks instead of errors ----------------------------------------------------------


@pytest.mark.parametrize(
    ("pattern", "new", "message"),
    [
        (r"date: 2026-11-30", "date: 2026-02-30", "day is out of range for month"),
        (r"question: >-", 'question: "nul \x00 here"\n  was: >-', "U+0000 CONTROL CHARACTER"),
        (
            r"per_accelerator_hour: [0-9.]+",
            "per_accelerator_hour: 1.0e+308",
            "per_accelerator_hour",
        ),
        (r"per_accelerator_hour: [0-9.]+", "per_accelerator_hour: true", "per_accelerator_hour"),
        (r"peak_requests_per_s: [0-9.]+", "peak_requests_per_s: 1.0e-320", "peak_requests_per_s"),
        (r"accelerator: NVIDIA H200-SXM-141GB", 'accelerator: "AMD \\u202eX523IM"', "U+202E"),
    ],
    ids=["bad-date", "nul", "huge-price", "bool-price", "tiny-peak", "bidi-name"],
)
def test_bad_spec_values_are_located_errors(
    tmp_path: Path, sample_text: str, pattern: str, new: str, message: str
) -> None:
    text, count = re.subn(pattern, lambda _match: new, sample_text, count=1)
    assert count == 1
    spec = tmp_path / "pack.yaml"
    spec.write_text(text)
    ran = run(["validate", str(spec)])
    assert_refused(ran, 1, str(spec), message)
    assert f"{spec}:" in ran.err  # located: file:line:column


@pytest.mark.parametrize("constant", ["NaN", "Infinity", "-Infinity", "1e999"])
def test_non_finite_numbers_in_a_loadgen_log(
    tmp_path: Path, shared_data: Path, constant: str
) -> None:
    folder = tmp_path / "llama2-70b_Server_perf"
    shutil.copytree(shared_data / "loadgen/llama2-70b_Server_perf", folder)
    detail = folder / "mlperf_log_detail.txt"
    lines = detail.read_text().splitlines(keepends=True)
    index = next(i for i, line in enumerate(lines) if '"value": 1' in line)
    lines[index] = lines[index].replace('"value": 1', f'"value": {constant}, "was": 1', 1)
    detail.write_text("".join(lines))
    db = tmp_path / "store.duckdb"
    ran = run(["mlperf", "import", str(folder), "--db", str(db), "--round", "v5.1"])
    assert_refused(ran, 1, f"mlperf_log_detail.txt:{index + 1}")


def test_an_overflowing_number_in_a_loadgen_summary(tmp_path: Path, shared_data: Path) -> None:
    folder = tmp_path / "llama2-70b_Server_perf"
    shutil.copytree(shared_data / "loadgen/llama2-70b_Server_perf", folder)
    summary = folder / "mlperf_log_summary.txt"
    text, count = re.subn(
        r"(?m)^(Completed samples per second\s*:\s*).*$",
        r"\g<1>1e999",
        summary.read_text(),
        count=1,
    )
    assert count == 1
    summary.write_text(text)
    db = tmp_path / "store.duckdb"
    ran = run(["mlperf", "import", str(folder), "--db", str(db), "--round", "v5.1"])
    assert_refused(ran, 1, "mlperf_log_summary.txt:", "overflows to infinity")


def test_a_passphrase_over_openssls_limit(tmp_path: Path) -> None:
    private, public = tmp_path / "k.pem", tmp_path / "k.pub"
    ran = run(
        ["keygen", "--private-key", str(private), "--public-key", str(public)],
        env={"EVIDENCEPACK_KEY_PASSPHRASE": "p" * 1024},
    )
    assert_refused(ran, 2, "1024 bytes", "at most 1023")
    assert not private.exists()
    assert not public.exists()


def test_a_broken_pipe_ends_quietly(tmp_path: Path, shared_data: Path) -> None:
    db = tmp_path / "store.duckdb"
    folder = shared_data / "loadgen/llama2-70b_Server_perf"
    assert run(["mlperf", "import", str(folder), "--db", str(db), "--round", "v5.1"]).code == 0
    process = subprocess.Popen(
        [sys.executable, "-m", "evidencepack", "mlperf", "list", "--db", str(db)],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        cwd=REPO_ROOT,
    )
    assert process.stdout is not None
    assert process.stderr is not None
    process.stdout.close()  # the reader goes away before the first line (``| head -0``)
    err = process.stderr.read().decode()
    assert process.wait(timeout=SECONDS) == 3
    assert "Traceback" not in err
    assert "BrokenPipe" not in err


# --- the built pack most remaining cases use ---------------------------------------------------


BIDI_MODEL = "AMD \u202eX523IM"


@pytest.fixture(scope="module")
def built(tmp_path_factory: pytest.TempPathFactory, shared_data: Path) -> tuple[Path, Path]:
    """A spec whose first candidate cites a broken run file and a run whose model name holds
    a bidi override, built once; returns (spec, pack)."""
    home = tmp_path_factory.mktemp("hostile")
    spec_dir = home / "project"
    (spec_dir / "runs").mkdir(parents=True)
    (spec_dir / "runs/broken.json").write_text('{"endpoint_type": "openai", "completed": ')
    guidellm = (shared_data / "formats/guidellm/generated/benchmarks.json").read_text()
    bidi = guidellm.replace("fake-org/fake-model-8b", json.dumps(BIDI_MODEL)[1:-1])
    assert bidi != guidellm
    (spec_dir / "runs/bidi.json").write_text(bidi)
    data = yaml.safe_load(without_evidence(SAMPLE_SPEC.read_text()))
    data["candidates"][0]["evidence"] = {
        "runs": [{"path": "runs/broken.json"}, {"path": "runs/bidi.json"}]
    }
    spec = spec_dir / "pack.yaml"
    spec.write_text(yaml.safe_dump(data, sort_keys=False))
    pack = home / "out"
    ran = run(["build", str(spec), "-o", str(pack)])
    assert ran.code in (0, 1), ran.err
    assert "Traceback" not in ran.err
    return spec, pack


def test_no_absolute_path_of_the_building_machine_in_the_pack(built: tuple[Path, Path]) -> None:
    spec, pack = built
    decision = (pack / "decision.json").read_text()
    assert "runs/broken.json" in decision  # the input error is recorded ...
    home = str(spec.parent.parent)
    for path in pack.rglob("*"):
        if path.is_file() and path.suffix in (".json", ".html", ".yaml"):
            assert home not in path.read_text(errors="replace"), path  # ... without our paths


@pytest.mark.no_pdf  # the rebuild compares every input of the PDF (HTML, decision, manifest)
def test_a_pack_listing_input_errors_rebuilds_elsewhere(
    built: tuple[Path, Path], tmp_path: Path
) -> None:
    """The input errors name files by their pack path, so ``verify --rebuild`` of a copy in
    another folder reproduces the report byte for byte."""
    spec, _pack = built
    keys = generate_keypair(tmp_path / "k.pem", tmp_path / "k.pub", None)
    pack = tmp_path / "signed"
    assert run(["build", str(spec), "-o", str(pack), "--key", str(keys.private_key)]).code == 1
    assert "runs/broken.json" in (pack / "report.html").read_text()
    copy = tmp_path / "elsewhere" / "pack"
    shutil.copytree(pack, copy)
    shutil.rmtree(pack)
    ran = run(["verify", str(copy), "--key", str(keys.public_key), "--rebuild"])
    assert ran.code == 0, ran.out + ran.err
    assert "rebuild      OK" in ran.out


def test_bidi_from_evidence_is_shown_escaped_with_a_warning(built: tuple[Path, Path]) -> None:
    _spec, pack = built
    html = (pack / "report.html").read_text()
    assert "\u202e" not in html
    assert "\\u202e" in html
    assert "bidi character(s) U+202E" in html
    ran = run(["inspect", str(_spec.parent / "runs/bidi.json")])
    assert ran.code == 0, ran.err
    assert "\u202e" not in ran.out
    assert "\\u202e" in ran.out
    assert "U+202E" in ran.out


def test_a_full_disk_is_exit_3_and_the_old_pack_stays(built: tuple[Path, Path]) -> None:
    spec, pack = built
    before = snapshot(pack)
    ran = run(["build", str(spec), "-o", str(pack), "--force"], file_size=64 << 10)
    assert_refused(ran, 3, "File too large")
    assert snapshot(pack) == before
    assert sorted(p.name for p in pack.parent.iterdir()) == ["out", "project"]


def test_a_full_disk_while_the_archive_is_written_is_exit_3(
    tmp_path: Path, key_pack: KeyPack, monkeypatch: pytest.MonkeyPatch
) -> None:
    def full(self: gzip.GzipFile, data: object) -> int:
        raise OSError(errno.ENOSPC, "No space left on device")

    monkeypatch.setattr(gzip.GzipFile, "write", full)
    out = tmp_path / "out"
    with pytest.raises(CouldNotRun, match="No space left on device") as info:
        write_archive(key_pack.folder, out / "pack.tar.gz")
    assert info.value.exit_code == 3
    assert list(out.iterdir()) == []  # no archive, no temporary file


# --- 3. --force replaces only a pack -----------------------------------------------------------


@pytest.mark.parametrize("where", ["spec folder", "ancestor", "not a pack", "input folder"])
def test_force_never_replaces_what_it_must_not(built: tuple[Path, Path], where: str) -> None:
    spec, _pack = built
    home = spec.parent.parent
    target = {
        "spec folder": spec.parent,
        "ancestor": home,
        "not a pack": home / "notes",
        "input folder": spec.parent / "runs",
    }[where]
    target.mkdir(exist_ok=True)
    (target / ".ssh").mkdir(exist_ok=True)
    (target / ".ssh/id_ed25519").write_text("secret")
    if where == "input folder":  # even a folder that looks like a pack
        for name in ("manifest.json", "predicate.json"):
            (target / name).write_text("{}")
    before = snapshot(home)
    ran = run(["build", str(spec), "-o", str(target), "--force"])
    message = "not an evidencepack pack" if where == "not a pack" else "holds"
    assert_refused(ran, 2, str(target), message)
    assert snapshot(home) == before


# --- 4. crash consistency ---------------------------------------------------------------------


def _fake_pack(folder: Path, tag: str) -> Path:
    folder.mkdir()
    for name in ("manifest.json", "predicate.json", "report.pdf"):
        (folder / name).write_text(f"{tag} {name}")
    return folder


class Crash(BaseException):
    """A kill at a chosen rename."""


@pytest.mark.parametrize("crash_at", [0, 1, 2, 3, 4])
def test_a_crash_at_any_rename_leaves_old_or_new_outputs(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, crash_at: int
) -> None:
    out = _fake_pack(tmp_path / "pack", "old")
    archive = archive_path(out)
    archive.write_text("old archive")
    staging = staging_dir(out)
    shutil.rmtree(staging)
    _fake_pack(staging, "new")
    staged = staged_archive(staging)
    staged.write_text("new archive")
    real_replace = os.replace
    calls: list[int] = []

    def replace(src: str | os.PathLike[str], dst: str | os.PathLike[str]) -> None:
        if not str(dst).endswith(".publish.json"):
            calls.append(1)
            if len(calls) == crash_at + 1:
                raise Crash
        real_replace(src, dst)

    monkeypatch.setattr(os, "replace", replace)
    with contextlib.suppress(Crash):
        # fake packs: replaceable for this test, which is about the renames
        publish(staging, out, force=True, archive=staged, verify=lambda _folder, _markers: None)
    monkeypatch.setattr(os, "replace", real_replace)
    recover(out)  # what the next build to this OUTDIR does first
    assert (out / "report.pdf").read_text() in ("new report.pdf", "old report.pdf")
    together = ((out / "report.pdf").read_text()[:3], archive.read_text()[:3])
    assert together in (("new", "new"), ("old", "old"))
    assert sorted(p.name for p in tmp_path.iterdir()) == ["pack", "pack.tar.gz"]


# --- 5. verification edge cases ---------------------------------------------------------------


def _archive(key_pack: KeyPack, tmp_path: Path) -> Path:
    return write_archive(key_pack.folder, tmp_path / "pack.tar.gz")


def test_data_after_the_end_of_archive_is_refused(tmp_path: Path, key_pack: KeyPack) -> None:
    archive = _archive(key_pack, tmp_path)
    forged = io.BytesIO()
    with tarfile.open(fileobj=forged, mode="w") as tar:
        data = b"%PDF-1.7 forged"
        info = tarfile.TarInfo("pack/report.pdf")
        info.size = len(data)
        tar.addfile(info, io.BytesIO(data))
    with archive.open("ab") as handle:  # a second gzip member: tar -xi unpacks it
        handle.write(gzip.compress(forged.getvalue()))
    ran = run(["verify", str(archive), "--key", str(key_pack.keys.public_key)])
    assert_refused(ran, 1, str(archive), "damaged archive", "appended")
    assert ran.out.startswith("FAIL: ")
    assert "verdict PASS" not in ran.out
    assert "gave PASS" not in ran.out


def test_one_flipped_byte_reports_a_damaged_archive(tmp_path: Path, key_pack: KeyPack) -> None:
    archive = _archive(key_pack, tmp_path)
    data = bytearray(archive.read_bytes())
    data[len(data) // 2] ^= 0x01
    archive.write_bytes(bytes(data))
    ran = run(["verify", str(archive), "--key", str(key_pack.keys.public_key)])
    assert_refused(ran, 1, str(archive), "damaged")
    assert "no such bundle" not in ran.out
    assert "the archive is damaged" in ran.out


def test_a_lone_file_must_be_one_a_reader_receives_alone(tmp_path: Path, key_pack: KeyPack) -> None:
    run_file = "inputs/runs/guidellm/benchmarks.json"
    forged = tmp_path / "report.pdf"  # a contributor's file renamed to pass for the report
    shutil.copyfile(key_pack.folder / run_file, forged)
    args = ["verify", str(forged), "--bundle", str(key_pack.folder / BUNDLE_NAME)]
    args += ["--key", str(key_pack.keys.public_key)]
    ran = run(args)
    assert_refused(ran, 1, run_file, "--any-file")
    assert ran.out.startswith("FAIL: ")
    accepted = run([*args, "--any-file"])
    assert accepted.code == 0, accepted.out
    assert f"subject      {run_file}" in accepted.out


def test_sign_refuses_to_replace_a_signature(tmp_path: Path, key_pack: KeyPack) -> None:
    bundle = key_pack.folder / BUNDLE_NAME
    before = bundle.read_bytes()
    args = ["sign", str(key_pack.folder), "--key", str(key_pack.keys.private_key)]
    ran = run(args, env={"EVIDENCEPACK_KEY_PASSPHRASE": "pw"})
    assert_refused(ran, 2, str(bundle), "--force")
    assert bundle.read_bytes() == before
    assert run([*args, "--force"], env={"EVIDENCEPACK_KEY_PASSPHRASE": "pw"}).code == 0


# --- 7. DuckDB reaching out -------------------------------------------------------------------


def test_a_sqlite_file_as_db_is_refused_and_extensions_stay_off(tmp_path: Path) -> None:
    import sqlite3

    db = tmp_path / "store.sqlite"
    with sqlite3.connect(db) as con:
        con.execute("CREATE TABLE t (a)")
    before = db.read_bytes()
    assert_refused(run(["mlperf", "list", "--db", str(db)]), 1, str(db), "SQLite")
    assert db.read_bytes() == before
    from evidencepack.store import Store

    with Store(tmp_path / "new.duckdb") as store:
        settings: Callable[[str], object] = lambda name: store.rows(  # noqa: E731
            "SELECT current_setting(?) AS v", [name]
        )[0]["v"]
        assert settings("autoinstall_known_extensions") is False
        assert settings("autoload_known_extensions") is False
