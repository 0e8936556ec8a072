"""The pack's checks as a small OSCAL catalog, so the control ids the results cite resolve.

One control per check id, in the order the pack lists its checks: its id is the check id in
lower case (``C1`` -> ``c1``, ``PROV-FILES`` -> ``prov-files``, the OSCAL convention), its
``label`` the check id as the pack writes it, its title the check's title. Each control has a
statement part (``<id>_smt``) and an assessment-objective part (``<id>_obj``): a finding
targets the objective. The catalog's UUID is derived from its own content, so every pack run
by the same check table names the same catalog.
"""

from __future__ import annotations

import hashlib
import json
import re
import uuid
from dataclasses import dataclass
from typing import Any

from ..errors import InputError
from .models import CheckRecord

EVIDENCEPACK_NS = "https://evidencepack.dev/ns/oscal"
"""The namespace of every evidencepack property in an export (OSCAL requires one)."""

UUID_ROOT = uuid.uuid5(uuid.NAMESPACE_URL, EVIDENCEPACK_NS)
"""The root all export UUIDs descend from (uuid5: name-based, so an export is reproducible)."""

_TOKEN_BAD = re.compile(r"[^a-z0-9._-]+")


@dataclass(frozen=True)
class Control:
    """A check as an OSCAL control."""

    id: str
    label: str
    title: str
    hard: bool

    @property
    def objective_id(self) -> str:
        """The id of the control's assessment-objective part (what a finding targets)."""
        return f"{self.id}_obj"


def control_id(check_id: str) -> str:
    """The OSCAL token for a check id: lower case, other characters as ``-``, a letter first."""
    token = _TOKEN_BAD.sub("-", check_id.strip().lower()).strip("-")
    if not token or not token[0].isalpha():
        token = f"check-{token}" if token else "check"
    return token


def controls(checks: tuple[CheckRecord, ...], where: str) -> dict[str, Control]:
    """One control per check id (check id -> control), first seen first. Two check ids that
    would share a control id, or one id with two titles, are an error naming both."""
    found: dict[str, Control] = {}
    by_token: dict[str, str] = {}
    for check in checks:
        token = control_id(check.id)
        known = found.get(check.id)
        if known is None:
            if token in by_token:
                raise InputError(
                    f"{where}: checks {by_token[token]!r} and {check.id!r} would both be the "
                    f"OSCAL control {token!r}"
                )
            by_token[token] = check.id
            found[check.id] = Control(token, check.id, one_line(check.title), check.hard)
        elif known.title != one_line(check.title):
            raise InputError(
                f"{where}: check {check.id!r} has two titles: {known.title!r} and {check.title!r}"
            )
    return found


_MARKUP_SPECIAL = re.compile(r"([\\`*_\[\]<>&!|~])")
MARKUP_KEYS = frozenset({"title", "description", "remarks"})
"""The OSCAL markup fields (markup-line and markup-multiline: Markdown in OSCAL JSON)."""


def escape_markup(text: str) -> str:
    """``text`` as Markdown that shows it as written: every character that could start a link,
    an image, an autolink, raw HTML, an entity or emphasis is backslash-escaped (CommonMark), so
    ``[click](javascript:...)`` or ``<script>`` from a spec is shown, never live."""
    return _MARKUP_SPECIAL.sub(r"\\\1", text)


def escape_markup_fields(node: Any) -> Any:
    """A JSON document with every OSCAL markup field's text escaped (``escape_markup``)."""
    if isinstance(node, dict):
        return {
            k: escape_markup(v)
            if k in MARKUP_KEYS and isinstance(v, str)
            else escape_markup_fields(v)
            for k, v in node.items()
        }
    if isinstance(node, list):
        return [escape_markup_fields(v) for v in node]
    return node


def one_line(text: str) -> str:
    """Text as one line with no leading or trailing space (OSCAL strings and markup lines)."""
    return " ".join(text.split()) or "(none)"


def catalog_uuid(table: dict[str, Control]) -> uuid.UUID:
    """The catalog's UUID: a digest of its controls (ids, labels, titles, hard)."""
    canonical = json.dumps(
        [[c.id, c.label, c.title, c.hard] for c in table.values()], separators=(",", ":")
    )
    return uuid.uuid5(UUID_ROOT, "catalog:" + hashlib.sha256(canonical.encode()).hexdigest())


def catalog_document(
    table: dict[str, Control], *, oscal_version: str, timestamp: str, tool_version: str
) -> dict[str, Any]:
    """The OSCAL catalog of the checks in ``table``."""
    cat_uuid = catalog_uuid(table)
    return {
        "catalog": {
            "uuid": str(cat_uuid),
            "metadata": {
                "title": "evidencepack checks",
                "last-modified": timestamp,
                "version": tool_version,
                "oscal-version": oscal_version,
                "remarks": (
                    "The checks an evidencepack decision runs for each candidate "
                    "configuration. A hard check that FAILs blocks the candidate unless a "
                    "current waiver covers it."
                ),
            },
            "controls": [_control(c) for c in table.values()],
        }
    }


def _control(control: Control) -> dict[str, Any]:
    kind = "hard" if control.hard else "advisory"
    blocks = (
        "A FAIL blocks the candidate unless a current waiver covers it."
        if control.hard
        else "A FAIL is reported but does not block the candidate."
    )
    return {
        "id": control.id,
        "class": "evidencepack-check",
        "title": control.title,
        "props": [
            {"name": "label", "value": control.label},
            {"name": "check-kind", "ns": EVIDENCEPACK_NS, "value": kind},
        ],
        "parts": [
            {
                "id": f"{control.id}_smt",
                "name": "statement",
                "prose": f"{control.label}: {control.title}. {blocks}",
            },
            {
                "id": control.objective_id,
                "name": "assessment-objective",
                "prose": (
                    f"Determine, from the pack's evidence, whether each candidate passes "
                    f"{control.label} ({control.title})."
                ),
            },
        ],
    }
