"""Render stage: the evidence report as self-contained HTML and as PDF/A-3b, from one template.

    from evidencepack.render.html import render_html
    from evidencepack.render.pdf import Attachment, render_pdf

    html = render_html(decision, evidence_digest=manifest_sha256, signer="key sha256:ab12...")
    pdf = render_pdf(html, attachments=[Attachment("decision.json", data, "the analysis")],
                     created=dt.datetime(2026, 11, 30, tzinfo=dt.UTC))

``html.py`` fills ``report_templates/`` (jinja2, autoescaped); ``charts.py`` computes the SVG
geometry; ``pdf.py`` is the only module that imports WeasyPrint; ``fetcher.py`` is the URL policy
(nothing is fetched) applied to every WeasyPrint call.
Nothing is imported here (WeasyPrint is slow to load): import ``render.html`` or ``render.pdf``.
"""
