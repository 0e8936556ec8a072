"""MLPerf Inference results: LoadGen logs, submission trees, system normalisation, checker rules.

``loadgen_log`` parses one LoadGen run; ``tree`` finds results; ``system`` and ``stack``
normalise system descriptions; ``rules`` holds the checker's per-round tables and ``checks``
re-applies them; ``importer`` stores results (``import_path``) and ``query`` reads them back
(``load_results``).

Nothing is imported here (``spec`` needs only ``rules``; the importer loads DuckDB): import
the module you need, e.g. ``from evidencepack.mlperf.importer import import_path``.
"""
