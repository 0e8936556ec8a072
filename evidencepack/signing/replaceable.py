"""Whether ``--force`` may replace a folder that holds a signed pack: only when its signed
statement names exactly its files with their digests (never a folder of something else)."""

from __future__ import annotations

from pathlib import Path

from ..errors import EvidencePackError
from ..pack.layout import BUNDLE_NAME, scan_pack
from ..pack.replaceable import replace_problem
from .bundle import parse_bundle, read_bundle
from .statement import hash_files, parse_statement


def replaceable_pack(folder: Path, markers: tuple[str, ...]) -> str | None:
    """Why ``--force`` may not replace ``folder`` (None: it may): ``replace_problem``, and for a
    signed pack, its signed statement must name exactly its files with their digests."""
    problem = replace_problem(folder, markers)
    bundle = folder / BUNDLE_NAME
    if problem or not (bundle.exists() or bundle.is_symlink()):
        return problem
    try:
        parsed = parse_bundle(read_bundle(bundle), str(bundle))
        statement = parse_statement(parsed.payload or b"")
    except EvidencePackError as exc:
        return f"its signature is not one of a pack ({exc})"
    files = scan_pack(folder).files
    if set(statement.digests()) != set(files) or statement.digests() != hash_files(files):
        return "its files differ from the ones its signed statement lists"
    return None
