"""``first_difference`` answers equal documents in C (``json.dumps``) and still tells JSON types
apart: ``true`` is not ``1``, ``1`` is not ``1.0``, and a NaN is never equal to itself."""

from __future__ import annotations

import json

import pytest

from evidencepack.signing.json_diff import first_difference


def test_equal_documents_have_no_difference() -> None:
    doc = {"a": [1, 2.5, {"b": None, "c": "x"}], "verdict": "PASS"}
    assert first_difference(doc, json.loads(json.dumps(doc))) is None
    assert first_difference({"a": 1, "b": 2}, {"b": 2, "a": 1}) is None  # key order


@pytest.mark.parametrize(
    ("left", "right", "path"),
    [
        ({"a": [True]}, {"a": [1]}, "a[0]"),
        ({"a": 1}, {"a": 1.0}, "a"),
        ({"a": {"b": 0}}, {"a": {"b": False}}, "a.b"),
        (json.loads('{"a": NaN}'), json.loads('{"a": NaN}'), "a"),
        ({"a": 1}, {"a": 1, "b": None}, "b"),
    ],
)
def test_types_and_nan_still_differ(left: object, right: object, path: str) -> None:
    difference = first_difference(left, right)
    assert difference is not None
    assert difference.path == path
