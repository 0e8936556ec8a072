"""``verify``'s report for a person: OK or FAIL first and what it means, then every finding.

The first line says OK only when every check asked for passed (signature, files, the pack's
documents against each other, the rebuild). On a FAIL the pack's own verdict is not shown: the
decision is named by its id only, marked as not verified, so a "PASS" inside a failed pack
never reads as the verification result. Every value from the pack is shown visibly
(``_display.visible``): no control, bidi or invisible character reaches the terminal.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable

from ..core._display import visible_lines
from .verify_report import VerifyReport

_Row = Callable[[str, str], None]


MAX_PROBLEMS_SHOWN = 10
"""Problem lines shown without ``--verbose``; the rest are counted (and all are in ``--json``)."""


def format_report(report: VerifyReport, *, verbose: bool = False) -> str:
    """The human-readable report, in plain words: OK or FAIL first and what it means, what was
    checked (with counts), the signer, time and the pack's own decision (from
    ``decision.json``), then the problems. ``verbose`` adds the bundle, the documents compared,
    every verdict property and every problem past ``MAX_PROBLEMS_SHOWN``."""
    checked = report.signer is not None and report.target_kind != "file"
    files = f" ({report.files_checked} file(s))" if checked else ""
    lines = [f"{'OK' if report.ok else 'FAIL'}: {report.target_kind} {report.target}{files}"]

    def row(label: str, value: str) -> None:
        lines.append(f"  {label:<13}{value}")

    row("result", _result_words(report))
    row("checked", _checked_words(report))
    _signer_rows(report, row)
    if report.decision and report.ok:
        d = report.decision
        recommendation = d.recommendation or "no candidate"
        row(
            "pack says",
            f"decision {d.decision_id}: recommends {recommendation}; "
            f"its own checks gave {d.verdict}",
        )
    elif report.claimed_decision_id:
        row("pack claims", f"decision {report.claimed_decision_id} (not verified: see above)")
    if report.created_at:
        row("created at", report.created_at)
    if report.matched_subjects:
        row("subject", ", ".join(report.matched_subjects))
    if report.plan:
        row("plan", report.plan)
    if report.trust_root:
        t = report.trust_root
        row("trust root", f"{t.path} (sha256 {t.sha256})" if t.path else f"Sigstore {t.source}")
    if verbose:
        row(
            "bundle",
            f"{report.bundle}"
            + (f" (sha256 {report.bundle_sha256})" if report.bundle_sha256 else ""),
        )
        if report.documents_checked and not report.contradictions:
            row("documents", f"{', '.join(report.documents_checked)} agree with each other")
    c = report.checks
    if c.verdicts == "absent":
        row(
            "verdict",
            "no verdict statements (svr.sigstore.json, test-result.sigstore.json): the pack was "
            "signed before evidencepack wrote them; its own signature covers decision.json",
        )
    for verdict in report.verdicts:
        if verdict.ok:
            row(
                "verdict",
                f"{verdict.file}: same signer, same files, as decision.json: {_says(verdict.says)}",
            )
            if verbose and len(verdict.says) > 1:
                for said in verdict.says:
                    row("", said)
    findings = [("verdict", f"FAIL: {p}") for v in report.verdicts for p in v.problems]
    findings += [("problem", p) for p in report.problems]
    findings += [("contradicts", c.message) for c in report.contradictions]
    findings += [
        ("changed", f"{m.path}  expected {m.expected_sha256}  actual {m.actual_sha256}")
        for m in report.changed
    ]
    findings += [("missing", f"{m.path}  expected {m.expected_sha256}") for m in report.missing]
    findings += [("extra", f"{m.path}  actual {m.actual_sha256}") for m in report.extra]
    shown = findings if verbose else findings[:MAX_PROBLEMS_SHOWN]
    for label, text in shown:
        row(label, text)
    if len(shown) < len(findings):
        row("", f"... and {len(findings) - len(shown)} more (--verbose lists every one)")
    _rebuild_rows(report, row)
    return visible_lines("\n".join(lines))


def _checked_words(report: VerifyReport) -> str:
    """Each check and its outcome, with what it counted."""
    c = report.checks
    if report.target_kind == "file":
        return f"signature {c.signature}, file {c.files}"
    parts = [f"signature {c.signature}"]
    parts.append(
        f"{report.files_checked} files {c.files}" if report.files_checked else f"files {c.files}"
    )
    documents = len(report.documents_checked)
    parts.append(
        f"{documents} documents {c.documents}" if documents else f"documents {c.documents}"
    )
    verdicts = len(report.verdicts)
    parts.append(
        f"{verdicts} verdict statements {c.verdicts}" if verdicts else f"verdicts {c.verdicts}"
    )
    parts.append(f"rebuild {c.rebuild}")
    return ", ".join(parts)


def _says(says: tuple[str, ...]) -> str:
    """A verdict statement's properties in one short line: one property as it is, many as
    counts per status (``EVIDENCEPACK_CANDIDATE_..._C1_WARN`` counts as WARN)."""
    if len(says) <= 1:
        return ", ".join(says)
    counts = Counter(p.rsplit("_", 1)[-1] for p in says)
    per_status = ", ".join(f"{n} {status}" for status, n in sorted(counts.items()))
    return f"{len(says)} properties ({per_status}; --verbose lists them)"


def _signer_rows(report: VerifyReport, row: _Row) -> None:
    signer = report.signer
    if signer and signer.mode == "keyless":
        row("signer", signer.identity or "?")
        row("issuer", signer.issuer or "?")
        when = signer.signed_at.isoformat() if signer.signed_at else "no verified time"
        source = (signer.time_source or "").replace("_", " ")
        row("signed at", f"{when} ({source})" if source else when)
        if signer.log_index is not None:
            row("log index", str(signer.log_index))
    elif signer:
        row("key", f"sha256:{signer.key_fingerprint}")
        row("signed at", "not recorded (a key-signed bundle carries no trusted time)")


def _rebuild_rows(report: VerifyReport, row: _Row) -> None:
    rebuilt = report.rebuild
    if rebuilt is None:
        return
    signed = rebuilt.pdf_signature
    if rebuilt.ok:
        names = [
            f"{name} (its rendered part)" if signed and name == "report.pdf" else name
            for name in rebuilt.compared
        ]
        row("rebuild", f"OK: {', '.join(names)} reproduced byte for byte")
    state = "FAIL" if report.checks.rebuild == "failed" else "skipped"
    for problem in () if rebuilt.ok else rebuilt.problems:
        row("rebuild", f"{state}: {problem}")
    for difference in () if rebuilt.ok else rebuilt.differing:
        row("rebuild", f"FAIL: {difference.message}")
    if signed is not None:
        for problem in signed.problems:
            row("pdf sig", f"FAIL: {problem}")
        if signed.ok:
            row(
                "pdf sig",
                "OK: PAdES signature intact, covering the whole file after the rendered PDF, by "
                f"{signed.signer_subject} (certificate sha256 {signed.signer_cert_sha256}); "
                f"chain {signed.chain}"
                + (" (no --pdf-trust-root given)" if signed.chain == "not checked" else "")
                + (f"; time-stamped {signed.timestamp}" if signed.timestamp else ""),
            )


def _result_words(report: VerifyReport) -> str:
    """One sentence a non-engineer can act on."""
    if report.ok:
        if report.target_kind == "file":
            where = ", ".join(report.matched_subjects) or "a file"
            return f"this file is exactly the pack's {where} as signed, by the signer below"
        said = f"the signature is valid and all {report.files_checked} files are exactly as signed"
        if report.rebuild is not None:
            said += "; the decision and report recompute from its own inputs"
        return said
    damaged = [p for p in report.problems if "damaged archive" in p]
    if damaged:
        return "the archive is damaged or was altered; do not use anything in it"
    if report.signer is None:
        return "the signature is missing or did not verify; do not rely on this pack"
    altered = len(report.changed) + len(report.missing) + len(report.extra)
    if altered:
        return (
            f"{altered} file(s) differ from what was signed ({len(report.changed)} changed, "
            f"{len(report.missing)} missing, {len(report.extra)} added); do not rely on it"
        )
    if report.contradictions:
        return (
            "the signed files contradict each other (a document or an input was changed after "
            "the decision was made); do not rely on it"
        )
    if any(not v.ok for v in report.verdicts):
        return (
            "a verdict statement is missing or says otherwise than decision.json (see below); "
            "do not rely on it"
        )
    if report.rebuild is not None and not report.rebuild.ok:
        return (
            "the signed decision does not follow from the signed evidence (the rebuild "
            "differs); do not rely on it"
        )
    return "the pack is not as signed (see the problems below); do not rely on it"
