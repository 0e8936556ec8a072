"""MLPerf Inference results: LoadGen logs, submission trees, system normalisation, checker rules.

``loadgen_log`` parses one LoadGen run; ``tree`` walks submission trees; ``system`` and
``stack`` normalise system descriptions; ``rules`` holds the checker's per-round tables;
``importer`` ties them into the evidence store (``import_path``, ``load_results``).
"""

from __future__ import annotations
