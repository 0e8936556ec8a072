"""Measured accelerator energy from GPU telemetry (issue 40, point 4): a DCGM exporter scrape and
a GenAI-Perf profile export's ``telemetry_stats``, each read into one reference point whose
energy per output token is measured by the GPUs' own counters, judged against the candidate it
is cited for like an ML.ENERGY table, and never entering the cost.

The DCGM file is a LABELLED SAMPLE made here (no real scrape is in ../shared/data): it follows
dcgm-exporter's documented Prometheus text (``DCGM_FI_DEV_TOTAL_ENERGY_CONSUMPTION`` in mJ,
``DCGM_FI_DEV_POWER_USAGE`` in W, labels gpu, UUID, modelName, Hostname), two scrapes 60 s apart
with their timestamps, and vLLM's token counter scraped with them. The GenAI-Perf export is the
real file in ../shared/data/formats/aiperf/public."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from evidencepack._cli import main
from evidencepack.errors import InputError
from evidencepack.pipeline import CompileOptions, check
from evidencepack.readers.reference_points import read_reference_points
from evidencepack.readers.registry import read_input

GENAI_PERF = "formats/aiperf/public/wellflat_profile_export_genai_perf_2025-09-30.json"
MODEL = "acme/contract-summariser-70b-fp8 (sample)"
T0, T1 = 1764460800000, 1764460860000  # 2025-11-30T00:00:00Z and 60 s later, in ms


def _gpu(name: str, gpu: int, value: float, ts: int, model: str = "NVIDIA H200") -> str:
    labels = (
        f'gpu="{gpu}",UUID="GPU-0000000{gpu}-sample",device="nvidia{gpu}",'
        f'modelName="{model}",Hostname="sample-node-1"'
    )
    return f"{name}{{{labels}}} {value} {ts}\n"


def dcgm_text(*, tokens: bool = True, model: str = "NVIDIA H200", counter: bool = True) -> str:
    """SAMPLE DATA (made up): two scrapes of 3 GPUs; GPUs 0 and 1 serve (30,000 J and 27,000 J
    in 60 s), GPU 2 idles (utilisation 0); vLLM generated 57,000 tokens in the window."""
    out = "# SAMPLE DATA for tests: a made-up dcgm-exporter scrape, not a measurement\n"
    out += (
        "# HELP DCGM_FI_DEV_TOTAL_ENERGY_CONSUMPTION Total energy consumption since boot (in mJ).\n"
    )
    out += "# TYPE DCGM_FI_DEV_TOTAL_ENERGY_CONSUMPTION counter\n"
    energy = {0: (9.0e11, 9.0e11 + 3.0e7), 1: (8.0e11, 8.0e11 + 2.7e7), 2: (7.0e11, 7.0e11 + 6e6)}
    power = {0: (480.0, 520.0), 1: (430.0, 470.0), 2: (100.0, 100.0)}
    for ts, i in ((T0, 0), (T1, 1)):
        for gpu in (0, 1, 2):
            if counter:
                out += _gpu("DCGM_FI_DEV_TOTAL_ENERGY_CONSUMPTION", gpu, energy[gpu][i], ts, model)
            out += _gpu("DCGM_FI_DEV_POWER_USAGE", gpu, power[gpu][i], ts, model)
            out += _gpu("DCGM_FI_DEV_GPU_UTIL", gpu, 0 if gpu == 2 else 90, ts, model)
        if tokens:
            out += (
                f'vllm:generation_tokens_total{{model_name="{MODEL}"}} '
                f"{1000.0 + 57000.0 * i} {ts}\n"
            )
    return out


def _write(tmp_path: Path, text: str, name: str = "dcgm.prom") -> Path:
    path = tmp_path / name
    path.write_text(text, encoding="utf-8")
    return path


def _cite(samples: Path, candidate: str, source: Path) -> Path:
    target = samples / "energy" / source.name
    target.parent.mkdir(exist_ok=True)
    target.write_bytes(source.read_bytes())
    anchor = f"        - path: evidence/{candidate}/scores.jsonl\n"
    lines = (samples / "pack.yaml").read_text(encoding="utf-8").splitlines(keepends=True)
    at = next(i for i, line in enumerate(lines) if line == anchor)
    lines.insert(at + 2, f"      references:\n        - path: energy/{source.name}\n")
    (samples / "pack.yaml").write_text("".join(lines), encoding="utf-8")
    return samples / "pack.yaml"


def test_a_dcgm_scrape_gives_energy_per_output_token_of_the_busy_gpus(tmp_path: Path) -> None:
    parsed = read_input(_write(tmp_path, dcgm_text()))
    assert parsed.format_id == "dcgm-exporter-text"
    (point,) = parsed.references
    f = point.figures
    assert f.energy_method == "accelerator"
    # (30,000 + 27,000) J of GPUs 0 and 1 over 57,000 tokens; the idle GPU 2 is left out
    assert f.energy_per_output_token_joules == pytest.approx(1.0)
    assert f.average_power_watts == pytest.approx(57000 / 60)
    assert f.duration_s == 60
    assert point.accelerator == "NVIDIA H200"
    assert point.accelerator_count == 2
    assert point.model_name == MODEL
    assert "left out, idle: GPU sample-node-1/GPU-00000002-sample" in (f.energy_scope or "")
    assert "counter's difference" in (f.energy_scope or "")


def test_power_samples_are_integrated_where_the_counter_is_missing(tmp_path: Path) -> None:
    (point,) = read_input(_write(tmp_path, dcgm_text(counter=False))).references
    # trapezoids: (480+520)/2 x 60 + (430+470)/2 x 60 = 57,000 J
    assert point.figures.energy_per_output_token_joules == pytest.approx(1.0)
    assert "power samples integrated" in (point.figures.energy_scope or "")


def test_dcgm_errors_name_the_line(tmp_path: Path) -> None:
    bad = dcgm_text().replace(" 480.0 ", " lots ", 1)
    with pytest.raises(InputError, match=r"line \d+: DCGM_FI_DEV_POWER_USAGE's value 'lots'"):
        read_input(_write(tmp_path, bad))
    untimed = "".join(
        line.rsplit(" ", 1)[0] + "\n" if not line.startswith("#") else line
        for line in dcgm_text().splitlines(keepends=True)
    )
    with pytest.raises(InputError, match="a window needs readings at two times"):
        read_input(_write(tmp_path, untimed, "untimed.prom"))


def test_telemetry_of_the_candidates_gpu_is_measured_evidence_kept_out_of_the_cost(
    samples: Path, tmp_path: Path
) -> None:
    doc = check(_cite(samples, "h200-vllm", _write(tmp_path, dcgm_text())), CompileOptions())
    assert doc.cost_bases is not None
    (figure,) = [f for f in doc.cost_bases.measured_energy if f.candidate == "h200-vllm"]
    assert figure.fits, figure.reasons
    assert figure.method == "accelerator"
    assert figure.joules_per_output_token == pytest.approx(1.0)
    assert figure.accelerators == 2
    (claim,) = [c for c in doc.claims if c.id.startswith("energy.h200-vllm.measured")]
    assert "method accelerator" in claim.statement
    # the cost keeps its own (rated) energy: the counters' figure is never summed with it
    assert {e.method for e in doc.cost_bases.energy} == {"rated"}


def test_telemetry_of_another_gpu_does_not_fit_naming_why(samples: Path, tmp_path: Path) -> None:
    doc = check(_cite(samples, "mi325x-vllm", _write(tmp_path, dcgm_text())), CompileOptions())
    assert doc.cost_bases is not None
    (figure,) = [f for f in doc.cost_bases.measured_energy if f.candidate == "mi325x-vllm"]
    assert not figure.fits
    assert "ran on NVIDIA H200" in "; ".join(figure.reasons)
    assert not [c for c in doc.claims if c.id.startswith("energy.mi325x-vllm.measured")]


def test_telemetry_without_tokens_is_not_per_token(samples: Path, tmp_path: Path) -> None:
    parsed = read_input(_write(tmp_path, dcgm_text(tokens=False)))
    assert parsed.references[0].figures.energy_per_output_token_joules is None
    assert any("not per output token" in w for w in parsed.warnings)
    doc = check(
        _cite(samples, "h200-vllm", _write(tmp_path, dcgm_text(tokens=False))), CompileOptions()
    )
    assert doc.cost_bases is not None
    (figure,) = [f for f in doc.cost_bases.measured_energy if f.candidate == "h200-vllm"]
    assert not figure.fits
    assert "counts no output tokens" in "; ".join(figure.reasons)


def test_a_genai_perf_export_cited_as_a_reference_is_read_for_its_telemetry(
    shared_data: Path, samples: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """The real export: 8 GPUs, one of which (GPU 3) served openai/gpt-oss-20b; its counters
    ran ~257 s for a 74 s run, said as a warning."""
    path = shared_data / GENAI_PERF
    assert read_input(path).kind == "runs"  # cited under runs it is still a run
    parsed = read_reference_points(path)
    (point,) = parsed.references
    assert parsed.format_id == "genai-perf-telemetry"
    assert point.accelerator_count == 1
    assert point.model_name == "openai/gpt-oss-20b"
    # GPU 3's counter: 878.3300806670001 - 878.279657229 MJ over 35 x 73.514... tokens
    joules = (878.3300806670001 - 878.279657229) * 1e6
    assert point.figures.energy_per_output_token_joules == pytest.approx(
        joules / (35 * 73.51428571428572)
    )
    assert any("3.5x the run's 74 s" in w for w in parsed.warnings)
    assert "left out, idle: GPU 0, 1, 2, 4, 5, 6, 7" in (point.figures.energy_scope or "")
    # cited for the B200 candidate: the GPU model is the candidate's declared one, the model
    # is another size
    doc = check(_cite(samples, "b200-trtllm", path), CompileOptions())
    assert doc.cost_bases is not None
    (figure,) = [f for f in doc.cost_bases.measured_energy if f.candidate == "b200-trtllm"]
    assert not figure.fits
    assert "(GPU model declared)" in figure.source
    assert any("3.5x the run's 74 s" in w for w in figure.warnings)  # said with the figure
    assert "the file's accelerators: NVIDIA B200-SXM-180GB" in figure.reasons
    assert "openai/gpt-oss-20b has 20B parameters" in "; ".join(figure.reasons)
    capsys.readouterr()
    assert main(["inspect", str(_write(samples, dcgm_text()))]) == 0
    out = capsys.readouterr().out
    assert "dcgm-exporter-text" in out
    assert "(method accelerator: the 2 GPU(s) that worked" in out


AIPERF = "formats/aiperf/generated/profile_export_aiperf.json"


def _aiperf_with_telemetry(shared_data: Path, tmp_path: Path, end: str) -> Path:
    """The real AIPerf 0.13 export (40 requests, 1,680 output tokens in 1.66 s, telemetry off)
    with a LABELLED SAMPLE ``telemetry_data`` section added in the shape AIPerf's GPU telemetry
    guide documents (two H100s: one served, 0.0005 MJ = 500 J; one idle); made up."""
    doc = json.loads((shared_data / AIPERF).read_text(encoding="utf-8"))

    def gpu(index: int, low: float, high: float, util: float) -> dict[str, object]:
        return {
            "gpu_index": index,
            "gpu_name": "NVIDIA H100 80GB HBM3",
            "gpu_uuid": f"GPU-sample-{index}",
            "platform": "nvidia",
            "hostname": "sample-host",
            "metrics": {
                "nvidia_power_usage": {"avg": 300.0, "min": 100.0, "max": 350.0, "unit": "W"},
                "nvidia_energy_consumption": {"avg": low, "min": low, "max": high, "unit": "MJ"},
                "nvidia_gpu_utilization": {"avg": util / 2, "min": 0.0, "max": util, "unit": "%"},
            },
        }

    doc["telemetry_data"] = {
        "summary": {"start_time": "2026-11-30T05:06:04.116630", "end_time": end},
        "endpoints": {
            "localhost:9401": {
                "gpus": {"gpu_0": gpu(0, 0.2300, 0.2305, 66.0), "gpu_1": gpu(1, 0.5, 0.5001, 0.0)}
            }
        },
    }
    path = tmp_path / "profile_export_aiperf.json"
    path.write_text(json.dumps(doc), encoding="utf-8")
    return path


def test_aiperf_gpu_telemetry_is_read_with_its_gpu_and_window(
    shared_data: Path, tmp_path: Path
) -> None:
    path = _aiperf_with_telemetry(shared_data, tmp_path, "2026-11-30T05:06:05.787139")
    assert read_input(path).kind == "runs"  # cited under runs it is still a run
    parsed = read_reference_points(path)
    (point,) = parsed.references
    assert point.source_tool == "aiperf"
    assert point.accelerator == "NVIDIA H100 80GB HBM3"
    assert point.accelerator_count == 1
    assert point.model_name == "fake-org/fake-model-8b"
    # 0.0005 MJ of the busy GPU over the run's 1,680 output tokens
    assert point.figures.energy_per_output_token_joules == pytest.approx(500 / 1680)
    assert "left out, idle: GPU localhost:9401/gpu_1" in (point.figures.energy_scope or "")
    assert not [w for w in parsed.warnings if "window" in w]  # 1.67 s for a 1.66 s run
    late = _aiperf_with_telemetry(shared_data, tmp_path, "2026-11-30T05:06:14.116630")
    warned = read_reference_points(late).warnings
    assert any("(10 s, from its start to its end time) is 6.0x the run's 2 s" in w for w in warned)
