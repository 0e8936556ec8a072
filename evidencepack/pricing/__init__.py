"""Prices as evidence: a FinOps FOCUS cost-and-usage export, or a supplier's quote, read with
its digest.

``pricing.models`` (no DuckDB) holds the rate and the quote models (the filter a spec states is
``spec.cost.FocusFilter``); ``pricing.focus`` derives an effective hourly rate from a FOCUS
export through DuckDB; ``pricing.quote`` reads a quote in YAML or CSV. Import the module you
need: this package imports none of them.
"""
