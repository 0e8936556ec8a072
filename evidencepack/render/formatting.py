"""Number formatting for the report: money, rates, milliseconds, percentages with intervals.

Locale-independent and deterministic: Python's format mini-language only (``,`` is always the
thousands separator, ``.`` the decimal point); ``None`` always renders as an em dash.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import Any

MISSING = "\u2014"


def _finite(value: float | int | None) -> float | None:
    if value is None:
        return None
    number = float(value)
    if not math.isfinite(number):
        return None
    # -0.0 would print as "-0.00".
    return 0.0 if number == 0 else number


def _adaptive(number: float) -> str:
    """Two decimals from 1 up; below that enough decimals for three significant digits."""
    magnitude = abs(number)
    if magnitude >= 1 or magnitude == 0:
        return f"{number:,.2f}"
    decimals = min(8, 2 - math.floor(math.log10(magnitude)))
    return f"{number:,.{decimals}f}"


def money(value: float | None, currency: str) -> str:
    """``USD 1,234.50``; amounts under 1 keep three significant digits (``USD 0.000648``)."""
    number = _finite(value)
    if number is None:
        return MISSING
    return f"{currency} {_adaptive(number)}"


def _scaled(number: float) -> str:
    magnitude = abs(number)
    if magnitude >= 100:
        return f"{number:,.0f}"
    if magnitude >= 10:
        return f"{number:,.1f}"
    return f"{number:,.2f}"


def ms(value: float | None) -> str:
    """A latency in milliseconds: ``1,250 ms``, ``45.6 ms``, ``3.25 ms``."""
    number = _finite(value)
    return MISSING if number is None else f"{_scaled(number)} ms"


def rate(value: float | None, unit: str = "req/s") -> str:
    """A rate with its unit: ``8.00 req/s``, ``2,064 tok/s``."""
    number = _finite(value)
    return MISSING if number is None else f"{_scaled(number)} {unit}"


def num(value: float | int | None, decimals: int | None = None) -> str:
    """A plain number; integers keep no decimals, floats scale like ``rate`` unless told."""
    number = _finite(value)
    if number is None:
        return MISSING
    if decimals is not None:
        return f"{number:,.{decimals}f}"
    if isinstance(value, int):
        return f"{int(value):,d}"
    return _scaled(number)


def pct(value: float | None, decimals: int = 1) -> str:
    """A fraction as a percentage: 0.875 -> ``87.5%``."""
    number = _finite(value)
    return MISSING if number is None else f"{number * 100:.{decimals}f}%"


def score(value: float | None, binary: bool) -> str:
    """A quality value: a percentage for pass rates, three decimals for continuous scores."""
    return pct(value) if binary else num(value, 3)


def score_interval(
    estimate: float | None, low: float | None, high: float | None, binary: bool
) -> str:
    """``87.5% [83.9%, 90.4%]``; the bracket is left out when there is no interval."""
    if _finite(estimate) is None:
        return MISSING
    text = score(estimate, binary)
    if _finite(low) is None or _finite(high) is None:
        return text
    return f"{text} [{score(low, binary)}, {score(high, binary)}]"


def sha_short(digest: str | None, length: int = 12) -> str:
    """The first ``length`` hex digits of a digest followed by an ellipsis."""
    if not digest:
        return MISSING
    return digest if len(digest) <= length else f"{digest[:length]}\u2026"


def size(value: int | None) -> str:
    """A byte count in binary units: ``912 B``, ``14.2 KiB``, ``3.1 MiB``."""
    if value is None:
        return MISSING
    if value < 1024:
        return f"{value:,d} B"
    amount = value / 1024
    for unit in ("KiB", "MiB"):
        if amount < 1024:
            return f"{amount:,.1f} {unit}"
        amount /= 1024
    return f"{amount:,.1f} GiB"


def steps(text: str) -> list[str]:
    """Arithmetic written as one line of ``; ``-separated steps, one step per line; a ``;``
    inside brackets stays (``ceil(a; b)`` is one step). Existing line breaks are kept."""
    out: list[str] = []
    for line in text.splitlines():
        depth, start = 0, 0
        for i, char in enumerate(line):
            if char in "([{":
                depth += 1
            elif char in ")]}":
                depth = max(depth - 1, 0)
            elif char == ";" and depth == 0 and line[i + 1 : i + 2] == " ":
                out.append(line[start:i])
                start = i + 2
        out.append(line[start:])
    return [step for step in out if step.strip()]


def one_line(text: str, limit: int = 150) -> str:
    """The first ``limit`` characters of ``text`` on one line, cut at a word with an ellipsis."""
    flat = " ".join(text.split())
    if len(flat) <= limit:
        return flat
    cut = flat[: limit - 1].rsplit(" ", 1)[0] if " " in flat[: limit - 1] else flat[: limit - 1]
    return cut.rstrip(" ,;:") + "\u2026"


def yes_no(value: bool | None) -> str:
    """``yes``, ``no`` or the missing-value mark."""
    return MISSING if value is None else ("yes" if value else "no")


FILTERS: dict[str, Callable[..., Any]] = {
    "money": money,
    "ms": ms,
    "rate": rate,
    "num": num,
    "one_line": one_line,
    "pct": pct,
    "score": score,
    "score_interval": score_interval,
    "sha_short": sha_short,
    "size": size,
    "steps": steps,
    "yes_no": yes_no,
}
