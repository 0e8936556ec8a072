"""Exports and verdict statements attacked (issue 42): Markdown and HTML from the spec never
reach OSCAL markup fields live; candidate ids that are one name in the verdict statements are
refused at validation."""

from __future__ import annotations

import json
import re
import shutil
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from ..conftest import SAMPLE_SPEC
from .harness import assert_refused, run

HOSTILE = "Which [click](javascript:alert(1)) <script>alert(2)</script> ![x](http://e.st/p.png)"


def _samples(tmp_path: Path) -> Path:
    return Path(
        shutil.copytree(
            SAMPLE_SPEC.parent, tmp_path / "samples", ignore=shutil.ignore_patterns("generate")
        )
    )


def _markup(node: Any) -> Iterator[str]:
    if isinstance(node, dict):
        for key, value in node.items():
            if key in ("title", "description", "remarks") and isinstance(value, str):
                yield value
            else:
                yield from _markup(value)
    elif isinstance(node, list):
        for value in node:
            yield from _markup(value)


def test_spec_markdown_and_html_reach_oscal_markup_escaped(tmp_path: Path) -> None:
    samples = _samples(tmp_path)
    spec = samples / "pack.yaml"
    text = spec.read_text(encoding="utf-8")
    anchor = "  question: >-\n"
    assert anchor in text
    spec.write_text(text.replace(anchor, f"  question: >-\n    {HOSTILE}\n"), encoding="utf-8")
    built = run(["build", str(spec), "-o", str(tmp_path / "pack")])
    assert built.code in (0, 1), built.err
    out = tmp_path / "oscal"
    ran = run(["export", "oscal", str(tmp_path / "pack"), "-o", str(out)])
    assert ran.code == 0, ran.err
    results = json.loads((out / "assessment-results.json").read_text(encoding="utf-8"))
    fields = list(_markup(results))
    assert any("javascript:alert" in f for f in fields)  # the question is there, shown
    live = re.compile(r"(?<!\\)(<script|\[click(?!\\)\]|!(?!\\)\[x)")
    for field in fields:
        assert not live.search(field), field


def test_candidate_ids_that_are_one_verdict_name_are_refused(tmp_path: Path) -> None:
    samples = _samples(tmp_path)
    spec = samples / "pack.yaml"
    text = spec.read_text(encoding="utf-8")
    assert "  - id: b200-trtllm\n" in text
    spec.write_text(text.replace("  - id: b200-trtllm\n", "  - id: MI325X_VLLM\n"))
    ran = run(["validate", str(spec)])
    assert_refused(ran, 1, "'MI325X_VLLM' and 'mi325x-vllm' are one name", f"{spec}:")
