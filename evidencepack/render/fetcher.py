"""The URL policy of every WeasyPrint call: nothing is read from disk or the network.

The report is self-contained (inline CSS and SVG), so the renderer never needs a resource. Only
``data:`` URLs, which carry their bytes inline and cause no I/O, are allowed: the PDF attachments
travel that way. Everything else (``file:``, ``http:``, ``https:``, ``ftp:``, relative or
scheme-less references) is refused, so hostile text that somehow became markup still cannot make
the renderer read a file or fetch a URL.
"""

from __future__ import annotations

import re

ALLOWED_SCHEMES = frozenset({"data"})

_SCHEME = re.compile(r"^([a-zA-Z][a-zA-Z0-9.+-]*):")


class FetchRefused(ValueError):
    """A URL the report renderer will not fetch."""

    def __init__(self, url: str, reason: str) -> None:
        super().__init__(f"refused to fetch {url[:200]!r}: {reason}")
        self.url = url
        self.reason = reason


def check_url(url: str) -> str:
    """Return the URL's scheme if it may be fetched; raise FetchRefused otherwise."""
    match = _SCHEME.match(url.strip())
    if match is None:
        raise FetchRefused(url, "not an absolute URL")
    scheme = match[1].lower()
    if scheme not in ALLOWED_SCHEMES:
        raise FetchRefused(
            url, f"scheme {scheme!r} is not allowed (allowed: {', '.join(sorted(ALLOWED_SCHEMES))})"
        )
    return scheme
