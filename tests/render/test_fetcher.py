"""The URL policy: data: only; files, the network and relative references are refused."""

from __future__ import annotations

import pytest

from evidencepack.render.fetcher import FetchRefused, check_url


def test_data_urls_are_allowed() -> None:
    assert check_url("data:application/json;base64,e30=") == "data"
    assert check_url("DATA:text/plain,hi") == "data"


@pytest.mark.parametrize(
    "url",
    [
        "file:///etc/passwd",
        "FILE:///etc/hostname",
        "http://127.0.0.1:8000/x",
        "https://example.com/style.css",
        "ftp://example.com/a",
        "javascript:alert(1)",
        "//example.com/scheme-relative",
        "relative/path.css",
        "/etc/passwd",
        "",
    ],
)
def test_everything_else_is_refused(url: str) -> None:
    with pytest.raises(FetchRefused) as caught:
        check_url(url)
    assert caught.value.url == url
    assert "refused to fetch" in str(caught.value)
