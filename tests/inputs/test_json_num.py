"""``Node.num``'s fast path (a present finite number, an absent optional one) answers as the
checked path does, and everything else still fails with the field's location."""

from __future__ import annotations

import pytest

from evidencepack.errors import InputError
from evidencepack.readers._json import Node

DOC = {"f": 2.5, "i": 3, "z": 0, "neg": -1.0, "b": True, "s": "1", "none": None}


@pytest.mark.parametrize(
    ("key", "expected"),
    [("f", 2.5), ("i", 3.0), ("z", 0.0), ("none", None), ("absent", None)],
)
def test_numbers_and_absent_values(key: str, expected: float | None) -> None:
    value = Node(DOC, "run.json").num(key)
    assert value == expected
    assert value is None or type(value) is float


def test_a_negative_passes_only_when_allowed() -> None:
    assert Node(DOC, "run.json").num("neg", negative_ok=True) == -1.0
    with pytest.raises(InputError, match=r"\$\.neg.*negative value"):
        Node(DOC, "run.json").num("neg")


@pytest.mark.parametrize(
    ("key", "message"),
    [("b", "expected a number, found"), ("s", "expected a number, found")],
)
def test_other_types_fail_naming_the_field(key: str, message: str) -> None:
    with pytest.raises(InputError, match=rf"\$\.{key}.*{message}"):
        Node(DOC, "run.json").num(key)


def test_required_and_non_finite_values_fail() -> None:
    with pytest.raises(InputError, match="required number is missing"):
        Node(DOC, "run.json").num("absent", required=True)
    for raw in (float("nan"), float("inf")):
        with pytest.raises(InputError, match="not a measurement"):
            Node({"x": raw}, "run.json").num("x")
