"""Render stage: the evidence report as self-contained HTML and as PDF/A-3b, from one template.

    html = render_html(decision, evidence_digest=manifest_sha256, signer="key sha256:ab12...")
    pdf = render_pdf(html, attachments=[Attachment("decision.json", data, "the analysis")],
                     created=dt.datetime(2026, 11, 30, tzinfo=dt.UTC))

``html.py`` fills ``report_templates/`` (jinja2, autoescaped); ``charts.py`` computes the SVG
geometry; ``pdf.py`` is the only module that imports WeasyPrint; ``fetcher.py`` is the URL policy
(nothing is fetched) applied to every WeasyPrint call.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from .html import render_html
    from .pdf import Attachment, render_pdf

__all__ = ["Attachment", "render_html", "render_pdf"]

# Imported on first use (PEP 562): importing ``render.signing_plan`` (as the pipeline does, and
# so ``check``) must not load jinja2 and the templates.
_LAZY = {"render_html": ".html", "Attachment": ".pdf", "render_pdf": ".pdf"}


def __getattr__(name: str) -> Any:
    module = _LAZY.get(name)
    if module is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    value = getattr(importlib.import_module(module, __name__), name)
    globals()[name] = value
    return value
