"""Start-up: each command imports only the heavy libraries it uses (checked in a fresh process)."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest
from cryptography.hazmat.primitives.asymmetric import ec
from cryptography.hazmat.primitives.serialization import Encoding, PublicFormat

from .conftest import SAMPLE_SPEC

HEAVY = ("duckdb", "weasyprint", "sigstore", "numpy", "jinja2", "pydantic", "cryptography")

_PROBE = """
import json, sys
from evidencepack._cli import main
try:
    main(sys.argv[1:])
except SystemExit:
    pass
print(json.dumps(sorted({m.split('.')[0] for m in sys.modules})))
"""


def _imported(*argv: str) -> set[str]:
    done = subprocess.run(
        [sys.executable, "-c", _PROBE, *argv], capture_output=True, text=True, check=False
    )
    modules: list[str] = json.loads(done.stdout.strip().splitlines()[-1])
    return set(modules) & set(HEAVY)


def test_help_imports_no_heavy_library() -> None:
    assert _imported("--help") == set()


def test_validate_imports_neither_the_store_nor_rendering_nor_signing() -> None:
    assert _imported("validate", str(SAMPLE_SPEC)) == {"pydantic"}


def test_check_imports_no_renderer_and_no_sigstore() -> None:
    imported = _imported("check", str(SAMPLE_SPEC))
    assert {"duckdb", "pydantic"} <= imported  # it does use the store: the probe saw it run
    assert not imported & {"weasyprint", "jinja2", "sigstore"}


def test_verify_with_a_key_imports_no_store_renderer_or_numpy(tmp_path: Path) -> None:
    key = ec.generate_private_key(ec.SECP256R1()).public_key()
    pem = key.public_bytes(Encoding.PEM, PublicFormat.SubjectPublicKeyInfo)
    (tmp_path / "pub.pem").write_bytes(pem)
    (tmp_path / "pack").mkdir()
    (tmp_path / "pack" / "a.txt").write_text("a")  # unsigned: verify runs and reports FAIL
    imported = _imported("verify", str(tmp_path / "pack"), "--key", str(tmp_path / "pub.pem"))
    assert {"cryptography", "pydantic"} <= imported
    assert not imported & {"duckdb", "weasyprint", "jinja2", "numpy", "sigstore"}


@pytest.mark.parametrize("command", ["mlperf", "inspect", "build", "sign", "keygen", "schemas"])
def test_each_commands_help_imports_no_heavy_library(command: str) -> None:
    assert _imported(command, "--help") == set()
