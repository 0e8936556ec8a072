"""A simulated LLM serving system under test for the real MLPerf LoadGen (SAMPLE DATA only).

No GPU is involved: a small capacity model decides when each request's first token and last token
would be ready, and one event-loop thread reports them to LoadGen at those wall-clock moments.

Capacity model, per replica (a system has ``replicas`` of them; a request goes to the replica
that can start its prefill soonest):

* ``slots`` concurrent sequences (the engine's max running sequences). A request waits FIFO for a
  free slot; it holds the slot from admission until its last token.
* One prefill lane: prompts are prefilled one at a time, each taking
  ``prefill_base_ms + prefill_ms_per_token * input_tokens``.
  TTFT = slot wait + prefill-lane wait + own prefill time.
* Decode: a sequence's time per output token is
  ``decode_base_ms + decode_ms_per_seq * n`` with ``n`` the sequences active on its replica when
  its first token appears (itself included), fixed for the rest of the sequence.
  Last token = first token + (output_tokens - 1) * TPOT, so LoadGen's TPOT
  ((latency - TTFT) / (tokens - 1)) reads back exactly that value.
* Prefill and decode times get a log-normal jitter (``jitter_sigma``) from a seeded RNG.
* A query of several samples (Offline) is scheduled longest output first.

The model computes both moments when LoadGen issues a request, from the replica state left by
earlier requests (FIFO: later requests never overtake earlier ones), so a single heap of timed
events is all the event loop needs: no thread per request.
"""

from __future__ import annotations

import array
import heapq
import math
import random
import threading
import time
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

import mlperf_loadgen as lg

# Token ids in the responses: uniform over a Llama-2 sized vocabulary.
VOCAB_SIZE = 32000


@dataclass(frozen=True)
class Capacity:
    """Capacity-model parameters of one system (see the module docstring)."""

    replicas: int
    slots: int
    prefill_base_ms: float
    prefill_ms_per_token: float
    decode_base_ms: float
    decode_ms_per_seq: float
    jitter_sigma: float = 0.04


@dataclass(frozen=True)
class Item:
    """One QSL sample: prompt length in, summary length out (tokens)."""

    input_tokens: int
    output_tokens: int


class _Replica:
    def __init__(self, slots: int) -> None:
        self.slot_free_s = [0.0] * slots  # heap: when each slot frees
        self.prefill_free_s = 0.0
        self.active_until_s: list[float] = []  # heap: last-token times of admitted sequences


class CapacityModel:
    """Schedules requests on a system's replicas; times are seconds on any monotonic clock."""

    def __init__(self, capacity: Capacity, seed: int) -> None:
        self.capacity = capacity
        self._rng = random.Random(seed)
        self._replicas = [_Replica(capacity.slots) for _ in range(capacity.replicas)]

    def _jitter(self) -> float:
        return self._rng.lognormvariate(0.0, self.capacity.jitter_sigma)

    def schedule(self, now_s: float, item: Item) -> tuple[float, float, float]:
        """Return (first_token_s, last_token_s, tpot_s) for a request arriving at ``now_s``."""
        cap = self.capacity
        # Join the replica that can start this prefill soonest (fewest active sequences on a tie).
        replica = min(
            self._replicas,
            key=lambda r: (max(now_s, r.slot_free_s[0], r.prefill_free_s), len(r.active_until_s)),
        )
        admitted = max(now_s, heapq.heappop(replica.slot_free_s))
        prefill_start = max(admitted, replica.prefill_free_s)
        prefill_s = (cap.prefill_base_ms + cap.prefill_ms_per_token * item.input_tokens) / 1000
        first_s = prefill_start + prefill_s * self._jitter()
        replica.prefill_free_s = first_s
        while replica.active_until_s and replica.active_until_s[0] <= first_s:
            heapq.heappop(replica.active_until_s)
        active = len(replica.active_until_s) + 1
        tpot_s = (cap.decode_base_ms + cap.decode_ms_per_seq * active) / 1000 * self._jitter()
        last_s = first_s + (item.output_tokens - 1) * tpot_s
        heapq.heappush(replica.active_until_s, last_s)
        heapq.heappush(replica.slot_free_s, last_s)
        return first_s, last_s, tpot_s


def percentile(values: Sequence[float], q: float) -> float:
    """Nearest-rank percentile (q in 0..1)."""
    ordered = sorted(values)
    return ordered[max(0, min(len(ordered) - 1, math.ceil(q * len(ordered)) - 1))]


def dry_run(
    capacity: Capacity, items: Sequence[Item], rate_per_s: float, queries: int, seed: int
) -> dict[str, float]:
    """Predict p99 TTFT/TPOT/latency (ms) for Poisson arrivals, without LoadGen or waiting."""
    arrivals = random.Random(seed)
    model = CapacityModel(capacity, seed)
    now = 0.0
    ttft, tpot, e2e = [], [], []
    for _ in range(queries):
        now += arrivals.expovariate(rate_per_s)
        item = items[arrivals.randrange(len(items))]
        first, last, per_token = model.schedule(now, item)
        ttft.append(first - now)
        tpot.append(per_token)
        e2e.append(last - now)
    return {
        "ttft_p99_ms": percentile(ttft, 0.99) * 1000,
        "tpot_p99_ms": percentile(tpot, 0.99) * 1000,
        "latency_p99_ms": percentile(e2e, 0.99) * 1000,
    }


class SimulatedSut:
    """LoadGen callbacks plus the event-loop thread that reports tokens on time."""

    def __init__(self, model: CapacityModel, items: Sequence[Item], token_seed: int) -> None:
        self._model = model
        self._items = items
        self._token_seed = token_seed
        self._tokens: dict[int, array.array[int]] = {}
        self._events: list[tuple[float, int, int, int, int]] = []  # (due, seq, kind, id, index)
        self._seq = 0
        self._stopping = False
        self._cv = threading.Condition()
        self._thread = threading.Thread(target=self._loop, name="sim-sut", daemon=True)

    def __enter__(self) -> SimulatedSut:
        self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        with self._cv:
            self._stopping = True
            self._cv.notify()
        self._thread.join()

    def tokens(self, index: int) -> array.array[int]:
        """The response token ids for QSL sample ``index`` (int32, seeded, cached)."""
        cached = self._tokens.get(index)
        if cached is None:
            rng = random.Random(self._token_seed * 1_000_003 + index)
            count = self._items[index].output_tokens
            cached = array.array("i", (rng.randrange(VOCAB_SIZE) for _ in range(count)))
            self._tokens[index] = cached
        return cached

    # LoadGen calls issue_query from its own issuing thread.
    def issue_query(self, samples: Sequence[lg.QuerySample]) -> None:
        now = time.monotonic()
        if len(samples) > 1:
            # Offline hands over every sample at once; like real Offline harnesses, start the
            # longest outputs first so the run does not end on one long straggler.
            samples = sorted(samples, key=lambda s: -self._items[s.index].output_tokens)
        with self._cv:
            for sample in samples:
                first, last, _ = self._model.schedule(now, self._items[sample.index])
                self._push(first, 0, sample.id, sample.index)
                self._push(last, 1, sample.id, sample.index)
            self._cv.notify()

    def flush_queries(self) -> None:
        """Nothing is buffered: every issued request is already scheduled."""

    def _push(self, due: float, kind: int, sample_id: int, index: int) -> None:
        self._seq += 1
        heapq.heappush(self._events, (due, self._seq, kind, sample_id, index))

    def _loop(self) -> None:
        while True:
            with self._cv:
                while True:
                    if not self._events:
                        if self._stopping:
                            return
                        self._cv.wait()
                        continue
                    delay = self._events[0][0] - time.monotonic()
                    if delay <= 0:
                        break
                    self._cv.wait(delay)
                now = time.monotonic()
                due = []
                while self._events and self._events[0][0] <= now:
                    due.append(heapq.heappop(self._events))
            self._report(due)

    def _report(self, due: list[tuple[float, int, int, int, int]]) -> None:
        # Report outside the lock: LoadGen may call issue_query meanwhile.
        firsts, lasts, keep = [], [], []
        for _, _, kind, sample_id, index in due:
            tokens = self.tokens(index)
            if kind == 0:
                first = tokens[:1]
                keep.append(first)
                address, _ = first.buffer_info()
                firsts.append(lg.QuerySampleResponse(sample_id, address, first.itemsize, 1))
            else:
                address, count = tokens.buffer_info()
                lasts.append(
                    lg.QuerySampleResponse(sample_id, address, count * tokens.itemsize, count)
                )
        if firsts:
            lg.FirstTokenComplete(firsts)
        if lasts:
            lg.QuerySamplesComplete(lasts)
        del keep  # the buffers must live until LoadGen has copied what it logs


SCENARIOS = {"Server": lg.TestScenario.Server, "Offline": lg.TestScenario.Offline}


def run_loadgen(
    *,
    user_conf: Path,
    model_name: str,
    scenario: str,
    outdir: Path,
    capacity: Capacity,
    items: Sequence[Item],
    performance_count: int,
    seed: int,
) -> None:
    """Run one PerformanceOnly LoadGen test of the simulated SUT; logs go to ``outdir``.

    ``user_conf`` and ``model_name`` go to ``TestSettings.FromConfig`` exactly as in an MLPerf run
    (LoadGen's built-in mlperf.conf first, then the user.conf overrides).
    """
    settings = lg.TestSettings()
    if settings.FromConfig(str(user_conf), model_name, scenario) != 0:
        raise RuntimeError(f"LoadGen rejected {user_conf} for {model_name}/{scenario}")
    settings.scenario = SCENARIOS[scenario]
    settings.mode = lg.TestMode.PerformanceOnly

    outdir.mkdir(parents=True, exist_ok=True)
    output = lg.LogOutputSettings()
    output.outdir = str(outdir)
    output.copy_summary_to_stdout = False
    log_settings = lg.LogSettings()
    log_settings.log_output = output
    log_settings.enable_trace = False

    model = CapacityModel(capacity, seed)
    with SimulatedSut(model, items, token_seed=seed) as sut:
        handle = lg.ConstructSUT(sut.issue_query, sut.flush_queries)
        qsl = lg.ConstructQSL(len(items), performance_count, _no_op, _no_op)
        try:
            lg.StartTestWithLogSettings(handle, qsl, settings, log_settings)
        finally:
            lg.DestroyQSL(qsl)
            lg.DestroySUT(handle)


def _no_op(_samples: object) -> None:
    """QSL load/unload: the simulated SUT keeps nothing in memory per sample."""
