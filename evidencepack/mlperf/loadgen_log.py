"""One MLPerf LoadGen detail log, ``mlperf_log_detail.txt`` (the truth), into ``LoadgenLog``.

``parse_detail(path)`` reads it; ``loadgen_summary`` reads the summary printout and
``loadgen_run`` puts the two together. Times are milliseconds, throughputs per second. A
malformed file raises ``LoadgenLogError`` naming ``file:line``.
"""

from __future__ import annotations

import json
import math
import re
from pathlib import Path
from typing import Any, Literal

from pydantic import Field

from ..core._models import StrictModel
from ..errors import InputError
from .rounds import Seeds, round_for_seeds

DETAIL_NAME = "mlperf_log_detail.txt"
SUMMARY_NAME = "mlperf_log_summary.txt"
_PREFIX = ":::MLLOG "
NS_PER_MS = 1_000_000.0
_MAX_PROBLEMS = 20
_MEASURED = ("result_", "effective_")

Scenario = Literal["Offline", "Server", "SingleStream", "MultiStream"]
SCENARIOS = ("Offline", "Server", "SingleStream", "MultiStream")
Validity = Literal["VALID", "INVALID"]


class LoadgenLogError(InputError):
    """A LoadGen log is malformed, missing, or contradicts its other half."""


class LogLine(StrictModel):
    """An error or warning LoadGen logged, and where."""

    file: str
    line: int = Field(ge=1)
    key: str
    message: str


class EffectiveSettings(StrictModel):
    """What LoadGen actually ran with (``effective_*``; the published user.conf may differ)."""

    target_qps: float | None = None
    target_latency_ms: float | None = None
    ttft_latency_ms: float | None = None
    tpot_latency_ms: float | None = None
    min_duration_ms: int | None = None
    max_duration_ms: int | None = None
    min_query_count: int | None = None
    max_query_count: int | None = None
    samples_per_query: int | None = None
    performance_sample_count: int | None = None
    max_async_queries: int | None = None


class LoadgenLog(StrictModel):
    """Everything evidencepack takes from one LoadGen run.

    ``latency_ms``, ``ttft_ms`` and ``tpot_ms`` map ``min``/``max``/``mean``/``p50``/``p90``/
    ``p95``/``p97``/``p99``/``p99.9`` to milliseconds (MultiStream: per query, as the summary
    and the checker read them). ``headline_value`` is what the official table reports: tokens/s
    (gptj: inferred tokens/s) for Offline and Server; for SingleStream the whole-query early
    stopping 90th percentile estimate (MultiStream: 99th) in ms where LoadGen printed one, else
    the plain percentile; samples/s where no token count was logged.
    ``lines`` maps each key read to its line in the file ``source`` names, for citations.
    """

    source: Literal["detail", "summary", "endpoint"]
    detail_path: str | None = None
    summary_path: str | None = None
    loadgen_version: str | None = None
    loadgen_git_commit_date: str | None = None
    test_datetime: str | None = None
    sut_name: str | None = None
    scenario: Scenario | None = None
    test_mode: str | None = None
    validity: Validity | None = None
    invalid_reasons: tuple[str, ...] = ()
    perf_constraints_met: bool | None = None
    min_duration_met: bool | None = None
    min_queries_met: bool | None = None
    early_stopping_met: bool | None = None
    settings: EffectiveSettings = EffectiveSettings()
    seeds: Seeds | None = None
    seed_round: str | None = None
    query_count: int | None = None
    samples_per_s: float | None = None
    scheduled_samples_per_s: float | None = None
    tokens_per_s: float | None = None
    tokens_inferred: bool = False
    headline_value: float | None = None
    headline_unit: str | None = None
    early_stopping_estimate_ms: float | None = None
    latency_ms: dict[str, float] = Field(default_factory=dict)
    ttft_ms: dict[str, float] = Field(default_factory=dict)
    tpot_ms: dict[str, float] = Field(default_factory=dict)
    num_errors: int | None = None
    errors: tuple[LogLine, ...] = ()
    warnings: tuple[LogLine, ...] = ()
    repeated_keys: tuple[str, ...] = Field(
        default=(),
        description="``file:line`` of each measured key (result_*, effective_*) logged again",
    )
    lines: dict[str, int] = Field(default_factory=dict)

    @property
    def ttft_p99_ms(self) -> float | None:
        """The p99 time to first token, if the run logged one."""
        return self.ttft_ms.get("p99")

    @property
    def tpot_p99_ms(self) -> float | None:
        """The p99 time per output token, if the run logged one."""
        return self.tpot_ms.get("p99")

    @property
    def latency_p99_ms(self) -> float | None:
        """The p99 request latency, if the run logged one."""
        return self.latency_ms.get("p99")

    @property
    def last_line(self) -> int:
        """The last line a value was read from (where a truncated log ends)."""
        return max(self.lines.values(), default=0)

    def require_validity(self) -> None:
        """A performance run without ``result_validity`` did not finish or was cut short."""
        if self.validity is None:
            path = self.detail_path if self.source == "detail" else self.summary_path
            raise LoadgenLogError(
                f"{path}:{self.last_line}: the log ends here without result_validity: the run "
                "did not finish or the log is truncated"
            )

    @property
    def is_performance_run(self) -> bool:
        """Whether this was a performance run (not accuracy-only)."""
        return self.test_mode in (None, "PerformanceOnly")

    def cite(self, key: str) -> str:
        """``file:line`` of a key, for check rows and error messages."""
        path = self.detail_path if self.source == "detail" else self.summary_path
        line = self.lines.get(key)
        return f"{path}:{line}" if line else str(path)


def percentile_key(text: str) -> str:
    """``"99.90"`` -> ``"p99.9"``, ``"50.00"`` -> ``"p50"``."""
    return "p" + format(float(text), "g")


# The percentile each latency scenario reports (and its early-stopping estimate stands for).
LATENCY_PERCENTILE = {"SingleStream": "p90", "MultiStream": "p99"}
_ESTIMATE = re.compile(r"Early stopping ([\d.]+)th percentile estimate:\s*(\d+)")


def early_stopping_estimate(scenario: str | None, text: str) -> float | None:
    """The whole-query estimate (ms) of the scenario's percentile in an early-stopping block."""
    wanted = LATENCY_PERCENTILE.get(scenario or "")
    for percentile, value in _ESTIMATE.findall(text):
        if percentile_key(percentile) == wanted:
            return int(value) / NS_PER_MS
    return None


def headline(
    scenario: str | None,
    tokens_per_s: float | None,
    samples_per_s: float | None,
    latency_ms: dict[str, float],
    early_ms: float | None = None,
) -> tuple[float | None, str | None]:
    """The official table's metric for a run (checker RESULT_FIELD_NEW and its overwrites)."""
    if scenario in LATENCY_PERCENTILE:
        value = early_ms if early_ms is not None else latency_ms.get(LATENCY_PERCENTILE[scenario])
        return (value, "Latency (ms)") if value is not None else (None, None)
    if tokens_per_s is not None:
        return tokens_per_s, "Tokens/s"
    return sample_headline(scenario, samples_per_s)


def sample_headline(
    scenario: str | None, samples_per_s: float | None
) -> tuple[float | None, str | None]:
    """Samples/s (Offline) or Queries/s (Server), the checker's UNIT_DICT."""
    if samples_per_s is None:
        return None, None
    return samples_per_s, "Samples/s" if scenario == "Offline" else "Queries/s"


# --- the detail log -------------------------------------------------------------------------

_SETTING_KEYS: dict[str, tuple[str, float]] = {
    # log key -> (settings field, divisor to the field's unit)
    "effective_target_qps": ("target_qps", 1.0),
    "effective_target_latency_ns": ("target_latency_ms", NS_PER_MS),
    "requested_server_ttft_latency": ("ttft_latency_ms", NS_PER_MS),
    "requested_server_tpot_latency": ("tpot_latency_ms", NS_PER_MS),
    "effective_min_duration_ms": ("min_duration_ms", 1.0),
    "effective_max_duration_ms": ("max_duration_ms", 1.0),
    "effective_min_query_count": ("min_query_count", 1.0),
    "effective_max_query_count": ("max_query_count", 1.0),
    "effective_samples_per_query": ("samples_per_query", 1.0),
    "effective_performance_sample_count": ("performance_sample_count", 1.0),
    "effective_max_async_queries": ("max_async_queries", 1.0),
}
_INT_SETTINGS = {name for name, _ in _SETTING_KEYS.values() if not name.endswith(("_ms", "_qps"))}
_INT_SETTINGS |= {"min_duration_ms", "max_duration_ms"}

_TOKEN_KEYS = (
    # (key, inferred) in order of preference: Offline, Server, gptj's inferred variants
    ("result_tokens_per_second", False),
    ("result_completed_tokens_per_second", False),
    ("result_inferred_tokens_per_second", True),
    ("result_inferred_completed_tokens_per_second", True),
)
_FLAG_KEYS = {
    "result_perf_constraints_met": "perf_constraints_met",
    "result_min_duration_met": "min_duration_met",
    "result_min_queries_met": "min_queries_met",
    "early_stopping_met": "early_stopping_met",
}


def read_detail_records(
    path: Path, name: str | None = None
) -> tuple[dict[str, Any], dict[str, int], list[LogLine]]:
    """Every ``:::MLLOG`` line: last value per key, its line, and the error/warning lines.
    Messages call the file ``name`` (default: ``path``).

    A measured key (``result_*``, ``effective_*``) logged twice is listed under
    ``values["__repeated__"]`` with both lines and values, never silently resolved.
    Raises LoadgenLogError naming each ``file:line`` that is not a complete JSON record.
    """
    shown = str(path) if name is None else name
    values: dict[str, Any] = {}
    repeated: list[str] = []
    lines: dict[str, int] = {}
    flagged: list[LogLine] = []
    problems: list[str] = []
    reasons: list[str] = []
    try:
        handle = path.open(encoding="utf-8", errors="replace")
    except FileNotFoundError as exc:
        raise LoadgenLogError(f"{shown}: no such file") from exc
    except OSError as exc:
        raise LoadgenLogError(f"{shown}: cannot read: {exc.strerror or exc}") from exc
    with handle:
        for number, raw in enumerate(handle, start=1):
            if not raw.strip():
                continue
            record = _record(raw)
            if isinstance(record, str):
                problems.append(f"{shown}:{number}: {record}")
                if len(problems) >= _MAX_PROBLEMS:
                    break
                continue
            key = record["key"]
            value = record.get("value")
            if key in values and key.startswith(_MEASURED) and key != "result_invalid_reason":
                same = "the same value" if values[key] == value else f"{values[key]!r} before"
                repeated.append(
                    f"{shown}:{number}: {key} = {value!r} logged again (line {lines[key]}, {same})"
                )
            values[key] = value
            lines[key] = number
            if key == "result_invalid_reason" and value:
                reasons.append(str(value).strip())
            meta = record.get("metadata")
            if isinstance(meta, dict) and (meta.get("is_error") or meta.get("is_warning")):
                flagged.append(
                    LogLine(
                        file=shown,
                        line=number,
                        key=("error:" if meta.get("is_error") else "warning:") + key,
                        message=str(value),
                    )
                )
    if problems:
        first = problems[0].removeprefix(f"{shown}:")
        raise LoadgenLogError(
            f"{shown}:{first} ({len(problems)} malformed line(s) in the LoadGen detail log; "
            "truncated or edited)",
            problems,
        )
    if not values:
        raise LoadgenLogError(f"{shown}: no :::MLLOG records (empty or not a LoadGen detail log)")
    values["__invalid_reasons__"] = reasons
    values["__repeated__"] = repeated
    return values, lines, flagged


def _record(raw: str) -> dict[str, Any] | str:
    """A parsed record, or the reason the line is not one."""
    if not raw.startswith(_PREFIX):
        return f"not a :::MLLOG record: {raw.strip()[:60]!r}"
    try:
        record = _DECODER.decode(raw[len(_PREFIX) :])
    except json.JSONDecodeError as exc:
        return f"truncated or invalid JSON: {exc.msg} (column {exc.colno + len(_PREFIX)})"
    except ValueError as exc:
        return str(exc)
    if not isinstance(record, dict) or not isinstance(record.get("key"), str):
        return "a :::MLLOG record without a string 'key'"
    return record


def _finite(text: str) -> float:
    value = float(text)
    if not math.isfinite(value):
        raise ValueError(f"{text} is too large a number (it overflows to infinity)")
    return value


def _no_constant(name: str) -> Any:
    raise ValueError(f"{name} is not a number LoadGen writes (a non-finite value)")


# One decoder for every line: json.loads with these options builds a new one per call, a cost
# per line of a detail log (tens of thousands of lines per MLPerf round).
_DECODER = json.JSONDecoder(parse_constant=_no_constant, parse_float=_finite)


def parse_detail(path: Path, label: str | None = None) -> LoadgenLog:
    """Read ``mlperf_log_detail.txt`` into a LoadgenLog; it and its messages call the file
    ``label`` (default: ``path``)."""
    shown = str(path) if label is None else label
    values, lines, flagged = read_detail_records(path, shown)

    def num(key: str) -> float | None:
        value = values.get(key)
        if isinstance(value, bool) or not isinstance(value, int | float):
            return None
        return float(value)

    settings: dict[str, Any] = {}
    for key, (name, divisor) in _SETTING_KEYS.items():
        value = num(key)
        if value is not None:
            settings[name] = int(value) if name in _INT_SETTINGS else value / divisor
    latency = _percentiles(values, "result_", "_percentile_latency_ns", "result_{}_latency_ns")
    ttft = _percentiles(
        values, "result_first_token_", "_percentile_latency_ns", "result_first_token_{}_latency_ns"
    )
    tpot = _percentiles(
        values, "result_time_per_output_token_", "_percentile_ns", "result_time_to_output_token_{}"
    )
    if scenario_of(values) == "MultiStream":
        # MultiStream's summary, its checker and its table read per-query figures
        per_query = _percentiles(
            values, "result_", "_percentile_per_query_latency_ns", "result_{}_query_latency_ns"
        )
        latency = per_query or latency
    # Only the whole-query block counts: token runs log TTFT and TPOT blocks instead (and an
    # early_stopping_latency_ss that is the TTFT estimate).
    block = values.get("early_stopping_result")
    early = early_stopping_estimate(scenario_of(values), block) if isinstance(block, str) else None
    tokens, inferred = None, False
    for key, is_inferred in _TOKEN_KEYS:
        if num(key) is not None:
            tokens, inferred = num(key), is_inferred
            break
    scenario = values.get("effective_scenario")
    samples = num("result_samples_per_second")
    if samples is None:
        samples = num("result_completed_samples_per_sec")
    if samples is None:
        samples = num("result_qps_without_loadgen_overhead")
    validity = values.get("result_validity")
    flags: dict[str, bool] = {}
    for key, name in _FLAG_KEYS.items():
        if isinstance(values.get(key), bool):
            flags[name] = values[key]
    seeds = _seeds(values, "effective_")
    value, unit = headline(scenario, tokens, samples, latency, early)
    num_errors = num("num_errors")
    query_count = num("result_query_count")
    return LoadgenLog.model_validate(
        {
            "source": "detail",
            "detail_path": shown,
            "loadgen_version": _str(values.get("loadgen_version")),
            "loadgen_git_commit_date": _str(values.get("loadgen_git_commit_date")),
            "test_datetime": _str(values.get("test_datetime")),
            "sut_name": _str(values.get("sut_name")),
            "scenario": scenario if scenario in SCENARIOS else None,
            "test_mode": _str(values.get("effective_test_mode")),
            "validity": validity if validity in ("VALID", "INVALID") else None,
            "invalid_reasons": _reasons(validity, values["__invalid_reasons__"], flags),
            "settings": settings,
            "seeds": seeds,
            "seed_round": round_for_seeds(seeds),
            "query_count": int(query_count) if query_count is not None else None,
            "samples_per_s": samples,
            "scheduled_samples_per_s": num("result_scheduled_samples_per_sec"),
            "tokens_per_s": tokens,
            "tokens_inferred": inferred,
            "headline_value": value,
            "headline_unit": unit,
            "early_stopping_estimate_ms": early,
            "latency_ms": latency,
            "ttft_ms": ttft,
            "tpot_ms": tpot,
            "num_errors": int(num_errors) if num_errors is not None else None,
            "errors": tuple(x for x in flagged if x.key.startswith("error:")),
            "warnings": tuple(x for x in flagged if x.key.startswith("warning:")),
            "repeated_keys": tuple(values["__repeated__"]),
            "lines": lines,
            **flags,
        }
    )


def scenario_of(values: dict[str, Any]) -> str | None:
    """The ``effective_scenario`` a detail log states, if it is a string."""
    scenario = values.get("effective_scenario")
    return scenario if isinstance(scenario, str) else None


def _percentiles(values: dict[str, Any], prefix: str, suffix: str, stat: str) -> dict[str, float]:
    out: dict[str, float] = {}
    for name in ("min", "max", "mean"):
        value = values.get(stat.format(name))
        if isinstance(value, int | float) and not isinstance(value, bool):
            out[name] = value / NS_PER_MS
    for key, value in values.items():
        if key.startswith(prefix) and key.endswith(suffix):
            middle = key[len(prefix) : -len(suffix)]
            if _is_number(middle) and isinstance(value, int | float):
                out[percentile_key(middle)] = value / NS_PER_MS
    return out


def _seeds(values: dict[str, Any], prefix: str) -> Seeds | None:
    found = {name: values.get(f"{prefix}{name}") for name in Seeds.model_fields}
    if not all(isinstance(v, int) and not isinstance(v, bool) for v in found.values()):
        return None
    return Seeds.model_validate(found)


def _reasons(validity: object, logged: list[str], flags: dict[str, bool]) -> tuple[str, ...]:
    """LoadGen's own reasons, else the unmet constraints it flagged."""
    if validity != "INVALID":
        return ()
    if logged:
        return tuple(dict.fromkeys(logged))
    names = {
        "perf_constraints_met": "performance constraints not met",
        "min_duration_met": "minimum duration not met",
        "min_queries_met": "minimum query count not met",
        "early_stopping_met": "early stopping not satisfied",
    }
    unmet = tuple(text for name, text in names.items() if flags.get(name) is False)
    return unmet or ("LoadGen reported INVALID without a reason",)


def _str(value: object) -> str | None:
    return None if value is None else str(value)


def _is_number(text: str) -> bool:
    try:
        float(text)
    except ValueError:
        return False
    return True
