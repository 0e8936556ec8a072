"""Which DuckDB database a file's rows are staged in: one of its own, this thread's shared one
(``shared_staging``, a build's intake), or, for a large file given a store, the store's own.

Opening a database per file cost more than reading a small file (12 ms per connect, DDL and
close; issue 29), so within ``shared_staging`` the files of a thread share one in-memory
database (one single-threaded for small files). Given the store, a large file is staged in a
catalog attached to the store's database, so its rows move into the store by one
``INSERT ... SELECT`` (``store.staged.StagedRows``), never through Python.
"""

from __future__ import annotations

import itertools
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import TYPE_CHECKING

import duckdb

from ..store.staged import detach

if TYPE_CHECKING:
    from ..store import Store

_THREAD = threading.local()
SMALL_FILE_BYTES = 1 << 20
"""A file this small is staged single-threaded: for a few rows DuckDB's worker threads cost
more than the work (0.7 against 1.1 ms of CPU per statement, 1.3 against 5.7 ms of wall time on
a busy 2-core machine), while a big file's scan is spread over every core. A larger file, given
a store, is staged in the store's database."""

_CATALOGS = itertools.count(1)
"""Numbers the catalogs large files are staged in (``ep_staging_<n>``: unique in the process)."""


@contextmanager
def shared_staging(store: Store | None = None) -> Iterator[None]:
    """Within this block, the files staged on this thread share one in-memory database (one
    single-threaded for small files), each in temporary tables of its own connection to it;
    the databases are closed when the block ends (the intake of a build is one block). Outside
    one, a file is staged in a database of its own.

    With ``store``, a file over ``SMALL_FILE_BYTES`` is staged in a catalog attached to the
    store's database instead, and its rows are handed on as ``StagedRows`` for ``load_input``
    to move with one ``INSERT ... SELECT`` (no copy through numpy, none held twice); catalogs
    not loaded by the end of the block are detached then."""
    if getattr(_THREAD, "shared", None) is not None:  # already inside one
        yield
        return
    _THREAD.shared = {}
    _THREAD.store = store
    _THREAD.catalogs = {}
    try:
        yield
    finally:
        databases, _THREAD.shared = _THREAD.shared, None
        catalogs, _THREAD.catalogs = _THREAD.catalogs, {}
        _THREAD.store = None
        for database in databases.values():
            database.close()
        for catalog, owner in catalogs.items():
            detach(owner, catalog)


def staging_database(path: Path) -> tuple[duckdb.DuckDBPyConnection | None, bool]:
    """The open database to stage ``path`` in (None: a database of its own), and whether it is
    the store's (stage in a catalog of its own there: ``new_catalog``)."""
    databases: dict[bool, duckdb.DuckDBPyConnection] | None = getattr(_THREAD, "shared", None)
    if databases is None:
        return None, False
    try:
        small = path.stat().st_size <= SMALL_FILE_BYTES
    except OSError:  # reading it will say what is wrong
        small = False
    store: Store | None = getattr(_THREAD, "store", None)
    if store is not None and not small:
        return store.con, True
    if small not in databases:
        databases[small] = duckdb.connect(":memory:", config={"threads": 1} if small else {})
    return databases[small], False


def new_catalog(owner: duckdb.DuckDBPyConnection) -> str:
    """A new catalog name in ``owner``'s database, detached when the ``shared_staging`` block
    ends if its rows were not moved and released before."""
    catalog = f"ep_staging_{next(_CATALOGS)}"
    _THREAD.catalogs[catalog] = owner
    return catalog
