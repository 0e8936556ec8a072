"""The team's own LoadGen runs against an endpoint, as a function: ``measure``.

``MeasureOptions`` (the endpoint, model, prompts, run folder, scenario, rates and limits) is
the measuring stage's own options object, exported here as it is.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING

from ..errors import InvalidRequest, option
from ..measure.options import MeasureOptions
from .options import PathLike

if TYPE_CHECKING:
    from ..measure.run import PointResult

__all__ = ["MeasureOptions", "measure"]


def measure(
    options: MeasureOptions,
    *,
    spec: PathLike | None = None,
    candidate: str | None = None,
    progress: Callable[[str], None] | None = None,
    on_result: Callable[[PointResult], None] | None = None,
) -> list[PointResult]:
    """Measure every load point of ``options`` into run folders ``inspect`` and a spec's
    ``runs`` read; stops at the first incomplete point. With ``spec`` and ``candidate`` (both),
    what ``options`` leaves open comes from the spec: model, output length, concurrency, the
    SLO's limits and the model's tokenizer. ``progress`` hears what is being done;
    ``on_result`` gets each point's result as it ends."""
    from ..measure.options import from_spec
    from ..measure.run import measure as run_measure

    if (spec is None) != (candidate is None):
        raise InvalidRequest(f"{option('spec')} and {option('candidate')} go together")
    if spec is not None and candidate is not None:
        from ..spec.load import load_spec

        options = from_spec(options, load_spec(Path(spec)), candidate)
    return run_measure(options, progress=progress, on_result=on_result)
