"""When two runtime versions are the same release, and which serving engine of a stack serves.

The canonical runtime and precision names are the readers' (``inputs/names.py``); this module
compares releases with real version semantics and ranks a stack's runtimes.
"""

from __future__ import annotations

import re

from packaging.version import InvalidVersion, Version

from ..inputs.names import SERVING_RUNTIMES, normalise_runtime


def serving_rank(name: str) -> int:
    """Where a runtime stands in ``SERVING_RUNTIMES`` (99 for one that does not serve)."""
    key = normalise_runtime(name)
    return SERVING_RUNTIMES.index(key) if key in SERVING_RUNTIMES else 99


def release(text: str) -> Version | None:
    """A runtime version string as a PEP 440 version without its local build part, or None.

    Build variants are local parts: ``1.0.0+cu128`` and ``0.21.0-rocm`` are releases 1.0.0 and
    0.21.0 built for CUDA 12.8 and ROCm; ``v0.10.1.1`` is 0.10.1.1. Pre-releases, development
    builds and post-releases stay what they are: ``0.9.2rc1`` and ``0.9.2.dev108`` are not 0.9.2.
    """
    text = text.strip()
    if text[:1] in ("v", "V"):
        text = text[1:]
    for candidate in (text, re.split(r"[+]|-(?=[A-Za-z_][A-Za-z0-9_.]*$)", text, maxsplit=1)[0]):
        try:
            return Version(Version(candidate).public)
        except InvalidVersion:
            continue
    return None


def versions_match(a: str, b: str) -> bool:
    """Same release, with real version semantics: equal public versions (``0.9`` is not
    ``0.9.2``, ``0.9.2`` is not ``0.9.2.1``, a release candidate or development build is not the
    release), whatever local build each carries (``1.0.0+cu128``, ``0.21.0-rocm``). Strings that
    are no version at all must be equal."""
    left, right = release(a), release(b)
    if left is None or right is None:
        return a.strip().lower().lstrip("v") == b.strip().lower().lstrip("v")
    return left == right
