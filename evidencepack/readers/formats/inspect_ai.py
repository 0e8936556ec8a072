"""inspect-ai eval logs: the ``.eval`` zip (``header.json`` + ``samples/<id>_epoch_<n>.json``,
members possibly zstd) and the single-document ``.json`` EvalLog.

Samples are read one member at a time and only their scores are kept, so a log of hundreds of
MB never sits in memory. Score values ``C``/``I``/``P``/``N``, booleans, numbers and numeric
text map to numbers as inspect-ai's ``value_to_float`` does; a dict value gives one set per key.
"""

from __future__ import annotations

import json
import math
import re
from collections.abc import Iterator
from typing import Any

from ...core.provenance import FileRecord
from ...errors import InputError
from ...staging.items import ItemStaging
from .._json import Node, scalar_settings
from .._zip import ZipReader
from ..base import Format, ParsedInput, Probe, item_id, with_tool
from ..models import DatasetRef, Identity, ScoreSet

_LETTERS = {"C": 1.0, "I": 0.0, "P": 0.5, "N": 0.0}
_WORDS = {"yes": 1.0, "true": 1.0, "no": 0.0, "false": 0.0}
_SAMPLE = re.compile(r"^samples/(.+)_epoch_(\d+)\.json$")


def score_value(value: Any) -> float | None:
    """inspect-ai's value_to_float; None for a value that has no numeric reading."""
    if isinstance(value, bool):
        return 1.0 if value else 0.0
    if isinstance(value, int | float):
        return float(value) if math.isfinite(value) else None
    if isinstance(value, str):
        text = value.strip()
        if text in _LETTERS:
            return _LETTERS[text]
        if text.lower() in _WORDS:
            return _WORDS[text.lower()]
        try:
            number = float(text)
        except ValueError:
            return None
        return number if math.isfinite(number) else None
    return None


def detect_eval(probe: Probe) -> bool:
    """An Inspect AI ``.eval`` log: a zip with ``header.json`` or a ``_journal``."""
    return probe.container == "zip" and (
        "header.json" in probe.first or "_journal/start.json" in probe.first
    )


def detect_json(probe: Probe) -> bool:
    """An Inspect AI JSON log: ``eval`` naming task and model, and ``results`` or ``samples``."""
    doc = probe.first
    return (
        probe.container == "json"
        and isinstance(doc, dict)
        and isinstance(doc.get("eval"), dict)
        and "task" in doc["eval"]
        and "model" in doc["eval"]
        and ("results" in doc or "samples" in doc)
    )


def parse_eval(probe: Probe, record: FileRecord) -> ParsedInput:
    """One score set per scorer from an ``.eval`` log, read member by member."""
    with ZipReader(probe.path, probe.name) as archive:
        names = archive.names()
        head = "header.json" if "header.json" in names else "_journal/start.json"
        header = _load(archive.read(head), probe, head)
        members = sorted((m for m in names if _SAMPLE.match(m)), key=_sample_order)

        def samples() -> Iterator[tuple[str, dict[str, Any]]]:
            for member in members:
                yield member, _load(archive.read(member), probe, member)

        return _parse(
            probe, record, header, samples(), EVAL_FORMAT.id, partial=head != "header.json"
        )


def parse_json(probe: Probe, record: FileRecord) -> ParsedInput:
    """One score set per scorer from an Inspect AI JSON log."""
    doc = probe.first

    def samples() -> Iterator[tuple[str, dict[str, Any]]]:
        for index, sample in enumerate(doc.get("samples") or []):
            if not isinstance(sample, dict):
                raise InputError(f"{probe.name}: $.samples[{index}]: expected an object")
            yield f"$.samples[{index}]", sample

    return _parse(probe, record, doc, samples(), JSON_FORMAT.id, partial=False)


def _load(data: bytes, probe: Probe, member: str) -> dict[str, Any]:
    try:
        value = json.loads(data)
    except (json.JSONDecodeError, UnicodeDecodeError) as exc:
        raise InputError(f"{probe.name}: member {member}: malformed JSON: {exc}") from exc
    if not isinstance(value, dict):
        raise InputError(f"{probe.name}: member {member}: expected a JSON object")
    return value


def _sample_order(member: str) -> tuple[tuple[int, str], int]:
    """Samples by id (numeric ids in number order, before the others), then epoch."""
    match = _SAMPLE.match(member)
    assert match is not None  # only sample members are sorted
    sid = match.group(1)
    return ((int(sid), "") if sid.isdigit() else (1 << 62, sid)), int(match.group(2))


def _parse(
    probe: Probe,
    record: FileRecord,
    header: dict[str, Any],
    samples: Iterator[tuple[str, dict[str, Any]]],
    format_id: str,
    *,
    partial: bool,
) -> ParsedInput:
    root = Node(header, probe.name)
    ev = root.need("eval")
    version = ev.path("packages", "inspect_ai").value
    version = version if isinstance(version, str) else None
    warnings: list[str] = []
    status = root.str_("status")
    if partial:
        warnings.append(
            "the log has no header.json (the eval never finished); read from its journal"
        )

    # One pass over the samples: keep only (set key, item id, score, where).
    keys: list[str] = []
    cols: dict[str, tuple[list[str], list[float]]] = {}
    epochs: set[int] = set()
    unscored = 0
    ids: list[tuple[str, int]] = []
    scorers: dict[str, tuple[str, str | None]] = {}  # set key -> (scorer, dict key)
    for where, sample in samples:
        sid, epoch = sample.get("id"), sample.get("epoch", 1)
        if not isinstance(sid, int | str) or not isinstance(epoch, int):
            raise InputError(f"{probe.name}: {where}: a sample needs an id and an epoch")
        epochs.add(epoch)
        ids.append((str(sid), epoch))
        scores = sample.get("scores") or {}
        if not scores:
            unscored += 1
        for scorer, score in sorted(scores.items()):
            value = score.get("value") if isinstance(score, dict) else score
            parts = value.items() if isinstance(value, dict) else [(None, value)]
            for part, raw in parts:
                key = scorer if part is None else f"{scorer}/{part}"
                number = score_value(raw)
                if number is None:
                    raise InputError(
                        f"{probe.name}: {where}.scores.{scorer}.value: {raw!r} has "
                        "no numeric reading"
                    )
                if key not in cols:
                    keys.append(key)
                    cols[key] = ([], [])
                    scorers[key] = (scorer, part)
                cols[key][0].append(f"{sid}\x00{epoch}")
                cols[key][1].append(number)
    multi_epoch = len(epochs) > 1
    if multi_epoch:
        warnings.append("several epochs: one item per sample and epoch (id#epoch<n>)")
    if unscored:
        warnings.append(f"{unscored} sample(s) carry no score")
    if not keys:
        # Like a serving file with no completed request: nothing was measured.
        raise InputError(
            f"{probe.name}: the log holds no scored sample ({len(ids)} sample(s), status "
            f"{status or 'not recorded'}): nothing was measured"
        )
    if status not in (None, "success"):
        warnings.append(_unfinished(ev, status, len(ids)))

    staging = ItemStaging(probe.path, lambda s, line, item: f"sample {item}", probe.name)
    try:
        for index, key in enumerate(keys):
            raw_ids, values = cols[key]
            staging.insert_columns(index, [_item(i, multi_epoch) for i in raw_ids], values)
        staging.finish()
        aggregates = _aggregates(root)
        who = _identity(ev)
        dataset = ev.obj("dataset")
        sets = []
        for index, key in enumerate(keys):
            summary = staging.summary(index)
            scorer, part = scorers[key]
            # A dict-valued score: each key is its own metric, aggregated under its own name.
            headline, value, stderr = (
                aggregates.get((scorer, part or scorer))
                or aggregates.get((None, part or scorer))
                or (None, None, None)
            )
            metric = part or headline
            sets.append(
                ScoreSet(
                    set_id=item_id(record, index),
                    index=index,
                    format_id=format_id,
                    tool="inspect-ai",
                    tool_version=version,
                    task=ev.str_("task"),
                    scorer=scorer,
                    metric=metric or "mean",
                    direction="higher_is_better"
                    if (headline or metric) in ("accuracy", "mean")
                    else None,
                    kind=summary.kind,
                    value=value,
                    stderr=stderr,
                    n_items=summary.n_items,
                    n_passed=summary.n_passed,
                    mean_item_score=summary.mean,
                    identity=who,
                    dataset=DatasetRef(name=dataset.str_("name"))
                    if dataset and dataset.has("name")
                    else None,
                    timestamp=ev.str_("created"),
                    warnings=tuple(warnings),
                )
            )
        columns = staging.columns() if sets else None
    finally:
        staging.close()
    return ParsedInput(
        format_id=format_id,
        file=with_tool(record, "inspect-ai", version, warnings),
        score_sets=tuple(sets),
        warnings=tuple(warnings),
        items=columns,
    )


def _item(raw: str, multi_epoch: bool) -> str:
    sid, epoch = raw.split("\x00")
    return f"{sid}#epoch{epoch}" if multi_epoch else sid


Aggregate = tuple[str | None, float | None, float | None]


def _unfinished(ev: Node, status: str, read: int) -> str:
    """What an eval that did not finish (cancelled, error, started) gives: a partial run."""
    planned = ev.path("dataset", "samples").value
    of = f" of the {planned} the dataset holds" if isinstance(planned, int) else ""
    return (
        f"the eval did not finish (status {status!r}): only its {read} sample(s){of} that "
        "ran are scored, a partial run that is not the whole task"
    )


def _aggregates(root: Node) -> dict[tuple[str | None, str], Aggregate]:
    """(scorer, score name) -> (headline metric, its value, its stderr) from ``results.scores``;
    each entry is also filed under (None, name) for logs that do not name the scorer. A
    dict-valued scorer has one entry per key, named by the key."""
    out: dict[tuple[str | None, str], Aggregate] = {}
    for entry in root.path("results").items("scores"):
        name = entry.str_("name")
        metrics = entry.obj("metrics")
        if name is None or metrics is None:
            continue
        names = list(metrics.value)
        headline = next(
            (m for m in ("accuracy", "mean") if m in names),
            next((m for m in names if m != "stderr"), None),
        )
        value = metrics.path(headline, "value").num(negative_ok=True) if headline else None
        stderr = metrics.path("stderr", "value").num() if "stderr" in names else None
        found = (headline, value, stderr)
        out.setdefault((None, name), found)
        scorer = entry.value.get("scorer")
        out[(scorer if isinstance(scorer, str) else name, name)] = found
    return out


def _identity(ev: Node) -> Identity:
    settings: dict[str, Any] = {}
    for prefix, key in (("model_args", "model_args"), ("generate", "model_generate_config")):
        settings.update({f"{prefix}.{k}": v for k, v in scalar_settings(ev.obj(key)).items()})
    commit = ev.path("revision", "commit").value
    if isinstance(commit, str):
        settings["revision.commit"] = commit
    task_version = ev.value.get("task_version")
    if isinstance(task_version, int | str):
        settings["task_version"] = task_version
    if (judge := _grader(ev.value.get("model_roles"))) is not None:
        settings["judge_model"] = judge
    return Identity(model_name=ev.str_("model"), settings=settings)


def _grader(roles: object) -> str | None:
    """The grading model of ``eval.model_roles`` (inspect-ai 0.3.9x on: a role name to a model
    config, or a list of them), under the role ``grader`` or ``judge``."""
    if not isinstance(roles, dict):
        return None
    for role in ("grader", "judge"):
        config = roles.get(role)
        if isinstance(config, list) and config:
            config = config[0]
        model = config.get("model") if isinstance(config, dict) else config
        if isinstance(model, str) and model.strip():
            return model.strip()
    return None


EVAL_FORMAT = Format("inspect-ai-eval", "scores", "inspect-ai", detect_eval, parse_eval)
JSON_FORMAT = Format("inspect-ai-json", "scores", "inspect-ai", detect_json, parse_json)
