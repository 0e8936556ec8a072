"""Property: mutated real inputs never raise anything but evidencepack's own errors.

Hypothesis mutates the real files in ../shared/data (and a signed pack built from them) by
truncation, byte flips, NaN, infinities, huge and negative numbers and duplicated keys, and runs
them through ``inspect``, ``mlperf import``, ``validate`` and ``verify``. ``main()`` turns only
``EvidencePackError`` (and I/O errors) into exit codes, so any other exception fails the test.
Examples are derandomised and bounded (``EVIDENCEPACK_FUZZ_EXAMPLES``, default 15 per target).
"""

from __future__ import annotations

import contextlib
import io
import os
import re
import shutil
import tempfile
from collections.abc import Callable
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from evidencepack._cli import main
from evidencepack.pack.archive import write_archive

from .conftest import SAMPLE_SPEC
from .sigstore_testing.fixtures import KeyPack

EXAMPLES = int(os.environ.get("EVIDENCEPACK_FUZZ_EXAMPLES", "15"))
FUZZ = settings(
    max_examples=EXAMPLES,
    deadline=None,
    derandomize=True,
    database=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)

_NUMBER = re.compile(rb"(?<![\w.])-?\d+(?:\.\d+)?(?:[eE][-+]?\d+)?(?![\w.])")
_KEY = re.compile(rb'"[A-Za-z_][A-Za-z0-9_]*"\s*:\s*[^,{}\[\]\n]+')
_SPECIAL = [b"NaN", b"Infinity", b"-Infinity", b"1e999", b"-1", b"0", b"1e-320", b"-5e300"]
_SPECIAL += [b"99999999999999999999999999", b"true", b"null", b'"x"', b".nan", b".inf"]

Mutation = Callable[[bytes], bytes]


@st.composite
def mutations(draw: st.DrawFn) -> Mutation:
    """One mutation of a file's bytes, chosen and parameterised by Hypothesis."""
    kind = draw(st.sampled_from(["truncate", "flip", "number", "duplicate", "splice"]))
    where = draw(st.floats(min_value=0, max_value=1, allow_nan=False))
    bit = draw(st.integers(min_value=0, max_value=7))
    special = draw(st.sampled_from(_SPECIAL))

    def at(data: bytes) -> int:
        return min(len(data) - 1, int(where * len(data))) if data else 0

    def mutate(data: bytes) -> bytes:
        if not data:
            return data
        if kind == "truncate":
            return data[: at(data)]
        if kind == "flip":
            i = at(data)
            return data[:i] + bytes([data[i] ^ (1 << bit)]) + data[i + 1 :]
        matches = list((_NUMBER if kind == "number" else _KEY).finditer(data))
        if not matches:
            return data[: at(data)]
        m = matches[min(len(matches) - 1, int(where * len(matches)))]
        if kind == "number":
            return data[: m.start()] + special + data[m.end() :]
        if kind == "duplicate":  # the same key twice in one object
            return data[: m.start()] + m.group() + b", " + data[m.start() :]
        return data[: m.start()] + m.group().split(b":", 1)[0] + b": " + special + data[m.end() :]

    return mutate


def _run(args: list[str]) -> int:
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        code = main(args)
    assert code in (0, 1, 2, 3)
    assert "Traceback" not in err.getvalue()
    return code


INSPECT_FILES = [
    "formats/guidellm/generated/benchmarks.json",
    "formats/guidellm/generated/benchmarks.csv",
    "formats/lm-eval/generated",
    "formats/inspect-ai/generated",
    "formats/aiperf/generated",
    "formats/promptfoo/generated",
]


def _small_files(shared_data: Path) -> list[Path]:
    files: list[Path] = []
    for name in INSPECT_FILES:
        path = shared_data / name
        found = [path] if path.is_file() else sorted(p for p in path.rglob("*") if p.is_file())
        files += [p for p in found if p.stat().st_size < 2 << 20][:3]
    assert files
    return files


@FUZZ
@given(data=st.data(), mutate=mutations())
def test_inspect_survives_mutated_inputs(
    shared_data: Path, data: st.DataObject, mutate: Mutation
) -> None:
    source = data.draw(st.sampled_from(_small_files(shared_data)))
    with tempfile.TemporaryDirectory() as tmp:
        target = Path(tmp) / source.name
        target.write_bytes(mutate(source.read_bytes()))
        _run(["inspect", str(target)])


@FUZZ
@given(
    mutate=mutations(), which=st.sampled_from(["mlperf_log_detail.txt", "mlperf_log_summary.txt"])
)
def test_mlperf_import_survives_mutated_loadgen_logs(
    shared_data: Path, mutate: Mutation, which: str
) -> None:
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp) / "llama2-70b_Server_perf"
        shutil.copytree(shared_data / "loadgen/llama2-70b_Server_perf", folder)
        (folder / which).write_bytes(mutate((folder / which).read_bytes()))
        db = Path(tmp) / "store.duckdb"
        _run(["mlperf", "import", str(folder), "--db", str(db), "--round", "v5.1"])


@FUZZ
@given(mutate=mutations())
def test_validate_survives_a_mutated_spec(mutate: Mutation) -> None:
    with tempfile.TemporaryDirectory() as tmp:
        spec = Path(tmp) / "pack.yaml"
        spec.write_bytes(mutate(SAMPLE_SPEC.read_bytes()))
        _run(["validate", str(spec), "--allow-outside-paths"])


@pytest.fixture
def signed_archive(key_pack: KeyPack, tmp_path: Path) -> tuple[bytes, bytes, str]:
    archive = write_archive(key_pack.folder, tmp_path / "pack.tar.gz")
    bundle = (key_pack.folder / "pack.sigstore.json").read_bytes()
    return archive.read_bytes(), bundle, str(key_pack.keys.public_key)


@FUZZ
@given(mutate=mutations(), part=st.sampled_from(["archive", "bundle"]))
def test_verify_survives_a_mutated_archive_or_bundle(
    signed_archive: tuple[bytes, bytes, str], key_pack: KeyPack, mutate: Mutation, part: str
) -> None:
    archive_bytes, bundle_bytes, public_key = signed_archive
    with tempfile.TemporaryDirectory() as tmp:
        archive = Path(tmp) / "pack.tar.gz"
        if part == "archive":
            archive.write_bytes(mutate(archive_bytes))
            _run(["verify", str(archive), "--key", public_key])
        else:
            bundle = Path(tmp) / "pack.sigstore.json"
            bundle.write_bytes(mutate(bundle_bytes))
            report = str(key_pack.folder / "report.pdf")
            _run(["verify", report, "--bundle", str(bundle), "--key", public_key])
