"""Build one MLPerf Endpoints curve from its files: points, system, power, the rules' verdicts."""

from __future__ import annotations

import json
from typing import Any

from ..errors import InputError
from ._files import read_json
from .context import ImportContext
from .endpoints_checks import point_checks, publication_checks
from .endpoints_models import EndpointsCheck, EndpointsCurve, EndpointsPoint, RegionBounds
from .endpoints_power import provisioned_power, tps_per_kw
from .endpoints_read import CurveFiles, read_v07_point, read_v10_point
from .endpoints_rules import (
    ULTRA_LOW_MAX,
    compute_regions,
    curve_checks,
    derive_c_min,
    make_check,
    region_of,
)
from .system import MAX_COUNT

DEFINITIONS = {
    "v1.0": "v1.0: tps_per_user = 1000 / tpot_p90_ms; TTFT at p90 (ttft_p90_ms)",
    "v0.7": (
        "v0.7: tps_per_user = system_tps / concurrency (tps_per_user_v07); TTFT at p99 "
        "(ttft_p99_ms)"
    ),
}
# Fields of system_desc.json that may differ per point (the rest describe the one system).
_PER_POINT = {"tps_utilization", "config_summary", "node_config", "measured_accuracy_score"}


def _system_fields(desc: dict[str, Any]) -> dict[str, str]:
    return {k: json.dumps(v, sort_keys=True) for k, v in desc.items() if k not in _PER_POINT}


def _differing(descs: list[dict[str, Any]]) -> list[str]:
    """The system_desc.json fields on which the points disagree (absent counts as a value)."""
    if len(descs) < 2:
        return []
    seen = [_system_fields(d) for d in descs]
    keys = sorted(set().union(*seen))
    return [k for k in keys if len({s.get(k) for s in seen}) > 1]


def _accelerators(desc: dict[str, Any]) -> tuple[str | None, int | None]:
    names: list[str] = []
    total = 0
    known = True
    for node in desc.get("node_types") or []:
        if not isinstance(node, dict):
            continue
        nodes = node.get("number_of_nodes")
        infos = node.get("accelerator_info") or [node]
        for info in infos if isinstance(infos, list) else []:
            if not isinstance(info, dict):
                continue
            name, per_node = info.get("accelerator_model_name"), info.get("accelerators_per_node")
            if isinstance(name, str) and name not in names:
                names.append(name)
            if isinstance(nodes, int) and isinstance(per_node, int):
                total += nodes * per_node
            else:
                known = False
    # A count the store cannot hold (a 32-bit column) is not read: no real system comes near it.
    plausible = 0 < total <= MAX_COUNT
    return (" + ".join(names) or None), (total if known and plausible else None)


def _prices(desc: dict[str, Any]) -> bool:
    return any("price" in k.lower() and v not in (None, "", [], {}) for k, v in desc.items())


def build_curve(files: CurveFiles, names: ImportContext) -> EndpointsCurve:
    """One curve; InputError naming the file for what cannot be read."""
    read = [
        read_v10_point(p, names) if files.layout == "v1.0" else read_v07_point(p, names)
        for p in files.points
    ]
    points = [p for p, _ in read]
    extra = [e for _, e in read]
    sources = []
    roles = (
        "point.yaml",
        "result_summary.json",
        "system_desc.json",
        "accuracy_results.json",
        "cli_metadata.json",
    )
    if files.layout == "v1.0":
        for folder in files.points:
            sources += [
                names.source(f"{folder.name}:{r}", folder / r)
                for r in roles
                if (folder / r).is_file()
            ]
        descs = [e["desc"] for e in extra if e["desc"]]
        desc = descs[0] if descs else {}
        power_path = files.system_dir / "system_power.json"
        power_data = (
            read_json(names.private(power_path), name=names.name(power_path))
            if power_path.is_file()
            else None
        )
        if power_path.is_file():
            sources.append(names.source("system_power.json", power_path))
        power = provisioned_power(
            power_data, names.name(power_path) if power_path.is_file() else None
        )
    else:
        for path in files.points:
            sources.append(names.source(f"{path.stem}:point.yaml", path))
            results = files.folder / "results" / path.stem
            for r in ("run_metadata.json", "results_summary.json", "accuracy/results.json"):
                if (results / r).is_file():
                    sources.append(names.source(f"{path.stem}:{r}", results / r))
        system_path = files.submission_dir / "systems" / f"{files.system_dir.name}.json"
        if not system_path.is_file():
            raise InputError(
                "missing (a v0.7 result needs its system description)", file=names.name(system_path)
            )
        desc = read_json(names.private(system_path), name=names.name(system_path))
        if not isinstance(desc, dict):
            raise InputError("not a JSON object", file=names.name(system_path))
        sources.append(names.source("system", system_path))
        descs = [desc]
        power = provisioned_power(None, None)
    first_point = extra[0]["point"] if extra else {}
    c_max = desc.get("max_supported_concurrency", first_point.get("max_supported_concurrency"))
    bounds: RegionBounds | None = None
    if isinstance(c_max, int) and points:
        try:
            # v1.0 derives C_min from the curve's points; v0.7 fixed it at the Ultra Low bound
            c_min = (
                derive_c_min([p.concurrency for p in points])
                if files.layout == "v1.0"
                else ULTRA_LOW_MAX
            )
            bounds = compute_regions(c_max, c_min)
        except ValueError:
            bounds = None
    points = [
        p.model_copy(
            update={
                "region": region_of(p, bounds) if bounds else None,
                "tps_per_kw": tps_per_kw(p.system_tps, power),
            }
        )
        for p in points
    ]
    model_name = desc.get("model_name") or first_point.get("model_name")
    division = desc.get("division") or first_point.get("division")
    checks: list[EndpointsCheck] = curve_checks(
        files.layout,
        points,
        bounds,
        c_max=c_max if isinstance(c_max, int) else None,
        model_name=str(model_name) if model_name else None,
        differing=_differing(descs),
        power=power,
    )
    if files.layout == "v1.0":
        lacking = [f"r{p.concurrency}" for p, e in zip(points, extra, strict=True) if not e["desc"]]
        checks.append(
            make_check(
                "system-description-present",
                "reject",
                not lacking,
                "every point has its system_desc.json",
                "missing at " + ", ".join(lacking) if lacking else "every point",
            )
        )
    max_tps = max((p.system_tps for p in points if p.system_tps is not None), default=None)
    for point, more in zip(points, extra, strict=True):
        util = more["desc"].get("tps_utilization") if files.layout == "v1.0" else None
        checks += point_checks(
            files.layout, point, max_tps, util if isinstance(util, int | float) else None
        )
    if files.layout == "v0.7":
        checks = [_not_v07(c) if c.rule in V10_ONLY else c for c in checks]
    accelerator, total = _accelerators(desc)
    status = desc.get("system_availability_status", desc.get("availability_status"))
    by = desc.get("target_availability_date", desc.get("available_by"))
    key_division = str(division) if division else "no-division"
    curve = EndpointsCurve(
        key="/".join(
            (
                "endpoints",
                files.layout,
                key_division,
                files.submission_dir.name,
                files.system_dir.name,
                files.folder.name,
            )
        ),
        layout=files.layout,
        definitions=DEFINITIONS[files.layout],
        submission=files.submission_dir.name,
        system=files.system_dir.name,
        model=files.folder.name,
        model_name=str(model_name) if model_name else None,
        division=str(division) if division else None,
        system_name=_text(desc.get("system_name")),
        submitter=_text(desc.get("submitter_org_names")),
        accelerator=accelerator,
        accelerators_total=total,
        serving_framework=_text(desc.get("serving_framework")),
        precision=_text(desc.get("model_precision") or first_point.get("model_precision")),
        availability=_text(status),
        available_by=_text(by),
        prices_disclosed=_prices(desc) if str(division).lower() == "serviced" else None,
        regions=bounds,
        points=tuple(points),
        power=power,
        checks=(),
        sources=tuple(sources),
    )
    return curve.model_copy(update={"checks": (*checks, *publication_checks(curve, None))})


# Rules the v1.0 checker added (the Offline point, steady-state windows and the durations
# over them, the model list): not judged on a v0.7 result. Its region coverage is judged with
# C_min fixed at 32 (v1.0 derives C_min from the points).
V10_ONLY = {"model-name-valid", "offline-point-present", "point-duration"}


def _not_v07(check: EndpointsCheck) -> EndpointsCheck:
    return check.model_copy(
        update={"status": "skip", "actual": f"not a v0.7 rule (v1.0 only); found: {check.actual}"}
    )


def _text(value: Any) -> str | None:
    return str(value) if value not in (None, "") else None


def point_by_concurrency(curve: EndpointsCurve, concurrency: int) -> EndpointsPoint | None:
    """The curve's point at this concurrency, if any."""
    return next((p for p in curve.points if p.concurrency == concurrency), None)
