"""`evidencepack init` recognises public results to compare against and lists them for every
candidate as references (measured elsewhere or simulated), never as the team's own runs."""

from __future__ import annotations

import shutil
from pathlib import Path

import yaml

from evidencepack.commands.init_spec import init_spec

KIMI = (
    "formats/inferencex/public/agg_kimik2.5_1k1k_int4_vllm_tp8-ep1-dpafalse_disagg-false_"
    "spec-mtp_conc4_MI355-gbt350-odcdh5-wbb3.json"
)


def test_init_lists_references_for_every_candidate(tmp_path: Path, shared_data: Path) -> None:
    root = tmp_path / "evidence"
    (root / "team-a").mkdir(parents=True)
    (root / "team-b").mkdir()
    aiperf = shared_data / "formats/aiperf/generated/profile_export_aiperf.json"
    shutil.copy(aiperf, root / "team-a")
    shutil.copy(aiperf, root / "team-b")
    public = root / "public"
    public.mkdir()
    shutil.copy(shared_data / KIMI, public / "agg_kimi.json")
    shutil.copy(shared_data / "formats/aiconfigurator/generated/agg/pareto.csv", public)
    result = init_spec(root)
    assert result.candidates == ("team-a", "team-b")  # the public folder is no candidate
    text = result.path.read_text(encoding="utf-8")
    doc = yaml.safe_load(text)
    for candidate in doc["candidates"]:
        # The team's own runs are cited as runs; the public points as references.
        assert [r["path"] for r in candidate["evidence"]["runs"]] == [
            f"{candidate['id']}/profile_export_aiperf.json"
        ]
        assert [r["path"] for r in candidate["evidence"]["references"]] == [
            "public/agg_kimi.json",
            "public/pareto.csv",
        ]
    notes = text.splitlines()
    assert any(
        "# inferencex-agg (inferencex): 1 reference point(s), measured elsewhere; model "
        "moonshotai/Kimi-K2.5" in line
        for line in notes
    )
    assert any("# aiconfigurator-csv" in line and "simulated" in line for line in notes)
    # The simulated and published points say nothing about the team's envelope.
    assert doc["envelope"]["model"]["name"] != "moonshotai/Kimi-K2.5"
