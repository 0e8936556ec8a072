"""evidencepack: compile accelerator-decision evidence into a signed, auditable pack.

The compiler runs in stages, data flowing one way::

    pack.yaml ──> spec ──> inputs (MLPerf trees, LoadGen logs, serving runs, eval scores)
                              │  provenance: sha256, tool, version of every file
                              v
                           store (DuckDB) ──> analyze (checklist, capacity, cost, quality, decision)
                                                  │
                                                  v
                                        render (HTML, PDF/A-3b) ──> manifest ──> sign / verify

Library use::

    from pathlib import Path
    from evidencepack.spec import load_spec

    loaded = load_spec(Path("samples/pack.yaml"))
    print(loaded.spec.decision.question)
"""

from __future__ import annotations

__version__ = "0.1.0"

__all__ = ["__version__"]
