"""Output tokens counted by the model's own tokenizer, through the server's tokenize endpoint.

A server that streams no ``usage`` leaves the client with chunks, and a chunk is not a token
(byte pieces arrive merged or empty; vLLM and others send several tokens per event). The
serving engines expose their tokenizer over HTTP: ``/tokenize`` in llama.cpp's ``llama-server``
(``{"content": ...}``) and vLLM (``{"prompt": ...}``), ``/extras/tokenize`` in llama-cpp-python's
server (``{"input": ...}``); each answers ``{"tokens": [...]}``. One request body carries every
engine's field. Special tokens the endpoint adds by itself (llama-cpp-python's BOS) are measured
once, as the tokens of an empty text, and taken off every count.

A server with no such endpoint leaves the tokenizer the user named (``measure --tokenizer``: a
``tokenizer.json`` or a GGUF model file's vocabulary, ``tokenizer_file.py``), run here. One run
counts by one of them, the endpoint when there is one; ``record`` says which, for ``run.json``.
"""

from __future__ import annotations

import asyncio
import time
from dataclasses import dataclass
from typing import Any

from .client import Client
from .tokenizer_file import TOKENIZER_FILE, FileTokenizer

TOKENIZE_PATHS = ("/tokenize", "/extras/tokenize")
_TIMEOUT_S = 5.0
_INLINE_CHARS = 256
"""A longer text is counted by the file's tokenizer on a worker thread, off the event loop that
times the other streams (about 2 us a character with the tests' tiny vocabulary on 2 busy cores;
a 60-character output, 0.1 ms inline)."""


@dataclass(frozen=True)
class TokenCount:
    """A text's token count and how long the server took to give it."""

    tokens: int
    elapsed_ms: float


class ServerTokenizer:
    """The server's tokenize endpoint, found on first use; else the user's tokenizer file."""

    def __init__(self, client: Client, fallback: FileTokenizer | None = None) -> None:
        self.client = client
        self.fallback = fallback
        """The tokenizer the user named, for a server with no tokenize endpoint."""
        self.counted: set[str] = set()
        """What counted at least one output: ``endpoint``, ``file``."""
        self.path: str | None = None
        self.added: int = 0
        """Tokens the endpoint adds to any text (a BOS), subtracted from every count."""
        self.problem: str | None = None
        """Why there is no tokenizer (the endpoints tried and what they answered)."""
        self._found = False
        self._lock = asyncio.Lock()

    def _body(self, text: str) -> dict[str, Any]:
        model = self.client.settings.model
        return {
            "model": model,
            "content": text,
            "prompt": text,
            "input": text,
            "add_special": False,
            "add_special_tokens": False,
        }

    async def _ask(self, path: str, text: str) -> int | None:
        try:
            status, _, answer = await self.client.call_json(
                "POST", path, self._body(text), _TIMEOUT_S
            )
        except (OSError, TimeoutError, ValueError) as exc:
            self.problem = f"POST {path}: {type(exc).__name__}"
            return None
        tokens = answer.get("tokens") if isinstance(answer, dict) else None
        if status != 200 or not isinstance(tokens, list):
            self.problem = f"POST {path}: HTTP {status}" + (
                "" if status != 200 else ", no token list"
            )
            return None
        return len(tokens)

    async def _find(self) -> None:
        async with self._lock:
            if self._found:
                return
            root = self.client.endpoint.base_path.removesuffix("/v1")
            problems = []
            for path in TOKENIZE_PATHS:
                empty = await self._ask(root + path, "")
                if empty is not None:
                    self.path, self.added, self.problem = root + path, empty, None
                    break
                problems.append(self.problem or path)
            else:
                self.problem = "no tokenize endpoint: " + "; ".join(problems)
            self._found = True

    async def count(self, text: str) -> TokenCount | None:
        """The tokens of ``text`` by the server's tokenizer or, when the server has no tokenize
        endpoint, by the user's tokenizer file; None when neither counted it."""
        await self._find()
        started = time.perf_counter()
        if self.path is None:
            if self.fallback is None:
                return None
            if len(text) > _INLINE_CHARS:
                local = await asyncio.to_thread(self.fallback.count, text)
            else:
                local = self.fallback.count(text)
            self.counted.add("file")
            return TokenCount(local, (time.perf_counter() - started) * 1e3)
        tokens = await self._ask(self.path, text)
        if tokens is None:
            return None
        self.counted.add("endpoint")
        return TokenCount(max(tokens - self.added, 0), (time.perf_counter() - started) * 1e3)

    def record(self) -> dict[str, Any]:
        """What ``run.json`` says of the tokenizer: the endpoint found (or why none), the file
        the user named (kept in the run folder as ``tokenizer.json`` when it counted) and what
        counted the outputs (``counted_by``: ``endpoint``, ``file`` or None)."""
        out: dict[str, Any] = {
            "path": self.path,
            "special_tokens_added": self.added,
            "problem": self.problem,
            "counted_by": next((by for by in ("endpoint", "file") if by in self.counted), None),
            "file": None,
        }
        if self.fallback is not None:
            used = "file" in self.counted
            out["file"] = {
                "kept": TOKENIZER_FILE if used else None,
                "sha256": self.fallback.sha256 if used else None,
                "source": self.fallback.source,
            }
        return out
