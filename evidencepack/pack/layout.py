"""What a pack folder holds: the names of its files in one place, and the rules for pack paths.

A pack is a folder (or its ``.tar.gz``) of regular files::

    decision.json          the analysis (analyze.models.DecisionDocument)
    manifest.json          every input and the decision, by digest (pack.manifest)
    report.html            the rendered report
    report.pdf             the same report as PDF/A-3b, decision.json and manifest.json embedded
    predicate.json         what the signature will attest (pack.predicate)
    inputs/pack.yaml       the spec the pack was compiled from
    inputs/...             every input the spec cites, at its path relative to the spec
    evidence.duckdb        the store: every input row and analysis table
    assessment-results.json  with ``build --oscal``: the decision as OSCAL (export.oscal)
    checks-catalog.json      with ``build --oscal``: the checks as an OSCAL catalog
    pack.sigstore.json     the signature bundle over all the others (signing.sign)
    svr.sigstore.json      with a decision.json: the verdict as a signed in-toto Simple
                           Verification Result over the same files (signing.verdicts)
    test-result.sigstore.json  the same verdict as a signed in-toto test result
"""

from __future__ import annotations

import os
import re
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Annotated

from pydantic import AfterValidator

from ..core.pack_paths import INPUTS_DIR as INPUTS_DIR
from ..core.pack_paths import SPEC_PATH as SPEC_PATH
from ..errors import InputError

DECISION_NAME = "decision.json"
MANIFEST_NAME = "manifest.json"
REPORT_HTML_NAME = "report.html"
REPORT_PDF_NAME = "report.pdf"
PREDICATE_NAME = "predicate.json"
BUNDLE_NAME = "pack.sigstore.json"
SVR_BUNDLE_NAME = "svr.sigstore.json"
"""The signed Simple Verification Result over the pack's files (signed after the pack)."""
TEST_RESULT_BUNDLE_NAME = "test-result.sigstore.json"
"""The signed in-toto test result over the pack's files (signed after the pack)."""
SIGNATURE_NAMES = (BUNDLE_NAME, SVR_BUNDLE_NAME, TEST_RESULT_BUNDLE_NAME)
"""The bundles at the top of a pack: none of them is a subject of the pack's statement."""
STORE_NAME = "evidence.duckdb"
"""The evidence store: every input row and every analysis table (not byte-reproducible)."""

_CONTROL = re.compile(r"[\x00-\x1f\x7f]")
_DRIVE = re.compile(r"[A-Za-z]:")
PACK_PATH = re.compile(
    r"(?![A-Za-z]:)(?:(?!\.\.?/)[^/\\\x00-\x1f\x7f]+/)*(?!\.\.?\Z)[^/\\\x00-\x1f\x7f]+"
)
"""Every rule of ``pack_path_problem`` in one pattern (``fullmatch``: a safe pack path): no
drive, components of neither separators nor control characters, none of them "." or "..".
One C call per name, where verify checks one name per pack file."""


def pack_path_problem(name: str) -> str | None:
    """Why ``name`` is not a safe pack path (relative POSIX, normalised), or None if it is."""
    if PACK_PATH.fullmatch(name):
        return None
    if not name:
        return "empty path"
    if _CONTROL.search(name):
        return "control character in path"
    if "\\" in name:
        return "backslash in path"
    if name.startswith("/") or _DRIVE.match(name):
        return "absolute path"
    parts = name.split("/")
    if any(part in ("", ".", "..") for part in parts):
        return "path is not normalised (empty, '.' or '..' component)"
    return None


def _check_pack_path(name: str) -> str:
    problem = pack_path_problem(name)
    if problem:
        raise ValueError(f"{problem}: {name!r}")
    return name


PackPath = Annotated[str, AfterValidator(_check_pack_path)]
"""A pack path as a pydantic type: relative, POSIX, normalised (see ``pack_path_problem``)."""


@dataclass(frozen=True)
class PackScan:
    """The files of a pack folder: regular files by pack path, and everything else as problems."""

    root: Path
    files: dict[str, str]
    """Pack path -> the file's path (a ``str``: a ``Path`` per file costs verify about 15 us)."""
    problems: tuple[str, ...]


def scan_pack(pack_dir: Path) -> PackScan:
    """List every regular file under ``pack_dir`` (sorted), never following links.

    The bundles at the top (``SIGNATURE_NAMES``) are left out: they sign the others.
    Symlinks, devices, sockets and names that are not UTF-8 are reported, not followed.
    """
    problems: list[str] = []
    files = dict(walk_pack(pack_dir, problems))
    return PackScan(root=pack_dir, files=files, problems=tuple(problems))


def walk_order(name: str) -> str:
    """The sort key of ``walk_pack``'s order: folder by folder, each sorted by name (``/``
    ordered before every character a pack path may hold)."""
    return name.replace("/", "\x00")


_FILE, _FOLDER, _LINK, _OTHER = range(4)


def _kind(entry: os.DirEntry[str]) -> int:
    # is_file without following links is True only for a regular file: most entries, one call
    if entry.is_file(follow_symlinks=False):
        return _FILE
    if entry.is_symlink():
        return _LINK
    return _FOLDER if entry.is_dir(follow_symlinks=False) else _OTHER


def walk_pack(pack_dir: Path, problems: list[str]) -> Iterator[tuple[str, str]]:
    """``scan_pack`` as a stream: each regular file's pack path and path, in ``walk_order``;
    what is not a regular file is appended to ``problems``. Holds one folder's names at a time.
    """
    if not pack_dir.is_dir():
        raise InputError(f"{pack_dir}: not a folder")

    def walk(folder: str, prefix: str) -> Iterator[tuple[str, str]]:
        try:
            with os.scandir(folder) as listing:
                entries = sorted((e.name, _kind(e)) for e in listing)
        except OSError as exc:
            raise InputError(f"{folder}: cannot list: {exc}") from exc
        inside = folder if folder.endswith("/") else f"{folder}/"
        for name, kind in entries:
            rel = f"{prefix}{name}"
            path = f"{inside}{name}"
            # the common case, every rule below in three C calls (the prefix is UTF-8 already)
            if kind == _FILE and name.isascii() and PACK_PATH.fullmatch(rel):
                if rel not in SIGNATURE_NAMES:
                    yield rel, path
                continue
            try:
                rel.encode("utf-8")
            except UnicodeEncodeError:
                problems.append(f"{rel!r}: file name is not UTF-8")
                continue
            if kind == _LINK:
                problems.append(f"{rel}: symbolic link (packs hold regular files only)")
            elif kind == _FOLDER:
                yield from walk(path, f"{rel}/")
            elif kind == _OTHER:
                problems.append(f"{rel}: not a regular file")
            elif (problem := pack_path_problem(rel)) is not None:
                problems.append(f"{rel!r}: {problem}")
            elif rel not in SIGNATURE_NAMES:
                yield rel, path

    yield from walk(str(pack_dir), "")
