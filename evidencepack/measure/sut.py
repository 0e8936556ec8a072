"""The system under test LoadGen drives: each sample becomes one streaming request.

LoadGen calls ``issue_query`` from its own thread; the samples are handed to an asyncio loop
thread that streams them through ``client.Client``, reports the first token
(``FirstTokenComplete``) and the completion (``QuerySamplesComplete`` with the output token
count) the moment the client sees them, so LoadGen's TTFT and TPOT are LoadGen's own. A failed
request is completed at the moment it failed (with the tokens it produced) and kept, with its
reason, in the per-request rows: LoadGen has no notion of a failed sample.
"""

from __future__ import annotations

import array
import asyncio
import threading
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

import mlperf_loadgen as lg

from .client import Client, Outcome
from .tokenizer import ServerTokenizer
from .tokenizer_file import FileTokenizer

# LoadGen logs response bytes only in accuracy mode; performance runs need a valid address.
_RESPONSE = array.array("i", [0])
_RESPONSE_ADDRESS, _ = _RESPONSE.buffer_info()


@dataclass(frozen=True)
class Prompt:
    """One QSL sample: what to send, and its own ``max_tokens`` when the prompt file sets one."""

    prompt: str | list[dict[str, Any]]
    max_tokens: int | None = None
    input_tokens: int | None = None


@dataclass
class Row:
    """One finished request, ready for ``requests.jsonl``."""

    sample_id: int
    sample_index: int
    issued_ns: int
    outcome: Outcome


class StreamingSut:
    """LoadGen callbacks over an asyncio loop thread; ``stop(reason)`` ends the run early."""

    def __init__(
        self,
        client: Client,
        prompts: Sequence[Prompt],
        *,
        max_in_flight: int | None,
        lost_after_s: float,
        tokenizer_file: FileTokenizer | None = None,
    ) -> None:
        self.client = client
        self.tokenizer = ServerTokenizer(client, tokenizer_file)
        self.prompts = prompts
        self.rows: list[Row] = []
        self.stop_reason: str | None = None
        self.max_in_flight_seen = 0
        self.response_models: set[str] = set()
        self._limit = max_in_flight
        self._lost_after_s = lost_after_s
        self._in_flight = 0
        self._tasks: set[asyncio.Task[None]] = set()
        self._last_ok_s = time.monotonic()
        self._loop = asyncio.new_event_loop()
        self._semaphore: asyncio.Semaphore | None = None
        self._stopped = threading.Event()
        self.on_stop: Callable[[str], None] | None = None
        self._thread = threading.Thread(target=self._run_loop, name="measure-sut", daemon=True)

    def __enter__(self) -> StreamingSut:
        self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def close(self) -> None:
        """Close the client and stop the event loop thread."""
        if self._thread.is_alive():
            asyncio.run_coroutine_threadsafe(self.client.close(), self._loop).result(5)
            self._loop.call_soon_threadsafe(self._loop.stop)
            self._thread.join(5)

    def _run_loop(self) -> None:
        asyncio.set_event_loop(self._loop)
        if self._limit:
            self._semaphore = asyncio.Semaphore(self._limit)
        self._loop.run_forever()

    def run(self, coro: Any, timeout_s: float = 10.0) -> Any:
        """Run a coroutine on the loop thread and wait for it (used for the server probe)."""
        return asyncio.run_coroutine_threadsafe(coro, self._loop).result(timeout_s)

    # LoadGen's issuing thread.
    def issue_query(self, samples: Sequence[lg.QuerySample]) -> None:
        """LoadGen's callback: start one streamed request per sample on the event loop."""
        issued = time.perf_counter_ns()
        pairs = [(s.id, s.index) for s in samples]
        self._loop.call_soon_threadsafe(self._start, pairs, issued)

    def flush_queries(self) -> None:
        """Nothing is buffered: every sample is sent as soon as it is issued."""

    def stop(self, reason: str) -> None:
        """End the run: cancel what is in flight; later samples complete at once, unsent."""
        self._loop.call_soon_threadsafe(self._stop, reason)

    @property
    def stopped(self) -> threading.Event:
        """Set once the run is stopped (``stop_reason`` says why)."""
        return self._stopped

    @property
    def in_flight_tasks(self) -> int:
        """Requests started and not yet finished."""
        return len(self._tasks)

    def snapshot_rows(self) -> list[Row]:
        """The finished requests so far (a copy: the loop thread keeps appending)."""
        return list(self.rows)

    def _stop(self, reason: str) -> None:
        if self.stop_reason is None:
            self.stop_reason = reason
            for task in list(self._tasks):
                task.cancel()
            self._stopped.set()
            if self.on_stop is not None:
                self.on_stop(reason)

    def _start(self, pairs: list[tuple[int, int]], issued: int) -> None:
        for sample_id, index in pairs:
            if self.stop_reason is not None:
                self._unsent(sample_id, index, issued)
                continue
            task = self._loop.create_task(self._one(sample_id, index, issued))
            self._tasks.add(task)
            task.add_done_callback(self._tasks.discard)

    def _unsent(self, sample_id: int, index: int, issued: int) -> None:
        outcome = Outcome(sent_ns=issued, sent_epoch_s=time.time(), done_ns=issued)
        outcome.error = f"not sent: {self.stop_reason}"
        self._finish(Row(sample_id, index, issued, outcome), first_reported=False)

    async def _one(self, sample_id: int, index: int, issued: int) -> None:
        prompt = self.prompts[index]
        reported = False

        def first_token() -> None:
            nonlocal reported
            reported = True
            lg.FirstTokenComplete([lg.QuerySampleResponse(sample_id, _RESPONSE_ADDRESS, 4, 1)])

        try:
            if self._semaphore is not None:
                async with self._semaphore:
                    outcome = await self._send(prompt, first_token)
            else:
                outcome = await self._send(prompt, first_token)
        except asyncio.CancelledError:
            outcome = Outcome(sent_ns=issued, sent_epoch_s=time.time())
            outcome.done_ns = time.perf_counter_ns()
            outcome.error = f"cancelled: {self.stop_reason or 'the run was stopped'}"
        except Exception as exc:  # noqa: BLE001 - LoadGen waits forever for a sample never completed
            outcome = Outcome(sent_ns=issued, sent_epoch_s=time.time())
            outcome.done_ns = time.perf_counter_ns()
            outcome.error = f"client error: {type(exc).__name__}: {str(exc)[:200]}"
            self.client.redact(outcome)
        self._finish(Row(sample_id, index, issued, outcome), first_reported=reported)

    async def _send(self, prompt: Prompt, first_token: Callable[[], None]) -> Outcome:
        self._in_flight += 1
        self.max_in_flight_seen = max(self.max_in_flight_seen, self._in_flight)
        try:
            outcome = await self.client.stream(prompt.prompt, prompt.max_tokens, first_token)
            if outcome.ok and outcome.tokens_source == "counted":
                # No usage: the model's own tokenizer counts the output, never the chunks.
                count = await self.tokenizer.count("".join(outcome.text))
                if count is not None:
                    outcome.output_tokens, outcome.tokens_source = count.tokens, "tokenizer"
                    outcome.tokenize_ms = count.elapsed_ms
            return outcome
        finally:
            self._in_flight -= 1

    def _finish(self, row: Row, *, first_reported: bool) -> None:
        self.rows.append(row)
        outcome = row.outcome
        if outcome.response_model:
            self.response_models.add(outcome.response_model)
        tokens = max(outcome.output_tokens or 0, 1)
        if not first_reported:
            # LoadGen needs a first token for every sample in a token-latency run.
            lg.FirstTokenComplete([lg.QuerySampleResponse(row.sample_id, _RESPONSE_ADDRESS, 4, 1)])
            # LoadGen divides by (tokens - 1): a one-token sample gives it a negative or
            # astronomic TPOT. A sample that failed before its first token (a 429) is completed
            # as two tokens at once, so its log's TPOT figures stay sound (no wait: a run
            # interrupted with thousands of samples pending completes them all straight away).
            tokens = max(tokens, 2)
        lg.QuerySamplesComplete(
            [lg.QuerySampleResponse(row.sample_id, _RESPONSE_ADDRESS, 4, tokens)]
        )
        if outcome.ok:
            self._last_ok_s = time.monotonic()
        elif _is_connection_failure(outcome) and self.stop_reason is None:
            silent = time.monotonic() - self._last_ok_s
            if silent >= self._lost_after_s:
                self._stop(
                    f"server lost: no successful request for {silent:.1f} s "
                    f"(last error: {outcome.error})"
                )


def _is_connection_failure(outcome: Outcome) -> bool:
    error = outcome.error or ""
    return error.startswith(("connection refused", "connection lost", "network error"))
