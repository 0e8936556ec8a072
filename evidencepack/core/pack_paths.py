"""Where a pack keeps its inputs: the two names the intake (which copies the inputs in) and the
pack layout (which every reader of a built pack uses) share. A leaf, so that ``verify`` and
``diff`` name a pack's spec without loading any stage of the compiler."""

from __future__ import annotations

INPUTS_DIR = "inputs"
"""The folder of a pack holding every input, at its path relative to the spec."""

SPEC_PATH = f"{INPUTS_DIR}/pack.yaml"
"""The spec inside a pack: the inputs folder mirrors the spec's folder."""
