"""evidencepack's own per-item scores format (id ``evidencepack-scores``) for home-made evals.

JSONL: an optional first line ``{"evidencepack_scores": "v1", ...}`` (``ScoresHeader``: metric,
direction, model, precision, runtime, dataset, settings, judge_model), then one ``ScoreLine``
per line: ``{"item_id": str, "score": number | bool, "label"?: str, "metadata"?: object}``.
Repeats of one item (seeds, epochs) are ids with a suffix, ``<item>#r1``, ``<item>#r2``.
CSV: header ``item_id,score[,label]``; it carries no identity. Lines are validated in bulk by
DuckDB, and the first bad one is named.
"""

from __future__ import annotations

from typing import Any, Literal

import pydantic
from pydantic import Field

from ...core._models import Sha256Hex, StrictModel
from ...core.provenance import FileRecord
from ...errors import InputError
from ...staging.items import ItemStaging
from ...store.connection import literal_path
from ..base import Format, ParsedInput, Probe, item_id, with_tool
from ..models import DatasetRef, Identity, ScoreSet

HEADER_KEY = "evidencepack_scores"
FORMAT_VERSION = "v1"


class ModelRef(StrictModel):
    """The scored model: name and, optionally, the sha256 of its weights."""

    name: str = Field(
        min_length=1, description="the scored model's name (e.g. acme/summariser-70b)"
    )
    digest: Sha256Hex | None = Field(
        default=None, description="sha256 hex of the model's weights; None when not stated"
    )


class RuntimeRef(StrictModel):
    """The runtime that served the scored model."""

    name: str = Field(min_length=1, description="the serving runtime's name (e.g. vllm)")
    version: str | None = Field(
        default=None, description="the runtime's version; None when not stated"
    )


class DatasetInfo(StrictModel):
    """The evaluation dataset: name, version, digest, each optional."""

    name: str | None = Field(
        default=None, description="the evaluation dataset's name; None when not stated"
    )
    version: str | None = Field(
        default=None, description="the dataset's version; None when not stated"
    )
    digest: Sha256Hex | None = Field(
        default=None, description="sha256 hex of the dataset; None when not stated"
    )
    split: str | None = Field(
        default=None,
        description="the split scored (e.g. test, validation, train); None when not stated",
    )


class ScoresHeader(StrictModel):
    """The optional first line of an ``evidencepack-scores`` JSONL file."""

    evidencepack_scores: Literal["v1"] = Field(
        description="the format version, always v1: marks the line as the header"
    )
    metric: str | None = Field(
        default=None,
        description="the metric the scores measure (the score set's metric is 'score' when absent)",
    )
    direction: Literal["higher_is_better", "lower_is_better"] | None = Field(
        default=None,
        description="whether a higher or a lower score is better; None when not stated",
    )
    model: ModelRef | None = Field(
        default=None,
        description="the scored model; None when not stated (the model is then unknown)",
    )
    precision: str | None = Field(
        default=None,
        description=(
            "the numeric precision the model was served at (e.g. fp8); None when not stated"
        ),
    )
    runtime: RuntimeRef | None = Field(
        default=None, description="the runtime that served the model; None when not stated"
    )
    dataset: DatasetInfo | None = Field(
        default=None, description="the evaluation dataset; None when not stated"
    )
    settings: dict[str, str | int | float | bool | None] = Field(
        default_factory=dict,
        description=(
            "settings the scores were made with (e.g. temperature), by name; kept "
            "with the score set's identity"
        ),
    )
    judge_model: str | None = Field(
        default=None,
        description=(
            "the model that graded the items (an LLM judge); None when no model graded them "
            "or it is not stated"
        ),
    )


class ScoreLine(StrictModel):
    """One scored item of an ``evidencepack-scores`` JSONL file."""

    item_id: str = Field(min_length=1, description="the item's id, unique in the file")
    score: float | bool = Field(
        allow_inf_nan=False,
        description=(
            "the item's score: a number, or true/false (read as 1/0); a set of only "
            "0/1 scores is binary (pass/fail)"
        ),
    )
    label: str | None = Field(
        default=None,
        description=(
            "an optional label of the item (e.g. its category), stored with the "
            "score; None when absent"
        ),
    )
    metadata: dict[str, Any] | None = Field(
        default=None,
        description=(
            "any other facts about the item, stored with the score as JSON; None when absent"
        ),
    )


_ITEM_KEYS = ["item_id", "score", "label", "metadata"]
_LINES = """
SELECT row_number() OVER () AS line, json
FROM read_json_objects(?, format='newline_delimited')
"""
_BAD_LINE = f"""
SELECT line, CASE
  WHEN json_type(json) <> 'OBJECT' THEN 'expected a JSON object'
  WHEN len(list_filter(json_keys(json), lambda k: NOT list_contains(?::VARCHAR[], k))) > 0
    THEN 'unknown key ' || list_filter(json_keys(json),
                                       lambda k: NOT list_contains(?::VARCHAR[], k))[1]
  WHEN json_type(json -> 'item_id') IS DISTINCT FROM 'VARCHAR' THEN 'item_id must be text'
  WHEN json_type(json -> 'score') NOT IN ('BIGINT', 'UBIGINT', 'DOUBLE', 'BOOLEAN')
       OR json_type(json -> 'score') IS NULL THEN 'score must be a number or true/false'
  WHEN coalesce(json_type(json -> 'label'), 'NULL') NOT IN ('VARCHAR', 'NULL')
    THEN 'label must be text'
  WHEN coalesce(json_type(json -> 'metadata'), 'NULL') NOT IN ('OBJECT', 'NULL')
    THEN 'metadata must be an object'
  END AS problem
FROM ({_LINES}) WHERE line > ?
"""
_JSONL_ITEMS = f"""
SELECT 0 AS set_index, json ->> 'item_id' AS item_id, line,
       CASE json_type(json -> 'score') WHEN 'BOOLEAN' THEN CAST(json ->> 'score' = 'true' AS DOUBLE)
            ELSE CAST(json ->> 'score' AS DOUBLE) END AS score,
       json ->> 'label' AS label,
       CASE WHEN json_type(json -> 'metadata') = 'OBJECT' THEN json -> 'metadata' END AS metadata
FROM ({_LINES}) WHERE line > ?
"""


def detect_jsonl(probe: Probe) -> bool:
    """``evidencepack-scores`` JSON lines: a header record, or ``item_id``/``score`` items."""
    first = probe.first
    if probe.container not in ("jsonl", "json") or not isinstance(first, dict):
        return False
    return HEADER_KEY in first or (
        "item_id" in first and "score" in first and set(first) <= set(_ITEM_KEYS)
    )


def parse_jsonl(probe: Probe, record: FileRecord) -> ParsedInput:
    """One score set from ``evidencepack-scores`` JSON lines (a header, then one item a line)."""
    path = probe.path
    header = None
    if HEADER_KEY in probe.first:
        try:
            header = ScoresHeader.model_validate(probe.first)
        except pydantic.ValidationError as exc:
            err = exc.errors(include_url=False)[0]
            where = "$." + ".".join(str(p) for p in err["loc"]) if err["loc"] else "$"
            raise InputError(f"{probe.name}: line 1: {where}: {err['msg']}") from exc
    skip = 1 if header else 0
    staging = ItemStaging(path, lambda s, line, item: f"line {line}", probe.name)
    try:
        bad = staging.execute(
            f"SELECT line, problem FROM ({_BAD_LINE}) WHERE problem IS NOT NULL "
            "ORDER BY line LIMIT 1",
            [_ITEM_KEYS, _ITEM_KEYS, literal_path(path), skip],
        ).fetchone()
        if bad is not None:
            hint = " (the header must be the first line)" if "evidencepack_scores" in bad[1] else ""
            raise InputError(f"{probe.name}: line {bad[0]}: {bad[1]}{hint}")
        staging.insert(_JSONL_ITEMS, [literal_path(path), skip])
        return _finish(probe, record, staging, header, JSONL_FORMAT.id)
    finally:
        staging.close()


def _finish(
    probe: Probe,
    record: FileRecord,
    staging: ItemStaging,
    header: ScoresHeader | None,
    format_id: str,
) -> ParsedInput:
    staging.finish()
    summary = staging.summary(0)
    if summary.n_items == 0:
        raise InputError(f"{probe.name}: no scored items")
    warnings = [] if header else ["no header line: the model, precision and runtime are unknown"]
    who = Identity()
    dataset = None
    if header is not None:
        who = Identity(
            model_name=header.model.name if header.model else None,
            model_digest=header.model.digest if header.model else None,
            precision=header.precision,
            runtime_name=header.runtime.name if header.runtime else None,
            runtime_version=header.runtime.version if header.runtime else None,
            settings=dict(header.settings),
        )
        if header.dataset is not None:
            dataset = DatasetRef(**header.dataset.model_dump())
    score_set = ScoreSet(
        set_id=item_id(record, 0),
        index=0,
        format_id=format_id,
        tool="evidencepack-scores",
        tool_version=FORMAT_VERSION if header else None,
        metric=(header.metric if header and header.metric else "score"),
        direction=header.direction if header else None,
        kind=summary.kind,
        n_items=summary.n_items,
        n_passed=summary.n_passed,
        mean_item_score=summary.mean,
        identity=who,
        dataset=dataset,
        judge_model=header.judge_model if header else None,
        warnings=tuple(warnings),
    )
    return ParsedInput(
        format_id=format_id,
        file=with_tool(record, "evidencepack-scores", score_set.tool_version, warnings),
        score_sets=(score_set,),
        warnings=tuple(warnings),
        items=staging.columns(),
    )


# -- CSV ------------------------------------------------------------------------------------------

_CSV_ROWS = """
SELECT row_number() OVER () + 1 AS line, *
FROM read_csv(?, header = true, all_varchar = true, delim = ',', quote = '"')
"""


def detect_csv(probe: Probe) -> bool:
    """An ``evidencepack-scores`` CSV: the header ``item_id,score`` or ``item_id,score,label``."""
    return probe.container == "csv" and probe.first in (
        ["item_id", "score"],
        ["item_id", "score", "label"],
    )


def parse_csv(probe: Probe, record: FileRecord) -> ParsedInput:
    """One score set from an ``evidencepack-scores`` CSV (no identity: the spec declares it)."""
    path = probe.path
    has_label = "label" in probe.first
    staging = ItemStaging(path, lambda s, line, item: f"line {line}", probe.name)
    try:
        bad = staging.execute(
            f"SELECT line, item_id, score FROM ({_CSV_ROWS}) "
            "WHERE coalesce(trim(item_id), '') = '' OR (TRY_CAST(score AS DOUBLE) IS NULL "
            "AND lower(trim(score)) NOT IN ('true', 'false')) ORDER BY line LIMIT 1",
            [literal_path(path)],
        ).fetchone()
        if bad is not None:
            problem = (
                "item_id is empty"
                if not (bad[1] or "").strip()
                else (f"score {bad[2]!r} is not a number or true/false")
            )
            raise InputError(f"{probe.name}: line {bad[0]}: {problem}")
        label = "label" if has_label else "NULL"
        staging.insert(
            f"SELECT 0 AS set_index, trim(item_id) AS item_id, line, "
            "CASE lower(trim(score)) WHEN 'true' THEN 1.0 WHEN 'false' THEN 0.0 "
            f"ELSE CAST(score AS DOUBLE) END AS score, {label} AS label FROM ({_CSV_ROWS})",
            [literal_path(path)],
        )
        parsed = _finish(probe, record, staging, None, CSV_FORMAT.id)
    finally:
        staging.close()
    return parsed


JSONL_FORMAT = Format(
    "evidencepack-scores", "scores", "evidencepack-scores", detect_jsonl, parse_jsonl
)
CSV_FORMAT = Format(
    "evidencepack-scores-csv", "scores", "evidencepack-scores", detect_csv, parse_csv
)
