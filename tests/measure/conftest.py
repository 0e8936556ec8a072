"""The real engine the measure tests share: llama.cpp's server on the tiny model, started once
per test module. Under CI (``CI`` set) a missing engine fails the tests; elsewhere they are
skipped with the install command."""

from __future__ import annotations

import importlib.util
import json
import os
from collections.abc import Iterator
from pathlib import Path

import pytest

from .llama_engine import LlamaServer, write_model


def engine_missing() -> str | None:
    """The engine's packages that are not installed, or None."""
    missing = [m for m in ("xllamacpp", "gguf") if importlib.util.find_spec(m) is None]
    return ", ".join(missing) or None


def require_engine() -> None:
    """Fail (under CI) or skip when llama.cpp's server cannot run here."""
    if (missing := engine_missing()) is not None:
        message = f"llama.cpp's server is not installed ({missing}): pip install -e '.[dev]'"
        if os.environ.get("CI"):
            pytest.fail(message, pytrace=False)
        pytest.skip(message)


@pytest.fixture(scope="module")
def engine(tmp_path_factory: pytest.TempPathFactory) -> Iterator[LlamaServer]:
    """llama.cpp's server on the tiny byte-level model, 4 slots."""
    require_engine()
    model = write_model(tmp_path_factory.mktemp("engine") / "tiny.gguf")
    with LlamaServer(model, parallel=4) as running:
        yield running


@pytest.fixture(scope="module")
def prompts(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """24 short prompts for the engine (a test module may define its own)."""
    path = tmp_path_factory.mktemp("engine-prompts") / "prompts.jsonl"
    texts = [f"Summarise contract {i}: the supplier delivers by day {i}." for i in range(24)]
    path.write_text("".join(json.dumps({"prompt": t}) + "\n" for t in texts), encoding="utf-8")
    return path
