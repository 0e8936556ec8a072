"""Provisioned power of an MLPerf Endpoints system (``system_power.json``), with its tier.

Two shapes are read. The docs' flat groups (``cpu``/``accelerator``/``scale_up_network``/
``scale_out_network``, each ``count`` x ``tdp_per_unit``, plus ``overhead_fraction``, or a
declared ``provisioned_power_w``) and the checker's ``node_sets[]`` (``power_method``
``component_sum`` with ``components`` per node, ``declared_provisioned_power``, or
``node_scaling``: a published rack figure x nodes provisioned / nodes in the rack; ``scale_out``
NICs and switches; ``cooling`` liquid or air). The total (rules §4.5.2):

    declared total                                   if stated          -> tier declared
    (CPU + accelerators + scale-up [+ scale-out]) x (1 + 0.30 liquid / 0.50 air)
                                                     from component TDPs -> tier computed
    any value from MLCommons' defaults (source_type mlc_default)         -> tier mlc_estimated

Worked example (docs): 2 x 350 W + 8 x 700 W + 3,500 W, liquid: 9,800 x 1.30 = 12,740 W.
"""

from __future__ import annotations

from typing import Any

from .endpoints_models import EndpointsPower, PowerTier

OVERHEAD = {"liquid": 0.30, "air": 0.50}


def _watts(value: Any) -> tuple[float | None, bool]:
    """A ``{value_w | value_kw, source_type}`` figure (or a bare number): watts, and whether
    it is MLCommons' default rather than the submitter's."""
    if isinstance(value, bool):
        return None, False
    if isinstance(value, int | float):
        return float(value), False
    if not isinstance(value, dict):
        return None, False
    estimated = value.get("source_type") == "mlc_default"
    for field, scale in (("value_w", 1.0), ("value_kw", 1000.0)):
        got = value.get(field)
        if isinstance(got, int | float) and not isinstance(got, bool):
            return float(got) * scale, estimated
    return None, estimated


def _overhead(data: dict[str, Any]) -> tuple[str | None, float | None]:
    cooling = data.get("cooling")
    cooling = str(cooling).lower() if isinstance(cooling, str) else None
    stated = data.get("overhead_fraction")
    if isinstance(stated, int | float) and not isinstance(stated, bool):
        return cooling, float(stated)
    return cooling, OVERHEAD.get(cooling or "")


def _flat(data: dict[str, Any], path: str | None) -> EndpointsPower:
    cooling, overhead = _overhead(data)
    parts: dict[str, float] = {}
    problems: list[str] = []
    for group in ("cpu", "accelerator", "scale_up_network", "scale_out_network"):
        spec = data.get(group)
        if spec is None:
            if group in ("cpu", "accelerator"):
                problems.append(f"{group} is absent")
            continue
        count, tdp = (
            (spec.get("count"), spec.get("tdp_per_unit"))
            if isinstance(spec, dict)
            else (None, None)
        )
        watts, _ = _watts(tdp)
        if not isinstance(count, int | float) or watts is None:
            problems.append(f"{group} needs count and tdp_per_unit")
            continue
        parts[group] = float(count) * watts
    if overhead is None:
        problems.append("no overhead_fraction and no cooling (liquid 0.30, air 0.50)")
    total = None if problems else sum(parts.values()) * (1 + (overhead or 0.0))
    return EndpointsPower(
        watts=total,
        tier=None if total is None else "computed",
        cooling=cooling,
        overhead_fraction=overhead,
        components_w=parts,
        problems=tuple(problems),
        path=path,
    )


def _node_set(
    node_set: dict[str, Any], label: str
) -> tuple[dict[str, float], bool, list[str], bool]:
    """One node set: watts per group before overhead, whether any value is MLC's estimate,
    problems, and whether the figure is a declared one (no overhead applied)."""
    nodes = node_set.get("nodes_provisioned", 1)
    nodes = nodes if isinstance(nodes, int) and nodes > 0 else 1
    method = node_set.get("power_method", "component_sum")
    parts: dict[str, float] = {}
    problems: list[str] = []
    estimated = False
    if method == "declared_provisioned_power":
        watts, estimated = _watts(node_set.get("declared_provisioned_power"))
        if watts is None:
            problems.append(f"{label}: declared_provisioned_power must give value_kw or value_w")
        else:
            parts["declared"] = watts
        return parts, estimated, problems, True
    if method == "node_scaling":
        watts, estimated = _watts(node_set.get("published_power"))
        rack = node_set.get("nodes_in_published_rack")
        if watts is None or not isinstance(rack, int) or rack <= nodes:
            problems.append(
                f"{label}: node_scaling requires published_power and nodes_in_published_rack "
                f"greater than nodes_provisioned ({nodes})"
            )
        else:
            parts["rack_scaled"] = watts * nodes / rack
        return parts, estimated, problems, True
    components = node_set.get("components")
    if not isinstance(components, dict):
        return {}, False, [f"{label}: component_sum requires components"], False
    for group in ("cpu", "accelerator"):
        spec = components.get(group)
        if not isinstance(spec, dict):
            problems.append(f"{label}: {group} is absent (MLCommons' default is not known here)")
            continue
        watts, mlc = _watts(spec.get("tdp_per_unit"))
        count = spec.get("count_per_node")
        if watts is None or not isinstance(count, int | float):
            problems.append(f"{label}: {group} needs count_per_node and tdp_per_unit")
            continue
        estimated |= mlc
        parts[group] = float(count) * watts * nodes
    switch = components.get("scale_up_network")
    if isinstance(switch, dict) and switch.get("method", "declared_tdp") != "none":
        watts, mlc = _watts(switch.get("tdp_per_switch"))
        count = switch.get("switch_count")
        if watts is None or not isinstance(count, int | float):
            problems.append(f"{label}: declared_tdp requires switch_count and tdp_per_switch")
        else:
            estimated |= mlc
            parts["scale_up_network"] = float(count) * watts
    elif switch is None:
        problems.append(f"{label}: scale_up_network is required (method none where no switch)")
    return parts, estimated, problems, False


def _scale_out(data: dict[str, Any], nodes: int) -> tuple[dict[str, float], bool]:
    out = data.get("scale_out")
    if not isinstance(out, dict) or not out.get("present"):
        return {}, False
    parts: dict[str, float] = {}
    estimated = False
    nics = out.get("nics")
    if isinstance(nics, dict) and nics.get("counted"):
        watts, mlc = _watts(nics.get("tdp_per_nic"))
        count = nics.get("count_per_node")
        if watts is not None and isinstance(count, int | float):
            parts["scale_out_nics"] = float(count) * watts * nodes
            estimated |= mlc
    switches = out.get("switches")
    for switch in switches if isinstance(switches, list) else []:
        if not isinstance(switch, dict):
            continue
        watts, mlc = _watts(switch.get("power_per_switch"))
        count = switch.get("count", 1)
        if watts is not None and isinstance(count, int | float):
            parts["scale_out_switches"] = (
                parts.get("scale_out_switches", 0.0) + float(count) * watts
            )
            estimated |= mlc
    return parts, estimated


def provisioned_power(data: Any, path: str | None) -> EndpointsPower:
    """The provisioned power a ``system_power.json`` yields (``data`` None: the file is absent)."""
    if data is None:
        return EndpointsPower(
            watts=None,
            tier=None,
            cooling=None,
            overhead_fraction=None,
            components_w={},
            problems=("no system_power.json",),
            path=None,
        )
    if not isinstance(data, dict):
        return EndpointsPower(
            watts=None,
            tier=None,
            cooling=None,
            overhead_fraction=None,
            components_w={},
            problems=("not a JSON object",),
            path=path,
        )
    declared, _ = _watts(data.get("provisioned_power_w"))
    if declared is not None:
        cooling, overhead = _overhead(data)
        return EndpointsPower(
            watts=declared,
            tier="declared",
            cooling=cooling,
            overhead_fraction=overhead,
            components_w={},
            problems=(),
            path=path,
        )
    if "node_sets" not in data:
        return _flat(data, path)
    cooling, overhead = _overhead(data)
    parts: dict[str, float] = {}
    problems: list[str] = []
    estimated = False
    all_declared = True
    nodes = 0
    node_sets = data.get("node_sets")
    for i, node_set in enumerate(node_sets if isinstance(node_sets, list) else []):
        if not isinstance(node_set, dict):
            problems.append(f"node_sets[{i}] is not an object")
            continue
        got, mlc, trouble, declared_set = _node_set(node_set, f"node_sets[{i}]")
        nodes += (
            node_set.get("nodes_provisioned", 1)
            if isinstance(node_set.get("nodes_provisioned"), int)
            else 1
        )
        estimated |= mlc
        all_declared &= declared_set
        problems += trouble
        for name, watts in got.items():
            parts[name] = parts.get(name, 0.0) + watts
    if not parts and not problems:
        problems.append("node_sets is empty")
    more, mlc = _scale_out(data, max(nodes, 1))
    estimated |= mlc
    for name, watts in more.items():
        parts[name] = parts.get(name, 0.0) + watts
    if not all_declared and overhead is None:
        problems.append(f"cooling {cooling!r} is neither liquid nor air (no overhead fraction)")
    total: float | None = None
    tier: PowerTier | None = None
    if not problems:
        base = sum(parts.values())
        total = base if all_declared else base * (1 + (overhead or 0.0))
        tier = "mlc_estimated" if estimated else ("declared" if all_declared else "computed")
    return EndpointsPower(
        watts=total,
        tier=tier,
        cooling=cooling,
        overhead_fraction=overhead,
        components_w=parts,
        problems=tuple(problems),
        path=path,
    )


def tps_per_kw(system_tps: float | None, power: EndpointsPower) -> float | None:
    """``system_tps / provisioned kW`` (rules §4.5.3), recomputed from the power figure."""
    if system_tps is None or not power.watts:
        return None
    return system_tps / (power.watts / 1000.0)
