"""The sample MLPerf-layout reference tree (SAMPLE DATA): systems, measurements and accuracy files.

Three made-up 8-accelerator systems of a made-up submitter, one per candidate's hardware, each with
llama2-70b-99 Server and Offline results. Their performance logs come from real LoadGen runs of the
simulated SUT (simsut.py, run by make_evidence.py) on a tuned capacity model; everything here is
static text around those logs. The H200 reference runs TensorRT-LLM while the h200-vllm candidate
runs vLLM, so the analysis must discount it.
"""

from __future__ import annotations

import hashlib
import json
import math
import random
from dataclasses import dataclass
from functools import cache
from pathlib import Path

from simsut import Capacity, Item

SUBMITTER = "SampleVendor"
BENCHMARK = "llama2-70b-99"
QSL_TOTAL = 24576  # the OpenOrca evaluation set's size, as in real llama2-70b runs
PERFORMANCE_COUNT = 1024  # samples loaded for a performance run (real trees: all 24576)
MIN_DURATION_MS = 180000  # real runs: >= 600000; these shorter ones say so in their logs
SAMPLE_NOTE = (
    "SAMPLE DATA made by the evidencepack project (samples/generate): a simulated system driven "
    "by the real MLPerf LoadGen. Not an MLPerf result; not reviewed by MLCommons."
)


@dataclass(frozen=True)
class Reference:
    """One reference system and the candidate whose hardware it matches."""

    candidate: str
    system: str
    system_name: str
    accelerator_model_name: str
    accelerator_memory_capacity: str
    accelerator_memory_configuration: str
    accelerator_interconnect: str
    host_processor_model_name: str
    host_processor_core_count: int
    framework: str
    other_software_stack: str
    operating_system: str
    stack_note: str
    capacity: Capacity  # 8 replicas, one accelerator each
    server_qps: float
    offline_qps: float


REFERENCES: tuple[Reference, ...] = (
    Reference(
        candidate="h200-vllm",
        system="8xH200-SXM-141GB_TRT",
        system_name="SampleVendor SV-8H (8x H200-SXM-141GB, TensorRT-LLM) [SAMPLE DATA]",
        accelerator_model_name="NVIDIA H200-SXM-141GB",
        accelerator_memory_capacity="141 GB",
        accelerator_memory_configuration="HBM3e",
        accelerator_interconnect="18x 4th Gen NVLink, 900 GB/s",
        host_processor_model_name="Intel(R) Xeon(R) Platinum 8480C",
        host_processor_core_count=56,
        framework="TensorRT-LLM 0.20.0, TensorRT 10.11, CUDA 12.9",
        other_software_stack="TensorRT 10.11, CUDA 12.9, cuDNN 9.10, Driver 575.57",
        operating_system="Ubuntu 24.04",
        stack_note="TensorRT-LLM; the candidate runs vLLM",
        capacity=Capacity(replicas=8, slots=128, prefill_base_ms=15, prefill_ms_per_token=0.05,
                          decode_base_ms=12, decode_ms_per_seq=0.32),
        server_qps=60,
        offline_qps=66,
    ),
    Reference(
        candidate="mi325x-vllm",
        system="8xMI325X_vLLM",
        system_name="SampleVendor SV-8M (8x Instinct MI325X, vLLM) [SAMPLE DATA]",
        accelerator_model_name="AMD Instinct MI325X 256GB HBM3e",
        accelerator_memory_capacity="256 GB",
        accelerator_memory_configuration="HBM3E",
        accelerator_interconnect="XGMI",
        host_processor_model_name="AMD EPYC 9575F",
        host_processor_core_count=64,
        framework="vLLM 0.9.2, PyTorch 2.7.0, ROCm 6.4.1",
        other_software_stack="hipblaslt 0.15.0, flash-attn 2.7.2, ROCm 6.4.1",
        operating_system="Ubuntu 22.04.5 LTS",
        stack_note="vLLM on ROCm, like the candidate",
        capacity=Capacity(replicas=8, slots=128, prefill_base_ms=20, prefill_ms_per_token=0.07,
                          decode_base_ms=16, decode_ms_per_seq=0.44),
        server_qps=44,
        offline_qps=48,
    ),
    Reference(
        candidate="b200-trtllm",
        system="8xB200-SXM-180GB_TRT",
        system_name="SampleVendor SV-8B (8x B200-SXM-180GB, TensorRT-LLM) [SAMPLE DATA]",
        accelerator_model_name="NVIDIA B200-SXM-180GB",
        accelerator_memory_capacity="180 GB",
        accelerator_memory_configuration="HBM3e",
        accelerator_interconnect="18x 5th Gen NVLink, 14.4 TB/s aggregated bandwidth",
        host_processor_model_name="Intel(R) Xeon(R) Platinum 8570",
        host_processor_core_count=56,
        framework="TensorRT-LLM 0.21.0, TensorRT 10.11, CUDA 12.9",
        other_software_stack="TensorRT 10.11, CUDA 12.9, cuDNN 9.10, Driver 575.57",
        operating_system="Ubuntu 24.04",
        stack_note="TensorRT-LLM, like the candidate",
        capacity=Capacity(replicas=8, slots=128, prefill_base_ms=12, prefill_ms_per_token=0.04,
                          decode_base_ms=10, decode_ms_per_seq=0.23),
        server_qps=80,
        offline_qps=88,
    ),
)  # fmt: skip


def reference_for(candidate: str) -> Reference:
    (ref,) = (r for r in REFERENCES if r.candidate == candidate)
    return ref


@cache
def reference_items() -> tuple[Item, ...]:
    """24576 OpenOrca-like lengths: input median 600 (cut 16..3072), output median 270 (4..1024),
    so tokens per sample land near llama2-70b's reference 294.45."""
    rng = random.Random(70_2024_99)
    return tuple(
        Item(
            int(min(3072, max(16, rng.lognormvariate(math.log(600), 0.8)))),
            int(min(1024, max(4, rng.lognormvariate(math.log(270), 0.45)))),
        )
        for _ in range(QSL_TOTAL)
    )


def _scenario_dir(root: Path, kind: str, ref: Reference, scenario: str) -> Path:
    return root / "mlperf" / "closed" / SUBMITTER / kind / ref.system / BENCHMARK / scenario


def perf_dir(root: Path, ref: Reference, scenario: str) -> Path:
    return _scenario_dir(root, "results", ref, scenario) / "performance" / "run_1"


def user_conf(ref: Reference, scenario: str) -> str:
    qps = ref.server_qps if scenario == "Server" else ref.offline_qps
    return (
        f"# {SAMPLE_NOTE}\n"
        "# Short runs: min_duration and min_query_count are far below MLPerf's rules.\n"
        f"llama2-70b.*.performance_sample_count_override = {PERFORMANCE_COUNT}\n"
        f"llama2-70b.{scenario}.target_qps = {qps:g}\n"
        f"llama2-70b.{scenario}.min_duration = {MIN_DURATION_MS}\n"
        f"llama2-70b.{scenario}.min_query_count = {PERFORMANCE_COUNT}\n"
    )


def system_json(ref: Reference) -> dict[str, object]:
    """The system description with the real files' field set (v5.1)."""
    return {
        "accelerator_frequency": "",
        "accelerator_host_interconnect": "PCIe Gen5 x16",
        "accelerator_interconnect": ref.accelerator_interconnect,
        "accelerator_interconnect_topology": "",
        "accelerator_memory_capacity": ref.accelerator_memory_capacity,
        "accelerator_memory_configuration": ref.accelerator_memory_configuration,
        "accelerator_model_name": ref.accelerator_model_name,
        "accelerator_on-chip_memories": "",
        "accelerators_per_node": 8,
        "boot_firmware_version": "",
        "cooling": "Air-cooled",
        "disk_controllers": "NVMe",
        "disk_drives": "SSD",
        "division": "closed",
        "filesystem": "",
        "framework": ref.framework,
        "host_memory_capacity": "2 TB",
        "host_memory_configuration": "32x 64GB DDR5",
        "host_network_card_count": "N/A",
        "host_networking": "N/A",
        "host_networking_topology": "N/A",
        "host_processor_caches": "",
        "host_processor_core_count": ref.host_processor_core_count,
        "host_processor_frequency": "",
        "host_processor_interconnect": "",
        "host_processor_model_name": ref.host_processor_model_name,
        "host_processors_per_node": 2,
        "host_storage_capacity": "4 TB",
        "host_storage_type": "NVMe SSD",
        "hw_notes": SAMPLE_NOTE,
        "management_firmware_version": "",
        "network_speed_mbit": "",
        "nics_enabled_connected": "",
        "nics_enabled_firmware": "",
        "nics_enabled_os": "",
        "number_of_nodes": 1,
        "number_of_type_nics_installed": "",
        "operating_system": ref.operating_system,
        "other_hardware": "",
        "other_software_stack": ref.other_software_stack,
        "power_management": "",
        "power_supply_details": "",
        "power_supply_quantity_and_rating_watts": "",
        "status": "available",
        "submitter": SUBMITTER,
        "sw_notes": SAMPLE_NOTE,
        "system_name": ref.system_name,
        "system_type": "datacenter",
        "system_type_detail": "N/A",
    }


MEASUREMENTS = {
    "input_data_types": "int32",
    "retraining": "No",
    "starting_weights_filename": "Original Huggingface model weights (SAMPLE DATA: simulated run)",
    "weight_data_types": "fp8",
    "weight_transformations": "quantization",
}


def accuracy_txt(ref: Reference, scenario: str) -> str:
    """The reference scorer's printout with synthetic scores above the 99% targets
    (ROUGE-1 43.9869, ROUGE-2 21.8148, ROUGE-L 28.3300). The hash line is a placeholder: the
    sha256 of seeded bytes, since no accuracy log exists for a simulated system (published trees
    ship truncated logs, so their hashes cannot be checked either)."""
    rng = random.Random(f"{ref.system}/{scenario}/accuracy")
    tokens = sum(item.output_tokens for item in reference_items()) + rng.randrange(-4000, 4000)
    scores = {
        "rouge1": round(44.30 + rng.uniform(0.05, 0.45), 4),
        "rouge2": round(22.00 + rng.uniform(0.03, 0.35), 4),
        "rougeL": round(28.55 + rng.uniform(0.03, 0.50), 4),
        "rougeLsum": round(41.95 + rng.uniform(0.05, 0.40), 4),
        "gen_len": int(tokens * rng.uniform(3.85, 4.0)),
        "gen_num": QSL_TOTAL,
        "gen_tok_len": tokens,
        "tokens_per_sample": round(tokens / QSL_TOTAL, 1),
    }
    digest = hashlib.sha256(rng.randbytes(64)).hexdigest()
    return f"\nResults\n\n{scores}\n\nhash={digest}\n"


def _write(path: Path, text: str) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_name(path.name + ".tmp")
    tmp.write_text(text, encoding="utf-8")
    tmp.replace(path)


def write_static(root: Path) -> None:
    """Everything of the tree except the LoadGen performance logs."""
    base = root / "mlperf" / "closed" / SUBMITTER
    for ref in REFERENCES:
        _write(base / "systems" / f"{ref.system}.json", json.dumps(system_json(ref), indent=4))
        for scenario in ("Server", "Offline"):
            measurements = _scenario_dir(root, "measurements", ref, scenario)
            _write(measurements / "user.conf", user_conf(ref, scenario))
            _write(measurements / f"{ref.system}.json", json.dumps(MEASUREMENTS, indent=4))
            accuracy = _scenario_dir(root, "results", ref, scenario) / "accuracy" / "accuracy.txt"
            _write(accuracy, accuracy_txt(ref, scenario))
