"""Import MLPerf Endpoints curves into their own table, apart from Inference and Training.

``find_endpoints`` finds the curves (v1.0 bundles, v0.7 results), ``build_curve`` reads one
and re-applies the rules, and ``insert_endpoints`` stores the new ones in
``mlperf_endpoints_curves`` (their files in ``files`` and ``mlperf_result_files``);
``load_endpoints`` reads them back.
"""

from __future__ import annotations

import hashlib
from typing import Any

from ..store import Store
from .endpoints_models import EndpointsCurve
from .models import Rejection
from .query import load_records


def curve_fingerprint(curve: EndpointsCurve) -> str:
    """A digest over the curve's files (role, path, sha256): equal means the same import."""
    digest = hashlib.sha256(f"endpoints\0{curve.layout}\n".encode())
    for source in sorted(curve.sources, key=lambda s: (s.role, s.path)):
        digest.update(f"{source.role}\0{source.path}\0{source.sha256}\n".encode())
    return digest.hexdigest()


def partition_endpoints(
    store: Store, built: list[EndpointsCurve]
) -> tuple[list[EndpointsCurve], list[str], list[Rejection]]:
    """New curves, keys already stored with the same files, and keys taken by other files."""
    known = {
        row["key"]: row["sources_sha256"]
        for row in store.rows(
            "SELECT key, sources_sha256 FROM mlperf_endpoints_curves ORDER BY key"
        )
    }
    fresh: list[EndpointsCurve] = []
    unchanged: list[str] = []
    conflicts: list[Rejection] = []
    seen: set[str] = set()
    for curve in built:
        mark = curve_fingerprint(curve)
        if curve.key in seen or (curve.key in known and known[curve.key] != mark):
            where = curve.sources[0].path if curve.sources else curve.key
            message = (
                f"{where}: Endpoints curve key {curve.key} is already taken by other files "
                "(import into a new store to replace it)"
            )
            conflicts.append(Rejection(location=where, reason=message, problems=(message,)))
        elif curve.key in known:
            unchanged.append(curve.key)
        else:
            seen.add(curve.key)
            fresh.append(curve)
    return fresh, unchanged, conflicts


def endpoints_row(curve: EndpointsCurve) -> dict[str, Any]:
    """The ``mlperf_endpoints_curves`` row of a curve."""
    return {
        "key": curve.key,
        "layout": curve.layout,
        "division": curve.division,
        "submission": curve.submission,
        "system": curve.system,
        "model": curve.model,
        "model_name": curve.model_name,
        "accelerator": curve.accelerator,
        "accelerators_total": curve.accelerators_total,
        "points": len(curve.points),
        "power_watts": curve.power.watts,
        "power_tier": curve.power.tier,
        "checks_failed": len(curve.failed),
        "sources_sha256": curve_fingerprint(curve),
        "record": curve.model_dump(mode="json"),
    }


def load_endpoints(store: Store, keys: list[str] | None = None) -> list[EndpointsCurve]:
    """Endpoints curves by key (all when ``keys`` is None), ordered by key."""
    return load_records(store, "mlperf_endpoints_curves", EndpointsCurve, keys)
