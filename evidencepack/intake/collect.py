"""Collect a spec's inputs: snapshot each file once, check pinned digests, copy them into the pack.

Every cited file is read exactly once, into a private copy (``Snapshots``) under a name DuckDB
cannot read as a glob; its digest is taken from that one read, and the readers, the pin check
and the pack copy all use the copy, so the packed bytes are the bytes the analysis used.

Inside a pack every input sits under ``inputs/`` at its path relative to the spec
(``inputs/pack.yaml`` is the spec itself); inputs outside the spec's folder (allowed only with
``--allow-outside-paths``) go under ``inputs/external/<n>/``. A folder's digest is the sha256 of
its ``sha256sum``-style listing: one ``<sha256>  <relative path>`` line per file, sorted by path.
"""

from __future__ import annotations

import hashlib
import os
import shutil
import stat
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path, PurePosixPath
from typing import Literal

from ..core import limits
from ..core.progress import SILENT, Progress
from ..core.provenance import sha256_file
from ..errors import CouldNotRun, InputError
from ..spec.load import LoadedSpec
from ..spec.models import EvidenceRef, ReadRef
from .records import SPEC_PATH, FileProblem, InputFile
from .snapshot import Snapshots, require_regular

Role = Literal["spec", "dataset", "mlperf", "runs", "scores", "references", "prices", "model"]


@dataclass
class Collected:
    """Every input file, its place in the pack, and the provenance problems found."""

    files: dict[str, InputFile] = field(default_factory=dict)  # pack path -> file
    sources: dict[str, Path] = field(default_factory=dict)  # pack path -> its private copy
    links: dict[str, int] = field(default_factory=dict)  # pack path -> its link count when read
    _external: dict[Path, str] = field(default_factory=dict)

    def input_files(self) -> list[InputFile]:
        """Every input file, sorted by pack path."""
        return [self.files[k] for k in sorted(self.files)]


@dataclass(frozen=True)
class RefFiles:
    """What one evidence reference added: its files, and the problems found with them."""

    files: list[InputFile]
    problems: list[FileProblem]
    hard_links: list[FileProblem] = field(default_factory=list)
    """Files with more than one name (hard links): their bytes may be another file's, outside
    the cited folder. A warning, not a failure: for PROV-FILES to name (WARN)."""
    over_default: list[FileProblem] = field(default_factory=list)
    """Files read over the default size limit because the spec raised it for them
    (``max_file_bytes``): for PROV-FILES to name (WARN), so an auditor sees the raise."""


def folder_digest(entries: Iterable[tuple[str, str]]) -> str:
    """sha256 of the sorted ``<sha256>  <relative path>`` listing of a folder's files."""
    listing = "".join(f"{digest}  {rel}\n" for rel, digest in sorted(entries))
    return hashlib.sha256(listing.encode("utf-8")).hexdigest()


def files_under(path: Path) -> list[Path]:
    """Regular files under ``path`` (itself if a file), sorted; symlinks inside are refused,
    and so is anything that is neither a regular file nor a folder (a FIFO, a device)."""
    if not path.is_dir():
        require_regular(path)
        return [path]
    out = []
    try:
        children = sorted(path.rglob("*"))
    except OSError as exc:  # the folder changed (or went) while it was listed
        raise InputError(f"cannot list: {exc.strerror or exc}", file=str(path)) from exc
    for child in children:
        if child.is_symlink():
            raise InputError(
                "symbolic links inside evidence folders are not followed", file=str(child)
            )
        if child.is_dir():
            continue
        require_regular(child)
        out.append(child)
    return out


def as_cited(exc: InputError, source: Path, cited: str) -> str:
    """What ``exc`` says, about the file it names called by its place under ``cited`` (the
    spec's path of ``source``): re-labelled by value (``InputError.named``), so no absolute
    path of this machine goes into a pack file and ``verify --rebuild`` elsewhere reproduces
    the report."""
    if exc.file is None:
        return exc.message
    file = Path(exc.file)
    if not file.is_relative_to(source):
        return exc.message
    return exc.named(str(PurePosixPath(cited, *file.relative_to(source).parts))).message


@dataclass(frozen=True)
class TreeScan:
    """What a walk of a cited folder found that must not be read as evidence."""

    links_out: list[str]
    """``link -> target`` for each symbolic link whose target lies outside the allowed folders."""
    not_regular: list[str]
    """Each FIFO, socket or device: reading one could block, and none is evidence."""


def scan_tree(root: Path, allowed: Iterable[Path]) -> TreeScan:
    """Walk ``root`` once without following any link: the links out of every ``allowed``
    folder, and the entries that are neither regular files, folders nor links."""
    roots = list(allowed)
    found = TreeScan([], [])
    for current, dirs, files in os.walk(root, followlinks=False):
        dirs.sort()
        for name in sorted([*dirs, *files]):
            entry = Path(current) / name
            try:
                mode = entry.lstat().st_mode
            except OSError as exc:  # gone or unreadable while walked
                found.not_regular.append(f"{entry} ({exc.strerror})")
                continue
            if stat.S_ISLNK(mode):
                target = entry.resolve()
                if not any(target.is_relative_to(r) for r in roots):
                    found.links_out.append(f"{entry} -> {os.readlink(entry)}")
            elif not (stat.S_ISREG(mode) or stat.S_ISDIR(mode)):
                found.not_regular.append(str(entry))
    return found


class Collector:
    """Adds a spec's inputs to a ``Collected``; one instance per build."""

    def __init__(
        self, loaded: LoadedSpec, snapshots: Snapshots, progress: Progress = SILENT
    ) -> None:
        self.loaded = loaded
        self.progress = progress
        """Where this build's progress goes (the caller's): files hashed, results imported."""
        self.result = Collected()
        self.snapshots = snapshots
        self._roots = self.allowed_roots()
        snapshots.confine(self._roots)
        spec_file = loaded.path.resolve()
        self.add_file(spec_file, SPEC_PATH, role="spec", spec_path=loaded.path.name, candidate=None)
        self._note_broken_plugins()

    def _note_broken_plugins(self) -> None:
        """An installed reader plug-in that failed to load is a warning on the spec's record:
        a file only it reads is then an unknown format, and the pack says why. Each plug-in that
        loaded is named there too: it could take part in the decision."""
        from ..readers.registry import plugin_warnings  # the readers load with the first read

        said = plugin_warnings()
        if said:
            spec = self.result.files[SPEC_PATH]
            self.result.files[SPEC_PATH] = spec.model_copy(update={"warnings": said})

    def allowed_roots(self) -> list[Path]:
        """Where a link inside cited evidence may point: the spec's folder and, with
        ``--allow-outside-paths``, the outside paths the spec cites."""
        base = self.loaded.base_dir
        roots = [base]
        if self.loaded.allow_outside:
            cited = [ref.path for _, _, ref in self.loaded.evidence_refs()]
            if self.loaded.spec.dataset.path is not None:
                cited.append(self.loaded.spec.dataset.path)
            roots += [
                t for t in (self.loaded.resolve(p) for p in cited) if not t.is_relative_to(base)
            ]
        return roots

    def shown(self, copy: Path) -> str:
        """How findings name a file read from its private copy: its path relative to the spec
        (as it also sits relative to the pack's ``inputs/pack.yaml``), else its pack path."""
        source = self.snapshots.origin(copy)
        if source is None:
            return str(copy)
        if source.is_relative_to(self.loaded.base_dir):
            return str(PurePosixPath(*source.relative_to(self.loaded.base_dir).parts))
        return self.pack_path(source)

    def pack_path(self, source: Path) -> str:
        """Where a source file goes in the pack: ``inputs/`` + its path relative to the spec."""
        base = self.loaded.base_dir
        if source.is_relative_to(base):
            return str(PurePosixPath("inputs", *source.relative_to(base).parts))
        # Outside the spec's folder (explicitly allowed): number each outside root.
        for root, prefix in self.result._external.items():
            if source.is_relative_to(root):
                return str(PurePosixPath(prefix, *source.relative_to(root).parts))
        root = source.parent if source.is_file() else source
        prefix = f"inputs/external/{len(self.result._external) + 1}"
        self.result._external[root] = prefix
        return str(PurePosixPath(prefix, *source.relative_to(root).parts))

    def pack_name(self, source: Path) -> str:
        """The name a build gives a file or folder of a cited MLPerf tree (handed to the
        importer as ``name``, so its parsers name each file so from the start): its place in the
        pack where it lies under the spec's folder or an outside root already numbered, else its
        path as found. Nothing is numbered here, so naming a file never moves another."""
        base = self.loaded.base_dir
        if source.is_relative_to(base) or any(
            source.is_relative_to(r) for r in self.result._external
        ):
            return self.pack_path(source)
        return str(source)

    def source_of(self, pack_path: str) -> Path:
        """The source file of a pack path (the inverse of ``pack_path``)."""
        path = PurePosixPath(pack_path)
        for root, prefix in self.result._external.items():
            if path.is_relative_to(prefix):
                return root.joinpath(*path.relative_to(prefix).parts)
        if not path.is_relative_to("inputs"):
            raise ValueError(f"{pack_path} is not a pack path under inputs/")
        return self.loaded.base_dir.joinpath(*path.relative_to("inputs").parts)

    def add_file(
        self,
        source: Path,
        pack_path: str,
        *,
        role: Role,
        spec_path: str,
        candidate: str | None,
        fmt: str | None = None,
        tool: str | None = None,
        tool_version: str | None = None,
        limit: int | None = None,
    ) -> InputFile:
        """Record ``source`` at ``pack_path`` (once), from its snapshot: the file is read once,
        and its readers, the pin check and the pack copy all use that copy."""
        existing = self.result.files.get(pack_path)
        if existing is not None:
            return existing
        snap = self.snapshots.take(source, limit=limit)
        self.progress.count("inputs hashed")
        record = InputFile(
            pack_path=pack_path,
            spec_path=spec_path,
            role=role,
            candidate=candidate,
            sha256=snap.sha256,
            size_bytes=snap.size_bytes,
            format=fmt,
            tool=tool,
            tool_version=tool_version,
        )
        self.result.files[pack_path] = record
        self.result.sources[pack_path] = snap.copy
        self.result.links[pack_path] = snap.links
        return record

    def hard_link(self, pack_path: str) -> FileProblem | None:
        """The file at ``pack_path`` as a hard link (several names) for PROV-FILES to warn of,
        or None when it had one name when read."""
        links = self.result.links.get(pack_path, 1)
        if links <= 1:
            return None
        shown = self.shown(self.result.sources[pack_path])
        reason = (
            f"{shown}: a hard link ({links} names): the same bytes can be changed "
            "through another name, possibly outside the cited folder"
        )
        return FileProblem(reason, self.result.files[pack_path])

    def hard_links(self) -> list[FileProblem]:
        """Every file recorded (the spec, the dataset, MLPerf trees, prices, the tokenizer,
        evidence) that had several names when read, by pack path."""
        found = (self.hard_link(pack_path) for pack_path in sorted(self.result.files))
        return [problem for problem in found if problem is not None]

    def add_ref(self, ref: EvidenceRef, role: Role, candidate: str | None) -> RefFiles:
        """Snapshot every file of one evidence reference for the pack and check its pin."""
        source = self._resolve(ref.path)
        if source is None or not source.exists():
            return RefFiles([], [FileProblem(f"{ref.path}: missing")])
        if not any(source.is_relative_to(root) for root in self._roots):
            return RefFiles(
                [],
                [
                    FileProblem(
                        f"{ref.path}: now resolves outside the spec's folder (it changed since "
                        "the spec was checked): not read"
                    )
                ],
            )
        try:
            added = [
                self.add_file(
                    f,
                    self.pack_path(f),
                    role=role,
                    spec_path=ref.path,
                    candidate=candidate,
                    # read whole by a reader: refused by size before a byte is copied
                    limit=input_limit(ref) if role in ("runs", "scores") else None,
                )
                for f in files_under(source)
            ]
        except InputError as exc:
            return RefFiles([], [FileProblem(f"{ref.path}: {as_cited(exc, source, ref.path)}")])
        found = (self.hard_link(file.pack_path) for file in added)
        linked = [problem for problem in found if problem is not None]
        over_default = [
            FileProblem(
                f"{self.shown(self.result.sources[file.pack_path])}: "
                + limits.over_default_input_limit(file.size_bytes),
                file,
            )
            for file in added
            if role in ("runs", "scores") and file.size_bytes > limits.MAX_INPUT_FILE_BYTES
        ]
        return RefFiles(added, self.check_pin(ref), linked, over_default)

    def _resolve(self, relative: str) -> Path | None:
        """The cited path, resolved now; None if it vanished while its links were followed."""
        try:
            return self.loaded.resolve(relative)
        except OSError:
            return None

    def digest(self, path: Path) -> str:
        """The sha256 of ``path`` from its snapshot (a pin check and the pack share the read)."""
        return self.snapshots.take(path).sha256

    def check_pin(self, ref: EvidenceRef) -> list[FileProblem]:
        """Compare a pinned sha256 with the file (or the folder listing digest) it names."""
        if ref.sha256 is None:
            return []
        source = self._resolve(ref.path)
        if source is None or not source.exists():
            return [FileProblem(f"{ref.path}: missing")]
        try:
            digests = {f: self.digest(f) for f in files_under(source)}
        except InputError as exc:
            return [FileProblem(f"{ref.path}: {as_cited(exc, source, ref.path)}")]
        if source.is_file():
            actual = digests[source]
        else:
            actual = folder_digest(
                (str(PurePosixPath(*f.relative_to(source).parts)), d) for f, d in digests.items()
            )
        if actual != ref.sha256:
            return [
                FileProblem(f"{ref.path}: sha256 {actual} does not match the pinned {ref.sha256}")
            ]
        return []

    def annotate(
        self,
        pack_path: str,
        *,
        fmt: str | None,
        tool: str | None,
        tool_version: str | None,
        warnings: tuple[str, ...] = (),
        plugin: str | None = None,
    ) -> None:
        """Record what a reader found a file to be (and the plug-in that read it, if any)."""
        current = self.result.files[pack_path]
        self.result.files[pack_path] = current.model_copy(
            update={
                "format": fmt,
                "tool": tool,
                "tool_version": tool_version,
                "warnings": warnings,
                "plugin": plugin,
            }
        )


def copy_inputs(collected: Collected, pack_dir: Path) -> None:
    """Copy every collected input from its private copy into ``pack_dir`` at its pack path,
    checking the copied bytes against the digest the analysis used."""
    for pack_path, copy in sorted(collected.sources.items()):
        target = pack_dir / pack_path
        spec_path = collected.files[pack_path].spec_path
        try:
            target.parent.mkdir(parents=True, exist_ok=True)
            shutil.copyfile(copy, target)
        except OSError as exc:
            raise CouldNotRun(
                f"cannot copy {spec_path} ({pack_path}) into the pack: {exc}"
            ) from exc
        if sha256_file(target) != collected.files[pack_path].sha256:
            raise InputError(f"{spec_path} ({pack_path}): changed while the pack was being built")


def input_limit(ref: EvidenceRef) -> int:
    """The most bytes a file of ``ref`` may hold when a reader parses it: the reference's own
    ``max_file_bytes`` if the spec raised it, else ``MAX_INPUT_FILE_BYTES``."""
    raised = ref.max_file_bytes if isinstance(ref, ReadRef) else None
    return limits.MAX_INPUT_FILE_BYTES if raised is None else raised
