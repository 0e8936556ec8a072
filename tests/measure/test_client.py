"""The streaming client's pieces: endpoint URLs, server-sent event parsing, request bodies."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator

import pytest

from evidencepack.errors import InvalidRequest
from evidencepack.measure.client import RequestSettings, parse_endpoint
from evidencepack.measure.http_stream import Failed, events


def test_endpoint_urls() -> None:
    plain = parse_endpoint("http://127.0.0.1:8000")
    assert (plain.host, plain.port, plain.base_path) == ("127.0.0.1", 8000, "/v1")
    assert parse_endpoint("https://api.example.com/v1/").base_path == "/v1"
    assert parse_endpoint("https://api.example.com/v1/").port == 443
    assert parse_endpoint("http://h/proxy").base_path == "/proxy/v1"
    assert parse_endpoint("http://h:80").host_header == "h"
    # An IPv6 address keeps its brackets in the Host header (RFC 9110 7.2).
    six = parse_endpoint("http://[::1]:8000")
    assert (six.host, six.host_header) == ("::1", "[::1]:8000")
    assert parse_endpoint("https://[2001:db8::7]/v1").host_header == "[2001:db8::7]"
    for bad in ("ftp://h", "127.0.0.1:8000", "http://u:p@h", "http://h/v1?x=1", "http://h:99999"):
        with pytest.raises(InvalidRequest):
            parse_endpoint(bad)


async def _chunks(*parts: bytes) -> AsyncIterator[bytes]:
    for part in parts:
        yield part


def _parse(*parts: bytes) -> list[str]:
    async def collect() -> list[str]:
        return [event async for event in events(_chunks(*parts))]

    return asyncio.run(collect())


def test_events_split_anywhere_with_comments_and_crlf() -> None:
    assert _parse(b': keep-alive\r\n\r\ndata: {"a"', b": 1}\r\n\r\nda", b"ta: [DONE]\n\n") == [
        '{"a": 1}',
        "[DONE]",
    ]
    assert _parse(b"event: message\nid: 7\ndata: x\ndata: y\n\n") == ["x\ny"]
    assert _parse(b"data: last-without-blank-line") == ["last-without-blank-line"]


def test_a_line_that_is_no_event_field_is_malformed() -> None:
    with pytest.raises(Failed, match="malformed event stream: unexpected line"):
        _parse(b"<html>oops</html>\n\n")


def test_request_bodies() -> None:
    chat = RequestSettings(model="m", api="chat", max_tokens=8, sampling={"temperature": 0})
    body = chat.body("hi", None)
    assert body["messages"] == [{"role": "user", "content": "hi"}]
    assert body["max_tokens"] == 8
    assert body["stream_options"] == {"include_usage": True}
    assert body["temperature"] == 0
    plain = RequestSettings(model="m", include_usage=False)
    assert plain.body("hi", 3) == {"model": "m", "stream": True, "prompt": "hi", "max_tokens": 3}
