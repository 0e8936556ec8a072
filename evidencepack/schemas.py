"""Write and check the JSON Schemas in ``schemas/``: generated from the models, never hand-edited.

Each document evidencepack reads or writes has one entry in ``DOCUMENTS``; a later stage adds
its document by adding one line.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from pydantic import BaseModel

from .core._atomic import atomic_write
from .core.resources import schemas_dir
from .errors import SchemaDriftError
from .spec.models import PackSpec

SCHEMA_DIALECT = "https://json-schema.org/draft/2020-12/schema"
SCHEMA_ID_BASE = "https://evidencepack.dev/schemas/"


def _documents() -> dict[str, type[BaseModel]]:
    """File name -> model. Imported lazily so adding a stage does not slow start-up."""
    from .analyze.models import DecisionDocument
    from .commands.command_reports import BuildReport, InitReport, SchemasReport
    from .core.problems import ValidationReport
    from .diff.models import DiffDocument
    from .mlperf.endpoints_models import EndpointsCurve
    from .mlperf.measure_record import MeasureRunRecord
    from .mlperf.models import ImportReport, MlperfResult
    from .mlperf.query import MlperfListing
    from .mlperf.training_import import TrainingResult
    from .pack.manifest import EvidenceManifest
    from .pack.predicate import PackPredicate
    from .pricing.models import QuoteFile
    from .readers.formats.generic_scores import ScoreLine, ScoresHeader
    from .readers.formats.measure_server_metrics import ServerMetricsDocument
    from .signing.statement import Statement
    from .signing.verify import VerifyReport
    from .spec.plan import PlanDocument
    from .warehouse.models import TABLES
    from .watch.models import WatchReport

    documents: dict[str, type[BaseModel]] = {
        "build-result.v1.schema.json": BuildReport,
        "init-result.v1.schema.json": InitReport,
        "pack-spec.v1.schema.json": PackSpec,
        "decision.v1.schema.json": DecisionDocument,
        "diff.v1.schema.json": DiffDocument,
        "evidence-manifest.v1.schema.json": EvidenceManifest,
        "evidencepack-scores-header.v1.schema.json": ScoresHeader,
        "evidencepack-scores-item.v1.schema.json": ScoreLine,
        "measure-run.v1.schema.json": MeasureRunRecord,
        "measure-server-metrics.v1.schema.json": ServerMetricsDocument,
        "mlperf-endpoints-curve.v1.schema.json": EndpointsCurve,
        "mlperf-import-report.v1.schema.json": ImportReport,
        "mlperf-list.v1.schema.json": MlperfListing,
        "mlperf-result.v1.schema.json": MlperfResult,
        "mlperf-training-result.v1.schema.json": TrainingResult,
        "pack-predicate.v1.schema.json": PackPredicate,
        "pack-statement.v1.schema.json": Statement,
        "plan.v1.schema.json": PlanDocument,
        "quote.v1.schema.json": QuoteFile,
        "schemas-result.v1.schema.json": SchemasReport,
        "validation-report.v1.schema.json": ValidationReport,
        "verify-report.v1.schema.json": VerifyReport,
        "watch.v1.schema.json": WatchReport,
    }
    documents.update({f"warehouse-{table}.v1.schema.json": m for table, m in TABLES.items()})
    return documents


DOCUMENTS: Callable[[], dict[str, type[BaseModel]]] = _documents


def generate(name: str, model: type[BaseModel]) -> str:
    """The schema text for one document: draft 2020-12, stable key order, trailing newline."""
    schema: dict[str, Any] = {
        "$schema": SCHEMA_DIALECT,
        "$id": SCHEMA_ID_BASE + name,
    }
    schema.update(model.model_json_schema(by_alias=True, mode="validation"))
    return json.dumps(schema, indent=2, sort_keys=True, ensure_ascii=False) + "\n"


@dataclass(frozen=True)
class SchemaReport:
    """What ``write_schemas`` or ``check_schemas`` did, by schema file name."""

    checked: tuple[str, ...]
    written: tuple[str, ...]
    drifted: tuple[str, ...]
    missing: tuple[str, ...]
    extra: tuple[str, ...]

    @property
    def ok(self) -> bool:
        """True when no schema drifted, is missing or is extra."""
        return not (self.drifted or self.missing or self.extra)


def write_schemas(target: Path | None = None) -> SchemaReport:
    """Regenerate every schema file in ``target`` (default: the bundled schemas/ folder)."""
    folder = target or schemas_dir()
    written = []
    for name, model in sorted(DOCUMENTS().items()):
        atomic_write(folder / name, generate(name, model).encode("utf-8"))
        written.append(name)
    return SchemaReport(checked=(), written=tuple(written), drifted=(), missing=(), extra=())


def check_schemas(target: Path | None = None) -> SchemaReport:
    """Compare schemas/ with what the models generate; raise SchemaDriftError on any difference."""
    folder = target or schemas_dir()
    drifted, missing = [], []
    expected = DOCUMENTS()
    for name, model in sorted(expected.items()):
        path = folder / name
        if not path.exists():
            missing.append(name)
        elif path.read_text(encoding="utf-8") != generate(name, model):
            drifted.append(name)
    extra = sorted(p.name for p in folder.glob("*.schema.json") if p.name not in expected)
    report = SchemaReport(
        checked=tuple(sorted(expected)),
        written=(),
        drifted=tuple(drifted),
        missing=tuple(missing),
        extra=tuple(extra),
    )
    if not report.ok:
        parts = [
            f"{label}: {', '.join(names)}"
            for label, names in (
                ("out of date", drifted),
                ("missing", missing),
                ("not generated by any model", extra),
            )
            if names
        ]
        raise SchemaDriftError(
            f"schemas in {folder} differ from the models ({'; '.join(parts)}); "
            "run `evidencepack schemas` and commit the result"
        )
    return report
