"""Many verified packs in one queryable place, as functions: ``warehouse_add``,
``warehouse_query``, ``warehouse_verify``, ``warehouse_compact`` and the named queries.

A warehouse is a folder (``root``) of Hive-partitioned Parquet with a catalog: by default a
DuckDB file inside it, or a ``postgresql://`` URL (``catalog``). DuckDB loads only when a
function runs.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING

from ..errors import InvalidRequest, option
from .options import PathLike, VerifyPolicy
from .signing import verify_policy

if TYPE_CHECKING:
    from ..warehouse.add import AddOutcome
    from ..warehouse.audit import AuditResult
    from ..warehouse.catalog import Catalog
    from ..warehouse.compact import Compacted
    from ..warehouse.named import NamedQuery
    from ..warehouse.query import QueryResult


def _catalog(root: PathLike, catalog: str | None) -> Catalog:
    from ..warehouse.catalog import open_catalog

    return open_catalog(Path(root), catalog)


def warehouse_add(
    root: PathLike,
    packs: Sequence[PathLike],
    policy: VerifyPolicy,
    *,
    catalog: str | None = None,
    requests: bool = False,
) -> list[AddOutcome]:
    """Add packs (folders or ``.tar.gz``), each verified against ``policy`` before its decision
    and manifest become rows; one that does not verify is refused and nothing of it written.
    ``requests`` also copies each pack's per-request rows."""
    from ..warehouse.add import add_packs

    checked = verify_policy(policy)
    held = _catalog(root, catalog)
    return add_packs(Path(root), [Path(p) for p in packs], checked, held, requests=requests)


def named_queries() -> tuple[NamedQuery, ...]:
    """The named queries a warehouse answers, with their parameters."""
    from ..warehouse.named import QUERIES

    return QUERIES


def warehouse_tables() -> tuple[str, ...]:
    """The warehouse's tables."""
    from ..warehouse.models import TABLES

    return tuple(TABLES)


def warehouse_query(
    root: PathLike,
    sql: str | None = None,
    *,
    named: str | None = None,
    params: Mapping[str, str] | None = None,
    catalog: str | None = None,
) -> QueryResult:
    """Run one read-only query over the warehouse: your own ``sql`` (a SELECT or a plain
    EXPLAIN), or the named query ``named`` with its ``params`` (text, parsed by kind)."""
    from ..warehouse.query import run_query

    if (sql is None) == (named is None):
        raise InvalidRequest(f"give SQL or {option('named')} NAME (one of them)")
    if named is not None:
        from ..warehouse.named import bind, named_query

        query = named_query(named)
        bound = bind(query, params or {})
        return run_query(Path(root), query.sql, bound, _catalog(root, catalog))
    if params:
        raise InvalidRequest(
            f"{option('param')} goes with {option('named')}; write values into your own SQL"
        )
    assert sql is not None
    return run_query(Path(root), sql, None, _catalog(root, catalog))


def warehouse_verify(
    root: PathLike, policy: VerifyPolicy, *, catalog: str | None = None
) -> tuple[list[AuditResult], list[str]]:
    """Re-verify every held pack against ``policy`` and the warehouse's own files: each pack's
    result, and the problems with the warehouse's files."""
    from ..warehouse.audit import audit

    checked = verify_policy(policy)
    return audit(Path(root), checked, _catalog(root, catalog))


def warehouse_compact(
    root: PathLike, tables: Sequence[str] = (), *, catalog: str | None = None
) -> list[Compacted]:
    """Rewrite each partition of ``tables`` (default: every table) held in many files as one,
    swapped under the warehouse's lock."""
    from ..warehouse.compact import compact
    from ..warehouse.models import TABLES

    unknown = sorted(set(tables) - set(TABLES))
    if unknown:
        raise InvalidRequest(
            f"{option('table')} {unknown[0]}: no such table (the tables: {', '.join(TABLES)})"
        )
    folder = Path(root)
    if not folder.is_dir():
        raise InvalidRequest(
            f"{folder}: no warehouse here (add a pack first: evidencepack warehouse add)"
        )
    return compact(folder, _catalog(root, catalog), tuple(tables) or tuple(TABLES))
