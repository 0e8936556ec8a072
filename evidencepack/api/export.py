"""A built pack in the formats other tools read, as functions: ``export_oscal``."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

# Light until a function runs: the parser of ``build`` asks ``oscal_versions`` for its --help.
if TYPE_CHECKING:
    from ..export.oscal import ExportResult
    from .options import ExportOptions, PathLike


def export_oscal(
    pack: PathLike, out: PathLike, options: ExportOptions | None = None
) -> ExportResult:
    """Write a built pack (folder or ``.tar.gz``) as OSCAL assessment results and a catalog of
    the checks into the folder ``out``; the pack's files are checked against its manifest and
    signed subjects, and its signature against ``options.policy`` when one is given."""
    from ..export.oscal import export_oscal as run_export
    from ..export.versions import DEFAULT_OSCAL_VERSION
    from .options import ExportOptions
    from .signing import verify_policy

    options = options or ExportOptions()
    policy = verify_policy(options.policy) if options.policy is not None else None
    version = options.oscal_version or DEFAULT_OSCAL_VERSION
    return run_export(Path(pack), Path(out), version, policy, force=options.force)


def oscal_versions() -> tuple[tuple[str, ...], str, str, str]:
    """The OSCAL versions an export may declare, the default one, and the two file names an
    export writes (assessment results, catalog)."""
    from ..export.versions import CATALOG_NAME, DEFAULT_OSCAL_VERSION, OSCAL_VERSIONS, RESULTS_NAME

    return tuple(OSCAL_VERSIONS), DEFAULT_OSCAL_VERSION, RESULTS_NAME, CATALOG_NAME
