"""References attacked (issue 42): a public result never reaches the capacity path, whatever
key cites it."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

from .harness import run

INFERENCEX = "formats/inferencex/public"
ANCHOR = "        - path: evidence/b200-trtllm/runs/qps_2.0\n"


def test_an_inferencex_result_cited_as_a_run_is_refused(samples: Path, shared_data: Path) -> None:
    shutil.copy(sorted((shared_data / INFERENCEX).glob("agg_*b200*.json"))[0], samples / "ix.json")
    spec = samples / "pack.yaml"
    text = spec.read_text(encoding="utf-8")
    assert ANCHOR in text
    spec.write_text(text.replace(ANCHOR, f"{ANCHOR}        - path: ix.json\n"), encoding="utf-8")
    ran = run(["check", "--json", str(spec)])
    assert "Traceback" not in ran.err
    decision = json.loads(ran.out)
    files = [
        c for c in decision["checks"] if c["id"] == "PROV-FILES" and c["candidate"] == "b200-trtllm"
    ]
    assert files[0]["status"] == "FAIL"
    assert "ix.json: a public result (inferencex-agg)" in files[0]["reason"]
    assert "evidence.references" in files[0]["reason"]


LLMD = "formats/llm-d-report/public"


def test_an_llmd_report_of_the_inference_simulator_is_simulated(
    shared_data: Path, tmp_path: Path
) -> None:
    from evidencepack.readers.registry import read_input

    text = (shared_data / LLMD / "br_v0_2_example.yaml").read_text(encoding="utf-8")
    real = "ghcr.io/llm-d/llm-d-cuda:0.3.1"
    assert real in text
    path = tmp_path / "report.yaml"
    path.write_text(text.replace(real, "ghcr.io/llm-d/llm-d-inference-sim:v0.5.1"))
    (point,) = read_input(path).references
    assert point.provenance == "simulated"
    assert any("inference simulator" in w for w in point.warnings)
    (measured,) = read_input(shared_data / LLMD / "br_v0_2_example.yaml").references
    assert measured.provenance == "measured_elsewhere"
