"""MLPerf Inference results: LoadGen logs, submission trees, system normalisation, checker rules.

``loadgen_log`` parses one LoadGen run; ``tree`` finds results; ``system`` and ``stack``
normalise system descriptions; ``rules`` holds the checker's per-round tables and ``checks``
re-applies them; ``importer`` stores results (``import_path``) and ``query`` reads them back
(``load_results``).
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from .importer import import_path
    from .models import CheckRow, ImportReport, MlperfResult, Rejection, SourceFile
    from .query import list_results, load_results

# Imported on first use (PEP 562): ``spec`` needs only ``mlperf.rules``, and importing the
# importer would load DuckDB into every command that reads a spec.
_LAZY = {
    "import_path": ".importer",
    "CheckRow": ".models",
    "ImportReport": ".models",
    "MlperfResult": ".models",
    "Rejection": ".models",
    "SourceFile": ".models",
    "list_results": ".query",
    "load_results": ".query",
}

__all__ = [
    "CheckRow",
    "ImportReport",
    "MlperfResult",
    "Rejection",
    "SourceFile",
    "import_path",
    "list_results",
    "load_results",
]


def __getattr__(name: str) -> Any:
    module = _LAZY.get(name)
    if module is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    value = getattr(importlib.import_module(module, __name__), name)
    globals()[name] = value
    return value
