"""``evidencepack watch`` of the signed sample against loopback endpoints (127.0.0.1) that serve
the sample's own latency model (samples/generate/simserver.py), run CONCURRENTLY and in the
BACKGROUND: each watch spends most of a minute waiting on the clock (it offers load for 20-25 s,
then waits for the requests in flight, about 11.5 s each at X*), so every watch a session's tests
read (a test's ``watches`` marker names the scenarios; ``broken_watch`` reads ``broken``) starts
at the session's first test, each in its own child process against its own server thread, and
runs while the other tests do; tests/ordering.py puts the files that read them last. Each
scenario is made once per test run (tests/run_once.py: under xdist one worker measures, the
other waits for what it wrote).

The scenarios (``SCENARIOS``): an endpoint as fast as the pack's candidate (holds, signed with a
key of its own), one that serves 30% fewer requests per second than the decision's operating
point X* needs (broken), one that disappears mid-run and one where nothing listens (both could
not run).

``broken_watch`` is the broken watch, copied and signed with the sample's own key, made once per
test run. Read only: copy it to change it.
"""

from __future__ import annotations

import dataclasses
import importlib
import json
import os
import shutil
import signal
import subprocess
import sys
import threading
from collections.abc import Iterator
from concurrent.futures import Future, ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path
from types import ModuleType
from typing import Any

import pytest

from evidencepack.errors import EXIT_FAILED
from evidencepack.signing.keys import generate_keypair
from evidencepack.signing.sign import sign_pack_detailed

from .conftest import REPO_ROOT
from .packs import SignedSample, _assert_unchanged, _tree_digests
from .run_once import made_once, run_folder

GENERATE = REPO_ROOT / "samples" / "generate"
CANDIDATE = "mi325x-vllm"  # the sample's chosen candidate
MODEL = "acme/contract-summariser-70b-fp8 (sample)"

BROKEN_AS_OF = "2027-03-01"
"""The broken watch's --as-of: past the chosen candidate's quote validity (2027-02-18)."""

# At X* (1.98 requests/s, about 11.5 s a request) the chosen candidate keeps about 23 requests in
# flight; a replica that runs only 16 at once serves 30% fewer requests per second than that.
SLOTS_30_PERCENT_SHORT = 16

UNREACHABLE = "http://127.0.0.1:9"
"""Nothing listens there (the discard port, closed)."""

GONE_AFTER_S = 3.0
"""The disappearing endpoint stops this long after its watch says it is measuring."""

WAIT_S = 300.0
"""The most any watch may take (each offers load for at most 25 s: about a minute is normal)."""


@dataclass(frozen=True)
class Scenario:
    """One watch: its endpoint (a simulated replica with ``slots`` sequences at once, or
    ``UNREACHABLE``), its extra options, and whether the endpoint disappears mid-run."""

    slots: int | None = None
    """The replica's sequences at once (None: the candidate's own, 40)."""
    extra: tuple[str, ...] = ()
    serve: bool = True
    gone: bool = False
    sign: bool = False
    """Also --sign-key with a key made for it (``WatchRun.keys``)."""


SCENARIOS = {
    # --duration 25: the pack's end-to-end p99 at X* is 22.4 s, and a run that offers load for
    # less time than that never reaches steady state (a "degraded" finding): 25 s is the least
    # with a margin.
    "holds": Scenario(extra=("--duration", "25", "--as-of", "2026-12-04"), sign=True),
    "broken": Scenario(
        slots=SLOTS_30_PERCENT_SHORT, extra=("--duration", "25", "--as-of", BROKEN_AS_OF)
    ),
    "gone": Scenario(extra=("--duration", "20", "--timeout-s", "8"), gone=True),
    "unreachable": Scenario(serve=False),
}


def generate_modules() -> tuple[ModuleType, ModuleType]:
    """samples/generate's make_evidence and simserver, imported (not run)."""
    sys.path.insert(0, str(GENERATE))
    try:
        return importlib.import_module("make_evidence"), importlib.import_module("simserver")
    finally:
        sys.path.remove(str(GENERATE))


def sim_server(slots: int | None = None) -> Any:
    """One replica of the chosen candidate's simulated system on 127.0.0.1, with ``slots``
    sequences at once (default: the candidate's own, 40). Not started: ``with`` starts it."""
    make_evidence, simserver = generate_modules()
    capacity = make_evidence.SWEEPS[CANDIDATE].capacity
    if slots is not None:
        capacity = dataclasses.replace(capacity, slots=slots)
    inputs = {str(r["id"]): int(str(r["input_tokens"])) for r in make_evidence.read_dataset()}
    return simserver.SimServer(
        capacity, inputs, model=MODEL, runtime="vllm", version="0.9.2", seed=11
    )


@dataclass(frozen=True)
class Watched:
    """A finished watch: its exit code, what it printed, and the folder it was told to write."""

    code: int
    out: str
    err: str
    folder: Path
    keys: tuple[Path, Path] | None
    """The watch's own signing key and public key (``Scenario.sign``)."""


def _ctrl_c_reaches_it() -> None:
    """In the child: SIGINT back to its default. A shell runs a background job with SIGINT
    ignored, and an ignored signal is inherited: a Ctrl-C of a test run started with `&` would
    otherwise leave the watches running."""
    signal.signal(signal.SIGINT, signal.SIG_DFL)


class WatchRun:
    """One scenario's ``evidencepack watch`` (``python -m evidencepack``) in a child process,
    started at once; ``finished`` waits for it."""

    def __init__(self, name: str, sample: SignedSample, prompts: Path, folder: Path) -> None:
        scenario = SCENARIOS[name]
        folder.mkdir(parents=True, exist_ok=True)
        self.folder = folder / "watch"
        self.keys = None
        extra = list(scenario.extra)
        if scenario.sign:
            made = generate_keypair(folder / "w.pem", folder / "w.pub", None)
            self.keys = (made.private_key, made.public_key)
            extra += ["--sign-key", str(made.private_key)]
        self._server = sim_server(scenario.slots).__enter__() if scenario.serve else None
        self._stop: threading.Timer | None = None
        self._lock = threading.Lock()  # the timer's thread and ``finished`` both stop the server
        self._waited = threading.Lock()
        url = self._server.url if self._server is not None else UNREACHABLE
        command = [
            sys.executable, "-m", "evidencepack", "watch", str(sample.archive),
            "--key", str(sample.pub), "--endpoint", url, "--prompts", str(prompts),
            "-o", str(self.folder), *extra,
        ]  # fmt: skip
        self._stdout = folder / "stdout.txt"
        path = os.pathsep.join(filter(None, [str(REPO_ROOT), os.environ.get("PYTHONPATH")]))
        with self._stdout.open("wb") as stdout:
            self._proc = subprocess.Popen(
                command,
                stdout=stdout,
                stderr=subprocess.PIPE,
                env={**os.environ, "PYTHONPATH": path},
                preexec_fn=_ctrl_c_reaches_it,  # noqa: PLW1509 (resets one signal, takes no lock)
            )
        self._err: list[str] = []
        # Standard error is read as it comes (a pipe nobody reads would fill and block the
        # watch); the disappearing endpoint is stopped GONE_AFTER_S after the watch says it is
        # measuring, so it is gone mid-run however long the child took to start.
        self._reader = threading.Thread(
            target=self._read_err, args=(scenario.gone,), name=f"watch-{name}", daemon=True
        )
        self._reader.start()
        self._result: Watched | None = None

    def _read_err(self, gone: bool) -> None:
        assert self._proc.stderr is not None
        for raw in self._proc.stderr:
            line = raw.decode("utf-8", errors="replace")
            self._err.append(line)
            if gone and self._stop is None and line.startswith("measuring "):
                self._stop = threading.Timer(GONE_AFTER_S, self._close_server)
                self._stop.start()

    def _close_server(self) -> None:
        with self._lock:
            server, self._server = self._server, None
        if server is not None:
            server.__exit__(None, None, None)

    def finished(self) -> Watched:
        """Wait for the watch (at most ``WAIT_S``), stop its endpoint, and say what it did
        (a second caller, in another thread, waits for the first)."""
        with self._waited:
            return self._finish()

    def _finish(self) -> Watched:
        if self._result is None:
            try:
                code = self._proc.wait(WAIT_S)
            finally:
                self._proc.kill()  # a no-op once it has exited
                self._proc.wait()
                self._reader.join(30)
                if self._stop is not None:
                    self._stop.join(30)
                self._close_server()
            self._result = Watched(
                code=code,
                out=self._stdout.read_text(encoding="utf-8"),
                err="".join(self._err),
                folder=self.folder,
                keys=self.keys,
            )
        return self._result

    def end(self) -> None:
        """Stop the child and the server, finished or not (the session's end)."""
        self._proc.kill()
        self._proc.wait()
        if self._stop is not None:
            self._stop.cancel()
        self._close_server()


class WatchRuns:
    """The session's watches of the signed sample: each scenario made once per test run
    (tests/run_once.py: under xdist the first worker to need it measures, another waits and reads
    what it wrote), all of them in background threads started together."""

    def __init__(
        self, sample: SignedSample, tmp_path_factory: pytest.TempPathFactory, root: Path
    ) -> None:
        self._sample = sample
        self._factory = tmp_path_factory
        self._futures: dict[str, Future[Watched]] = {}
        self._running: list[WatchRun] = []
        self._lock = threading.Lock()  # the session's first test and later tests both start runs
        self._pool = ThreadPoolExecutor(len(SCENARIOS), thread_name_prefix="watch")
        self._prompts = root / "prompts.jsonl"
        make_evidence, _ = generate_modules()
        make_evidence.write_prompts(self._prompts, make_evidence.read_dataset())

    @property
    def prompts(self) -> Path:
        """The prompts file every watch reads (samples/generate's dataset)."""
        return self._prompts

    def start(self, *names: str) -> None:
        """Start these scenarios' watches (those not started yet), all at once."""
        with self._lock:
            for name in names:
                if name not in self._futures:
                    self._futures[name] = self._pool.submit(self._made_once, name)

    def _made_once(self, name: str) -> Watched:
        folder = run_folder(f"watch-{name}", self._factory)
        with made_once(f"watch-{name}", folder) as make:
            if make:
                run = WatchRun(name, self._sample, self._prompts, folder)
                with self._lock:
                    self._running.append(run)
                watched = run.finished()
                said = {"code": watched.code, "out": watched.out, "err": watched.err}
                (folder / "watched.json").write_text(json.dumps(said), encoding="utf-8")
        said = json.loads((folder / "watched.json").read_text(encoding="utf-8"))
        keys = (folder / "w.pem", folder / "w.pub") if SCENARIOS[name].sign else None
        return Watched(said["code"], said["out"], said["err"], folder / "watch", keys)

    def finished(self, name: str) -> Watched:
        """The scenario's finished watch (started now if it was not)."""
        self.start(name)
        return self._futures[name].result()

    def end(self) -> None:
        """Stop every child and server, finished or not, and the threads that wait for them."""
        with self._lock:
            running = list(self._running)
        for run in running:
            run.end()
        self._pool.shutdown(wait=True)  # never a measurement left running after the session


def watches_read_by(item: pytest.Item) -> tuple[str, ...]:
    """The scenarios a test reads: its ``watches`` marker's, and ``broken`` for ``broken_watch``."""
    marker = item.get_closest_marker("watches")
    names = tuple(marker.args) if marker is not None else ()
    if "broken_watch" in getattr(item, "fixturenames", ()):
        names += ("broken",)
    return names


@pytest.fixture(scope="session")
def watch_runs(
    signed_sample: SignedSample, tmp_path_factory: pytest.TempPathFactory
) -> Iterator[WatchRuns]:
    """The session's concurrent watches of the signed sample (see ``WatchRuns``)."""
    runs = WatchRuns(signed_sample, tmp_path_factory, tmp_path_factory.mktemp("watches"))
    try:
        yield runs
    finally:
        runs.end()


@pytest.fixture(scope="session", autouse=True)
def _watches_early(request: pytest.FixtureRequest) -> None:
    """Start, at the session's first test, every watch a test of the session reads (they run
    while the other tests do; tests/ordering.py puts the tests that read them last)."""
    names = {name for item in request.session.items for name in watches_read_by(item)}
    if names:
        request.getfixturevalue("watch_runs").start(*sorted(names))


@pytest.fixture(scope="session")
def broken_watch(
    watch_runs: WatchRuns, signed_sample: SignedSample, tmp_path_factory: pytest.TempPathFactory
) -> Iterator[Path]:
    """The watch folder of the signed sample against a 30% slower endpoint: broken, copied from
    the ``broken`` scenario's (which stays unsigned) and signed with the sample's key, once per
    run. Read only: copy it to change it."""
    folder = run_folder("broken-watch", tmp_path_factory)
    out = folder / "watch"
    watched = watch_runs.finished("broken")
    with made_once("broken-watch", folder) as make:
        if make:
            assert watched.code == EXIT_FAILED, watched.err
            folder.mkdir(parents=True, exist_ok=True)
            shutil.copytree(watched.folder, out)
            sign_pack_detailed(out, None, signed_sample.signer())
    before = _tree_digests(out)
    yield out
    _assert_unchanged(out, before)
