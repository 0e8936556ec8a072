"""MLPerf Inference results: LoadGen logs, submission trees, system normalisation, checker rules.

``loadgen_log`` parses one LoadGen run; ``tree`` finds results; ``system`` and ``stack``
normalise system descriptions; ``rules`` holds the checker's per-round tables and ``checks``
re-applies them; ``importer`` stores results (``import_path``) and ``query`` reads them back
(``load_results``).
"""

from __future__ import annotations

from .importer import import_path
from .models import CheckRow, ImportReport, MlperfResult, Rejection, SourceFile
from .query import list_results, load_results

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
