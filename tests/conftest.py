"""Shared fixtures: the real data in ../shared/data, the sample spec, and spec-writing helpers."""

from __future__ import annotations

import os
import shutil
from collections.abc import Iterator
from pathlib import Path

import pytest

REPO_ROOT = Path(__file__).resolve().parent.parent
SHARED_DATA = Path(os.environ.get("EVIDENCEPACK_SHARED_DATA", REPO_ROOT.parent / "shared" / "data"))
SAMPLE_SPEC = REPO_ROOT / "samples" / "pack.yaml"

# Sample packs, a broken watch of the sample, a local Sigstore instance and signed packs for the
# signing tests; the order of the test files under pytest-xdist; the session's cache of rendered
# report PDFs (`real_pdf`); session packs made once per run, not once per xdist worker.
pytest_plugins = [
    "tests.run_once",  # first: tests.packs and tests.watches import it
    "tests.packs",
    "tests.watches",
    "tests.sigstore_testing.fixtures",
    "tests.ordering",
    "tests.pdf_cache",
]


def pytest_addoption(parser: pytest.Parser) -> None:
    parser.addoption(
        "--update-goldens", action="store_true", help="rewrite golden files from the current output"
    )


@pytest.fixture(scope="session")
def update_goldens(request: pytest.FixtureRequest) -> bool:
    return bool(request.config.getoption("--update-goldens"))


@pytest.fixture
def samples(tmp_path: Path) -> Path:
    """A private copy of samples/ whose spec a test may edit."""
    target = tmp_path / "samples"
    shutil.copytree(REPO_ROOT / "samples", target, ignore=shutil.ignore_patterns("generate"))
    return target


@pytest.fixture(scope="session")
def shared_data() -> Path:
    """The real inputs in ../shared/data. Missing data fails the test with a clear message."""
    if not (SHARED_DATA / "README.md").is_file():
        pytest.fail(
            f"the real test data is missing: expected {SHARED_DATA} (the shared folder beside the "
            "checkout; set EVIDENCEPACK_SHARED_DATA to point elsewhere)",
            pytrace=False,
        )
    return SHARED_DATA


def without_evidence(text: str) -> str:
    """The sample spec minus its evidence references (candidates' ``evidence:`` blocks and
    ``dataset.path``), which resolve only beside samples/pack.yaml, not in a test's tmp folder."""
    out: list[str] = []
    in_block = False
    for line in text.splitlines(keepends=True):
        if line.startswith("    evidence:"):
            in_block = True
            continue
        if in_block and line.startswith("      "):
            continue
        in_block = False
        if not line.startswith("  path: "):
            out.append(line)
    return "".join(out)


@pytest.fixture
def sample_text() -> str:
    """The sample spec's text, safe to write into another folder (see ``without_evidence``)."""
    return without_evidence(SAMPLE_SPEC.read_text(encoding="utf-8"))


@pytest.fixture
def write_spec(tmp_path: Path):  # type: ignore[no-untyped-def]
    """Write spec text into a fresh folder and return its path."""

    def write(text: str, name: str = "pack.yaml") -> Path:
        path = tmp_path / name
        path.write_text(text, encoding="utf-8")
        return path

    return write


def _user_output_state() -> list[tuple[str, int]]:
    """What the user's own output folders (``out/``, ``pack/`` in the checkout) hold, with times."""
    found = []
    for name in ("out", "pack"):
        root = REPO_ROOT / name
        if root.exists():
            found += [(str(p), p.lstat().st_mtime_ns) for p in sorted(root.rglob("*"))]
            found.append((str(root), root.lstat().st_mtime_ns))
    return found


@pytest.fixture(scope="session", autouse=True)
def _tests_leave_the_users_output_alone() -> Iterator[None]:
    """Tests write only to temporary folders: the user's out/pack is never rebuilt or re-signed."""
    before = _user_output_state()
    yield
    assert _user_output_state() == before, "a test wrote into the checkout's out/ or pack/"
