"""The DuckDB evidence store: one connection, versioned DDL, the files table every input cites.

``store.py`` holds ``Store`` and ``STORE_VERSION``; each stage owns one DDL module in this
package (``files``, ``mlperf``, ``runs``, ...). Like every package ``__init__``, this one imports
nothing when loaded: ``from evidencepack.store import Store`` loads ``store.py`` (and DuckDB) on
first use (PEP 562).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from .store import STORE_VERSION, Store

__all__ = ["STORE_VERSION", "Store"]


def __getattr__(name: str) -> Any:
    if name in __all__:
        from . import store

        return getattr(store, name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
