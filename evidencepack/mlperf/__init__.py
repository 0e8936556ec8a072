"""MLPerf results: LoadGen logs, submission trees, system normalisation, checker rules, power,
the endpoint tool's results, and MLPerf Training.

``loadgen_log`` parses one LoadGen run and ``endpoint_result`` one endpoint-tool run; ``tree``
finds results; ``system`` and ``stack`` normalise system descriptions; ``official_table`` reads a
round's table; ``rules`` holds the checker's per-round tables and ``checks`` re-applies them;
``power`` (with ``power_checks``) reads a power-measured result and ``energy`` turns it into
energy per token for the analysis; ``training`` and ``training_import`` read Training results;
``importer`` stores results (``import_path``) and ``query`` reads them back (``load_results``).

Nothing is imported here (``spec`` needs only ``rules``; the importer loads DuckDB): import
the module you need, e.g. ``from evidencepack.mlperf.importer import import_path``.
"""
