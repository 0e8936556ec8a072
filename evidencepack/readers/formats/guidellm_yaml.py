"""guidellm ``benchmarks.yaml``: the same report as ``benchmarks.json``, written as YAML.

guidellm writes one report as ``.json``, ``.yaml`` and ``.csv``. The YAML is loaded with the
safe loader (``readers/_yaml_doc``), recognised by the same content rule as the JSON (a
``benchmarks`` list of ``generative_benchmark`` objects) and read by the JSON reader: its
per-request rows go to DuckDB from a JSON copy in a private temporary folder, so the runs and
figures are exactly those of the JSON report.
"""

from __future__ import annotations

import datetime as dt
import json
import tempfile
from dataclasses import replace
from pathlib import Path
from typing import Any

from ...core.provenance import FileRecord
from ...errors import InputError
from .._yaml_doc import load_yaml_document, top_level_keys
from ..base import Format, ParsedInput, Probe
from . import guidellm


def detect(probe: Probe) -> bool:
    """A YAML mapping with a top-level ``benchmarks`` key whose benchmarks are guidellm's."""
    if "benchmarks" not in top_level_keys(probe):
        return False
    try:
        doc = load_yaml_document(probe.path, probe.name)
    except InputError:
        return False
    return guidellm.detect(replace(probe, container="json", first=doc))


def parse(probe: Probe, record: FileRecord) -> ParsedInput:
    """The runs of the YAML report, read as its JSON twin would be."""
    doc = load_yaml_document(probe.path, probe.name)
    as_json = replace(probe, container="json", first=doc)
    with tempfile.TemporaryDirectory(prefix="evidencepack-guidellm-") as folder:
        copy = Path(folder) / "benchmarks.json"
        copy.write_text(json.dumps(doc, default=_plain), encoding="utf-8")
        return guidellm.parse_document(as_json, record, copy, FORMAT.id)


def _plain(value: Any) -> str:
    """YAML timestamps (a date written unquoted) become ISO text, as the JSON report has them."""
    if isinstance(value, dt.date | dt.datetime):
        return value.isoformat()
    raise TypeError(f"{type(value).__name__} is not JSON")


FORMAT = Format("guidellm-yaml", "runs", "guidellm", detect, parse)
