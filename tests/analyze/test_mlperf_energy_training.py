"""A spec citing an MLPerf Power result shows its energy per 1M tokens as an inherited figure
with the wattage's scope; one citing an MLPerf Training result shows its time to train in a
section of its own, never as serving capacity."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from evidencepack.pipeline import BuildOptions, CompileOptions, build

from .test_fit import BASELINE, _accelerators

POWER = "mlperf/v5.1-power"
SERVER_KEY = "v5.1/closed/Lenovo/SR780a_V3_B200SXMx8_TRT/llama3.1-8b/Server"
TRAINING = "mlperf/training-sample"
QCT_KEY = "training/no-round/closed/Quanta_Cloud_Technology/D75T-7U/llama2_70b_lora"


def _cite(samples: Path, extra: str) -> None:
    spec = samples / "pack.yaml"
    lines = spec.read_text(encoding="utf-8").splitlines(keepends=True)
    anchor = (
        "          result: no-round/closed/SampleVendor/8xB200-SXM-180GB_TRT/llama2-70b-99/Server\n"
    )
    at = lines.index(anchor)
    lines.insert(at + 1, extra)
    spec.write_text("".join(lines), encoding="utf-8")


@pytest.mark.no_pdf  # reads the report's HTML and the decision only (tests/pdf_cache.py)
def test_power_and_training_references(samples: Path, shared_data: Path, tmp_path: Path) -> None:
    shutil.copytree(shared_data / POWER, samples / "power")
    shutil.copytree(shared_data / TRAINING, samples / "training")
    _cite(
        samples,
        f"        - path: power\n          result: {SERVER_KEY}\n"
        f"        - path: training\n          result: {QCT_KEY}\n",
    )
    result = build(samples / "pack.yaml", tmp_path / "pack", BuildOptions(compile=CompileOptions()))
    doc = result.decision
    assert _accelerators(doc) == BASELINE  # neither sizes anything
    (power,) = [r for r in doc.references if r.key == SERVER_KEY]
    # the official table's power row for this result: 9,011.07 W at 128,689 tokens/s
    assert power.average_watts == pytest.approx(9011.07, abs=0.01)
    assert power.kwh_per_million_output_tokens == pytest.approx(
        power.average_watts / 128689.0 * 1e6 / 3.6e6, rel=1e-3
    )
    assert power.energy_scope is not None
    assert "whole system" in power.energy_scope
    claim = next(c for c in doc.claims if c.id == f"energy.b200-trtllm.{SERVER_KEY}")
    assert claim.kind == "inherited"
    assert claim.unit == "kWh per 1M output tokens"
    (training,) = doc.training_references
    assert training.key == QCT_KEY
    assert training.time_to_train_min == pytest.approx(21.6307171586, rel=1e-9)
    assert (training.runs_used, training.runs_total) == (8, 10)
    assert any("reference model" in r for r in training.reading)
    assert next(c for c in doc.claims if c.id.startswith("training.")).kind == "inherited"
    html = (result.out_dir / "report.html").read_text(encoding="utf-8")
    assert "MLPerf Training: situational references" in html
    assert "MLPerf Power (inherited)" in html
    assert "kWh per 1M output tokens" in html
