"""The readers: any tool's file read by content into the normalised models, nothing stored.

``registry.read_input(path)`` detects the format by content and returns a ParsedInput (runs or
score sets, provenance, warnings); one module per format in ``formats/``, listed in
``registry.FORMATS``. The intake (``intake/load.py``) stores what a reader returns; per-request
rows are validated and reduced by ``staging/``. Nothing is imported here.
"""
