"""promptfoo ``promptfoo eval -o results.json`` (results version 3).

Detected by ``evalId`` + ``results.results``. One binary score set (``pass``: the test case's
``success``) per prompt and provider; the tool's own figure is the prompt's ``testPassCount``
over its tests. When graded scores are not just 0/1 a second, continuous set (``score``) is
added. Items are the test cases (``test<testIdx>``, with ``#r<n>`` for repeats).
"""

from __future__ import annotations

from collections import defaultdict

from ...errors import InputError
from ...provenance import FileRecord
from .._json import Node
from ..base import Format, ParsedInput, Probe, item_id, with_tool
from ..items import ItemStaging
from ..models import Identity, ScoreSet


def detect(probe: Probe) -> bool:
    """A promptfoo results export: an ``evalId`` and a ``results.results`` list."""
    doc = probe.first
    return (
        probe.container == "json"
        and isinstance(doc, dict)
        and "evalId" in doc
        and isinstance(doc.get("results"), dict)
        and isinstance(doc["results"].get("results"), list)
    )


def parse(probe: Probe, record: FileRecord) -> ParsedInput:
    """One score set from a promptfoo export (one item per test case and prompt)."""
    root = Node(probe.first, probe.name)
    results = root.need("results")
    version = root.path("metadata", "promptfooVersion").value
    version = version if isinstance(version, str) else None
    layout = results.int_("version")
    warnings = [] if layout == 3 else [f"results version {layout}; read as version 3"]
    prompts = results.items("prompts")

    # (promptIdx, provider) -> rows of (item id, pass 0/1, score, where)
    groups: dict[tuple[int, str], list[tuple[str, float, float, str]]] = defaultdict(list)
    seen: dict[tuple[int, str, int], int] = defaultdict(int)
    for row in results.items("results"):
        prompt_idx = row.need_int("promptIdx")
        test_idx = row.need_int("testIdx")
        provider = row.path("provider", "label").value or row.path("provider", "id").value
        if not isinstance(provider, str):
            provider = str(row.value.get("provider"))
        success = row.bool_("success")
        if success is None:
            raise row.child("success").error("each result needs success: true or false")
        score = row.num("score", negative_ok=True)
        repeat = seen[(prompt_idx, provider, test_idx)]
        seen[(prompt_idx, provider, test_idx)] += 1
        item = f"test{test_idx}" + (f"#r{repeat}" if repeat else "")
        groups[(prompt_idx, provider)].append(
            (
                item,
                1.0 if success else 0.0,
                float(score if score is not None else success),
                row.location,
            )
        )
    if not groups:
        raise InputError(f"{probe.name}: $.results.results: no test results")

    staging = ItemStaging(probe.path, lambda s, line, item: f"test case {item}", probe.name)
    specs: list[tuple[int, str, str]] = []
    try:
        for (prompt_idx, provider), rows in sorted(groups.items()):
            ids = [r[0] for r in rows]
            specs.append((prompt_idx, provider, "pass"))
            staging.insert_columns(len(specs) - 1, ids, [r[1] for r in rows])
            if any(r[2] != r[1] for r in rows):
                specs.append((prompt_idx, provider, "score"))
                staging.insert_columns(len(specs) - 1, ids, [r[2] for r in rows])
        staging.finish()
        sets = []
        for index, (prompt_idx, provider, metric) in enumerate(specs):
            summary = staging.summary(index)
            prompt = prompts[prompt_idx] if prompt_idx < len(prompts) else None
            sets.append(
                ScoreSet(
                    set_id=item_id(record, index),
                    index=index,
                    format_id=FORMAT.id,
                    tool="promptfoo",
                    tool_version=version,
                    task=prompt.str_("label") if prompt else f"prompt {prompt_idx}",
                    scorer="assertions",
                    metric=metric,
                    direction="higher_is_better",
                    kind=summary.kind,
                    value=_pass_rate(prompt) if metric == "pass" else None,
                    n_items=summary.n_items,
                    n_passed=summary.n_passed,
                    mean_item_score=summary.mean,
                    identity=Identity(model_name=provider),
                    timestamp=results.str_("timestamp"),
                    warnings=tuple(warnings),
                )
            )
        columns = staging.columns()
    finally:
        staging.close()
    return ParsedInput(
        format_id=FORMAT.id,
        file=with_tool(record, "promptfoo", version, warnings),
        score_sets=tuple(sets),
        warnings=tuple(warnings),
        items=columns,
    )


def _pass_rate(prompt: Node | None) -> float | None:
    if prompt is None:
        return None
    metrics = prompt.obj("metrics")
    if metrics is None:
        return None
    passed = metrics.int_("testPassCount")
    failed = metrics.int_("testFailCount") or 0
    errors = metrics.int_("testErrorCount") or 0
    if passed is None or passed + failed + errors == 0:
        return None
    return passed / (passed + failed + errors)


FORMAT = Format("promptfoo-results", "scores", "promptfoo", detect, parse)
