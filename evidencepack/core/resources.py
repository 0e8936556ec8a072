"""Find the bundled schemas/ and report_templates/ from a checkout or an installed wheel."""

from __future__ import annotations

from pathlib import Path

from ..errors import CouldNotRun

_PACKAGE_DIR = Path(__file__).resolve().parent.parent  # evidencepack/, above core/


def resource_dir(name: str) -> Path:
    """Return the folder ``name`` ("schemas" or "report_templates").

    An installed wheel carries them as ``evidencepack/_data/<name>``; a checkout (or an
    editable install) has them beside the package at the top of the repository.
    """
    for candidate in (_PACKAGE_DIR / "_data" / name, _PACKAGE_DIR.parent / name):
        if candidate.is_dir():
            return candidate
    raise CouldNotRun(
        f"evidencepack's bundled folder {name!r} is missing: looked in "
        f"{_PACKAGE_DIR / '_data' / name} and {_PACKAGE_DIR.parent / name}; reinstall evidencepack"
    )


def schemas_dir() -> Path:
    """The bundled ``schemas/`` folder."""
    return resource_dir("schemas")


def templates_dir() -> Path:
    """The bundled ``report_templates/`` folder."""
    return resource_dir("report_templates")
