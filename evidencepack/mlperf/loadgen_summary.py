"""``mlperf_log_summary.txt`` in its LoadGen 4.0 to 6.0 label variants, and its cross-check.

The summary is a human printout whose labels drift between versions ("Min Time to Output
Token" in 4.x/5.x, "Min Time per Output Token" in 6.0; "(inferred)" tokens for gptj), so it is
read only where no detail log exists or to check one.
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass, field
from pathlib import Path

from ..core.problems import Problem
from .loadgen_log import (
    NS_PER_MS,
    SCENARIOS,
    LoadgenLog,
    LoadgenLogError,
    early_stopping_estimate,
    headline,
    percentile_key,
)
from .rounds import Seeds, round_for_seeds

_NUMBER = r"(-?\d+(?:\.\d+)?(?:[eE][-+]?\d+)?)"

_DIGIT = "0123456789."
# (pattern, field, the ASCII characters a matching line can start with); a field's first match
# wins, so the headline block beats "Additional Stats".
_PATTERNS: tuple[tuple[re.Pattern[str], str, str], ...] = tuple(
    (re.compile(pattern, re.IGNORECASE), name, starts)
    for pattern, name, starts in (
        (r"^SUT name\s*:\s*(.+)$", "sut_name", "s"),
        (r"^Scenario\s*:\s*(\w+)$", "scenario", "s"),
        (r"^Mode\s*:\s*(\w+)$", "test_mode", "m"),
        (r"^Result is\s*:\s*(\w+)$", "validity", "r"),
        (rf"^(?:Completed )?samples per second\s*:\s*{_NUMBER}$", "samples_per_s", "cs"),
        (rf"^Scheduled samples per second\s*:\s*{_NUMBER}$", "scheduled_samples_per_s", "s"),
        (rf"^QPS w/o loadgen overhead\s*:\s*{_NUMBER}$", "samples_per_s", "q"),
        (
            rf"^(?:Completed )?tokens per second\s*(\(inferred\))?\s*:\s*{_NUMBER}$",
            "tokens",
            "ct",
        ),
        (r"^Performance constraints satisfied\s*:\s*(\w+)$", "perf_constraints_met", "p"),
        (r"^Min duration satisfied\s*:\s*(\w+)$", "min_duration_met", "m"),
        (r"^Min queries satisfied\s*:\s*(\w+)$", "min_queries_met", "m"),
        (r"^Early stopping satisfied\s*:\s*(\w+)$", "early_stopping_met", "e"),
        (rf"^(Min|Max|Mean) latency \(ns\)\s*:\s*{_NUMBER}$", "latency", "m"),
        (rf"^([\d.]+) percentile latency \(ns\)\s*:\s*{_NUMBER}$", "latency", _DIGIT),
        (rf"^([\d.]+)th percentile latency \(ns\)\s*:\s*{_NUMBER}$", "latency", _DIGIT),
        (rf"^(Min|Max|Mean) First Token latency \(ns\)\s*:\s*{_NUMBER}$", "ttft", "m"),
        (rf"^([\d.]+) percentile first token latency \(ns\)\s*:\s*{_NUMBER}$", "ttft", _DIGIT),
        (rf"^(Min|Max|Mean) Time (?:to|per) Output Token \(ns\)\s*:\s*{_NUMBER}$", "tpot", "m"),
        (
            rf"^([\d.]+) percentile time (?:to|per) output token \(ns\)\s*:\s*{_NUMBER}$",
            "tpot",
            _DIGIT,
        ),
        # "No errors encountered during test." is LoadGen's zero, "3 ERRORS encountered" a count
        (r"^(No|\d+) warnings? encountered", "warning_count", "n" + _DIGIT),
        (r"^(No|\d+) ERRORS? encountered", "error_count", "n" + _DIGIT),
    )
)
# The patterns a line may match, by its first character: a summary line is tried against the
# few that can match it, not all 21 (a regex per line and key was most of a summary's parse).
# A line starting with a character outside ASCII is tried against all (\d and IGNORECASE
# reach beyond ASCII).
_BY_FIRST: dict[str, tuple[tuple[re.Pattern[str], str], ...]] = {
    char: tuple((pattern, name) for pattern, name, starts in _PATTERNS if char in starts)
    for char in {c for _, _, starts in _PATTERNS for c in starts}
}
_ALL = tuple((pattern, name) for pattern, name, _ in _PATTERNS)
_PARAMETER = re.compile(rf"^(\w+)(?: \((ns|ms)\))?\s*:\s*{_NUMBER}$")
_PARAMETER_FIELDS: dict[str, tuple[str, float]] = {
    "target_qps": ("target_qps", 1.0),
    "target_latency": ("target_latency_ms", NS_PER_MS),
    "ttft_latency": ("ttft_latency_ms", NS_PER_MS),
    "tpot_latency": ("tpot_latency_ms", NS_PER_MS),
    "min_duration": ("min_duration_ms", 1.0),
    "max_duration": ("max_duration_ms", 1.0),
    "min_query_count": ("min_query_count", 1.0),
    "max_query_count": ("max_query_count", 1.0),
    "samples_per_query": ("samples_per_query", 1.0),
    "performance_sample_count": ("performance_sample_count", 1.0),
    "max_async_queries": ("max_async_queries", 1.0),
}
_FLOAT_SETTINGS = {"target_qps", "target_latency_ms", "ttft_latency_ms", "tpot_latency_ms"}


@dataclass
class SummaryValue:
    """A number as printed: its value, decimals shown, and line."""

    value: float | int
    decimals: int
    line: int


@dataclass
class RawSummary:
    """The summary as read, before it becomes a LoadgenLog; keeps printed precision for checks.
    ``path`` is the file as messages name it."""

    path: Path | str
    text: dict[str, tuple[str, int]] = field(default_factory=dict)
    numbers: dict[str, SummaryValue] = field(default_factory=dict)
    parameters: dict[str, SummaryValue] = field(default_factory=dict)
    recommendations: list[str] = field(default_factory=list)
    tokens_inferred: bool = False
    # the whole-query "Early Stopping Result:" block (not the TTFT/TPOT ones) and its first line
    early_stopping: list[str] = field(default_factory=list)
    early_stopping_line: int = 0
    # a complete summary ends with LoadGen's "... encountered during test" lines
    closed: bool = False
    last_line: int = 0

    @property
    def has_results(self) -> bool:
        """False for the near-empty summary an accuracy-mode run writes."""
        return "scenario" in self.text

    def to_log(self) -> LoadgenLog:
        """The summary as the only source; raises if it holds no results or is cut short."""
        if not self.has_results:
            raise LoadgenLogError(
                f"{self.path}: no results in this LoadGen summary (no 'Scenario' line; an "
                "accuracy-mode run or not a summary) and no detail log beside it"
            )
        missing = [
            what
            for what, present in (
                ("the 'Result is' line", "validity" in self.text),
                ("the 'Test Parameters Used' section", bool(self.parameters)),
                ("the closing '... encountered during test' lines", self.closed),
            )
            if not present
        ]
        if missing:
            raise LoadgenLogError(
                f"{self.path}:{self.last_line}: the summary ends here without "
                f"{' or '.join(missing)}: truncated, its figures incomplete"
            )

        def flag(name: str) -> bool | None:
            found = self.text.get(name)
            return None if found is None else found[0].lower() == "yes"

        def num(name: str) -> float | None:
            found = self.numbers.get(name)
            return None if found is None else float(found.value)

        latency, ttft, tpot = (self._stats(prefix) for prefix in ("latency", "ttft", "tpot"))
        scenario = self._text("scenario")
        if scenario is not None:
            scenario = {s.lower(): s for s in SCENARIOS}.get(scenario.lower(), scenario)
        validity = self._text("validity")
        validity = validity.upper() if validity else None
        settings: dict[str, float | int] = {}
        for key, (name, divisor) in _PARAMETER_FIELDS.items():
            if key in self.parameters:
                value = self.parameters[key].value / divisor
                settings[name] = value if name in _FLOAT_SETTINGS else int(value)
        seeds = None
        if all(name in self.parameters for name in Seeds.model_fields):
            seeds = Seeds.model_validate({n: self.parameters[n].value for n in Seeds.model_fields})
        flags: dict[str, bool] = {}
        for name in (
            "perf_constraints_met",
            "min_duration_met",
            "min_queries_met",
            "early_stopping_met",
        ):
            if (found := flag(name)) is not None:
                flags[name] = found
        reasons: tuple[str, ...] = ()
        if validity == "INVALID":
            reasons = tuple(self.recommendations) or tuple(
                f"{name.replace('_', ' ')}: NO" for name, met in flags.items() if not met
            )
            reasons = reasons or ("LoadGen reported INVALID without a reason",)
        tokens = num("tokens")
        samples = num("samples_per_s")
        early = early_stopping_estimate(scenario, " ".join(self.early_stopping))
        headline_value, unit = headline(scenario, tokens, samples, latency, early)
        errors = num("error_count")
        return LoadgenLog.model_validate(
            {
                "source": "summary",
                "summary_path": str(self.path),
                "sut_name": self._text("sut_name"),
                "scenario": scenario if scenario in SCENARIOS else None,
                "test_mode": self._text("test_mode"),
                "validity": validity if validity in ("VALID", "INVALID") else None,
                "invalid_reasons": reasons,
                "settings": settings,
                "seeds": seeds,
                "seed_round": round_for_seeds(seeds),
                "samples_per_s": samples,
                "scheduled_samples_per_s": num("scheduled_samples_per_s"),
                "tokens_per_s": tokens,
                "tokens_inferred": self.tokens_inferred,
                "headline_value": headline_value,
                "headline_unit": unit,
                "early_stopping_estimate_ms": early,
                "latency_ms": latency,
                "ttft_ms": ttft,
                "tpot_ms": tpot,
                "num_errors": int(errors) if errors is not None else None,
                "lines": {k: v.line for k, v in self.numbers.items()}
                | {k: v[1] for k, v in self.text.items()}
                | ({"num_errors": self.numbers["error_count"].line} if errors is not None else {}),
                **flags,
            }
        )

    def _text(self, name: str) -> str | None:
        found = self.text.get(name)
        return found[0] if found else None

    def _stats(self, prefix: str) -> dict[str, float]:
        cut = len(prefix) + 1
        return {
            key[cut:]: value.value / NS_PER_MS
            for key, value in self.numbers.items()
            if key.startswith(prefix + ":")
        }


def parse_summary_raw(path: Path, name: str | None = None) -> RawSummary:
    """Read a summary; raise LoadgenLogError if it is not one."""
    shown = str(path) if name is None else name
    try:
        text = path.read_text(encoding="utf-8", errors="replace")
    except FileNotFoundError as exc:
        raise LoadgenLogError(f"{shown}: no such file") from exc
    except OSError as exc:
        raise LoadgenLogError(f"{shown}: cannot read: {exc.strerror or exc}") from exc
    try:
        return _parse_lines(shown, text)
    except _Overflow as exc:
        raise LoadgenLogError(f"{shown}:{exc.line}: {exc} (not a number LoadGen writes)") from exc


class _Overflow(ValueError):
    def __init__(self, text: str, line: int) -> None:
        super().__init__(f"{text} overflows to infinity")
        self.line = line


def _parse_lines(path: Path | str, text: str) -> RawSummary:
    raw = RawSummary(path=path)
    section = ""
    in_recommendations = False
    in_early_stopping = False
    for number, line in enumerate(text.splitlines(), start=1):
        stripped = line.strip()
        if stripped:
            raw.last_line = number
        if "encountered during test" in stripped or "encountered. See detailed log" in stripped:
            raw.closed = True
        if stripped in ("Additional Stats", "Test Parameters Used", "MLPerf Results Summary"):
            section = stripped
            continue
        if stripped.endswith("Early Stopping Result:"):
            in_recommendations = False
            in_early_stopping = stripped == "Early Stopping Result:"
            raw.early_stopping_line = number if in_early_stopping else raw.early_stopping_line
            continue
        if in_early_stopping:
            if stripped.startswith("*"):
                raw.early_stopping.append(stripped)
                continue
            in_early_stopping = False
        if in_recommendations:
            if stripped.startswith("*"):
                raw.recommendations.append(stripped.lstrip("* ").strip())
                continue
            in_recommendations = False
        if stripped == "Recommendations:":
            in_recommendations = True
            continue
        if section == "Test Parameters Used":
            match = _PARAMETER.match(stripped)
            if match:
                if match.group(1) not in raw.parameters:
                    raw.parameters[match.group(1)] = _value(match.group(3), number)
                continue
            # the closing "... encountered" lines follow the parameters
        _match_line(raw, stripped, number)
    return raw


def _match_line(raw: RawSummary, stripped: str, number: int) -> None:
    first = stripped[:1]
    candidates = _BY_FIRST.get(first.lower(), ()) if first.isascii() else _ALL
    for pattern, name in candidates:
        match = pattern.match(stripped)
        if not match:
            continue
        groups = match.groups()
        if name in ("latency", "ttft", "tpot"):
            label = groups[0].lower()
            key = f"{name}:{label if label in ('min', 'max', 'mean') else percentile_key(label)}"
            raw.numbers.setdefault(key, _value(groups[1], number))
        elif name == "tokens":
            if "tokens" not in raw.numbers:
                raw.numbers["tokens"] = _value(groups[1], number)
                raw.tokens_inferred = groups[0] is not None
        elif name in ("warning_count", "error_count"):
            count = "0" if groups[0].lower() == "no" else groups[0]
            raw.numbers.setdefault(name, _value(count, number))
        elif name in ("samples_per_s", "scheduled_samples_per_s"):
            raw.numbers.setdefault(name, _value(groups[0], number))
        else:
            raw.text.setdefault(name, (groups[0].strip(), number))
        return


def _value(text: str, line: int) -> SummaryValue:
    if text.lstrip("-").isdigit():
        # Seeds are 64-bit: a float would lose their low digits.
        return SummaryValue(int(text), 0, line)
    decimals = len(text.split(".", 1)[1]) if "." in text and "e" not in text.lower() else 0
    value = float(text)
    if not math.isfinite(value):
        raise _Overflow(text, line)
    return SummaryValue(value, decimals, line)


# --- cross-check ----------------------------------------------------------------------------


def _close(detail: float, printed: SummaryValue, scale: float = 1.0) -> bool:
    """Equal to the summary's printed precision (and the detail log's 6 significant digits)."""
    target = printed.value / scale
    tolerance = max(0.5 * 10.0**-printed.decimals / scale, 1e-5 * abs(detail)) * 1.0001
    return abs(detail - target) <= tolerance


def cross_check(log: LoadgenLog, raw: RawSummary) -> list[Problem]:
    """Every value the summary prints that disagrees with the detail log: a ``Problem`` at the
    summary's line whose ``field`` is the figure (its text ``file:line: figure is ...``)."""
    problems: list[Problem] = []

    def differ(label: str, summary_line: int, summary_value: object, detail_value: object) -> None:
        message = (
            f"{label} is {summary_value} in the summary but {detail_value} in the detail log "
            f"({log.detail_path})"
        )
        problems.append(
            Problem(
                file=str(raw.path),
                line=summary_line,
                field=label,
                code="summary_disagrees",
                message=message,
                text=f"{raw.path}:{summary_line}: {message}",
            )
        )

    if not raw.has_results:
        return problems
    summary = raw.to_log()
    for name in ("scenario", "validity", "test_mode"):
        ours, theirs = getattr(log, name), getattr(summary, name)
        if ours is not None and theirs is not None and ours != theirs:
            differ(name, raw.text[name][1], theirs, ours)
    checks: list[tuple[str, float | None, SummaryValue | None, float]] = [
        ("tokens per second", log.tokens_per_s, raw.numbers.get("tokens"), 1.0),
        ("samples per second", log.samples_per_s, raw.numbers.get("samples_per_s"), 1.0),
    ]
    for stat in ("latency", "ttft", "tpot"):
        values = {"latency": log.latency_ms, "ttft": log.ttft_ms, "tpot": log.tpot_ms}[stat]
        checks.extend(
            (f"{stat} {key} (ms)", values.get(key), raw.numbers.get(f"{stat}:{key}"), NS_PER_MS)
            for key in ("p50", "p90", "p99", "p99.9")
        )
    for label, ours, printed, scale in checks:
        if ours is not None and printed is not None and not _close(ours, printed, scale):
            differ(label, printed.line, printed.value / scale, ours)
    ours_es, theirs_es = log.early_stopping_estimate_ms, summary.early_stopping_estimate_ms
    if ours_es is not None and theirs_es is not None and abs(ours_es - theirs_es) > 1e-6:
        differ("the early-stopping estimate (ms)", raw.early_stopping_line, theirs_es, ours_es)
    if log.seeds is not None and summary.seeds is not None and log.seeds != summary.seeds:
        differ("the RNG seeds", raw.parameters["qsl_rng_seed"].line, summary.seeds, log.seeds)
    return problems
