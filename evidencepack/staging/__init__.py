"""Staging: per-request rows and per-item scores validated and reduced in DuckDB, in bulk.

``stage`` stages one file's rows in temporary tables of a per-thread in-memory DuckDB,
``stage_batch`` many small files' at once, ``items`` a score set's items; ``figures`` holds what
they reduce rows to. The readers (``readers/``) call staging; staging imports no reader.
Nothing is imported here.
"""
