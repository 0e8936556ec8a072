"""The accuracy side of a result: ``accuracy.txt``, the measurements JSON, TEST06's verdict.

``accuracy.txt`` is the reference scorer's printout: a Python dict literal of metrics
(``{'rouge1': 44.7172, ..., 'tokens_per_sample': 274.4}``, values sometimes quoted) among other
lines, then ``hash=<sha256 of the full accuracy log>``. It is read with ``ast.literal_eval``
only (no code runs). Variants in real trees: values printed as ``np.int64(25657412)`` or
``np.float64(...)`` (numpy 2's repr), a JSON dict (``{"f1": 0.788}``, qwen3-vl), and gpt-oss-120b's
loose ``'exact_match': 83.568`` lines after a free-text report (what the checker's regular
expressions read). The last metrics found in the file are the result.
"""

from __future__ import annotations

import ast
import re
from pathlib import Path
from typing import Literal

from ..core._models import StrictModel
from ..errors import InputError
from ._files import read_json, read_text

# keys the reference scorers print; a dict line without any of them is not the metrics line
_METRIC_KEYS = {
    "rouge1",
    "rouge2",
    "rougeL",
    "rougeLsum",
    "exact_match",
    "gsm8k",
    "mbxp",
    "gen_len",
    "tokens_per_sample",
    "f1",
}
# numpy scalar reprs (numpy 2 prints np.int64(5) where numpy 1 printed 5)
_NUMPY = re.compile(r"\b(?:np|numpy)\.(?:u?int|float)\d*\(\s*([^()]*?)\s*\)")
# one or more 'key': value pairs on a line of their own, outside any dict
_LOOSE = re.compile(r"^(['\"])[A-Za-z_][\w.-]*\1\s*:\s*\S")


class AccuracyResult(StrictModel):
    """The metrics an accuracy run printed and the hash line, with the lines they came from."""

    path: str
    metrics: dict[str, float]
    metrics_line: int
    hash: str | None = None


class Test06Verdict(StrictModel):
    """TEST06 ``verify_accuracy.txt``: each check's printed value and the overall verdict."""

    path: str
    checks: dict[str, str]
    verdict: Literal["pass", "fail"]


def read_accuracy(path: Path, *, name: str | None = None) -> AccuracyResult:
    """The last metrics in ``accuracy.txt`` (a dict line or loose pairs); InputError if none.
    The result and its messages call the file ``name`` (default: ``path``)."""
    shown = str(path) if name is None else name
    text = read_text(path, lenient=True, name=shown)
    found: tuple[int, dict[str, float]] | None = None
    digest = None
    loose_run = False  # the last metrics came from loose lines, with no other text since
    for number, line in enumerate(text.splitlines(), start=1):
        stripped = line.strip()
        if "np." in stripped or "numpy." in stripped:  # a numpy repr to unwrap (rare)
            stripped = _NUMPY.sub(r"\1", stripped)
        if not stripped:
            continue
        if stripped.startswith("hash="):
            digest = stripped[len("hash=") :].strip() or None
            continue
        loose = bool(_LOOSE.match(stripped))
        if stripped.startswith("{") and stripped.endswith("}"):
            value = _literal(stripped)
        elif loose:
            value = _literal("{" + stripped.rstrip(",") + "}")
        else:
            loose_run = False
            continue
        contributed = False
        if isinstance(value, dict) and (loose or _METRIC_KEYS & {str(k) for k in value}):
            metrics = {str(k): f for k, v in value.items() if (f := _number(v)) is not None}
            if loose and loose_run and found is not None:
                # one 'key': value per line: the lines together are the metrics
                found, contributed = (found[0], {**found[1], **metrics}), True
            elif not loose or _METRIC_KEYS & set(metrics):
                found, contributed = (number, metrics), True
        loose_run = loose and contributed
    if found is None:
        raise InputError(
            "no metrics in accuracy.txt (a dict such as {'rouge1': ...} or "
            "'exact_match': ... lines)",
            file=shown,
        )
    return AccuracyResult(path=shown, metrics=found[1], metrics_line=found[0], hash=digest)


def _literal(text: str) -> object:
    try:
        return ast.literal_eval(text)
    except (ValueError, SyntaxError, MemoryError, RecursionError):
        return None  # e.g. mixtral's two per-language dicts on one line


def read_test06(path: Path, *, name: str | None = None) -> Test06Verdict:
    """TEST06 passes when first-token is True or Skipped and EOS and sample length are True
    (the verdict and its messages call the file ``name``, default ``path``)."""
    shown = str(path) if name is None else name
    text = read_text(path, lenient=True, name=shown)
    checks: dict[str, str] = {}
    for line in text.splitlines():
        label, sep, value = line.partition(" check pass:")
        if sep:
            checks[label.strip()] = value.strip()
    required = {"First token": ("True", "Skipped"), "EOS": ("True",), "Sample length": ("True",)}
    if not checks:
        raise InputError("no '... check pass:' lines in TEST06 verify_accuracy.txt", file=shown)
    ok = all(checks.get(name) in allowed for name, allowed in required.items())
    return Test06Verdict(path=shown, checks=checks, verdict="pass" if ok else "fail")


def read_precision(path: Path, *, name: str | None = None) -> str | None:
    """``weight_data_types`` from a measurements JSON (None when absent); messages call the
    file ``name`` (default: ``path``)."""
    shown = str(path) if name is None else name
    data = read_json(path, lenient=True, name=shown)
    if not isinstance(data, dict):
        raise InputError("a measurements file must be a JSON object", file=shown)
    value = data.get("weight_data_types")
    return None if value is None else " ".join(str(value).split()) or None


def has_precision(path: Path) -> bool:
    """Whether a JSON file in a measurements folder is the one carrying ``weight_data_types``."""
    try:
        return "weight_data_types" in path.read_text(encoding="utf-8", errors="replace")
    except OSError:
        return False


def _number(value: object) -> float | None:
    if isinstance(value, bool):
        return None
    if isinstance(value, int | float):
        return float(value)
    if isinstance(value, str):
        try:
            return float(value)
        except ValueError:
            return None
    return None
