"""A vLLM result of 50,000 appended runs (``--append-result``, about 45 MB; issue 42, left from
round two: ``inspect`` did not finish in 120 s): ``inspect`` describes a bounded number of them
and counts the rest, within the hostile suite's time bound."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from evidencepack.readers.describe import SHOWN_RUNS

from .harness import SECONDS, run

REAL = "formats/vllm/public/dstack_pd_3p1d_conc128_gpt-oss-120b.json"
RUNS = 50_000


@pytest.mark.slow
def test_inspect_of_50000_appended_runs_ends_in_time(shared_data: Path, tmp_path: Path) -> None:
    result = json.loads((shared_data / REAL).read_text(encoding="utf-8"))
    path = tmp_path / "appended.jsonl"
    with path.open("w", encoding="utf-8") as out:
        for n in range(RUNS):
            result["date"] = f"20250917-{n:06d}"
            out.write(json.dumps(result) + "\n")
    assert path.stat().st_size > 40_000_000
    ran = run(["inspect", str(path)])
    assert ran.code == 0, ran.err
    assert ran.seconds < SECONDS
    assert ran.out.count("\n  run ") == SHOWN_RUNS
    assert f"  ... and {RUNS - SHOWN_RUNS:,} more runs (--json lists every run)" in ran.out
