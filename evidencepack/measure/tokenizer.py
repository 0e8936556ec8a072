"""Output tokens counted by the model's own tokenizer, through the server's tokenize endpoint.

A server that streams no ``usage`` leaves the client with chunks, and a chunk is not a token
(byte pieces arrive merged or empty; vLLM and others send several tokens per event). The
serving engines expose their tokenizer over HTTP: ``/tokenize`` in llama.cpp's ``llama-server``
(``{"content": ...}``) and vLLM (``{"prompt": ...}``), ``/extras/tokenize`` in llama-cpp-python's
server (``{"input": ...}``); each answers ``{"tokens": [...]}``. One request body carries every
engine's field. Special tokens the endpoint adds by itself (llama-cpp-python's BOS) are measured
once, as the tokens of an empty text, and taken off every count.
"""

from __future__ import annotations

import asyncio
import time
from dataclasses import dataclass
from typing import Any

from .client import Client

TOKENIZE_PATHS = ("/tokenize", "/extras/tokenize")
_TIMEOUT_S = 5.0


@dataclass(frozen=True)
class TokenCount:
    """A text's token count and how long the server took to give it."""

    tokens: int
    elapsed_ms: float


class ServerTokenizer:
    """The server's tokenize endpoint, found on first use (None if it has none)."""

    def __init__(self, client: Client) -> None:
        self.client = client
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
        """The tokens of ``text`` by the server's tokenizer, or None (no endpoint, an error)."""
        await self._find()
        if self.path is None:
            return None
        started = time.perf_counter()
        tokens = await self._ask(self.path, text)
        if tokens is None:
            return None
        return TokenCount(max(tokens - self.added, 0), (time.perf_counter() - started) * 1e3)
