"""MLPerf results in an evidence store, as functions: ``mlperf_import``, ``mlperf_list``,
``mlperf_show``. The store is a DuckDB file; DuckDB loads only when a function runs."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING

from ..errors import InputError
from .options import MlperfListOptions, PathLike

if TYPE_CHECKING:
    from pydantic import BaseModel

    from ..mlperf.models import ImportReport
    from ..mlperf.query import MlperfListing


def mlperf_import(
    path: PathLike,
    db: PathLike,
    *,
    round: str | None = None,  # noqa: A002 (the MLPerf round: the name the importer uses)
    benchmark: str | None = None,
    progress: Callable[[int, int, str], None] | None = None,
) -> ImportReport:
    """Import every MLPerf Inference, Training or Endpoints result under ``path`` (a submission
    tree or a results repository) into the store ``db``, checked; the report lists what was
    imported, already there, rejected (with why) and skipped. ``progress`` hears (done, total,
    location) per result."""
    from ..mlperf.importer import import_path
    from ..store import Store

    with Store(Path(db)) as store:
        return import_path(store, Path(path), round=round, benchmark=benchmark, progress=progress)


def _existing_store(db: Path) -> None:
    if not db.is_file():
        raise InputError(f"{db}: no such evidence store (run 'evidencepack mlperf import')")


def mlperf_list(db: PathLike, options: MlperfListOptions | None = None) -> MlperfListing:
    """The results held in the store ``db``: Inference results, and (unless a scenario is
    asked for) Training results and Endpoints curves, filtered by ``options``."""
    from ..mlperf.query import MlperfListing, list_endpoints, list_results, list_training
    from ..store import Store

    options = options or MlperfListOptions()
    store_path = Path(db)
    if not store_path.exists():
        raise InputError(f"{store_path}: no such evidence store (run 'evidencepack mlperf import')")
    with Store(store_path) as store:
        rows = list_results(
            store,
            benchmark=options.benchmark,
            scenario=options.scenario,
            accelerator=options.accelerator,
        )
        training = [] if options.scenario else list_training(store, benchmark=options.benchmark)
        curves = [] if options.scenario else list_endpoints(store, benchmark=options.benchmark)
    if options.accelerator:
        wanted = options.accelerator.lower()
        training = [t for t in training if wanted in (t.accelerator or "").lower()]
        curves = [c for c in curves if wanted in (c.accelerator or "").lower()]
    return MlperfListing(
        db=str(store_path), results=tuple(rows), training=tuple(training), endpoints=tuple(curves)
    )


def mlperf_show(db: PathLike, key: str) -> tuple[BaseModel, str]:
    """One result of the store ``db`` by its key (``training/...`` and ``endpoints/...`` for
    those kinds): the result, and its description for a terminal."""
    from ..store import Store

    store_path = Path(db)
    _existing_store(store_path)
    with Store(store_path) as store:
        if key.startswith("training/"):
            from ..mlperf.training_show import describe_training, find_training

            trained = find_training(store, key)
            return trained, describe_training(trained)
        if key.startswith("endpoints/"):
            from ..mlperf.endpoints_show import describe_curve, find_curve

            curve = find_curve(store, key)
            return curve, describe_curve(curve)
        from ..mlperf.show import describe, find_result

        result = find_result(store, key)
        return result, describe(result)
