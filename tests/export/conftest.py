"""The export tests' sample pack (the session's unsigned build, tests/packs.py) and the OSCAL
validators."""

from __future__ import annotations

import hashlib
import json
import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
import regex
from jsonschema import Draft7Validator, validators
from jsonschema.exceptions import ValidationError

from evidencepack.pipeline import BuildResult

SCHEMAS = Path(__file__).parent / "schemas"
SCHEMA_1_2_3 = SCHEMAS / "oscal_complete_schema-1.2.3.json"
SCHEMA_1_2_3_SHA256 = "384324105c7a817af0f65b120a963146caa0e0d55d969cf0daf60e063b87a206"
SCHEMA_1_1_2 = SCHEMAS / "oscal_assessment-results_schema-1.1.2.json"
SCHEMA_1_1_2_SHA256 = "d033da70154cf6625ae46a746199e88e58f2928b1387dfac051d381b92f41b0d"


def _unicode_pattern(
    validator: Any, pattern: str, instance: Any, schema: dict[str, Any]
) -> Iterator[ValidationError]:
    """JSON Schema ``pattern`` evaluated by the ``regex`` package: OSCAL's token patterns use
    ``\\p{L}``/``\\p{N}``, which Python's ``re`` (jsonschema's default) cannot compile."""
    if validator.is_type(instance, "string") and not regex.search(pattern, instance):
        yield ValidationError(f"{instance!r} does not match {pattern!r}")


OscalValidator = validators.extend(Draft7Validator, {"pattern": _unicode_pattern})
"""Draft 7, as the OSCAL schemas declare, with Unicode-aware patterns (see schemas/README.md)."""


def load_schema(path: Path, sha256: str) -> dict[str, Any]:
    """A vendored schema, refused unless its bytes are the upstream release asset's."""
    raw = path.read_bytes()
    assert hashlib.sha256(raw).hexdigest() == sha256, f"{path.name} is not the upstream file"
    schema: dict[str, Any] = json.loads(raw)
    return schema


def oscal_errors(schema: dict[str, Any], document: dict[str, Any]) -> list[str]:
    """Every schema violation of ``document``, as 'path: message' lines (empty when valid).

    A document is checked against its own model's definition (not the complete schema's
    top-level ``oneOf``), so a violation is reported where it is, not as "not valid under any".
    """
    (root,) = document
    model = {"assessment-results": "ar", "catalog": "catalog"}[root]
    prefix = "oscal-complete-oscal" if "oscal-complete" in schema["$id"] else "oscal-ar-oscal"
    target = {
        **schema,
        "properties": {root: {"$ref": f"#/definitions/{prefix}-{model}:{root}"}},
        "required": [root],
    }
    target.pop("oneOf", None)
    checker = OscalValidator(target, format_checker=Draft7Validator.FORMAT_CHECKER)
    return [
        f"{'/'.join(map(str, e.absolute_path))}: {e.message[:300]}"
        for e in checker.iter_errors(document)
    ]


def python_re_rejects(schema: dict[str, Any]) -> bool:
    """Whether stock jsonschema (Python's ``re``) fails on the schema's token pattern."""
    try:
        re.compile(schema["definitions"]["TokenDatatype"]["pattern"])
    except re.error:
        return True
    return False


@pytest.fixture(scope="session")
def schema_1_2_3() -> dict[str, Any]:
    return load_schema(SCHEMA_1_2_3, SCHEMA_1_2_3_SHA256)


@pytest.fixture(scope="session")
def sample_pack(sample_build: BuildResult) -> Path:
    return sample_build.out_dir
