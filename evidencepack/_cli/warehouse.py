"""``evidencepack warehouse``: many verified packs in one queryable place (add, query, verify)."""

from __future__ import annotations

import argparse
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from ..api.terminal import visible, visible_errors
from ..errors import EXIT_FAILED, EXIT_OK, UsageError
from ._common import Command, Parser, add_command, emit, group_help, json_argument
from ._signers import verifier_arguments, verify_policy

if TYPE_CHECKING:
    from ..warehouse.query import QueryResult


def _cmd_add(args: argparse.Namespace) -> int:
    from ..api.warehouse import warehouse_add

    outcomes = warehouse_add(
        args.warehouse,
        args.packs,
        verify_policy(args),
        catalog=args.catalog,
        requests=args.requests,
    )
    lines = []
    for o in outcomes:
        source, decision_id = visible(o.source), visible(o.decision_id or "")
        if o.kind == "watch" and o.status != "refused":
            said = "added   " if o.status == "added" else "skipped "
            held = "" if o.status == "added" else "already held, "
            lines.append(
                f"{said} {source}: watch of {decision_id}: {o.watch_status} "
                f"({held}watch digest {o.digest})"
            )
        elif o.status == "added":
            held = "" if o.requests is None else f", {o.requests} per-request rows"
            lines.append(f"added    {source}: {decision_id} (evidence digest {o.digest}{held})")
        elif o.status == "skipped":
            lines.append(f"skipped  {source}: already held (evidence digest {o.digest})")
        else:
            why = "it does not verify" if o.kind == "pack" else "a watch not held"
            lines.append(f"REFUSED  {source}: {why}; nothing of it was written")
            lines += [f"  {visible(problem)}" for problem in o.problems]
    emit(
        [
            {
                "source": o.source,
                "status": o.status,
                "evidence_digest": o.digest,
                "decision_id": o.decision_id,
                "problems": list(o.problems),
                "requests": o.requests,
                "kind": o.kind,
                "watch_status": o.watch_status,
            }
            for o in outcomes
        ],
        as_json=args.json,
        text="\n".join(lines),
    )
    return EXIT_FAILED if any(o.status == "refused" for o in outcomes) else EXIT_OK


def _table(result: QueryResult) -> str:
    cells = [[("" if v is None else visible(str(v))) for v in row] for row in result.rows]
    widths = [
        max([len(name)] + [len(row[i]) for row in cells]) for i, name in enumerate(result.columns)
    ]
    names = [visible(n) for n in result.columns]
    widths = [max(w, len(n)) for w, n in zip(widths, names, strict=True)]
    lines = ["  ".join(n.ljust(w) for n, w in zip(names, widths, strict=True))]
    lines.append("  ".join("-" * w for w in widths))
    lines += ["  ".join(c.ljust(w) for c, w in zip(row, widths, strict=True)) for row in cells]
    lines.append(f"({len(cells)} row{'s' if len(cells) != 1 else ''})")
    return "\n".join(line.rstrip() for line in lines)


def _params(pairs: list[str]) -> dict[str, str]:
    given: dict[str, str] = {}
    for pair in pairs:
        name, sep, value = pair.partition("=")
        if not sep or not name:
            raise UsageError(f"--param {pair!r}: give NAME=VALUE")
        given[name] = value
    return given


def _cmd_query(args: argparse.Namespace) -> int:
    from ..api.warehouse import warehouse_query

    if (args.sql is None) == (args.named is None):
        raise UsageError("warehouse query: give SQL or --named NAME (one of them)")
    result = warehouse_query(
        args.warehouse,
        args.sql,
        named=args.named,
        params=_params(args.param),
        catalog=args.catalog,
    )
    records: list[dict[str, Any]] = result.records()
    emit(records, as_json=args.json, text=_table(result))
    return EXIT_OK


def _cmd_verify(args: argparse.Namespace) -> int:
    from ..api.warehouse import warehouse_verify

    results, dataset = warehouse_verify(args.warehouse, verify_policy(args), catalog=args.catalog)
    lines = []
    for r in results:
        lines.append(
            f"{r.status.upper():8} {visible(r.decision_id)} {r.digest[:12]} {visible(r.source)}"
        )
        lines += [f"  {visible(problem)}" for problem in r.problems]
    bad = [r for r in results if r.status != "ok"]
    if dataset:
        lines.append("FAILED   the warehouse's own files:")
        lines += [f"  {visible(problem)}" for problem in dataset]
    for kind, plural in (("pack", "pack(s)"), ("watch", "watch(es)")):
        of_kind = [r for r in results if r.kind == kind]
        if kind == "pack" or of_kind:
            ok = sum(r.status == "ok" for r in of_kind)
            lines.append(f"{ok} of {len(of_kind)} held {plural} verify")
    if dataset:
        lines.append(f"{len(dataset)} problem(s) with the warehouse's own files")
    emit(
        {
            "ok": not bad and not dataset,
            "dataset_problems": dataset,
            "packs": [
                {
                    "evidence_digest": r.digest,
                    "decision_id": r.decision_id,
                    "source": r.source,
                    "status": r.status,
                    "problems": list(r.problems),
                }
                for r in results
                if r.kind == "pack"
            ],
            "watches": [
                {
                    "watch_digest": r.digest,
                    "decision_id": r.decision_id,
                    "source": r.source,
                    "status": r.status,
                    "problems": list(r.problems),
                }
                for r in results
                if r.kind == "watch"
            ],
        },
        as_json=args.json,
        text="\n".join(lines),
    )
    return EXIT_FAILED if bad or dataset else EXIT_OK


def _cmd_compact(args: argparse.Namespace) -> int:
    from ..api.warehouse import warehouse_compact

    done = warehouse_compact(args.warehouse, tuple(args.table), catalog=args.catalog)
    lines = [
        f"compacted {c.table}/{c.partition}: {c.files_before} files -> 1 ({c.size_bytes} bytes)"
        for c in done
    ]
    lines.append(f"{len(done)} partition(s) compacted" if done else "nothing to compact")
    emit(
        [
            {
                "table": c.table,
                "partition": c.partition,
                "files_before": c.files_before,
                "file": c.file,
                "size_bytes": c.size_bytes,
            }
            for c in done
        ],
        as_json=args.json,
        text="\n".join(lines),
    )
    return EXIT_OK


def _cmd_list_queries(args: argparse.Namespace) -> int:
    from ..api.warehouse import named_queries

    queries = named_queries()
    lines = []
    for q in queries:
        lines.append(f"{q.name}: {q.help}")
        for p in q.params:
            default = "required" if p.default is None else f"default {p.default or 'none'}"
            lines.append(f"  --param {p.name}=... ({p.kind}, {default}): {p.help}")
    emit(
        [
            {
                "name": q.name,
                "help": q.help,
                "params": [
                    {"name": p.name, "kind": p.kind, "default": p.default, "help": p.help}
                    for p in q.params
                ],
            }
            for q in queries
        ],
        as_json=args.json,
        text="\n".join(lines),
    )
    return EXIT_OK


def _shown(handler: Callable[[argparse.Namespace], int]) -> Callable[[argparse.Namespace], int]:
    """``handler`` whose errors (quoting pack names and paths) reach the terminal visibly."""

    def run(args: argparse.Namespace) -> int:
        with visible_errors():
            return handler(args)

    return run


def _warehouse_argument(p: argparse.ArgumentParser) -> None:
    p.add_argument(
        "--warehouse", metavar="DIR", required=True, help="the warehouse folder (made by add)"
    )
    p.add_argument(
        "--catalog",
        metavar="URL",
        help="keep the catalog of packs in PostgreSQL (postgresql://...; needs psycopg) "
        "instead of DIR/catalog.duckdb",
    )


def register(command: Command) -> None:
    """Add this group's subcommands, in the order ``--help`` lists them."""
    p = command(
        "warehouse", group_help, "hold many verified packs as Parquet tables and query them"
    )
    actions = p.add_subparsers(dest="warehouse_command", metavar="ACTION", parser_class=Parser)
    q = add_command(
        actions,
        "add",
        _shown(_cmd_add),
        "verify each pack (folder or .tar.gz) and add its rows; a pack that does not verify is "
        "refused (exit 1) and nothing of it is written; a pack already held is skipped; a watch "
        "folder (evidencepack watch) of a held pack is added to table watches",
    )
    q.add_argument(
        "packs",
        nargs="+",
        metavar="PACK",
        help="pack folders or .tar.gz archives, and watch folders",
    )
    q.add_argument(
        "--requests",
        action="store_true",
        help="also add every per-request row of the packs' runs (table requests), copied in "
        "bulk from each pack's evidence.duckdb",
    )
    _warehouse_argument(q)
    verifier_arguments(q, "accept only packs signed with this key")
    json_argument(q)

    q = add_command(
        actions,
        "query",
        _shown(_cmd_query),
        "ask the warehouse: your own SQL (one SELECT, read-only: a fresh in-memory DuckDB with a "
        "view per table, allowed to read only the dataset) or a named query",
    )
    q.add_argument("sql", nargs="?", metavar="SQL", help="a SELECT over the tables")
    q.add_argument("--named", metavar="NAME", help="a named query (see list-queries)")
    q.add_argument(
        "--param",
        action="append",
        default=[],
        metavar="NAME=VALUE",
        help="a named query's parameter, bound (never spliced into the SQL); repeatable",
    )
    _warehouse_argument(q)
    json_argument(q, "print the rows as JSON")

    q = add_command(
        actions,
        "verify",
        _shown(_cmd_verify),
        "re-verify every held pack from where it was added; exit 1 if any no longer verifies "
        "or is missing",
    )
    _warehouse_argument(q)
    verifier_arguments(q, "verify key-signed packs with this key")
    json_argument(q)

    q = add_command(
        actions,
        "compact",
        _shown(_cmd_compact),
        "rewrite each partition's many Parquet files (one per pack per table) as one, "
        "atomically: queries give the same answers, faster; adds and queries may run meanwhile",
    )
    q.add_argument(
        "--table",
        action="append",
        default=[],
        metavar="TABLE",
        help="compact only this table (repeatable; default: every table)",
    )
    _warehouse_argument(q)
    json_argument(q)

    q = add_command(actions, "list-queries", _cmd_list_queries, "list the named queries")
    json_argument(q)
