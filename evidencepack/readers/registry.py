"""The format registry: format id -> detector + parser. Adding a format is one module and one line.

``read_input(path)`` hashes the file (unless given its record), probes its content and hands it
to the first format whose detector accepts it; a file no detector accepts is an ``unknown
format`` error.

The registry is open: ``register_format(fmt)`` adds a reader at run time, and an installed
distribution adds one through the ``evidencepack.formats`` entry-point group (each entry point
names a ``Format``, or a callable returning one or several). A plug-in's formats are tried after
the built-in ones, they may not reuse a built-in id, and every file one of them reads records the
plug-in's name and version (``InputFile.plugin``), which the manifest and the report show.

A plug-in runs inside bounds: an exception from its detector or parser is an InputError naming
the file and the plug-in, and each call has a time limit (``PLUGIN_SECONDS``; a detector that
sleeps is refused, not waited for). Every installed plug-in is named on the spec's record of a
build (``plugin_warnings``), so a pack says which readers could take part and a rebuild on
another machine names the plug-ins that differ.
"""

from __future__ import annotations

import os
import threading
from collections.abc import Callable, Mapping
from dataclasses import replace
from pathlib import Path
from typing import Any, TypeVar

from ..core import limits
from ..core._text import misleading_characters
from ..core.provenance import FileRecord, file_record
from ..errors import InputError
from ..staging.context import DEFAULT, ReadContext
from ..staging.stage_batch import StagedRun
from ._yaml_doc import top_level_keys
from .base import Format, ParsedInput, Probe
from .detect import probe_file
from .formats import (
    _serve_bench,
    aiconfigurator,
    aiperf,
    aiperf_csv,
    aiperf_requests,
    genai_perf_analyze,
    generic_scores,
    gpu_telemetry,
    guidellm,
    guidellm_csv,
    guidellm_csv_v04,
    guidellm_yaml,
    inference_endpoint,
    inference_perf,
    inferencex,
    inspect_ai,
    llmd_report,
    llmperf,
    lm_eval,
    loadgen,
    measure_run,
    ml_energy,
    promptfoo,
    sglang,
    trtllm,
    vllm,
)
from .models import ServingRun
from .sanity import impossible_values, unaccounted_requests, verdict_findings

# Order matters only where two detectors could both accept a file: the more specific first.
FORMATS: tuple[Format, ...] = (
    vllm.FORMAT,
    sglang.FORMAT,
    guidellm.FORMAT,
    guidellm_csv.CSV_FORMAT,
    guidellm_csv_v04.FORMAT,
    guidellm_yaml.FORMAT,
    aiperf.FORMAT,
    aiperf_csv.CSV_FORMAT,
    genai_perf_analyze.FORMAT,
    aiperf_requests.JSONL_FORMAT,
    measure_run.REQUESTS_FORMAT,
    inference_perf.FORMAT,
    llmperf.SUMMARY_FORMAT,
    llmperf.RESPONSES_FORMAT,
    trtllm.FORMAT,
    inferencex.FORMAT,
    ml_energy.FORMAT,
    gpu_telemetry.DCGM_FORMAT,
    llmd_report.JSON_FORMAT,
    llmd_report.YAML_FORMAT,
    inference_endpoint.FORMAT,
    aiconfigurator.FORMAT,
    loadgen.DETAIL_FORMAT,
    loadgen.SUMMARY_FORMAT,
    lm_eval.RESULTS_FORMAT,
    lm_eval.SAMPLES_FORMAT,
    inspect_ai.EVAL_FORMAT,
    inspect_ai.JSON_FORMAT,
    promptfoo.FORMAT,
    generic_scores.JSONL_FORMAT,
    generic_scores.CSV_FORMAT,
)
_SERVE_BENCH = (vllm.FORMAT, sglang.FORMAT)
"""The formats whose small one-result files are staged together (``stage_small_runs``)."""


ENTRY_POINT_GROUP = "evidencepack.formats"
_registered: list[Format] = []
_loaded_entry_points = False


PLUGIN_SECONDS = float(os.environ.get("EVIDENCEPACK_PLUGIN_SECONDS", "60"))
"""The time limit of one call of a plug-in's detector or parser on one file."""
_T = TypeVar("_T")


def register_format(fmt: Format, *, plugin: str | None = None) -> Format:
    """Add a reader after the built-in ones; ``plugin`` (``name version``) is recorded on every
    file it reads. A format id may be registered once; a built-in id never."""
    if any(f.id == fmt.id for f in FORMATS):
        raise ValueError(f"its format id {fmt.id!r} is a built-in reader's")
    if any(f.id == fmt.id for f in _registered):
        raise ValueError(f"a format with id {fmt.id!r} is already registered")
    named = replace(fmt, plugin=plugin or fmt.plugin or "unnamed plug-in")
    _registered.append(named)
    return named


def unregister_format(format_id: str) -> None:
    """Remove a format registered at run time (tests and embedding applications)."""
    _registered[:] = [f for f in _registered if f.id != format_id]


def _load_entry_points() -> None:
    """Register every installed plug-in's formats, once per process."""
    global _loaded_entry_points
    if _loaded_entry_points:
        return
    _loaded_entry_points = True
    from importlib.metadata import entry_points

    for point in sorted(entry_points(group=ENTRY_POINT_GROUP), key=lambda p: p.name):
        dist = point.dist
        plugin = f"{dist.name} {dist.version}" if dist is not None else point.name
        try:
            loaded = point.load()
            formats = loaded() if callable(loaded) and not isinstance(loaded, Format) else loaded
            for fmt in formats if isinstance(formats, list | tuple) else [formats]:
                if not isinstance(fmt, Format):
                    raise TypeError(f"{point.value} gave {type(fmt).__name__}, not a Format")
                register_format(fmt, plugin=plugin)
        except Exception as exc:  # a broken plug-in must not stop the built-in readers
            _broken.append((f"{plugin} ({point.value})", f"{type(exc).__name__}: {exc}"))


_broken: list[tuple[str, str]] = []
"""Each plug-in that failed to load: (``name version (entry point)``, the exception)."""


def all_formats() -> tuple[Format, ...]:
    """The built-in formats, then those plug-ins registered."""
    _load_entry_points()
    return (*FORMATS, *_registered)


def broken_plugins() -> tuple[str, ...]:
    """Plug-ins that failed to load, each with the reason."""
    _load_entry_points()
    return tuple(f"{who}: {why}" for who, why in _broken)


def installed_plugins() -> tuple[str, ...]:
    """Each plug-in's formats that loaded: ``name version: format id, ...``."""
    _load_entry_points()
    by_plugin: dict[str, list[str]] = {}
    for fmt in _registered:
        by_plugin.setdefault(fmt.plugin or "unnamed plug-in", []).append(fmt.id)
    return tuple(f"{who}: {', '.join(ids)}" for who, ids in sorted(by_plugin.items()))


def plugin_warnings() -> tuple[str, ...]:
    """What a build records on the spec's record about reader plug-ins: each that failed to
    load, and each installed (a file no built-in reader accepts goes to it), so the pack names
    every plug-in that could take part in its decision."""
    installed = tuple(
        f"the reader plug-in {who} is installed: a file no built-in reader accepts is offered "
        "to its formats"
        for who in installed_plugins()
    )
    return (*broken_plugin_warnings(), *installed)


def plugins_differ(decision_file: Path) -> str | None:
    """When a rebuild fails: the reader plug-ins a pack names (on its spec's record in
    ``decision_file``) against those installed here, if they differ."""
    import json

    try:
        decision = json.loads(decision_file.read_text(encoding="utf-8"))
        spec = next(f for f in decision["inputs"] if f.get("role") == "spec")
        recorded = {w for w in spec.get("warnings", ()) if w.startswith("the reader plug-in ")}
    except (
        OSError,
        ValueError,
        KeyError,
        TypeError,
        AttributeError,
        StopIteration,
        RecursionError,
    ):
        return None
    here = set(plugin_warnings())
    if recorded == here:
        return None
    gone = "; ".join(sorted(recorded - here)) or "none"
    new = "; ".join(sorted(here - recorded)) or "none"
    return (
        f"the reader plug-ins differ from the build's: the pack names {gone}, this machine has "
        f"{new} (a plug-in can read files and change the decision)"
    )


def _bounded(fmt: Format, what: str, name: str, call: Callable[[], _T]) -> _T:
    """``call()`` of a plug-in's detector or parser: its exception, or no answer within
    ``PLUGIN_SECONDS``, becomes an InputError naming the file and the plug-in."""
    if fmt.plugin is None:
        return call()
    box: dict[str, Any] = {}

    def target() -> None:
        try:
            box["value"] = call()
        except BaseException as exc:  # noqa: BLE001 - whatever the plug-in raises is reported
            box["error"] = exc

    worker = threading.Thread(target=target, name=f"plug-in {fmt.id}", daemon=True)
    worker.start()
    worker.join(PLUGIN_SECONDS)
    who = f"the reader plug-in {fmt.plugin} (format {fmt.id})"
    if worker.is_alive():
        raise InputError(f"{name}: {who}: its {what} gave no answer in {PLUGIN_SECONDS:g} s")
    error = box.get("error")
    if isinstance(error, InputError):
        raise error
    if error is not None:
        raise InputError(
            f"{name}: {who}: its {what} failed: {type(error).__name__}: {error}"
        ) from None
    value: _T = box["value"]
    return value


def broken_plugin_warnings() -> tuple[str, ...]:
    """A warning per plug-in that failed to load: ``inspect`` and ``check`` print them, and a
    build records them on the spec's input record, so the report shows them."""
    _load_entry_points()
    return tuple(f"the reader plug-in {who} failed to load: {why}" for who, why in _broken)


def format_by_id(format_id: str) -> Format:
    """The registered format with this id (KeyError if none)."""
    for fmt in all_formats():
        if fmt.id == format_id:
            return fmt
    raise KeyError(format_id)


def detect_format(probe: Probe) -> Format:
    """The first format whose detector accepts the probe; InputError naming them all if none."""
    formats = all_formats()
    for fmt in formats:
        if _bounded(fmt, "detector", probe.name, lambda f=fmt: f.detect(probe)):  # type: ignore[misc]
            return fmt
    known = ", ".join(f.id for f in formats)
    if _broken:
        known += f"; plug-ins that failed to load: {'; '.join(broken_plugins())}"
    raise UnknownFormat(probe.name, _describe(probe), known)


class UnknownFormat(InputError):
    """No format reads the file: ``content`` says what detection saw, ``known`` what is read."""

    def __init__(self, name: str, content: str, known: str) -> None:
        self.content = content
        """What the file holds, as detection saw it (``a JSON object with keys ...``)."""
        super().__init__(
            f"unknown format: the content ({content}) matches none of the formats evidencepack "
            f"reads ({known})",
            file=name,
        )


def read_input(
    path: Path,
    *,
    record: FileRecord | None = None,
    name: str | None = None,
    max_bytes: int | None = None,
    context: ReadContext = DEFAULT,
) -> ParsedInput:
    """Read one file into the normalised models; nothing is stored. Raises InputError.

    ``record`` is the file's record when its bytes were already read and hashed (a snapshot:
    a build's collector, ``read_private``); without it the file is hashed here. ``name`` is
    what every message calls the file (``Probe.name``; default: ``path``): a build reads a
    private copy and names the file by its path in the spec. ``max_bytes`` raises (or
    lowers) the size limit, ``MAX_INPUT_FILE_BYTES`` by default: a file read over the default
    carries a warning saying so. ``context``: the build's settings for the read, handed to the
    reader on its probe (default: a file read on its own).
    """
    probe = replace(probe_file(path, name, max_bytes=max_bytes), context=context)
    if record is None:
        record = file_record(path)
    fmt = detect_format(probe)
    found = record
    parsed = _bounded(fmt, "parser", probe.name, lambda: fmt.parse(probe, found))
    runs = tuple(_with_findings(_with_concurrency(run)) for run in parsed.runs)
    warnings = parsed.warnings + _misleading_text(parsed)
    if record.size_bytes > limits.MAX_INPUT_FILE_BYTES:  # read under a raised limit: said
        warnings = (limits.over_default_input_limit(record.size_bytes), *warnings)
    if fmt.plugin is not None:
        warnings += (f"read by the plug-in {fmt.plugin} (format {fmt.id}), not a built-in reader",)
    return replace(parsed, runs=runs, warnings=warnings, plugin=fmt.plugin)


def stage_small_runs(
    files: Mapping[Path, str], context: ReadContext = DEFAULT
) -> dict[Path, StagedRun]:
    """The per-request rows of those of ``files`` (path -> name) that ``read_input`` would read
    as one vLLM or SGLang result each (``_serve_bench.stage_many``), or as an ``evidencepack
    measure`` ``requests.jsonl`` (``measure_run.stage_many``), staged together by kind under
    ``context``; a file that cannot be probed or is of another kind is left to be read alone
    (hand the result to ``read_input`` as ``ReadContext.prestaged``)."""
    serve_bench, measured = [], []
    for path, name in files.items():
        try:
            probe = probe_file(path, name)
            fmt = detect_format(probe)
        except InputError:
            continue
        if fmt in _SERVE_BENCH and probe.container == "json" and isinstance(probe.first, dict):
            serve_bench.append(probe)
        elif fmt is measure_run.REQUESTS_FORMAT:
            measured.append(path)
    out = _serve_bench.stage_many(serve_bench, context) if len(serve_bench) > 1 else {}
    if len(measured) > 1:
        out |= measure_run.stage_many(measured, context)
    return out


def _misleading_text(parsed: ParsedInput) -> tuple[str, ...]:
    """A warning when the file's names hold controls or bidi overrides (shown escaped)."""
    models = (*parsed.runs, *parsed.score_sets)
    if all(_plainly_printable(m.model_dump_json()) for m in models):
        return ()
    found: dict[str, None] = {}
    pending: list[Any] = [m.model_dump() for m in models]
    while pending:
        value = pending.pop()
        if isinstance(value, str):
            found.update(dict.fromkeys(misleading_characters(value)))
        elif isinstance(value, dict):
            pending += [*value.keys(), *value.values()]
        elif isinstance(value, list | tuple):
            pending += value
    if not found:
        return ()
    return (
        f"the file's text holds control or bidi character(s) {', '.join(found)}, which make "
        "text read differently from what it holds; the report shows each escaped (\\uXXXX)",
    )


def _plainly_printable(text: str) -> bool:
    """Whether a model's JSON holds no escape and only printable characters, so none of its
    texts holds a misleading one (JSON escapes every control below U+0020, so a backslash
    sends the model to the walk). The common case, checked in C."""
    return "\\" not in text and text.isprintable()


def _with_findings(run: ServingRun) -> ServingRun:
    """Impossible values and unaccounted requests are findings of every run, whichever reader
    made it."""
    found = impossible_values(run) + unaccounted_requests(run) + verdict_findings(run)
    return run.model_copy(update={"findings": run.findings + found}) if found else run


def _with_concurrency(run: ServingRun) -> ServingRun:
    """The envelope compares concurrency: a closed-loop or capped load states it."""
    if run.identity.concurrency is not None or run.load.concurrency is None:
        return run
    identity = run.identity.model_copy(update={"concurrency": run.load.concurrency})
    return run.model_copy(update={"identity": identity})


def _describe(probe: Probe) -> str:
    if probe.container == "json" and isinstance(probe.first, dict):
        keys = sorted(probe.first)[:8]
        return f"a JSON object with keys {', '.join(keys)}{'...' if len(probe.first) > 8 else ''}"
    if probe.container == "jsonl" and isinstance(probe.first, dict):
        return f"JSON lines whose first record has keys {', '.join(sorted(probe.first)[:8])}"
    if probe.container == "csv":
        return f"CSV with header {','.join(probe.first[:6])}"
    if probe.container == "zip":
        return f"a zip archive of {len(probe.first)} member(s)"
    if probe.container == "json":
        return f"a JSON {type(probe.first).__name__}"
    keys = sorted(top_level_keys(probe)) if probe.container == "text" else []
    if keys:
        more = "..." if len(keys) > 8 else ""
        return f"YAML or text with top-level keys {', '.join(keys[:8])}{more}"
    return {"empty": "an empty file", "binary": "binary data"}.get(probe.container, "text")
