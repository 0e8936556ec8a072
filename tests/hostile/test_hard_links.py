"""A cited file with another name elsewhere (a hard link) may carry bytes someone outside the
cited folder can change: PROV-FILES warns, naming it (it does not fail: the bytes read are
packed and signed)."""

from __future__ import annotations

import os
from pathlib import Path

from evidencepack.pipeline import CompileOptions, check


def test_a_hard_linked_run_file_is_a_prov_files_warning(samples: Path, tmp_path: Path) -> None:
    detail = samples / "evidence" / "mi325x-vllm" / "runs" / "qps_2.0" / "mlperf_log_detail.txt"
    os.link(detail, tmp_path / "elsewhere.txt")
    doc = check(samples / "pack.yaml", CompileOptions())
    files = next(c for c in doc.checks if c.id == "PROV-FILES" and c.candidate == "mi325x-vllm")
    assert files.status == "WARN"
    assert "hard link (2 names)" in files.reason
    assert "qps_2.0/mlperf_log_detail.txt" in files.reason
    assert doc.recommendation == "mi325x-vllm"
    other = next(c for c in doc.checks if c.id == "PROV-FILES" and c.candidate == "h200-vllm")
    assert other.status == "PASS"


def test_every_hard_linked_input_is_named_not_only_evidence(samples: Path, tmp_path: Path) -> None:
    """The spec, the dataset and a file of a cited MLPerf tree, each with a second name outside
    the spec folder (issue 42): packed with a PROV-FILES warning naming each, never silently."""
    outside = tmp_path / "outside"
    outside.mkdir()
    system = "evidence/mlperf/closed/SampleVendor/systems/8xMI325X_vLLM.json"
    for name in ("pack.yaml", "evidence/dataset/contracts-eval.jsonl", system):
        os.link(samples / name, outside / Path(name).name)
    doc = check(samples / "pack.yaml", CompileOptions())
    files = {c.candidate: c for c in doc.checks if c.id == "PROV-FILES"}
    for candidate, judged in files.items():
        assert judged.status == "WARN", (candidate, judged.reason)
        # Shared files warn for every candidate, the spec and the dataset by their spec paths.
        assert "pack.yaml: a hard link (2 names)" in judged.reason
        assert "evidence/dataset/contracts-eval.jsonl: a hard link (2 names)" in judged.reason
    # A file of the tree warns for the candidate that cites that result.
    assert f"{system}: a hard link (2 names)" in files["mi325x-vllm"].reason
    assert system not in files["h200-vllm"].reason
    assert doc.recommendation == "mi325x-vllm"
