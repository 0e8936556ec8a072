"""The prompt file: JSON lines, one request each, read once and checked with located errors.

Each line is ``{"prompt": "..."}`` (completions; sent as the user message to chat) or
``{"messages": [...]}`` (chat), with an optional ``max_tokens`` of its own and an optional
``input_tokens`` (the prompt's length as the team counted it, recorded, never sent).
"""

from __future__ import annotations

import hashlib
import json
from pathlib import Path

from ..core.limits import read_limited
from ..errors import InputError
from .sut import Prompt

MAX_PROMPTS = 1_000_000
MAX_PROMPT_BYTES = 1 << 30
"""A prompt file is read whole: at most 1 GiB."""


def load_prompts(path: Path) -> tuple[list[Prompt], str]:
    """The prompts of ``path`` and the file's sha256; InputError naming the line on bad input."""
    # A regular file only, opened without blocking: a FIFO or a device is refused at once.
    data = read_limited(path, MAX_PROMPT_BYTES, what="prompt file")
    prompts: list[Prompt] = []
    for number, raw in enumerate(data.splitlines(), start=1):
        if not raw.strip():
            continue
        where = f"{path}:{number}"
        try:
            row = json.loads(raw)
        except (ValueError, RecursionError) as exc:
            raise InputError(f"{where}: not JSON: {str(exc)[:200]}") from None
        if not isinstance(row, dict):
            raise InputError(f"{where}: expected an object with 'prompt' or 'messages'")
        prompt = row.get("prompt", row.get("messages"))
        if isinstance(prompt, str):
            if not prompt:
                raise InputError(f"{where}: 'prompt' is empty")
        elif isinstance(prompt, list) and prompt and all(isinstance(m, dict) for m in prompt):
            pass
        else:
            raise InputError(f"{where}: give 'prompt' (a string) or 'messages' (a list of objects)")
        numbers = {}
        for key in ("max_tokens", "input_tokens"):
            value = row.get(key)
            if value is not None and (not isinstance(value, int) or value <= 0):
                raise InputError(f"{where}: {key!r} must be a positive integer")
            numbers[key] = value
        prompts.append(Prompt(prompt, numbers["max_tokens"], numbers["input_tokens"]))
        if len(prompts) > MAX_PROMPTS:
            raise InputError(f"{path}: more than {MAX_PROMPTS} prompts")
    if not prompts:
        raise InputError(f"{path}: no prompts in the file")
    return prompts, hashlib.sha256(data).hexdigest()
