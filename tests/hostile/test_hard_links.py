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
