"""Energy with its method (issue 40, point 2): every energy figure in decision.json says how it
was measured (wall, accelerator counters, rated, estimate), the owning cost says which one it
used, and an ML.ENERGY leaderboard table cited under ``evidence.references`` gives measured
accelerator energy per token for a candidate whose hardware and model match, and does not fit
one of other hardware.

The ML.ENERGY tables are the real files in ../shared/data/energy/ml-energy (copied into the
sample's tmp copy, as the other reference tests do); one test edits its copy so that one
configuration matches the sample's B200 candidate, and says so."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from evidencepack._cli import main
from evidencepack.analyze.models import DecisionDocument
from evidencepack.pipeline import CompileOptions, check
from evidencepack.readers.reference_points import read_reference_points

TABLE = "energy/ml-energy/public/data/tasks/lm-arena-chat.json"


def _cite(samples: Path, shared_data: Path, candidate: str, table: Path | None = None) -> Path:
    target = samples / "energy" / "lm-arena-chat.json"
    target.parent.mkdir(exist_ok=True)
    shutil.copyfile(table or shared_data / TABLE, target)
    anchor = f"        - path: evidence/{candidate}/scores.jsonl\n"
    lines = (samples / "pack.yaml").read_text(encoding="utf-8").splitlines(keepends=True)
    at = next(i for i, line in enumerate(lines) if line == anchor)
    lines.insert(at + 2, "      references:\n        - path: energy/lm-arena-chat.json\n")
    (samples / "pack.yaml").write_text("".join(lines), encoding="utf-8")
    return samples / "pack.yaml"


def test_every_energy_figure_of_the_sample_carries_its_method(samples: Path) -> None:
    doc = check(samples / "pack.yaml", CompileOptions())
    assert doc.cost_bases is not None
    assert {(e.candidate, e.method) for e in doc.cost_bases.energy} == {
        ("mi325x-vllm", "rated"),
        ("b200-trtllm", "rated"),
    }
    for cost in doc.cost_bases.costs:
        if "energy" in cost.breakdown:
            # the cost says which energy it used
            assert cost.energy_method == "rated"
            assert "(method rated, whole server, rated: " in cost.arithmetic
        else:
            assert cost.energy_method is None
    statements = [c.statement for c in doc.claims if c.id.startswith("energy.")]
    assert statements
    assert all("method rated" in s for s in statements)
    raw = json.loads(doc.model_dump_json())
    for e in raw["cost_bases"]["energy"]:
        assert e["method"] in ("wall", "accelerator", "rated", "estimate")


def test_the_ml_energy_reader_keeps_the_counters_method(
    shared_data: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    parsed = read_reference_points(shared_data / TABLE)
    assert parsed.format_id == "ml-energy-task"
    points = parsed.references
    assert len(points) == 328
    assert {p.figures.energy_method for p in points} == {"accelerator"}
    assert {p.accelerator for p in points} == {"NVIDIA H100 80GB HBM3", "NVIDIA B200"}
    point = next(
        p
        for p in points
        if p.model_name == "meta-llama/Llama-3.1-70B-Instruct"
        and p.accelerator == "NVIDIA B200"
        and p.load.concurrency == 1024
    )
    assert point.accelerator_count == 2
    assert point.precision == "bfloat16"
    assert point.figures.energy_per_output_token_joules == pytest.approx(0.227, abs=5e-4)
    assert point.figures.average_power_watts == pytest.approx(1938, abs=1)
    assert "GPUs only" in (point.figures.energy_scope or "")
    # inspect says each point's energy with its method
    assert main(["inspect", str(shared_data / TABLE)]) == 0
    out = capsys.readouterr().out
    assert "ml-energy-task (ml-energy)" in out
    assert "J per output token" in out
    assert "(method accelerator: the GPUs only (their own counters)" in out


def test_a_table_of_other_hardware_does_not_fit_and_stays_out_of_the_cost(
    samples: Path, shared_data: Path
) -> None:
    """Cited for the H200 candidate: the table has H100 and B200 runs only."""
    doc = check(_cite(samples, shared_data, "h200-vllm"), CompileOptions())
    assert doc.cost_bases is not None
    (figure,) = [f for f in doc.cost_bases.measured_energy if f.candidate == "h200-vllm"]
    assert not figure.fits
    assert figure.method == "accelerator"
    text = "; ".join(figure.reasons)
    assert "none of its 328 energy points fits h200-vllm" in text
    assert "is not NVIDIA H200" in text
    assert "the file's accelerators: NVIDIA B200, NVIDIA H100 80GB HBM3" in text
    assert not [c for c in doc.claims if c.id.startswith("energy.h200-vllm.measured")]
    # the cost's energy is unchanged: rated, never the counters' figure
    assert {(e.candidate, e.method) for e in doc.cost_bases.energy} == {
        ("mi325x-vllm", "rated"),
        ("b200-trtllm", "rated"),
    }


def test_the_same_hardware_with_another_precision_and_layout_does_not_fit(
    samples: Path, shared_data: Path
) -> None:
    """Cited for the B200 candidate: B200 runs of 70B models, but in bfloat16 on 2 GPUs, where
    the envelope serves FP8 on 1 accelerator per replica."""
    doc = check(_cite(samples, shared_data, "b200-trtllm"), CompileOptions())
    assert doc.cost_bases is not None
    (figure,) = [f for f in doc.cost_bases.measured_energy if f.candidate == "b200-trtllm"]
    assert not figure.fits
    text = "; ".join(figure.reasons)
    assert "precision bfloat16, the envelope's fp8" in text
    assert "2 accelerators, a replica uses 1" in text
    assert "ran on" not in text  # the nearest point is of the candidate's hardware


def test_a_matching_configuration_is_measured_evidence_with_its_method(
    samples: Path, shared_data: Path, tmp_path: Path
) -> None:
    """An edited copy of the table: one B200 Llama-3.1-70B configuration restated as FP8 on one
    GPU (the sample's B200 layout), so that it matches; it is shown with its method, claimed
    with its file, and kept out of the cost."""
    table = json.loads((shared_data / TABLE).read_text(encoding="utf-8"))
    row = next(
        c
        for c in table["configurations"]
        if c["model_id"] == "meta-llama/Llama-3.1-70B-Instruct"
        and c["gpu_model"] == "B200"
        and c["max_num_seqs"] == 128
    )
    row.update(weight_precision="fp8", num_gpus=1, tensor_parallel=1)
    edited = tmp_path / "lm-arena-chat.edited.json"
    edited.write_text(json.dumps(table), encoding="utf-8")
    doc = check(_cite(samples, shared_data, "b200-trtllm", edited), CompileOptions())
    assert doc.cost_bases is not None
    (figure,) = [f for f in doc.cost_bases.measured_energy if f.candidate == "b200-trtllm"]
    assert figure.fits, figure.reasons
    assert figure.method == "accelerator"
    assert figure.joules_per_output_token == row["energy_per_token_joules"]
    assert figure.kwh_per_million_output_tokens == pytest.approx(
        row["energy_per_token_joules"] * 1e6 / 3.6e6
    )
    assert figure.watts_per_accelerator == row["avg_power_watts"]
    (claim,) = [c for c in doc.claims if c.id.startswith("energy.b200-trtllm.measured")]
    assert "method accelerator" in claim.statement
    assert claim.evidence[0].pack_path.endswith("lm-arena-chat.json")
    b200 = next(e for e in doc.cost_bases.energy if e.candidate == "b200-trtllm")
    assert b200.method == "rated"  # the cost keeps its wall-or-rated figure, said
    again = DecisionDocument.model_validate_json(doc.model_dump_json(by_alias=True))
    assert again.cost_bases is not None
    assert again.cost_bases.measured_energy == doc.cost_bases.measured_energy
