"""Names of HTTP clients and API adapters that files may give where a runtime would stand.

lm-eval's ``model`` type (``local-completions``), a benchmark's backend (``openai-chat``) or a
client library names what sent the requests, not the engine that served them: no stage takes
one for the serving runtime.
"""

from __future__ import annotations

HTTP_CLIENTS = (
    "local-completions",
    "local-chat-completions",
    "openai-completions",
    "openai-chat-completions",
    "openai",
    "openai-chat",
    "openai-api",
    "http",
    "https",
    "requests",
    "aiohttp",
    "httpx",
    "litellm",
    "dummy",
)
"""Names a file may give for the client that sent the requests, not the engine that served
them (lm-eval's ``model`` type, a benchmark's backend): never taken for a runtime."""


def is_client(name: str | None) -> bool:
    """Whether ``name`` is an HTTP client or API adapter rather than a serving runtime."""
    return name is not None and name.strip().lower() in HTTP_CLIENTS
