"""What one import reads once and shares between results: file digests, name mappings, the
round's official table, system descriptions."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

from ..core.provenance import sha256_file
from ..errors import InputError
from ._files import read_json
from .benchmarks import ResolvedBenchmark, resolve_benchmark
from .models import SourceFile
from .official_table import OfficialTable, find_table, read_table
from .system import SystemInfo, read_system
from .tree import ResultFiles

Reader = Callable[[Path], tuple[Path, str, int]]
"""``read(path) -> (where to read it, sha256, size)``: the file's bytes taken once. A build
reads each file into a private copy and parses that copy (the bytes it hashed and packs); a
standalone import reads the file in place (``read_in_place``)."""

Namer = Callable[[Path], str]
"""``name(path) -> what every message and record calls that file or folder``: a build names a
tree's files by their place in the pack, a standalone import by the path as found (``str``).
Parsers are handed this name with the bytes, so nothing rewrites their text afterwards."""


def read_in_place(path: Path) -> tuple[Path, str, int]:
    """The file itself, its sha256 and size."""
    try:
        size = path.stat().st_size
    except OSError as exc:
        raise InputError(f"cannot read: {exc.strerror or exc}", file=str(path)) from exc
    return path, sha256_file(path), size


@dataclass
class ImportContext:
    """What one import reads once and shares between results: name mappings, file digests,
    system descriptions (one system has a result per benchmark and scenario).

    Open-division folder names map to the benchmark they answer through
    ``model_mapping.json`` in the submitter folder (the checker's mechanism), else the round's
    official table at the tree root (its ``Model`` per ``Location``; ``official_table``).
    """

    read: Reader = read_in_place
    name: Namer = str
    """What messages and records call a file or folder (see ``Namer``)."""
    _mappings: dict[Path, dict[str, str]] = field(default_factory=dict)
    _tables: dict[Path, tuple[Path, OfficialTable] | None] = field(default_factory=dict)
    _taken: dict[Path, tuple[Path, str, int]] = field(default_factory=dict)
    _systems: dict[Path, SystemInfo] = field(default_factory=dict)

    def private(self, path: Path) -> Path:
        """Where to parse ``path`` from: the bytes ``source`` hashes, taken once per import."""
        if path not in self._taken:
            try:
                self._taken[path] = self.read(path)
            except InputError as exc:  # about ``path``: called by its name
                raise exc.named(self.name(path)) from exc
        return self._taken[path][0]

    def private_or_none(self, path: Path | None) -> Path | None:
        """``private`` of a file that may be absent."""
        return None if path is None else self.private(path)

    def name_or_none(self, path: Path | None) -> str | None:
        """``name`` of a file that may be absent."""
        return None if path is None else self.name(path)

    def source(self, role: str, path: Path) -> SourceFile:
        """A file's digest and size, from the one read its parse used."""
        self.private(path)
        _, digest, size = self._taken[path]
        return SourceFile(role=role, path=self.name(path), sha256=digest, size_bytes=size)

    def system(self, path: Path) -> SystemInfo:
        """A system description, read and normalised once per import (called ``name(path)``)."""
        if path not in self._systems:
            self._systems[path] = read_system(
                self.private(path), system_id="", name=self.name(path)
            )
        return self._systems[path]

    def resolve(self, files: ResultFiles) -> tuple[ResolvedBenchmark, Path | None] | None:
        """The benchmark a result folder answers, and the mapping file that said so."""
        found = resolve_benchmark(files.benchmark_dir)
        if found is not None or files.submitter_dir is None:
            return (found, None) if found else None
        mapping_path = files.submitter_dir / "model_mapping.json"
        mapped = self._load_mapping(mapping_path).get(files.benchmark_dir)
        if mapped and (found := resolve_benchmark(mapped)):
            return found, mapping_path
        model = self._load_table(files).get(files.location)
        if model and (found := resolve_benchmark(model)):
            return found, self.table_path(files)
        return None

    def model_of(self, files: ResultFiles) -> str:
        """The benchmark a folder answers, as named by model_mapping.json, the official table or
        the folder itself (whether or not it is an LLM benchmark)."""
        if files.submitter_dir is None:
            return files.benchmark_dir
        mapping = self._load_mapping(files.submitter_dir / "model_mapping.json")
        table = self._load_table(files)
        return mapping.get(files.benchmark_dir) or table.get(files.location) or files.benchmark_dir

    def table(self, files: ResultFiles) -> OfficialTable | None:
        """The round's official table at the tree root (``summary.json`` or
        ``summary_results.json``), read once per import; None outside a tree or without one."""
        return None if (found := self._table(files)) is None else found[1]

    def table_path(self, files: ResultFiles) -> Path | None:
        """The official table's file (a source of the results it names)."""
        return None if (found := self._table(files)) is None else found[0]

    def _table(self, files: ResultFiles) -> tuple[Path, OfficialTable] | None:
        if files.submitter_dir is None:
            return None
        root = files.submitter_dir.parent.parent if files.division else files.submitter_dir.parent
        if root not in self._tables:
            found = find_table(root)
            self._tables[root] = (
                None
                if found is None
                else (found, read_table(self.private(found), named=self.name(found)))
            )
        return self._tables[root]

    def _load_mapping(self, path: Path) -> dict[str, str]:
        if path not in self._mappings:
            data = read_json(self.private(path), name=self.name(path)) if path.is_file() else {}
            self._mappings[path] = (
                {str(k): str(v) for k, v in data.items()} if isinstance(data, dict) else {}
            )
        return self._mappings[path]

    def _load_table(self, files: ResultFiles) -> dict[str, str]:
        table = self.table(files)
        return {} if table is None else table.model_by_location()
