"""Compact evidence for the report: inputs grouped by the spec's evidence reference, evidence
lists with a short digest per row, and ids shortened by their common folder.

The report names every input by its reference (one LoadGen folder, one MLPerf tree), not file by
file: per-file digests travel in ``manifest.json``, which is embedded in the PDF. A reference
with several files carries the sha256 of its listing, which anyone can recompute with coreutils.
"""

from __future__ import annotations

import hashlib
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from ..analyze.models import EvidenceLink
from ..intake.records import InputFile

ROLE_ORDER = ("spec", "dataset", "runs", "scores", "mlperf")
"""The appendix order within the shared inputs and within each candidate."""


def listing(files: Iterable[InputFile]) -> str:
    """``<sha256>  <pack path>`` per file, sorted by path, one per line: what ``sha256sum``
    prints for the same files run from the pack folder in byte order (``LC_ALL=C sort``)."""
    ordered = sorted(files, key=lambda f: f.pack_path.encode("utf-8"))
    return "".join(f"{f.sha256}  {f.pack_path}\n" for f in ordered)


def listing_sha256(files: Iterable[InputFile]) -> str:
    """The sha256 of the files' ``sha256sum``-style listing."""
    return hashlib.sha256(listing(files).encode("utf-8")).hexdigest()


def split_common_folder(ids: Sequence[str]) -> tuple[str, tuple[str, ...]]:
    """The folder (whole ``/`` segments, with its trailing slash) every id shares, and each id
    without it. No folder is taken off a single id or when an id would be left empty."""
    if len(ids) < 2:
        return "", tuple(ids)
    parts = [i.split("/") for i in ids]
    shared = 0
    # Keep at least the last segment of every id.
    limit = min(len(p) for p in parts) - 1
    while shared < limit and all(p[shared] == parts[0][shared] for p in parts):
        shared += 1
    if shared == 0:
        return "", tuple(ids)
    prefix = "/".join(parts[0][:shared]) + "/"
    return prefix, tuple(i[len(prefix) :] for i in ids)


@dataclass(frozen=True)
class InputGroup:
    """One evidence reference of the spec (a file or a folder) and the input files under it."""

    number: int
    reference: str
    role: str
    candidate: str | None
    files: tuple[InputFile, ...]
    folder: str
    names: tuple[str, ...]

    @property
    def shown_folder(self) -> str:
        """The folder to print before the names: none where it is ``inputs/<reference>/``, the
        place every reference's files are copied to."""
        return "" if self.folder == f"inputs/{self.reference}/" else self.folder

    @property
    def size_bytes(self) -> int:
        """The group's total size in bytes."""
        return sum(f.size_bytes for f in self.files)

    @property
    def single(self) -> bool:
        """Whether the group holds a single file."""
        return len(self.files) == 1

    @property
    def sha256(self) -> str:
        """The file's sha256, or for several files the sha256 of their listing."""
        return self.files[0].sha256 if self.single else listing_sha256(self.files)

    @property
    def formats(self) -> tuple[str, ...]:
        """Distinct detected formats of the files, in file order."""
        return tuple(dict.fromkeys(f.format for f in self.files if f.format))

    @property
    def plugins(self) -> tuple[str, ...]:
        """Distinct plug-ins (``name version``) that read the files, in file order."""
        return tuple(dict.fromkeys(f.plugin for f in self.files if f.plugin))

    @property
    def tools(self) -> tuple[str, ...]:
        """Distinct ``tool version`` of the files, in file order."""
        return tuple(
            dict.fromkeys(
                " ".join(t for t in (f.tool, f.tool_version) if t)
                for f in self.files
                if f.tool or f.tool_version
            )
        )

    @property
    def warnings(self) -> tuple[tuple[str, str], ...]:
        """Every reader warning of the group's files, with the file's name."""
        return tuple(
            (name, warning)
            for name, f in zip(self.names, self.files, strict=True)
            for warning in f.warnings
        )


def group_inputs(inputs: Sequence[InputFile], candidates: Sequence[str]) -> tuple[InputGroup, ...]:
    """The inputs grouped by (spec reference, role, candidate): shared inputs first, then each
    candidate in the decision's order, by role, then by first file path."""
    grouped: dict[tuple[str, str, str | None], list[InputFile]] = {}
    for f in sorted(inputs, key=lambda f: f.pack_path):
        grouped.setdefault((f.spec_path, f.role, f.candidate), []).append(f)

    def order(key: tuple[str, str, str | None]) -> tuple[int, int, str]:
        reference, role, candidate = key
        position = candidates.index(candidate) + 1 if candidate in candidates else len(candidates)
        if candidate is None:
            position = 0
        rank = ROLE_ORDER.index(role) if role in ROLE_ORDER else len(ROLE_ORDER)
        return position, rank, grouped[key][0].pack_path

    groups = []
    for number, key in enumerate(sorted(grouped, key=order), start=1):
        files = tuple(grouped[key])
        folder, names = split_common_folder([f.pack_path for f in files])
        groups.append(
            InputGroup(
                number=number,
                reference=key[0],
                role=key[1],
                candidate=key[2],
                files=files,
                folder=folder,
                names=names,
            )
        )
    return tuple(groups)


@dataclass(frozen=True)
class EvidenceItem:
    """One evidence row: its id shown without the list's common folder, its file digest and the
    appendix entry of the file."""

    label: str
    row: str
    sha256: str | None
    group: int | None


@dataclass(frozen=True)
class EvidenceList:
    """The files a claim or check rests on: their common folder and one item each."""

    folder: str
    items: tuple[EvidenceItem, ...]


def evidence_list(
    links: Iterable[EvidenceLink], digests: dict[str, str], groups: dict[str, int]
) -> EvidenceList:
    """Distinct (row, digest) pairs in first-seen order; ``digests`` and ``groups`` map a pack
    path to its sha256 and to its appendix entry."""
    seen: dict[tuple[str, str | None], int | None] = {}
    for link in links:
        sha = link.file_sha256 or (digests.get(link.pack_path) if link.pack_path else None)
        group = groups.get(link.pack_path) if link.pack_path else None
        seen.setdefault((link.row, sha), group)
    rows = [row for row, _ in seen]
    folder, labels = split_common_folder(rows)
    return EvidenceList(
        folder=folder,
        items=tuple(
            EvidenceItem(label=label, row=row, sha256=sha, group=group)
            for label, ((row, sha), group) in zip(labels, seen.items(), strict=True)
        ),
    )
