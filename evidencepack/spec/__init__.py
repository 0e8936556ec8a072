"""The spec stage: ``pack.yaml``, what every later stage reads.

``models`` (the pack spec, with ``types``, ``fit`` and ``cost``), ``load`` (``load_spec``: a file
read into the models), ``semantic`` (the problems no field type catches), ``located`` (safe YAML
with line numbers) and ``validation`` (``file:line:col`` errors with "did you mean"). Import the
module you need: this package imports none of them, and none of them loads DuckDB.
"""
