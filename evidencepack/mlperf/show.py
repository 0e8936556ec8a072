"""``mlperf show KEY``: one stored result in full, and why its checks passed or failed.

Prints the result's figures, its system and software stack, its accuracy, and every rule that
was re-applied, with the limit and the measured value side by side; a rule that could not run
(no round, an open-division accuracy bound, a file not published) says "not checked" and why.
"""

from __future__ import annotations

from ..store import Store
from .energy import energy_figures
from .models import CheckRow, MlperfResult
from .query import load_results, unknown_key

_STATUS = {"pass": "pass", "fail": "FAIL", "skip": "not checked"}


def find_result(store: Store, key: str) -> MlperfResult:
    """The stored result with this key; an unknown key names the nearest ones."""
    found = load_results(store, [key])
    if found:
        return found[0]
    raise unknown_key(store, "mlperf_results", key)


def describe(result: MlperfResult) -> str:
    """The text ``mlperf show`` prints."""
    lines = [shown(result.key), ""]
    lines += _section("result", _result_fields(result))
    lines += _section("system", _system_fields(result))
    if result.power is not None:
        lines += _section("power", _power_fields(result))
    if result.accuracy:
        metrics = ", ".join(f"{k} {v:g}" for k, v in sorted(result.accuracy.items()))
        lines += _section("accuracy", [("metrics", metrics), ("TEST06", result.test06 or "-")])
    lines += ["checks:"] + _checks(result) + [""]
    if result.notes:
        lines += ["notes:"] + [f"  {shown(note)}" for note in result.notes] + [""]
    lines += ["files:"] + [
        f"  {shown(s.role):<13} {shown(s.path)}  sha256 {shown(s.sha256[:16])}"
        for s in result.sources
    ]
    return "\n".join(lines)


def shown(text: str) -> str:
    """Text from the evidence made safe for one terminal line: every control, line separator,
    bidi and invisible (format) character written as a visible ``\\uXXXX`` escape, so the
    terminal shows what the files hold and no value can move the cursor, reorder text or
    start a line of its own."""
    return "".join(
        char if char == " " or char.isprintable() else _escape(char) for char in str(text)
    )


def _escape(char: str) -> str:
    code = ord(char)
    return f"\\u{code:04x}" if code <= 0xFFFF else f"\\U{code:08x}"


def _result_fields(r: MlperfResult) -> list[tuple[str, str]]:
    round_text = r.round or "none (no round named, found in a folder name or the seeds)"
    if r.round and r.round_source:
        round_text += f" (from the {r.round_source})"
    fields = [
        ("round", round_text),
        ("division", r.division or "-"),
        ("submitter", r.submitter or "-"),
        ("benchmark", f"{r.benchmark or '?'} (folder {r.benchmark_dir})"),
        ("scenario", r.scenario + _filed_as(r)),
        (
            "validity",
            r.validity + (f": {'; '.join(r.invalid_reasons)}" if r.invalid_reasons else ""),
        ),
        ("headline", _value(r.headline_value, r.headline_unit) + _label(r)),
        ("tokens/s", _value(r.tokens_per_s, "(inferred)" if r.tokens_inferred else "")),
        ("samples/s", _value(r.samples_per_s, "")),
        ("TTFT p99", _limited(r.ttft_p99_ms, r.ttft_limit_ms)),
        ("TPOT p99", _limited(r.tpot_p99_ms, r.tpot_limit_ms)),
        ("latency p99", _value(r.latency_ms.get("p99"), "ms")),
        ("target QPS", _value(r.target_qps, "")),
        ("queries", "-" if r.query_count is None else str(r.query_count)),
        ("LoadGen", f"{r.loadgen_version or '?'}, read from the {r.log_source} log"),
        ("seeds of", r.seed_round or "no known round"),
    ]
    return fields


def _filed_as(r: MlperfResult) -> str:
    folder = r.key.rsplit("/", 1)[-1]
    if r.key.startswith("loadgen/") or folder == r.scenario:
        return ""
    return f" (LoadGen ran {folder}; the folder {r.benchmark_dir}/{folder} names it {r.scenario})"


def _system_fields(r: MlperfResult) -> list[tuple[str, str]]:
    hardware = "-"
    if r.accelerator or r.accelerators_total is not None:
        hardware = (
            f"{r.accelerators_total if r.accelerators_total is not None else '?'} x "
            f"{r.accelerator or '?'} ({r.nodes or '?'} node(s) x "
            f"{r.accelerators_per_node if r.accelerators_per_node is not None else '?'})"
        )
    stack = [*r.runtime, *r.platform]
    fields = [
        ("system", r.system_name or r.system or "-"),
        ("accelerators", hardware),
        ("precision", r.precision or r.precision_raw or "-"),
        (
            "stack",
            ", ".join(f"{c.name} {c.version or ''}".strip() + f" ({c.kind})" for c in stack) or "-",
        ),
        ("stack text", r.stack_raw or "-"),
    ]
    if len(r.accelerator_types) > 1:  # a system mixing accelerator types (v6.1)
        mix = ", ".join(
            f"{t.per_node if t.per_node is not None else '?'} x {t.name}"
            for t in r.accelerator_types
        )
        fields.insert(2, ("per node", mix))
    if r.design_power_watts is not None:
        fields.append(("design power", _value(r.design_power_watts, "W")))
    return fields


def _power_fields(r: MlperfResult) -> list[tuple[str, str]]:
    p = r.power
    assert p is not None
    energy = energy_figures(r)
    source = (
        f"measured: {p.readings} reading(s) of {p.readings_path}"
        if p.source == "measured"
        else f"the official table only ({p.table_row})"
    )
    fields = [
        ("figure", _value(p.metric_value, p.metric_unit)),
        ("average", _value(p.average_watts, "W")),
        ("scope", p.scope),
        ("per token", _value(p.joules_per_token, "J")),
        ("per 1M tokens", _value(energy.kwh_per_million_tokens, "kWh") if energy else "-"),
        ("per sample", _value(p.joules_per_sample, "J")),
        ("window", f"{p.window_begin} .. {p.window_end} ({_value(p.window_s, 's')})"),
        ("source", source),
        ("table", f"{_value(p.table_value, p.table_unit)} ({p.table_row})" if p.table_row else "-"),
        ("design", _value(r.design_power_watts, "W")),
    ]
    return [(k, v) for k, v in fields if v and not v.startswith("None")]


def _checks(result: MlperfResult) -> list[str]:
    lines = []
    for row in result.checks:
        lines.append(f"  {_STATUS[row.status]:<12} {shown(row.rule)}")
        lines.append(f"      limit    {shown(row.expected)}")
        lines.append(f"      measured {shown(row.actual)}{_why_not(row)}")
        if row.source:
            lines.append(f"      source   {shown(row.source)}")
    if result.round is None:
        lines.append(
            "  not checked  every rule of a round: no round is known for this result "
            "(import it with --round)"
        )
    return lines


def _why_not(row: CheckRow) -> str:
    if row.status != "skip":
        return ""
    if "closed division only" in row.expected:
        return " (an open-division result: the bound binds the closed division only)"
    return ""


def _section(title: str, fields: list[tuple[str, str]]) -> list[str]:
    width = max(len(name) for name, _ in fields)
    return [f"{title}:"] + [f"  {name:<{width}}  {shown(value)}" for name, value in fields] + [""]


def _value(value: float | None, unit: str | None) -> str:
    return "-" if value is None else f"{value:.6g} {unit or ''}".rstrip()


def _label(r: MlperfResult) -> str:
    """The official table's unit label beside the physical unit, where the two differ."""
    label, unit = r.official_unit_label, r.headline_unit
    if not label or not unit or label.lower() == unit.lower():
        return ""
    return f" (the official table labels it {label}; the figure is {unit})"


def _limited(value: float | None, limit: float | None) -> str:
    text = _value(value, "ms")
    return text if limit is None else f"{text} (limit {limit:g} ms)"
