"""``evidencepack export oscal``: a pack's decision as OSCAL assessment results.

One observation and one finding per check result (a check for one candidate, or for the
decision as a whole). A finding targets the check's control objective in the catalog written
beside it (``export.catalog``) with this status:

======================  ==============  ======
the pack says           state           reason
======================  ==============  ======
PASS                    satisfied       pass
FAIL                    not-satisfied   fail
WARN                    not-satisfied   other
waived (any status)     not-satisfied   other   (the waiver's approver and expiry in remarks)
any other status        not-satisfied   other
======================  ==============  ======

Each observation's ``relevant-evidence`` points at back-matter resources, one per pack file,
carrying the sha256 the manifest (and, for a signed pack, the in-toto statement) gives that
file; ``import-ap`` points at the spec (``inputs/pack.yaml``), the assessment plan. UUIDs are
uuid5 names under the pack's evidence digest and every timestamp is the decision date, so the
export of a pack, or of its rebuild, is the same bytes every time.
"""

from __future__ import annotations

import hashlib
import json
import urllib.parse
import uuid
from dataclasses import dataclass, replace
from pathlib import Path
from typing import TYPE_CHECKING, Any

from ..core._atomic import atomic_write
from ..errors import CouldNotRun, InputError, InvalidRequest, option
from ..pack.archive import is_archive
from ..pack.layout import BUNDLE_NAME, DECISION_NAME, SPEC_PATH
from .catalog import (
    EVIDENCEPACK_NS,
    UUID_ROOT,
    Control,
    catalog_document,
    controls,
    escape_markup_fields,
    one_line,
)
from .models import CheckRecord
from .output import check_output_folder
from .packread import PackContents, PackFile, read_pack
from .versions import CATALOG_NAME, OSCAL_VERSIONS, RESULTS_NAME

if TYPE_CHECKING:
    from ..signing.verify import VerifyPolicy

_MEDIA_TYPES = {
    ".json": "application/json",
    ".jsonl": "application/jsonl",
    ".yaml": "application/yaml",
    ".yml": "application/yaml",
    ".txt": "text/plain",
    ".log": "text/plain",
    ".csv": "text/csv",
    ".html": "text/html",
    ".pdf": "application/pdf",
}


@dataclass(frozen=True)
class ExportResult:
    """What an export wrote: the two files, how many results, and the pack it came from."""

    results: Path
    catalog: Path
    findings: int
    evidence_digest: str
    verdict: str
    oscal_version: str
    verified: bool = False
    """The pack's signature was verified against a key or identity (``export oscal --key``)."""
    signed: bool = False
    """The pack carries a signature bundle."""


def export_oscal(
    pack: Path,
    out_dir: Path,
    oscal_version: str,
    policy: VerifyPolicy | None = None,
    *,
    force: bool = False,
) -> ExportResult:
    """Export the pack at ``pack`` (folder or ``.tar.gz``) into ``out_dir``: a new or empty
    folder, or with ``force`` one that holds an earlier export and nothing else.

    The pack is opened with the one pack reader (``signing.open_pack``): with ``policy`` its
    signature is verified; a pack that fails any check is refused (InputError, every problem
    listed) and nothing is written. ``ExportResult.verified`` says whether the signature was.
    """
    from ..signing.open_pack import open_pack

    if not pack.exists():
        raise InputError(f"{pack}: no such pack (give a pack folder or its .tar.gz)")
    if not pack.is_dir() and not is_archive(pack):
        raise InputError(f"{pack}: not an evidence pack: give a pack folder or a .tar.gz archive")
    target = out_dir.resolve()
    if pack.is_dir() and (target == pack.resolve() or pack.resolve() in target.parents):
        raise InvalidRequest(
            f"{out_dir}: is inside the pack; writing there adds files the pack's manifest "
            f"and signature do not cover: choose a folder outside it with {option('output')}"
        )
    check_output_folder(out_dir, force=force)
    with open_pack(pack, policy) as opened:
        if not opened.ok or opened.folder is None:
            raise InputError(
                f"{pack}: the pack does not verify ({len(opened.problems)} problem(s)); nothing "
                "was exported",
                opened.problems,
            )
        signed = (opened.folder / BUNDLE_NAME).is_file()
        contents = read_pack(opened.folder, str(pack), signed=signed)
    result = write_export(contents, out_dir, oscal_version)
    return replace(result, verified=opened.signature_checked, signed=signed)


def export_into_pack(folder: Path, oscal_version: str) -> ExportResult:
    """Write the export into the pack being built in ``folder`` (before it is signed): the
    files it cites are there already, and the export becomes two more files of the pack."""
    return write_export(read_pack(folder, str(folder)), folder, oscal_version)


def write_export(contents: PackContents, out_dir: Path, oscal_version: str) -> ExportResult:
    """Write ``assessment-results.json`` and ``checks-catalog.json`` for a checked pack."""
    results, catalog = export_documents(contents, oscal_version)
    try:
        out_dir.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise CouldNotRun(f"{out_dir}: cannot create the folder: {exc.strerror or exc}") from exc
    catalog_path = atomic_write(out_dir / CATALOG_NAME, catalog)
    results_path = atomic_write(out_dir / RESULTS_NAME, results)
    return ExportResult(
        results=results_path,
        catalog=catalog_path,
        findings=len(contents.decision.checks),
        evidence_digest=contents.evidence_digest,
        verdict=contents.decision.verdict,
        oscal_version=oscal_version,
    )


def document_bytes(document: dict[str, Any]) -> bytes:
    """An OSCAL JSON document as written: two-space indent, UTF-8, the key order as built."""
    return (json.dumps(document, indent=2, ensure_ascii=False) + "\n").encode("utf-8")


def export_documents(contents: PackContents, oscal_version: str) -> tuple[bytes, bytes]:
    """The assessment results and the catalog, as bytes."""
    if oscal_version not in OSCAL_VERSIONS:
        raise InvalidRequest(
            f"OSCAL version {oscal_version!r}: give one of {', '.join(OSCAL_VERSIONS)}"
        )
    decision = contents.decision
    table = controls(decision.checks, f"{contents.label}/{DECISION_NAME}")
    stamp = f"{decision.as_of.isoformat()}T00:00:00Z"
    # Markup fields are Markdown: text from the spec is escaped, never live (a link, raw HTML).
    catalog = document_bytes(
        escape_markup_fields(
            catalog_document(
                table,
                oscal_version=oscal_version,
                timestamp=stamp,
                tool_version=decision.tool_version,
            )
        )
    )
    builder = _Builder(contents, table, stamp)
    results = escape_markup_fields(builder.results(oscal_version, catalog))
    return document_bytes(results), catalog


def _prop(name: str, value: str) -> dict[str, str]:
    return {"name": name, "ns": EVIDENCEPACK_NS, "value": one_line(value)}


def status_of(check: CheckRecord) -> tuple[str, str, str | None]:
    """The finding's (state, reason, remarks) for a check result: see the module's table."""
    if check.waived is not None:
        return "not-satisfied", "other", f"{check.status}, waived: {waiver_text(check.waived)}"
    if check.status == "PASS":
        return "satisfied", "pass", None
    if check.status == "FAIL":
        return "not-satisfied", "fail", f"FAIL: {check.reason}"
    return "not-satisfied", "other", f"{check.status}: {check.reason}"


def waiver_text(waived: dict[str, Any]) -> str:
    """One line: who approved the waiver, until when, and why."""
    approver = waived.get("approver") or "an unnamed approver"
    expires = waived.get("expires") or "no stated expiry"
    reason = waived.get("reason") or "no reason given"
    return one_line(f"approved by {approver}, expires {expires}: {reason}")


class _Builder:
    """Builds the assessment-results document of one checked pack."""

    def __init__(self, contents: PackContents, table: dict[str, Control], stamp: str) -> None:
        self.contents = contents
        self.table = table
        self.stamp = stamp
        self.ns = uuid.uuid5(UUID_ROOT, f"pack:{contents.evidence_digest}")

    def uuid(self, name: str) -> str:
        """The uuid5 of ``name`` under this pack's evidence digest."""
        return str(uuid.uuid5(self.ns, name))

    def results(self, oscal_version: str, catalog: bytes) -> dict[str, Any]:
        """The whole ``assessment-results`` document."""
        return {
            "assessment-results": {
                "uuid": self.uuid("assessment-results"),
                "metadata": self.metadata(oscal_version),
                "import-ap": {
                    "href": f"#{self.uuid('resource:' + SPEC_PATH)}",
                    "remarks": (
                        "The assessment plan is the pack spec (inputs/pack.yaml): the decision, "
                        "SLO, quality bar, candidates and waivers the checks judge against."
                    ),
                },
                "results": [self.result()],
                "back-matter": {"resources": self.resources(catalog)},
            }
        }

    def metadata(self, oscal_version: str) -> dict[str, Any]:
        """Title, dates, version (the evidence digest), the decision's owner."""
        decision = self.contents.decision
        owner = self.uuid("party:owner")
        return {
            "title": one_line(f"Assessment results: evidencepack decision {decision.decision_id}"),
            "published": self.stamp,
            "last-modified": self.stamp,
            "version": f"sha256:{self.contents.evidence_digest}",
            "oscal-version": oscal_version,
            "props": [
                _prop("decision-id", decision.decision_id),
                _prop("evidence-digest", self.contents.evidence_digest),
                _prop("verdict", decision.verdict),
                _prop("tool-version", decision.tool_version),
            ],
            "roles": [{"id": "decision-owner", "title": "Decision owner"}],
            "parties": [{"uuid": owner, "type": "organization", "name": one_line(decision.owner)}],
            "responsible-parties": [{"role-id": "decision-owner", "party-uuids": [owner]}],
            "remarks": (
                "Exported from an evidencepack evidence pack. Back-matter links name each file "
                f"by its path inside the pack, with its sha256; {CATALOG_NAME} (the checks as "
                "controls) sits beside this file."
            ),
        }

    def result(self) -> dict[str, Any]:
        """The one result: the decision, its candidates, one observation and finding per check."""
        decision = self.contents.decision
        description = decision.question.strip() or decision.decision_id
        if decision.summary.strip():
            description += f"\n\n{decision.summary.strip()}"
        props = [_prop("verdict", decision.verdict)]
        props += (
            [_prop("recommendation", decision.recommendation)] if decision.recommendation else []
        )
        props += [_prop("chosen", decision.chosen)] if decision.chosen else []
        seen: dict[tuple[str, str | None], int] = {}
        observations: list[dict[str, Any]] = []
        findings: list[dict[str, Any]] = []
        for check in decision.checks:
            key = (check.id, check.candidate)
            seen[key] = seen.get(key, -1) + 1
            name = f"{check.id}:{check.candidate or '-'}:{seen[key]}"
            observations.append(self.observation(check, name))
            findings.append(self.finding(check, name))
        body: dict[str, Any] = {
            "uuid": self.uuid("result"),
            "title": one_line(f"Decision {decision.decision_id}: {decision.verdict}"),
            "description": description,
            "start": self.stamp,
            "end": self.stamp,
            "props": props,
        }
        components = self.components()
        if components:
            body["local-definitions"] = {"components": components}
        body["reviewed-controls"] = {
            "control-selections": [
                {"include-controls": [{"control-id": c.id} for c in self.table.values()]}
            ]
        }
        body["observations"] = observations
        body["findings"] = findings
        return body

    def candidate_ids(self) -> list[str]:
        """Every candidate the decision lists or a check names, listed first."""
        decision = self.contents.decision
        ids = [c.id for c in decision.candidates]
        ids += [c.candidate for c in decision.checks if c.candidate and c.candidate not in ids]
        return list(dict.fromkeys(ids))

    def components(self) -> list[dict[str, Any]]:
        """Each candidate configuration as a component (the subject of its observations)."""
        decision = self.contents.decision
        listed = {c.id: c for c in decision.candidates}
        out = []
        for cid in self.candidate_ids():
            record = listed.get(cid)
            what = ", ".join(p for p in (record.accelerator, record.stack) if p) if record else ""
            if decision.recommendation == cid:
                standing = "the recommended candidate"
            elif record is not None and record.eligible is not None:
                standing = "eligible" if record.eligible else "not eligible"
            else:
                standing = "evaluated"
            out.append(
                {
                    "uuid": self.uuid(f"candidate:{cid}"),
                    "type": "service",
                    "title": one_line(cid),
                    "description": f"Candidate configuration {cid}" + (f": {what}" if what else ""),
                    "props": [_prop("candidate-id", cid)],
                    "status": {"state": "other", "remarks": f"A candidate: {standing}."},
                }
            )
        return out

    def _title(self, check: CheckRecord) -> str:
        who = check.candidate or "the decision"
        return one_line(f"{check.id} {check.title}: {who}")

    def _check_props(self, check: CheckRecord) -> list[dict[str, str]]:
        props = [
            _prop("check-id", check.id),
            _prop("check-status", check.status),
            _prop("check-kind", "hard" if check.hard else "advisory"),
        ]
        return props + ([_prop("candidate-id", check.candidate)] if check.candidate else [])

    def observation(self, check: CheckRecord, name: str) -> dict[str, Any]:
        """What the check examined and found, with the evidence files it rests on."""
        body: dict[str, Any] = {
            "uuid": self.uuid(f"observation:{name}"),
            "title": self._title(check),
            "description": check.reason.strip() or check.status,
            "props": self._check_props(check),
            "methods": ["EXAMINE"],
            "types": ["control-objective"],
        }
        if check.candidate:
            body["subjects"] = [
                {"subject-uuid": self.uuid(f"candidate:{check.candidate}"), "type": "component"}
            ]
        body["relevant-evidence"] = self.evidence(check)
        body["collected"] = self.stamp
        return body

    def evidence(self, check: CheckRecord) -> list[dict[str, Any]]:
        """One entry per evidence file (the rows it backs named), then decision.json."""
        rows: dict[str, list[str]] = {}
        for link in check.evidence:
            if link.pack_path is not None:
                rows.setdefault(link.pack_path, []).append(link.row)
        out = [
            {
                "href": f"#{self.uuid('resource:' + path)}",
                "description": f"{path}: the evidence for {', '.join(dict.fromkeys(names))}",
            }
            for path, names in rows.items()
        ]
        out.append(
            {
                "href": f"#{self.uuid('resource:' + DECISION_NAME)}",
                "description": f"{DECISION_NAME}: where the pack records this check's result",
            }
        )
        return out

    def finding(self, check: CheckRecord, name: str) -> dict[str, Any]:
        """The check's verdict on its control objective."""
        state, reason, remarks = status_of(check)
        status: dict[str, Any] = {"state": state, "reason": reason}
        if remarks:
            status["remarks"] = remarks
        props = self._check_props(check)
        if check.waived is not None:
            for key in ("approver", "expires", "reason"):
                value = check.waived.get(key)
                if value is not None and str(value).strip():
                    props.append(_prop(f"waiver-{key}", str(value)))
        body: dict[str, Any] = {
            "uuid": self.uuid(f"finding:{name}"),
            "title": self._title(check),
            "description": check.reason.strip() or check.status,
            "props": props,
            "target": {
                "type": "objective-id",
                "target-id": self.table[check.id].objective_id,
                "status": status,
            },
            "related-observations": [{"observation-uuid": self.uuid(f"observation:{name}")}],
        }
        if check.waived is not None:
            body["remarks"] = f"Waived: {waiver_text(check.waived)}"
        return body

    def resources(self, catalog: bytes) -> list[dict[str, Any]]:
        """The spec, the catalog, then every cited pack file, each with its sha256."""
        files = self.contents.files
        spec = files[SPEC_PATH]
        out = [self.resource(spec, "Assessment plan: the pack spec")]
        out.append(
            self.resource(
                PackFile(
                    CATALOG_NAME, hashlib.sha256(catalog).hexdigest(), len(catalog), "catalog"
                ),
                "The checks as an OSCAL catalog (written beside this file)",
            )
        )
        out += [self.resource(f) for path, f in files.items() if path != SPEC_PATH]
        return out

    def resource(self, item: PackFile, title: str | None = None) -> dict[str, Any]:
        """A back-matter resource for one file: its path as the link, its sha256."""
        props = [_prop("role", item.role), _prop("size-bytes", str(item.size_bytes))]
        props += [_prop("candidate-id", item.candidate)] if item.candidate else []
        props += [_prop("tool", item.tool)] if item.tool else []
        suffix = Path(item.pack_path).suffix.lower()
        return {
            "uuid": self.uuid(f"resource:{item.pack_path}"),
            "title": one_line(title or item.pack_path),
            "props": props,
            "rlinks": [
                {
                    "href": urllib.parse.quote(item.pack_path, safe="/"),
                    "media-type": _MEDIA_TYPES.get(suffix, "application/octet-stream"),
                    "hashes": [{"algorithm": "SHA-256", "value": item.sha256}],
                }
            ],
        }
