"""The team's own evidence: serving-benchmark runs and quality scores from any tool, normalised.

``registry.read_input(path)`` detects the format by content and returns a ParsedInput (runs or
score sets, provenance, warnings); ``load.load_input(store, parsed, role=..., candidate=...)``
stores it; ``stored.load_runs`` / ``load_score_sets`` / ``score_item_rows`` read it back. One
module per format in ``formats/``, listed in ``registry.FORMATS``. Nothing is imported here.
"""
