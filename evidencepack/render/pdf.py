"""The PDF/A-3b report through WeasyPrint: the only module that imports weasyprint.

Byte-identical output for the same HTML, attachments and ``created`` on the same toolchain: the
document and attachment dates come from ``created`` (never the clock), ``pdf/a-3b`` gives a
content-derived ``/ID``, fonts are subset by HarfBuzz (fontTools would stamp the current time),
and every resource request goes through the allowlist fetcher of ``fetcher.py``.
"""

from __future__ import annotations

import base64
import contextlib
import datetime as dt
import os
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from types import ModuleType
from typing import Any

from ..core.progress import SILENT, Progress
from ..errors import RenderError
from .fetcher import FetchRefused, check_url

SYSTEM_PACKAGES = (
    "libpango-1.0-0",
    "libpangoft2-1.0-0",
    "libharfbuzz-subset0",
    "fonts-dejavu-core",
)
"""Debian packages WeasyPrint needs for reproducible output (also in .ci/apt-packages.txt)."""

PDF_VARIANT = "pdf/a-3b"


@dataclass(frozen=True)
class Attachment:
    """A file embedded in the PDF (``AFRelationship /Data``), e.g. the manifest or decision.json."""

    name: str
    data: bytes
    description: str
    mime_type: str = "application/json"


def _missing_libraries(detail: str) -> RenderError:
    return RenderError(
        f"WeasyPrint cannot render the PDF: {detail}. Install the Debian packages "
        f"{' '.join(SYSTEM_PACKAGES)} (listed in .ci/apt-packages.txt; `bash .ci/setup` "
        "installs them)"
    )


def load_weasyprint() -> ModuleType:
    """Import weasyprint, turning a missing system library into RenderError (exit 3)."""
    try:
        import weasyprint
        from weasyprint.text import ffi
    except OSError as exc:
        # cffi's dlopen raises OSError when Pango, HarfBuzz or fontconfig is absent.
        raise _missing_libraries(f"a system library failed to load ({exc})") from exc
    except ImportError as exc:
        raise RenderError(
            f"WeasyPrint is not installed ({exc}); reinstall evidencepack with its dependencies"
        ) from exc
    if ffi.harfbuzz_subset is None:
        raise _missing_libraries(
            "HarfBuzz-Subset is missing, and the fontTools fallback writes the current time into "
            "every embedded font, so builds would not be byte-identical"
        )
    module: ModuleType = weasyprint
    return module


def url_fetcher() -> Any:
    """A ``weasyprint.urls.URLFetcher`` that serves ``data:`` URLs and refuses everything else.

    ``fail_on_errors`` makes a refusal stop the rendering where WeasyPrint lets it; where
    WeasyPrint swallows errors (inline SVG drawing), the refusal is still recorded in
    ``refused`` and ``render_pdf`` fails afterwards: the report never references a resource,
    so any request means injected markup.
    """
    urls = load_weasyprint().urls

    class AllowlistFetcher(urls.URLFetcher):  # type: ignore[misc,name-defined]
        refused: list[str]

        def fetch(self, url: str, headers: Any = None) -> Any:
            try:
                check_url(url)
            except FetchRefused as exc:
                self.refused.append(str(exc))
                raise
            return super().fetch(url, headers)

    fetcher = AllowlistFetcher(timeout=1, allow_redirects=False, fail_on_errors=True)
    fetcher.refused = []
    return fetcher


def _refusal(detail: str) -> RenderError:
    return RenderError(
        f"the report asked WeasyPrint to fetch a resource, which is never allowed: {detail}"
    )


def _utc(created: dt.datetime) -> dt.datetime:
    if created.tzinfo is None:
        raise RenderError(f"the PDF creation time {created.isoformat()} has no time zone")
    return created.astimezone(dt.UTC)


@contextlib.contextmanager
def _source_date_epoch(stamp: dt.datetime) -> Iterator[None]:
    """Pin SOURCE_DATE_EPOCH while rendering: the fallback any font tool honours for dates."""
    previous = os.environ.get("SOURCE_DATE_EPOCH")
    os.environ["SOURCE_DATE_EPOCH"] = str(int(stamp.timestamp()))
    try:
        yield
    finally:
        if previous is None:
            del os.environ["SOURCE_DATE_EPOCH"]
        else:
            os.environ["SOURCE_DATE_EPOCH"] = previous


def _dedupe_af(_document: Any, pdf: Any) -> None:
    """List each attachment once in the catalog's /AF (WeasyPrint 70 lists them twice, #2917)."""
    refs = pdf.catalog.get("AF")
    if refs is None:
        return
    unique = list(dict.fromkeys(refs))
    refs.clear()
    refs.extend(unique)


def render_pdf(
    html: str,
    *,
    attachments: Sequence[Attachment],
    created: dt.datetime,
    progress: Progress = SILENT,
) -> bytes:
    """Render the report HTML to PDF/A-3b bytes with ``attachments`` embedded.

    ``created`` (timezone-aware; from the inputs, never the clock) becomes the document's and
    every attachment's creation and modification date; the pages rendered are counted to
    ``progress``.
    """
    weasyprint = load_weasyprint()
    stamp = _utc(created)
    w3c = stamp.strftime("%Y-%m-%dT%H:%M:%SZ")
    names = [a.name for a in attachments]
    if len(set(names)) != len(names):
        raise RenderError(f"attachment names must be unique, got {names}")
    fetcher = url_fetcher()
    try:
        with _source_date_epoch(stamp):
            document = weasyprint.HTML(string=html, url_fetcher=fetcher).render()
            progress.count("pages rendered", len(document.pages))
            document.metadata.created = w3c
            document.metadata.modified = w3c
            # Attachment objects are consumed by one write_pdf(): build them fresh each call.
            embedded = [
                weasyprint.Attachment(
                    url=_data_url(a),
                    url_fetcher=fetcher,
                    name=a.name,
                    description=a.description,
                    created=stamp,
                    modified=stamp,
                    relationship="Data",
                )
                for a in attachments
            ]
            pdf: bytes = document.write_pdf(
                attachments=embedded, pdf_variant=PDF_VARIANT, finisher=_dedupe_af
            )
    except weasyprint.urls.FatalURLFetchingError as exc:
        refused = exc.__cause__
        raise _refusal(str(refused) if isinstance(refused, FetchRefused) else str(exc)) from exc
    except (OSError, ValueError, TypeError, AssertionError) as exc:
        raise RenderError(f"WeasyPrint failed to render the PDF: {exc}") from exc
    if fetcher.refused:
        raise _refusal("; ".join(fetcher.refused))
    return pdf


def _data_url(attachment: Attachment) -> str:
    payload = base64.b64encode(attachment.data).decode("ascii")
    return f"data:{attachment.mime_type};base64,{payload}"
