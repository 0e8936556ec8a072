"""What ``build --json``, ``init --json`` and ``schemas --json`` print, as documented models.

Each has a JSON Schema in ``schemas/`` (``build-result``, ``init-result``, ``schemas-result``);
``validate --json`` is ``problems.ValidationReport`` and ``check --json`` is ``decision.json``.
"""

from __future__ import annotations

from pydantic import Field

from ..core._models import StrictModel


class BuildReport(StrictModel):
    """``build --json``: the pack written and the decision's verdict."""

    pack: str = Field(description="the pack folder written (OUTDIR)")
    evidence_digest: str = Field(
        description="sha256 of the pack's manifest.json: the evidence digest the report prints"
    )
    signed: bool = Field(description="true when the pack was signed (pack.sigstore.json)")
    archive: str | None = Field(description="the OUTDIR.tar.gz written, None without --archive")
    verdict: str = Field(description="the decision's verdict, as in decision.json")
    recommendation: str | None = Field(
        description="the recommended candidate id, None when no candidate is eligible"
    )


class InitReport(StrictModel):
    """``init --json``: the spec written from a folder of evidence."""

    spec: str = Field(description="the spec file written")
    candidates: tuple[str, ...] = Field(description="the candidate ids the spec declares")
    evidence_references: int = Field(description="how many evidence files the spec cites")
    todos: int = Field(description="how many values are left TODO for the team to fill")
    not_cited: tuple[str, ...] = Field(
        description="files in the folder the spec does not cite, each with the reason"
    )


class SchemasReport(StrictModel):
    """``schemas --json``: the schema files checked (``--check``) or written."""

    ok: bool = Field(description="true: every schema is up to date (or was written)")
    checked: tuple[str, ...] | None = Field(
        default=None, description="with --check: the schema files compared with the models"
    )
    written: tuple[str, ...] | None = Field(
        default=None, description="without --check: the schema files written"
    )
