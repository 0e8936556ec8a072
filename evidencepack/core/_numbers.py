"""Numbers written into finding text (reasons, claim statements) the way a reader writes them.

``f"{v:g}"`` prints ``2.86844e+07``; ``plain`` prints ``28,684,400``: six significant digits, a
thousands separator, never an exponent. The report's own cells use ``render.formatting``.
"""

from __future__ import annotations

import math
from decimal import Decimal


def plain(value: float | int, digits: int = 6) -> str:
    """``28684400.0`` -> ``28,684,400``; ``44.357`` -> ``44.357``; ``1.2e-05`` -> ``0.000012``."""
    number = float(value)
    if not math.isfinite(number):
        return str(number)
    if number == 0:
        return "0"
    text = format(Decimal(f"{number:.{digits}g}"), ",f")
    if "." in text:
        text = text.rstrip("0").rstrip(".")
    return text
