"""``measure`` against a server whose ``/version`` answer is hostile (issue 42, left from round
two): 400,000 nested arrays, or a bare ``Infinity``. The run ends, no traceback, and ``run.json``
is strict JSON."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path

import pytest

from ..measure.openai_server import OpenAIServer
from .harness import run
from .test_measure import _measure, _prompts


class _HostileVersion(OpenAIServer):
    """The test server, its ``/version`` answering ``version_body`` as it is."""

    def __init__(self, version_body: bytes) -> None:
        super().__init__(ttft_s=0.002, tpot_s=0.001)
        self.version_body = version_body

    async def _route(
        self, method: str, path: str, body: bytes, writer: asyncio.StreamWriter
    ) -> bool:
        if method == "GET" and path == "/version":
            writer.write(
                b"HTTP/1.1 200 OK\r\nContent-Type: application/json\r\n"
                + f"Content-Length: {len(self.version_body)}\r\n\r\n".encode()
                + self.version_body
            )
            await writer.drain()
            return True
        return await super()._route(method, path, body, writer)


def _strict(text: str) -> object:
    def refuse(name: str) -> object:
        raise ValueError(f"{name} in run.json")

    return json.loads(text, parse_constant=refuse)


@pytest.mark.parametrize(
    "body",
    [b"[" * 400_000 + b"]" * 400_000, b'{"version": Infinity, "build": NaN}'],
    ids=["nested-400000", "infinity"],
)
def test_a_hostile_version_answer_ends_in_a_strict_run_json(tmp_path: Path, body: bytes) -> None:
    with _HostileVersion(body) as server:
        out = tmp_path / "run"
        ran = run(_measure(server, _prompts(tmp_path / "p.jsonl", ""), out))
    shown = ran.out + ran.err
    assert "Traceback" not in shown
    assert "RecursionError" not in shown
    assert ran.code == 0, shown
    record = (out / "run.json").read_text(encoding="utf-8")
    assert "Infinity" not in record
    assert "NaN" not in record
    _strict(record)
