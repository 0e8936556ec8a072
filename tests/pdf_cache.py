"""WeasyPrint's PDF of a report rendered once per test session, not once per build.

Rendering the sample report's PDF is most of a build's time (about three quarters), and the
suite builds the same sample, with the same HTML, attachments and date, dozens of times: once
per test that copies, forges, re-signs or rebuilds it. ``render_pdf`` is deterministic (same
HTML, attachments and ``created`` give the same bytes on the same toolchain), so during the
tests it is memoised by the SHA-256 of exactly those inputs: a render whose inputs differ in one
byte (another decision, signer line, attachment) is a real render, so a test comparing a rebuilt
report with the pack's still fails when what goes into the PDF differs. A failed render (a
refused resource, a missing library) is never stored: it raises again each time.

What the cache cannot show is WeasyPrint giving other bytes for the same inputs. The tests that
are about that (two renders or two builds compared, a rebuild reproducing the report byte for
byte) and those about the renderer itself are marked ``real_pdf`` and render every time (what
they render is stored for the other tests).

A test that builds a pack of its own (another spec: a render nobody shares) only to read its
``report.html`` or ``decision.json`` is marked ``no_pdf``: its builds write a placeholder
``report.pdf`` (``PLACEHOLDER_PDF``) instead of rendering one.

The entries are files in one folder that pytest-xdist's controller makes and hands to each worker
(as ``tests/run_once.py`` does), so both workers share the sample's render; without
xdist the folder belongs to the session. It is removed at the end of the run.

A test that runs the real CLI in a child process (``tests/hostile/harness.py``) runs it as
``python -m tests.pdf_cache_cli ARGS``: the same ``evidencepack`` entry point, with this cache
(its folder and the test's mode, passed in ``child_env()``) in place of ``render_pdf``.
"""

from __future__ import annotations

import contextlib
import datetime as dt
import hashlib
import os
import shutil
import tempfile
import threading
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import Any

import pytest

import evidencepack.render.pdf as pdf_module
from evidencepack.core.progress import SILENT, Progress
from evidencepack.render.pdf import Attachment

_KEY = "evidencepack_pdf_cache"
_real_render = pdf_module.render_pdf
_state: dict[str, Any] = {"folder": None, "mode": "cache"}
_one_render = threading.Lock()
"""One WeasyPrint render at a time in this process (a session fixture's thread may render while
a test does; fontconfig and Pango are not made to be driven from two threads at once)."""

PLACEHOLDER_PDF = b"%PDF-1.7\n% not rendered: the test reads no PDF (tests/pdf_cache.py)\n%%EOF\n"


def _digest(html: str, attachments: Sequence[Attachment], created: dt.datetime) -> str:
    """SHA-256 over every input of a render, each part length-prefixed."""
    h = hashlib.sha256()
    parts = [html.encode(), created.isoformat().encode()]
    for a in attachments:
        parts += [a.name.encode(), a.data, a.description.encode(), a.mime_type.encode()]
    for part in parts:
        h.update(len(part).to_bytes(8, "big"))
        h.update(part)
    return h.hexdigest()


def _cached_render(
    html: str,
    *,
    attachments: Sequence[Attachment],
    created: dt.datetime,
    progress: Progress = SILENT,
) -> bytes:
    folder: Path | None = _state["folder"]
    # The marks are the running test's: a session fixture's thread (tests/watches.py's broken
    # watch, measured while tests run) renders as for an unmarked test, never a placeholder.
    mode = _state["mode"] if threading.current_thread() is threading.main_thread() else "cache"
    if mode == "none":
        return PLACEHOLDER_PDF
    if folder is None:
        with _one_render:
            return _real_render(html, attachments=attachments, created=created, progress=progress)
    entry = folder / _digest(html, attachments, created)
    if mode == "cache" and entry.is_file():  # a real_pdf test renders, and stores
        pages, pdf = entry.read_bytes().split(b"\n", 1)
        progress.count("pages rendered", int(pages))  # what the real render reports
        return pdf
    counted: list[int] = []

    class _Counting(Progress):
        """The caller's progress, with the pages the real render counts kept for the entry."""

        def count(self, label: str, n: int = 1) -> None:
            if label == "pages rendered":
                counted.append(n)
            progress.count(label, n)

        def stage(self, text: str) -> None:
            progress.stage(text)

    with _one_render:
        pdf = _real_render(html, attachments=attachments, created=created, progress=_Counting())
    if counted:
        partial = entry.with_name(f"{entry.name}.{os.getpid()}.partial")
        try:
            partial.write_bytes(str(counted[-1]).encode() + b"\n" + pdf)
            partial.replace(entry)  # atomic: the other worker reads a whole entry or none
        except OSError:  # a child under a file-size limit (a full-disk test): not stored
            partial.unlink(missing_ok=True)
    return pdf


@contextlib.contextmanager
def no_pdf() -> Iterator[None]:
    """Placeholder PDFs within the block, for a module fixture whose tests read no PDF (the
    ``no_pdf`` mark applies to a test's own builds only)."""
    before = _state["mode"]
    _state["mode"] = "none"
    try:
        yield
    finally:
        _state["mode"] = before


_FOLDER_ENV = "EVIDENCEPACK_TEST_PDF_CACHE"
_MODE_ENV = "EVIDENCEPACK_TEST_PDF_MODE"


def child_env() -> dict[str, str]:
    """The environment that gives a child ``python -m tests.pdf_cache_cli`` this process's
    cache folder and the running test's mode (none without a folder: it then renders)."""
    folder: Path | None = _state["folder"]
    if folder is None:
        return {}
    return {_FOLDER_ENV: str(folder), _MODE_ENV: str(_state["mode"])}


def install_in_child() -> None:
    """In a child process started with ``child_env()``: render through the cache as its test
    would in-process."""
    folder = os.environ.get(_FOLDER_ENV)
    if folder:
        _state["folder"] = Path(folder)
        _state["mode"] = os.environ.get(_MODE_ENV, "cache")
        pdf_module.render_pdf = _cached_render  # type: ignore[assignment]


def pytest_configure(config: pytest.Config) -> None:
    config.addinivalue_line(
        "markers",
        "real_pdf: renders every report PDF with WeasyPrint, never from the session's cache "
        "(tests/pdf_cache.py): the test is about the renderer or about reproducing its bytes",
    )
    config.addinivalue_line(
        "markers",
        "no_pdf: the test's own builds write a placeholder report.pdf, not rendered "
        "(tests/pdf_cache.py): it reads only the pack's HTML or JSON",
    )
    workerinput = getattr(config, "workerinput", None)
    if workerinput is not None:
        folder = workerinput.get(_KEY)
    else:
        folder = tempfile.mkdtemp(prefix="evidencepack-pdf-cache-")
        setattr(config, _KEY, folder)
    _state["folder"] = Path(folder) if folder else None
    pdf_module.render_pdf = _cached_render  # type: ignore[assignment]


def pytest_unconfigure(config: pytest.Config) -> None:
    pdf_module.render_pdf = _real_render
    folder = getattr(config, _KEY, None)
    if folder is not None:
        shutil.rmtree(folder, ignore_errors=True)


@pytest.hookimpl(optionalhook=True)
def pytest_configure_node(node: Any) -> None:
    """xdist's controller: hand each worker the cache folder."""
    node.workerinput[_KEY] = getattr(node.config, _KEY)


@pytest.fixture(autouse=True)
def _pdf_as_marked(request: pytest.FixtureRequest) -> Iterator[None]:
    """A ``real_pdf`` test renders each PDF it makes itself, a ``no_pdf`` test renders none (a
    session fixture's shared pack, set up before this, is cached either way: a real render, in
    this process or another)."""
    real = request.node.get_closest_marker("real_pdf") is not None
    none = request.node.get_closest_marker("no_pdf") is not None
    assert not (real and none), "a test is marked both real_pdf and no_pdf"
    _state["mode"] = "real" if real else "none" if none else "cache"
    try:
        yield
    finally:
        _state["mode"] = "cache"
