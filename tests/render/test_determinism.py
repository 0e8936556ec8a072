"""Two renders in separate processes, with different hash seeds, give identical bytes."""

from __future__ import annotations

import hashlib
import io
import os
import subprocess
import sys
from pathlib import Path

import pypdf
import pytest

from ..conftest import REPO_ROOT

# Runs in a fresh interpreter from the worktree root, so it imports this checkout's code.
_SCRIPT = """
import sys, time
from pathlib import Path
from tests.render import fixture
from tests.render.test_pdf import attachments
from evidencepack.render.html import render_html
from evidencepack.render.pdf import render_pdf
from evidencepack.render.pdf import load_weasyprint

load_weasyprint()
out = Path(sys.argv[1])
start = time.perf_counter()
doc = fixture.decision()
html = render_html(doc, evidence_digest=fixture.EVIDENCE_DIGEST, signer=fixture.SIGNER)
middle = time.perf_counter()
pdf = render_pdf(html, attachments=attachments(), created=fixture.CREATED)
end = time.perf_counter()
(out / "report.html").write_text(html, encoding="utf-8")
(out / "report.pdf").write_bytes(pdf)
print(f"html {middle - start:.2f} s, pdf {end - middle:.2f} s")
"""


def _render(out: Path, seed: str) -> str:
    out.mkdir()
    env = {**os.environ, "PYTHONHASHSEED": seed}
    env.pop("SOURCE_DATE_EPOCH", None)
    done = subprocess.run(
        [sys.executable, "-c", _SCRIPT, str(out)],
        cwd=REPO_ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    return done.stdout.strip()


# slow: two renders of a report, each in a fresh process
@pytest.mark.slow
def test_two_processes_render_identical_html_and_pdf(tmp_path: Path) -> None:
    timings = [_render(tmp_path / "a", "1"), _render(tmp_path / "b", "4242")]
    for name in ("report.html", "report.pdf"):
        first = (tmp_path / "a" / name).read_bytes()
        second = (tmp_path / "b" / name).read_bytes()
        assert hashlib.sha256(first).hexdigest() == hashlib.sha256(second).hexdigest(), (
            f"{name} differs between processes ({timings})"
        )
    # The rendered HTML is exactly what this process renders too (no per-process state).
    golden = (Path(__file__).parent / "golden" / "report.html").read_bytes()
    assert (tmp_path / "a" / "report.html").read_bytes() == golden
    reader = pypdf.PdfReader(io.BytesIO((tmp_path / "a" / "report.pdf").read_bytes()))
    assert set(reader.attachments) == {"manifest.json", "decision.json"}
