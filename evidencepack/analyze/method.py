"""How a team's own run was made, judged against the traffic and the envelope.

The same methods that make a public result "not comparable with real traffic" keep the team's
own run from sizing: a shared-prefix (cache-hit) or random dataset, fixed lengths, output
lengths forced (``ignore_eos``, ``min_tokens``), speculative decoding the envelope does not
pin, engine settings other than the envelope's (prefix caching, KV-cache dtype, context length),
a run too short or too small for steady state (``fit.min_duration_s``, ``fit.min_requests``),
arrivals of another kind than ``traffic.arrival``, and prompt or output tails (p90/p99 of the
per-request rows) far from the traffic's (``fit.tail_tolerance``). Each is a fit reason.

Where per-request rows exist the steady-state window (from the first response to the last
request sent: warm-up and drain left out) is shown with its figures beside the whole run's, and
a figure that drifts through the window by more than ``DRIFT`` is reported as a range.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field

from ..spec.models import PackSpec
from ..staging.run_profile import RowProfile
from .judgements import RecomputedFigure

Setting = str | int | float | bool | None

SHARED_PREFIX = {"generated-shared-prefix", "prefix_repetition", "prefix-repetition", "sonnet"}
"""Datasets whose prompts share a prefix: the prefix cache answers most of every prompt."""
RANDOM = {"random", "random-ids", "random_ids", "random-mm", "random_mm", "synthetic"}
"""Datasets of random tokens: no real prompt, often fixed lengths."""
PREFIX_KEYS = ("random_prefix_len", "prefix_len", "sonnet_prefix_len")
SPECULATIVE_KEYS = ("accept_length", "acceptance_length", "num_speculative_tokens")
ALIASES: dict[str, tuple[str, ...]] = {
    "enable_prefix_caching": ("enable_prefix_caching", "prefix_caching"),
    "kv_cache_dtype": ("kv_cache_dtype",),
    "max_model_len": ("max_model_len", "context_length", "max_seq_len", "max_seq_length"),
}
"""An envelope setting and the names a run's record may give it."""
BURSTINESS = (0.5, 2.0)
"""vLLM's ``--burstiness`` (gamma shape) inside this band counts as Poisson (1.0 is Poisson;
below is burstier, above is more uniform)."""
DRIFT = 0.25
"""A steady-window figure whose thirds differ by more than 25% drifts: shown as a range."""


@dataclass(frozen=True)
class RunMethod:
    """What a run's file records about how it was made, and its per-request rows' profile."""

    tool: str = ""
    settings: Mapping[str, Setting] = field(default_factory=dict)
    load: str | None = None
    arrival: str | None = None
    burstiness: float | None = None
    duration_s: float | None = None
    requests: int | None = None
    profile: RowProfile | None = None


def _flag(value: Setting) -> bool:
    if isinstance(value, str):
        return value.strip().lower() in ("true", "1", "yes", "on")
    return bool(value)


def _number(value: Setting) -> float | None:
    if isinstance(value, bool) or value is None:
        return None
    try:
        return float(value)
    except ValueError:
        return None


def _setting(settings: Mapping[str, Setting], *names: str) -> Setting:
    for name in names:
        for key in (name, f"sampling.{name}"):
            if key in settings and settings[key] is not None:
                return settings[key]
    return None


def _dataset_reasons(spec: PackSpec, method: RunMethod) -> list[str]:
    settings = method.settings
    raw = _setting(settings, "dataset_name", "dataset")
    name = str(raw).strip().lower() if raw is not None else ""
    traffic = f"not comparable with the {spec.traffic.pattern} traffic"
    out = []
    prefix = next(
        (n for k in PREFIX_KEYS if (n := _number(_setting(settings, k))) is not None and n > 0),
        None,
    )
    if name in SHARED_PREFIX or prefix:
        what = f"dataset {raw}" if name in SHARED_PREFIX else f"a shared prefix of {prefix:g}"
        out.append(
            f"{method.tool} ran prompts with a shared prefix ({what}): the prefix cache "
            f"answers most of each prompt, {traffic}"
        )
    if name in RANDOM:
        ratio = _number(_setting(settings, "random_range_ratio"))
        fixed = ", fixed length" if ratio == 0 else ""
        out.append(f"{method.tool} ran random prompts ({raw}{fixed}): synthetic traffic, {traffic}")
    if _flag(_setting(settings, "ignore_eos")):
        out.append(
            f"{method.tool} ran with output length forced (--ignore-eos): synthetic traffic, "
            f"{traffic}"
        )
    elif (least := _number(_setting(settings, "min_tokens"))) is not None and least > 1:
        out.append(
            f"{method.tool} ran with output length forced (min_tokens {least:g}): synthetic "
            f"traffic, {traffic}"
        )
    return out


def _speculative_reason(spec: PackSpec, method: RunMethod) -> str | None:
    pinned = spec.envelope.settings
    pins = (*SPECULATIVE_KEYS, "speculative_config", "speculative_algorithm")
    if any(k in pinned for k in pins):
        return None
    accept = _number(_setting(method.settings, "accept_length", "acceptance_length"))
    tokens = _number(
        _setting(method.settings, "num_speculative_tokens", "speculative_num_draft_tokens")
    )
    algorithm = _setting(method.settings, "speculative_algorithm")
    if accept is not None and accept > 1:
        what = f"an acceptance length of {accept:g}"
    elif tokens:
        what = f"{tokens:g} speculative tokens"
    elif algorithm is not None and str(algorithm).strip().lower() not in ("", "none"):
        what = f"speculative algorithm {algorithm}"
    else:
        return None
    return (
        f"speculative decoding ({what}): its speed rests on how well the draft guesses these "
        "prompts, and the envelope pins no speculative decoding (envelope.settings)"
    )


def _same(pinned: Setting, recorded: Setting) -> bool:
    if isinstance(pinned, bool):
        return pinned == _flag(recorded)
    a, b = _number(pinned), _number(recorded)
    if a is not None and b is not None:
        return a == b
    return str(pinned).strip().lower() == str(recorded).strip().lower()


def _recorded(settings: Mapping[str, Setting], key: str) -> Setting:
    """What a run records for an envelope setting, under any of its names (SGLang's
    ``disable_radix_cache`` is prefix caching turned off)."""
    recorded = _setting(settings, *ALIASES.get(key, (key,)))
    if recorded is None and key == "enable_prefix_caching":
        disabled = _setting(settings, "disable_radix_cache")
        recorded = None if disabled is None else not _flag(disabled)
    return recorded


def _settings_reasons(spec: PackSpec, method: RunMethod) -> list[str]:
    out = []
    for key, pinned in sorted(spec.envelope.settings.items()):
        recorded = _recorded(method.settings, key)
        if recorded is None or _same(pinned, recorded):
            continue
        out.append(f"the run records {key} {recorded!s}; the envelope pins {pinned!s}")
    return out


def _shape_reasons(spec: PackSpec, method: RunMethod) -> list[str]:
    out = []
    fit = spec.fit
    span = method.duration_s
    if span is None and method.profile is not None:
        span = method.profile.span_s
    if span is not None and span < fit.min_duration_s:
        out.append(
            f"ran {span:.1f} s, under fit.min_duration_s ({fit.min_duration_s:g} s): too short "
            "to show a rate it can hold"
        )
    if method.requests is not None and method.requests < fit.min_requests:
        out.append(f"sent {method.requests} requests, under fit.min_requests ({fit.min_requests})")
    profile = method.profile
    if profile is not None and profile.window_s is not None and profile.window_s <= 0:
        out.append(
            "no steady state: every request was sent before the first response came back (a burst)"
        )
    return out


def _arrival_reason(spec: PackSpec, method: RunMethod) -> str | None:
    wanted = spec.traffic.arrival
    if wanted == "any" or method.load != "open_loop":
        return None
    burst = method.burstiness
    if method.arrival == "constant" or (burst is not None and burst > BURSTINESS[1]):
        kind = "uniform"
        what = "constant-rate" if burst is None else f"near-uniform (burstiness {burst:g})"
    elif burst is not None and burst < BURSTINESS[0]:
        kind, what = "bursty", f"bursty (burstiness {burst:g})"
    elif method.arrival == "trace":
        return None
    else:
        kind, what = "poisson", "Poisson"
    if kind == wanted:
        return None
    return f"{what} arrivals; the traffic's are {wanted} (traffic.arrival)"


def _tail_reasons(spec: PackSpec, method: RunMethod) -> list[str]:
    profile = method.profile
    if profile is None:
        return []
    tolerance = spec.fit.tail_tolerance
    out = []
    for name, lengths, got in (
        ("prompt", spec.traffic.input_tokens, (profile.input_p90, profile.input_p99)),
        ("output", spec.traffic.output_tokens, (profile.output_p90, profile.output_p99)),
    ):
        for label, wanted, value in (("p90", lengths.p90, got[0]), ("p99", lengths.p99, got[1])):
            if wanted is None or value is None:
                continue
            if abs(value - wanted) > tolerance * wanted:
                out.append(
                    f"{name} length {label} {value:,.0f} tokens (its per-request rows); the "
                    f"traffic's is {wanted:,.0f} (fit.tail_tolerance {tolerance:.0%})"
                )
    return out


def judge_method(spec: PackSpec, method: RunMethod) -> tuple[list[str], list[str]]:
    """Why a run's method keeps it from sizing this traffic, and what to know about it."""
    reasons = _dataset_reasons(spec, method)
    if (speculative := _speculative_reason(spec, method)) is not None:
        reasons.append(speculative)
    reasons += _settings_reasons(spec, method)
    reasons += _shape_reasons(spec, method)
    if (arrival := _arrival_reason(spec, method)) is not None:
        reasons.append(arrival)
    reasons += _tail_reasons(spec, method)
    notes = []
    if method.profile is None:
        notes.append(
            "no per-request rows: warm-up and drain are inside its figures, and only mean token "
            "lengths are compared"
        )
    else:
        notes += drift_notes(method.profile)
    return reasons, notes


def _spread(values: tuple[float | None, ...]) -> tuple[float, float] | None:
    seen = [v for v in values if v is not None]
    if len(seen) < 2 or min(seen) <= 0:
        return None
    low, high = min(seen), max(seen)
    return (low, high) if high > low * (1 + DRIFT) else None


def drift_notes(profile: RowProfile) -> list[str]:
    """The steady-window figures that drift through the run, each as a range."""
    notes = []
    if (ttft := _spread(profile.thirds_ttft_p50_ms)) is not None:
        notes.append(
            f"median TTFT drifts through the steady window: {ttft[0]:,.1f}..{ttft[1]:,.1f} ms "
            "over its thirds (a range, not one figure)"
        )
    if (rate := _spread(profile.thirds_rate_rps)) is not None:
        notes.append(
            f"the completion rate drifts through the steady window: {rate[0]:.3f}.."
            f"{rate[1]:.3f} req/s over its thirds (a range, not one figure)"
        )
    return notes


def steady_figures(
    profile: RowProfile | None, whole_rate: float | None, whole_ttft_p99: float | None
) -> list[RecomputedFigure]:
    """The steady-state window's rate and TTFT p99 beside the whole run's."""
    if profile is None or profile.window_s is None or profile.window_s <= 0:
        return []
    start, end = profile.window_start_s or 0.0, profile.window_end_s or 0.0
    window = f"from the first response ({start:.1f} s) to the last request sent ({end:.1f} s)"
    out = [
        RecomputedFigure(
            figure="steady-state request throughput",
            stated=whole_rate,
            recomputed=profile.window_rate_rps,
            unit="req/s",
            how=f"{profile.window_completed} completions {window} / {profile.window_s:.4g} s "
            "(stated: the whole run's)",
        )
    ]
    if profile.window_ttft_p99_ms is not None:
        out.append(
            RecomputedFigure(
                figure="steady-state TTFT p99",
                stated=whole_ttft_p99,
                recomputed=profile.window_ttft_p99_ms,
                unit="ms",
                how=f"the requests sent {window} (stated: the whole run's)",
            )
        )
    return out
