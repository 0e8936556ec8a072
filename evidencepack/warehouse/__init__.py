"""The evidence warehouse: many verified packs as Hive-partitioned Parquet tables plus a catalog.

``add`` verifies and loads packs, ``query`` asks DuckDB over the dataset, ``audit`` re-verifies
every held pack. ``models`` holds one row model per table (its JSON Schema is in ``schemas/``).
"""
