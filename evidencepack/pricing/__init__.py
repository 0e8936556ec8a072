"""Prices as evidence: a FinOps FOCUS cost-and-usage export, or a supplier's quote, read with
its digest.

``pricing.models`` (no DuckDB) holds the filter, the rate and the quote models a spec may state;
``pricing.focus`` derives an effective hourly rate from a FOCUS export through DuckDB;
``pricing.quote`` reads a quote in YAML or CSV. Import the module you need: this package imports
none of them, so a spec that only names a filter does not load DuckDB.
"""
