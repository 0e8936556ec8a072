"""Whether a score set was scored on the question's dataset version and split, with the
envelope's settings: what ``fit.judge_scores`` adds to the metric, dataset, model and date.

A set the file says was scored on another version or split of the dataset, on a training split,
or with a recorded setting other than the one ``envelope.settings`` pins (a BF16 KV cache where
FP8 is pinned, half the context) does not judge the bar. A pinned setting the file does not
record is a note, never a reason: nobody can tell. Under ``scoring.missing_items: not_fit`` a
set that leaves items of the dataset unscored does not fit either.
"""

from __future__ import annotations

import math
from collections.abc import Mapping

from ..intake.dataset_items import DatasetItems
from ..spec.models import PackSpec
from .coverage import cover, rows_of
from .evidence import ScoreEvidence
from .judgements import EvidenceFit

TRAINING_SPLITS = frozenset({"train", "training"})
"""Splits a model may have been trained on: never evidence of its quality."""

ALIASES: dict[str, tuple[str, ...]] = {
    "max_model_len": ("max_model_len", "max_seq_len", "max_length", "context_length"),
    "kv_cache_dtype": ("kv_cache_dtype", "kv_cache_type"),
}
"""The names one engine setting goes by in eval files (vLLM's name first)."""

Setting = str | int | float | bool | None


def _same(pinned: Setting, recorded: Setting) -> bool:
    """Whether a recorded value is the pinned one: numbers by value, text without case, and a
    dtype's variant (``fp8_e4m3``) as its family (``fp8``)."""
    if isinstance(pinned, bool) or isinstance(recorded, bool):
        truth = {"true": True, "false": False}
        a = truth.get(str(pinned).lower(), pinned)
        b = truth.get(str(recorded).lower(), recorded)
        return a == b
    try:
        a, b = float(str(pinned)), float(str(recorded))
    except ValueError:
        x, y = str(pinned).strip().lower(), str(recorded).strip().lower()
        return x == y or y.startswith((x + "_", x + "-"))
    return math.isclose(a, b)


def _recorded(settings: Mapping[str, Setting], name: str) -> tuple[str, Setting] | None:
    for alias in ALIASES.get(name, (name,)):
        if alias in settings and settings[alias] is not None:
            return alias, settings[alias]
    return None


def settings_reasons(spec: PackSpec, scores: ScoreEvidence) -> tuple[list[str], list[str]]:
    """(reasons, notes): each pinned setting the file records otherwise, and those it does not
    record at all."""
    recorded = dict(scores.settings)
    reasons, unrecorded = [], []
    for name, pinned in sorted(spec.envelope.settings.items()):
        found = _recorded(recorded, name)
        if found is None:
            unrecorded.append(name)
            continue
        alias, value = found
        if not _same(pinned, value):
            reasons.append(
                f"evaluated with {alias} {value}, the envelope pins {name} {pinned} "
                "(envelope.settings)"
            )
    notes = [f"settings not recorded by the file: {', '.join(unrecorded)}"] if unrecorded else []
    return reasons, notes


def dataset_reasons(spec: PackSpec, scores: ScoreEvidence) -> list[str]:
    """The file's dataset version and split against the spec's."""
    _, version, _ = scores.dataset
    wanted = spec.dataset
    out = []
    if version is not None and version.strip() != wanted.version.strip():
        out.append(
            f"scored on dataset version {version!r}, the spec's {wanted.name} is {wanted.version!r}"
        )
    split = scores.split.strip().lower() if scores.split else None
    if split is not None:
        if wanted.split is not None and split != wanted.split.strip().lower():
            out.append(f"scored on the {scores.split} split, the spec's is {wanted.split}")
        elif wanted.split is None and split in TRAINING_SPLITS:
            out.append(
                f"scored on the {scores.split} split: a split the model may have been trained "
                "on never judges its quality (dataset.split names the one that does)"
            )
    return out


def with_coverage(
    spec: PackSpec, scores: ScoreEvidence, fit: EvidenceFit, dataset: DatasetItems | None
) -> EvidenceFit:
    """Under ``scoring.missing_items: not_fit``, a fitting set that leaves dataset items
    unscored does not fit (by default they count as failed instead, in ``quality``)."""
    if spec.scoring.missing_items != "not_fit" or not fit.fits or not scores.item_ids:
        return fit
    coverage = cover(rows_of(scores), spec, dataset)
    if not coverage.missing or not coverage.values:
        return fit
    reason = (
        f"{coverage.text()}, {coverage.missing} missing (matched by {coverage.by}; "
        "scoring.missing_items: not_fit)"
    )
    return fit.model_copy(update={"fits": False, "reasons": (*fit.reasons, reason)})
