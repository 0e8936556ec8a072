"""lm-evaluation-harness: ``results_<ts>.json`` and ``samples_<task>_<ts>.jsonl``.

Results (detected by ``results`` + ``configs``/``versions`` + ``lm_eval_version``/``config``)
give one score set per task, metric and filter (``"acc,none"``), with the tool's value and
stderr (``"N/A"`` becomes None), and the run's identity from ``config``/``model_args``.
Samples (detected by ``doc_id`` + ``doc_hash`` + ``prompt_hash`` + ``target_hash``) give the
per-item scores; the samples name no task, so each set carries the task hash lm-eval itself
computes (sha256 over the rows' doc/prompt/target hashes), which ``results`` lists per task:
the store links the two by it.
"""

from __future__ import annotations

import math
import re
from pathlib import PurePath
from typing import Any

from ...core.provenance import FileRecord
from ...errors import InputError
from ...staging.items import ItemStaging
from ...store.connection import literal_path
from .._json import Node, text_or_none
from ..base import Format, ParsedInput, Probe, iso_from_epoch, item_id, with_tool
from ..models import DatasetRef, Identity, ScoreSet

_NOT_METRICS = {"alias", "name", "sample_len", "samples", " "}


def detect_results(probe: Probe) -> bool:
    """lm-evaluation-harness ``results_*.json``: ``results`` beside ``configs`` or ``versions``."""
    doc = probe.first
    return (
        probe.container == "json"
        and isinstance(doc, dict)
        and isinstance(doc.get("results"), dict)
        and ("configs" in doc or "versions" in doc)
        and ("lm_eval_version" in doc or "config" in doc or "n-shot" in doc)
    )


def model_args(value: Any) -> dict[str, Any]:
    """``model_args`` as a dict: lm-eval accepts ``"k=v,k2=v2"`` or an object."""
    if isinstance(value, dict):
        return value
    if isinstance(value, str):
        pairs = (part.split("=", 1) for part in value.split(",") if "=" in part)
        return {k.strip(): v.strip() for k, v in pairs}
    return {}


def identity(root: Node) -> Identity:
    """The model, runtime and precision an lm-eval run names in its ``config``."""
    config = root.obj("config")
    raw = config.value if config else {}
    args = model_args(raw.get("model_args"))
    backend = raw.get("model") if isinstance(raw.get("model"), str) else None
    name = next(
        (
            args[k]
            for k in ("pretrained", "model", "path", "model_name")
            if isinstance(args.get(k), str)
        ),
        root.str_("model_name"),
    )
    precision = args.get("dtype") or raw.get("model_dtype")
    version = None
    if backend in ("hf", "hf-auto", "huggingface", "hf-multimodal"):
        tv = root.str_("transformers_version")
        version = tv if tv and tv != "N/A" else None
    batch = raw.get("batch_size")
    settings: dict[str, str | int | float | bool | None] = {
        key: value
        for key, value in {
            "chat_template_sha": root.value.get("chat_template_sha"),
            "system_instruction_sha": root.value.get("system_instruction_sha"),
            "fewshot_as_multiturn": root.value.get("fewshot_as_multiturn"),
            "lm_eval_version": root.value.get("lm_eval_version"),
            "git_hash": root.value.get("git_hash"),
            "limit": raw.get("limit"),
            "random_seed": raw.get("random_seed"),
            **{f"model_args.{k}": v for k, v in args.items()},
        }.items()
        if value is not None and isinstance(value, str | int | float | bool)
    }
    if isinstance(raw.get("gen_kwargs"), dict) and raw["gen_kwargs"]:
        settings["gen_kwargs"] = ",".join(f"{k}={v}" for k, v in sorted(raw["gen_kwargs"].items()))
    return Identity(
        model_name=name if isinstance(name, str) else None,
        model_revision=args.get("revision") if isinstance(args.get("revision"), str) else None,
        precision=str(precision) if precision not in (None, "auto") else None,
        runtime_name=backend,
        runtime_version=version,
        batch_size=batch if isinstance(batch, int) else None,
        settings=settings,
    )


def parse_results(probe: Probe, record: FileRecord) -> ParsedInput:
    """One score set per task from lm-eval's results (aggregate scores only)."""
    root = Node(probe.first, probe.name)
    who = identity(root)
    version = root.str_("lm_eval_version")
    task_hashes = root.obj("task_hashes")
    higher = root.obj("higher_is_better")
    n_samples = root.obj("n-samples")
    configs = root.obj("configs")
    sets: list[ScoreSet] = []
    warnings: list[str] = []
    results = root.need("results")
    for task in sorted(results.value):
        entry = results.need(task)
        for key in sorted(entry.value):
            if key in _NOT_METRICS or "," not in key or "_stderr," in key:
                continue
            metric, _, filt = key.partition(",")
            value = entry.value[key]
            if not isinstance(value, int | float) or isinstance(value, bool):
                warnings.append(f"$.results.{task}.{key}: not a number ({value!r}); skipped")
                continue
            if not math.isfinite(value):
                warnings.append(
                    f"$.results.{task}.{key}: {value} is not a measurement; metric {metric!r} "
                    "dropped, the file's other metrics kept"
                )
                continue
            stderr_raw = entry.value.get(f"{metric}_stderr,{filt}")
            stderr = None
            if isinstance(stderr_raw, int | float) and not isinstance(stderr_raw, bool):
                stderr = float(stderr_raw) if math.isfinite(stderr_raw) else None
            hib = higher.path(task, metric).value if higher else None
            config = configs.obj(task) if configs else None
            sets.append(
                ScoreSet(
                    set_id=item_id(record, len(sets)),
                    index=len(sets),
                    format_id=RESULTS_FORMAT.id,
                    tool="lm-eval",
                    tool_version=version,
                    task=task,
                    task_hash=text_or_none(task_hashes.value.get(task)) if task_hashes else None,
                    metric=metric,
                    filter=filt or None,
                    direction=None
                    if hib is None
                    else ("higher_is_better" if hib else "lower_is_better"),
                    value=float(value),
                    stderr=stderr,
                    n_items=_effective(n_samples, task),
                    identity=who,
                    dataset=_dataset(config),
                    timestamp=iso_from_epoch(root.num("date")),
                    warnings=(
                        ()
                        if stderr_raw is None or stderr is not None
                        else (f"stderr is {stderr_raw!r}: unknown",)
                    )
                    + _per_instruction(metric, _effective(n_samples, task)),
                )
            )
    if not sets:
        detail = f" ({'; '.join(warnings)})" if warnings else ""
        raise InputError(
            f"{probe.name}: an lm-eval results file without one usable metric under "
            f"$.results{detail}"
        )
    return ParsedInput(
        format_id=RESULTS_FORMAT.id,
        file=with_tool(record, "lm-eval", version, warnings),
        score_sets=tuple(sets),
        warnings=tuple(warnings),
    )


def _per_instruction(metric: str, n_items: int) -> tuple[str, ...]:
    """ifeval's instruction-level metrics (``inst_level_*``) average over the instructions of
    the prompts scored: the items counted are the prompts, which the message says."""
    if not metric.startswith("inst_level"):
        return ()
    return (
        f"an instruction-level metric: the tool's value averages over every instruction of the "
        f"{n_items} prompts scored; the item count is the prompts (the scored items), not the "
        "instructions",
    )


def _effective(n_samples: Node | None, task: str) -> int:
    if n_samples is None:
        return 0
    effective = n_samples.path(task, "effective")
    if not isinstance(effective.value, int) or isinstance(effective.value, bool):
        return 0
    return effective.int_() or 0  # a negative count is a located error, not a model error


def _dataset(config: Node | None) -> DatasetRef | None:
    if config is None:
        return None
    name = text_or_none(config.value.get("dataset_path"))
    sub = text_or_none(config.value.get("dataset_name"))
    version = config.path("metadata", "version").value
    if name is None:
        return None
    return DatasetRef(
        name=f"{name}/{sub}" if sub else name, version=None if version is None else str(version)
    )


# -- samples ------------------------------------------------------------------------------------
# Layouts: 0.4.4 and later write ``filter`` + ``metrics`` (the metric names) beside each metric's
# value; 0.4.0-0.4.3 write the metric values directly (``acc``) and no filter (unknown: None,
# never "none"; the results file with the same task hash names it where it has one filter), as
# JSON lines, under a ``.json`` name in 0.4.2-0.4.3, and 0.4.0-0.4.1 rows carry no hashes.
# A JSON array of the same rows is read too. The rows name no task; lm-eval's file name does
# (``samples_<task>_<timestamp>.jsonl``), and the task is taken from it.

_SAMPLES_NAME = re.compile(
    r"samples_(?P<task>.+)_(?P<ts>\d{4}-\d{2}-\d{2}T\d{2}-\d{2}-\d{2}(?:\.\d+)?)\.jsonl?"
)

_ROW_KEYS = {
    "doc_id", "doc", "target", "arguments", "resps", "filtered_resps", "filter", "metrics",
    "doc_hash", "prompt_hash", "target_hash", "task_name", "task", "idx", "request_type",
}  # fmt: skip
# ``occurrence``: the how-many-th row of its doc_id (0.4.2-0.4.3 repeat every doc per filter)
_SOURCE = (
    "(SELECT line, json, row_number() OVER (PARTITION BY json ->> 'doc_id' ORDER BY line) "
    "AS occurrence FROM (SELECT row_number() OVER () AS line, json "
    "FROM read_json_objects(?, format='{fmt}')))"
)
_COMBOS = """
SELECT DISTINCT m.metric, json ->> 'filter' AS filter
FROM (SELECT json, unnest(CAST(json -> 'metrics' AS VARCHAR[])) AS metric FROM {src}) m
ORDER BY 1, 2
"""
_DIRECT_KEYS = """
SELECT key, bool_and(json_type(json -> key) IN ('BOOLEAN', 'BIGINT', 'UBIGINT', 'DOUBLE')),
       min(line) FILTER (WHERE json_type(json -> key) NOT IN ('BOOLEAN', 'BIGINT', 'UBIGINT',
                                                               'DOUBLE')),
       any_value(json_type(json -> key)) FILTER (WHERE json_type(json -> key) NOT IN
                                                  ('BOOLEAN', 'BIGINT', 'UBIGINT', 'DOUBLE'))
FROM (SELECT line, json, unnest(json_keys(json)) AS key FROM {src})
GROUP BY key ORDER BY key
"""
_ITEMS = """
SELECT ? AS set_index, CAST(json ->> 'doc_id' AS VARCHAR) AS item_id, line,
       CASE json_type(json -> CAST(? AS VARCHAR))
            WHEN 'BOOLEAN' THEN CAST(json ->> CAST(? AS VARCHAR) = 'true' AS DOUBLE)
            ELSE TRY_CAST(json ->> CAST(? AS VARCHAR) AS DOUBLE) END AS score
FROM {src}
WHERE (CAST(? AS VARCHAR) IS NULL
       OR (json ->> 'filter') IS NOT DISTINCT FROM CAST(? AS VARCHAR))
  AND (NOT CAST(? AS BOOLEAN)
       OR list_contains(CAST(json -> 'metrics' AS VARCHAR[]), CAST(? AS VARCHAR)))
  AND (CAST(? AS BOOLEAN) OR (json -> CAST(? AS VARCHAR)) IS NOT NULL)
  AND (CAST(? AS INTEGER) IS NULL OR occurrence = CAST(? AS INTEGER))
"""
_TASK_HASH = """
SELECT sha256(string_agg(
           (json ->> 'doc_hash') || (json ->> 'prompt_hash') || (json ->> 'target_hash'),
           '' ORDER BY line)),
       count(*) FILTER (WHERE json ->> 'doc_hash' IS NULL)
FROM {src}
"""


def detect_samples(probe: Probe) -> bool:
    """lm-eval's ``samples_*.jsonl``: per-document records, ``doc_id`` and hashes or responses."""
    first = probe.first
    if probe.container == "json" and isinstance(first, list) and first:
        first = first[0]
    if probe.container not in ("jsonl", "json") or not isinstance(first, dict):
        return False
    if all(k in first for k in ("doc_id", "doc_hash", "prompt_hash", "target_hash")):
        return True
    # 0.4.0-0.4.1 rows: no hashes, but the request/response fields lm-eval logs for every doc.
    return all(k in first for k in ("doc_id", "doc", "arguments", "resps", "filtered_resps"))


def parse_samples(probe: Probe, record: FileRecord) -> ParsedInput:
    """One score set from lm-eval's per-document samples, staged in DuckDB."""
    path = probe.path
    fmt = "array" if probe.container == "json" and isinstance(probe.first, list) else "auto"
    src = _SOURCE.format(fmt=fmt)
    staging = ItemStaging(
        path, lambda s, line, item: f"line {line}" if line else f"doc {item}", probe.name
    )
    warnings: list[str] = []
    try:
        with_list = staging.execute(
            f"SELECT count(*) FILTER (WHERE (json -> 'metrics') IS NOT NULL), count(*) FROM {src}",
            [literal_path(path)],
        ).fetchone()
        n_rows = int(with_list[1]) if with_list else 0
        listed = bool(with_list and with_list[0])
        if listed:
            combos: list[tuple[str, str | None, int | None]] = [
                (metric, filt, None)
                for metric, filt in staging.execute(
                    _COMBOS.format(src=src), [literal_path(path)]
                ).fetchall()
            ]
            layout = "metrics list (0.4.4+)"
        else:
            combos = _direct_metrics(staging, src, warnings)
            layout = "metric keys on each row (0.4.0-0.4.3)"
        row = staging.execute(_TASK_HASH.format(src=src), [literal_path(path)]).fetchone()
        task_hash = row[0] if row and not row[1] else None
        kept: list[tuple[str, str | None]] = []
        for metric, filt, occurrence in combos:
            index = len(kept)
            staging.insert(
                _ITEMS.format(src=src),
                [index, metric, metric, metric, literal_path(path), filt if listed else None, filt,
                 listed, metric, listed, metric, occurrence, occurrence],
            )  # fmt: skip
            if _drop_non_numeric(staging, index, metric, filt, warnings):
                continue
            kept.append((metric, filt))
        if not kept:
            raise InputError(
                f"{probe.name}: an lm-eval samples file ({layout}, {n_rows} rows) without one "
                "numeric per-item metric: nothing to score"
                + (f" ({'; '.join(warnings)})" if warnings else "")
            )
        staging.finish()
        task = task_from_name(probe.name)
        said = (
            f"the samples file names neither the model nor, in its rows, the task: the task "
            f"{task!r} is taken from the file name, the model from the results file with the "
            "same task hash"
            if task
            else "the samples file names neither its task nor the model; both come from the "
            "results file with the same task hash"
        )
        sets = []
        for index, (metric, filt) in enumerate(kept):
            summary = staging.summary(index)
            unrecorded = (
                ("the rows do not record their filter (lm-eval 0.4.0-0.4.3): unknown, not 'none'",)
                if filt is None and not listed
                else ()
            )
            sets.append(
                ScoreSet(
                    set_id=item_id(record, index),
                    index=index,
                    format_id=SAMPLES_FORMAT.id,
                    tool="lm-eval",
                    task=task,
                    task_hash=task_hash,
                    metric=metric,
                    filter=filt,
                    kind=summary.kind,
                    n_items=summary.n_items,
                    n_passed=summary.n_passed,
                    mean_item_score=summary.mean,
                    warnings=(said, *unrecorded),
                )
            )
        columns = staging.columns()
    finally:
        staging.close()
    return ParsedInput(
        format_id=SAMPLES_FORMAT.id,
        file=with_tool(record, "lm-eval", None, warnings),
        score_sets=tuple(sets),
        warnings=tuple(warnings),
        items=columns,
    )


def task_from_name(name: str | PurePath) -> str | None:
    """The task lm-eval names a samples file after (``samples_<task>_<timestamp>.jsonl``)."""
    match = _SAMPLES_NAME.fullmatch(PurePath(name).name)
    return match.group("task") if match else None


def _direct_metrics(
    staging: ItemStaging, src: str, warnings: list[str]
) -> list[tuple[str, str | None, int | None]]:
    """0.4.0-0.4.3: every row key that is not a logged field is a metric (filter unknown). A task
    with several filters has every doc once per filter, filter after filter, without naming it:
    the k-th row of each doc is the k-th filter's, read as its own set, and the file says so."""
    row = staging.execute(
        f"SELECT coalesce(max(occurrence), 1) FROM {src}", [literal_path(staging.path)]
    ).fetchone()
    filters = int(row[0]) if row else 1
    if filters > 1:
        warnings.append(
            f"every doc appears {filters} times, once per filter, and the rows do not name their "
            "filter (lm-eval 0.4.2-0.4.3): read as unnamed filters 1 to "
            f"{filters} in the file's order, not linked to the results file's filters"
        )
    names: list[str | None] = (
        [None] if filters == 1 else [f"unnamed {k} of {filters}" for k in range(1, filters + 1)]
    )
    combos: list[tuple[str, str | None, int | None]] = []
    for key, numeric, line, kind in staging.execute(
        _DIRECT_KEYS.format(src=src), [literal_path(staging.path)]
    ).fetchall():
        if key in _ROW_KEYS:
            continue
        if not numeric:
            warnings.append(
                f"metric {key!r} dropped: line {line} holds {_a(str(kind).lower())}, not a "
                "per-item score (a corpus-level metric, computed over all items)"
            )
            continue
        combos.extend(
            (key, name, None if filters == 1 else k) for k, name in enumerate(names, start=1)
        )
    return combos


def _a(kind: str) -> str:
    return f"an {kind}" if kind[:1] in "aeiou" else f"a {kind}"


def _drop_non_numeric(
    staging: ItemStaging, index: int, metric: str, filt: str | None, warnings: list[str]
) -> bool:
    """A metric logged as a list or text (f1 or bleu pairs, perplexity) is not an item score:
    drop that metric with a warning naming it, keep the rest of the file."""
    bad = staging.execute(
        "SELECT line FROM items WHERE set_index = ? AND score IS NULL ORDER BY line LIMIT 1",
        [index],
    ).fetchone()
    if bad is None:
        return False
    staging.execute("DELETE FROM items WHERE set_index = ?", [index])
    where = f" (filter {filt})" if filt else ""
    warnings.append(
        f"metric {metric!r}{where} dropped: line {bad[0]} holds no numeric per-item score "
        "(a corpus-level metric, computed over all items)"
    )
    return True


RESULTS_FORMAT = Format("lm-eval-results", "scores", "lm-eval", detect_results, parse_results)
SAMPLES_FORMAT = Format("lm-eval-samples", "scores", "lm-eval", detect_samples, parse_samples)
