"""``evidencepack inspect``: detect and summarise serving-benchmark and eval-score files."""

from __future__ import annotations

import argparse
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ..errors import EXIT_FAILED, EXIT_OK, InputError
from ._common import Command, emit, json_argument


@dataclass(frozen=True)
class InspectOptions:
    files: tuple[Path, ...]
    json: bool
    max_file_bytes: int | None


def _cmd_inspect(args: argparse.Namespace) -> int:
    from ..api.inspect import describe_input, read_input, run_folder_files

    opts = InspectOptions(tuple(Path(f) for f in args.files), args.json, args.max_file_bytes)
    reports: list[dict[str, Any]] = []
    lines: list[str] = []
    failed = 0
    files: list[Path] = []
    for path in opts.files:
        # A run folder (what measure writes) is read as a spec's runs entry reads it.
        members = run_folder_files(path) if path.is_dir() and not path.is_symlink() else []
        if members:
            lines.append(f"{path}: a run folder; reading {', '.join(p.name for p in members)}")
        files += members or [path]
    for path in files:
        try:
            parsed = read_input(path, max_file_bytes=opts.max_file_bytes)
        except InputError as exc:
            failed += 1
            reports.append({"path": str(path), "ok": False, "error": exc.message})
            lines.append(f"cannot read: {exc.message}")
            continue
        if opts.json:  # every run as JSON: only when asked (50,000 runs take seconds)
            reports.append({"path": str(path), "ok": True, **parsed.summary()})
        else:
            lines += describe_input(parsed)
    from ..api.inspect import broken_plugin_warnings

    broken = broken_plugin_warnings()
    if opts.json:  # the JSON stays a list of file reports; the warning goes to stderr
        import sys

        for text in broken:
            print(f"warning: {text}", file=sys.stderr)
    else:
        lines += [f"warning: {text}" for text in broken]
    from ..api.terminal import escape_misleading

    # A terminal obeys bidi overrides too: show them escaped, as the report does.
    emit(reports, as_json=opts.json, text=escape_misleading("\n".join(lines)))
    return EXIT_FAILED if failed else EXIT_OK


def register(command: Command) -> None:
    """Add this group's subcommands, in the order ``--help`` lists them."""
    p = command(
        "inspect",
        _cmd_inspect,
        "detect and summarise serving-benchmark and eval-score files",
    )
    p.add_argument("files", nargs="+", metavar="FILE", help="a file any supported tool wrote")
    p.add_argument(
        "--max-file-bytes",
        type=_file_bytes,
        metavar="N",
        help="read files of up to N bytes (default 1073741824, 1 GiB: the limit against "
        "hostile input; at most 1 TiB); a file read over 1 GiB is reported with a warning",
    )
    json_argument(p)


def _file_bytes(text: str) -> int:
    """``--max-file-bytes``: a whole number of bytes, 1 to 1 TiB."""
    from ..api.inspect import MAX_RAISED_INPUT_FILE_BYTES

    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"not a whole number of bytes: {text!r}") from None
    if not 0 < value <= MAX_RAISED_INPUT_FILE_BYTES:
        raise argparse.ArgumentTypeError(
            f"{value}: give 1 to {MAX_RAISED_INPUT_FILE_BYTES} bytes (1 TiB)"
        )
    return value
