"""Where the documentation lives, for the tests that check it: README.md, the front door, and the
pages of the MkDocs site under docs/ (mkdocs.yml lists them in its nav)."""

from __future__ import annotations

from pathlib import Path

from .conftest import REPO_ROOT

DOCS = REPO_ROOT / "docs"


def doc_page(name: str) -> Path:
    """A page of the site, by its path under docs/ (``reference/checks.md``); it must exist."""
    path = DOCS / name
    assert path.is_file(), f"docs/{name} is gone: a test reads it"
    return path


def documented_pages() -> list[Path]:
    """README.md and every Markdown page under docs/, in a stable order."""
    return [REPO_ROOT / "README.md", *sorted(DOCS.rglob("*.md"))]


def documentation_text() -> str:
    """All of the documentation as one text (README.md first), for tests that find a passage."""
    return "\n".join(path.read_text(encoding="utf-8") for path in documented_pages())
