"""``diff PACK WATCH``: a watch folder as NEW evidence. The OLD pack's spec and inputs, with the
watch's run added to the watched candidate's runs, are built and compared."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from evidencepack._cli import main
from evidencepack.pipeline import BuildResult

# slow: the diff builds the watched pack again (compile, HTML)
pytestmark = pytest.mark.slow

CANDIDATE = "mi325x-vllm"


def _watch_folder(pack: Path, tmp_path: Path, run: str) -> Path:
    """A watch folder as `watch` lays it out, its run one of the pack's own run folders."""
    watch = tmp_path / "watch"
    (watch / "inputs").mkdir(parents=True)
    shutil.copy(pack / "inputs" / "pack.yaml", watch / "inputs" / "pack.yaml")
    shutil.copytree(pack / "inputs" / run, watch / "run")
    report = {"pack": {"candidate": CANDIDATE}, "as_of": "2026-12-04", "status": "broken"}
    (watch / "watch.json").write_text(json.dumps(report), encoding="utf-8")
    return watch


# The diff reads the NEW decision it builds, never its report PDF: that build writes a
# placeholder instead of rendering one (tests/pdf_cache.py).
@pytest.mark.no_pdf
def test_a_watch_run_is_new_evidence_for_the_watched_candidate(
    sample_build: BuildResult, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    pack = sample_build.out_dir
    watch = _watch_folder(pack, tmp_path, "evidence/mi325x-vllm/runs/qps_3.2")
    assert main(["diff", str(pack), str(watch), "--json"]) == 0
    document = json.loads(capsys.readouterr().out)
    assert document["compared"] is True, document
    # The NEW decision cites the watch's run among the watched candidate's runs, and only that.
    added = {row["pack_path"] for row in document["inputs"] if row["change"] == "added"}
    assert added == {
        f"inputs/watch-2026-12-04/run/{name}"
        for name in (
            "mlperf_log_accuracy.json",
            "mlperf_log_detail.txt",
            "mlperf_log_summary.txt",
            "requests.jsonl",
            "run.json",
        )
    }
    assert {
        (row["role"], row["candidate"]) for row in document["inputs"] if row["change"] == "added"
    } == {("runs", CANDIDATE)}
    # A run over capacity (the sample's own 3.2 req/s point broke the TTFT limit) does not move
    # the operating point: the decision holds.
    assert document["outcome"]["holds"] is True


def test_a_watch_of_another_decision_is_refused(
    sample_build: BuildResult, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    pack = sample_build.out_dir
    watch = _watch_folder(pack, tmp_path, "evidence/mi325x-vllm/runs/qps_3.2")
    spec = watch / "inputs" / "pack.yaml"
    spec.write_text(spec.read_text(encoding="utf-8") + "\n# edited\n", encoding="utf-8")
    assert main(["diff", str(pack), str(watch)]) != 0
    assert "the watch is of another decision" in capsys.readouterr().err
