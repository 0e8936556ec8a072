"""promptfoo ``promptfoo eval -o results.json`` (results version 3, and version 2's ``table``).

Version 3 (``evalId`` + ``results.results`` + ``results.prompts``): one binary score set
(``pass``: the test case's ``success``) per prompt and provider; the tool's own figure is the
prompt's ``testPassCount`` over its tests. When graded scores are not just 0/1 a second,
continuous set (``score``) is added. Items are the test cases (``test<testIdx>``, with ``#r<n>``
for repeats).

Version 2 (promptfoo before the ``evalId`` export, 2023-2024: ``results.version`` 2 and a
``results.table`` whose ``head.prompts`` are the columns and whose ``body`` rows are the test
cases, each with one output per prompt) is read from the table: the same sets, items
``test<row>``. Any other layout is refused, naming what it holds and what is read.
"""

from __future__ import annotations

from collections import defaultdict
from typing import Any

from ...core.provenance import FileRecord
from ...errors import InputError
from ...staging.items import ItemStaging
from .._json import Node
from ..base import Format, ParsedInput, Probe, item_id, with_tool
from ..models import Identity, ScoreSet

READ = "results version 3 (evalId, results.results, results.prompts) or 2 (results.table)"
"""What this reader reads, for the refusal of any other layout."""

Rows = dict[tuple[int, str], list[tuple[str, float, float, str]]]
"""(prompt index, provider) -> rows of (item id, pass 0/1, score, where)."""


def detect(probe: Probe) -> bool:
    """A promptfoo results export: an ``evalId`` and a ``results.results`` list (version 3), or a
    ``results`` object with a ``version`` and a ``table`` or ``stats`` and no ``evalId`` (older)."""
    doc = probe.first
    if probe.container != "json" or not isinstance(doc, dict):
        return False
    results = doc.get("results")
    if not isinstance(results, dict):
        return False
    if "evalId" in doc:
        return isinstance(results.get("results"), list)
    version = results.get("version")
    return (
        isinstance(version, int)
        and not isinstance(version, bool)
        and "timestamp" in results
        and any(isinstance(results.get(k), dict) for k in ("table", "stats"))
    )


def parse(probe: Probe, record: FileRecord) -> ParsedInput:
    """One score set from a promptfoo export (one item per test case and prompt)."""
    root = Node(probe.first, probe.name)
    results = root.need("results")
    version = root.path("metadata", "promptfooVersion").value
    version = version if isinstance(version, str) else None
    layout = results.int_("version")
    warnings: list[str] = []
    if "evalId" in probe.first:
        if layout != 3:
            warnings.append(f"results version {layout}; read as version 3")
        prompts = results.items("prompts")
        groups = _rows_v3(results)
    elif isinstance(results.value.get("table"), dict):
        warnings.append(
            f"promptfoo's older export (results version {layout}, a results.table, no evalId): "
            "read from its table; the file does not record promptfoo's version"
        )
        table = results.need("table")
        head = table.path("head").obj()
        prompts = head.items("prompts") if head is not None else []
        groups = _rows_table(table)
    else:
        raise results.error(
            f"promptfoo results version {layout} without evalId or a table (keys "
            f"{', '.join(sorted(results.value))}): an older layout this reader cannot read; it "
            f"reads {READ}; export again with a current promptfoo (promptfoo export <eval id>)"
        )
    if not groups:
        raise InputError(f"{probe.name}: $.results.results: no test results")
    return _score_sets(probe, record, groups, prompts, results, version, warnings)


def _rows_v3(results: Node) -> Rows:
    """Version 3: one row per ``results.results`` entry, by its ``promptIdx`` and ``testIdx``."""
    groups: Rows = defaultdict(list)
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
    return groups


def _rows_table(table: Node) -> Rows:
    """Version 2: ``table.body[i].outputs[j]`` is test ``i`` under prompt ``j`` (its ``pass``
    and ``score``); the provider is the prompt column's (``head.prompts[j].provider``)."""
    head = table.path("head").obj()
    columns = head.items("prompts") if head is not None else []
    groups: Rows = defaultdict(list)
    for number, body_row in enumerate(table.items("body")):
        test = body_row.int_("testIdx")
        item = f"test{number if test is None else test}"
        for prompt_idx, output in enumerate(body_row.items("outputs")):
            passed = output.bool_("pass")
            if passed is None:
                raise output.child("pass").error("each output needs pass: true or false")
            score = output.num("score", negative_ok=True)
            column = columns[prompt_idx] if prompt_idx < len(columns) else None
            provider = column.value.get("provider") if column is not None else None
            if not isinstance(provider, str):
                provider = output.value.get("provider")
            groups[(prompt_idx, str(provider) if provider else "?")].append(
                (
                    item,
                    1.0 if passed else 0.0,
                    float(score if score is not None else passed),
                    output.location,
                )
            )
    return groups


def _score_sets(
    probe: Probe,
    record: FileRecord,
    groups: Rows,
    prompts: list[Node],
    results: Node,
    version: str | None,
    warnings: list[str],
) -> ParsedInput:
    """The pass (and, where graded, score) sets of every prompt and provider, staged."""
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
                    task=_label(prompt) or f"prompt {prompt_idx}",
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


def _label(prompt: Node | None) -> str | None:
    """A prompt's label (version 2 also wrote ``display``)."""
    if prompt is None:
        return None
    for key in ("label", "display"):
        value: Any = prompt.value.get(key)
        if isinstance(value, str) and value:
            return value
    return None


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
