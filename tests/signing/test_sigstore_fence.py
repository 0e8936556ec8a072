"""sigstore-python's private API is used in one module only, and an upgrade that moves one of
its names fails here, by name, before anything signs or verifies."""

from __future__ import annotations

import importlib
import re

import pytest

from evidencepack.signing._sigstore_private import PRIVATE_NAMES

from ..conftest import REPO_ROOT

FENCE = REPO_ROOT / "evidencepack" / "signing" / "_sigstore_private.py"


@pytest.mark.parametrize(("owner", "name"), PRIVATE_NAMES)
def test_each_private_name_still_exists(owner: str, name: str) -> None:
    try:
        module = importlib.import_module(owner)
        target: object = module
    except ModuleNotFoundError:
        module_name, _, class_name = owner.rpartition(".")
        target = getattr(importlib.import_module(module_name), class_name)
    assert hasattr(target, name), f"sigstore-python moved {owner}.{name}: update the fence"


def test_no_module_outside_the_fence_uses_sigstore_internals() -> None:
    private = re.compile(
        r"sigstore\._internal|\._signing_cert\(|\._establish_time\(|dsse\.Envelope\._TYPE"
    )
    offenders = [
        str(path.relative_to(REPO_ROOT))
        for path in sorted((REPO_ROOT / "evidencepack").rglob("*.py"))
        if path != FENCE and private.search(path.read_text(encoding="utf-8"))
    ]
    assert offenders == []
