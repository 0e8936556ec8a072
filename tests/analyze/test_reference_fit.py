"""Hardware that is not the hardware bought, runs implausible against the same system's MLPerf
result, and MLPerf references that are not what they seem (issue 36, points 4-6). Each case
edits a private copy of the sample as a careless team or a vendor with an interest would;
before, each gave a plain PASS. Now each run is listed as not fitting (sizing unchanged) or the
right check names the file and the disagreement."""

from __future__ import annotations

import json
import shutil
from pathlib import Path
from typing import Any

import pytest

from evidencepack._cli import main
from evidencepack.analyze.models import DecisionDocument
from evidencepack.analyze.reference_fit import judge_reference
from evidencepack.analyze.references import reference_view
from evidencepack.mlperf.importer import import_path
from evidencepack.mlperf.query import load_results
from evidencepack.pipeline import BuildOptions, CompileOptions, build
from evidencepack.readers.accelerators import difference, identify
from evidencepack.spec.load import load_spec
from evidencepack.store import Store

from ..conftest import SAMPLE_SPEC
from ..inputs.builders import write_json
from .test_fit import BASELINE, _accelerators, _add_run, _check, _decide, _edit, _fast_vllm, _fit

SYSTEMS = "evidence/mlperf/closed/SampleVendor/systems"
MI325X_KEY = "no-round/closed/SampleVendor/8xMI325X_vLLM/llama2-70b-99/Server"
H200_KEY = "no-round/closed/SampleVendor/8xH200-SXM-141GB_TRT/llama2-70b-99/Server"
LENOVO_KEY = "v5.1/closed/Lenovo/SR780a_V3_B200SXMx8_TRT/llama3.1-8b/Server"


def _reference(doc: DecisionDocument, candidate: str, key: str) -> Any:
    return next(r for r in doc.references if r.candidate == candidate and r.key == key)


def _system(samples: Path, name: str, **fields: Any) -> None:
    path = samples / SYSTEMS / f"{name}.json"
    data = json.loads(path.read_text(encoding="utf-8"))
    data.update(fields)
    path.write_text(json.dumps(data, indent=4), encoding="utf-8")


def _cite(samples: Path, after_key: str, path: str, key: str) -> None:
    anchor = f"          result: {after_key}\n"
    _edit(samples, anchor, f"{anchor}        - path: {path}\n          result: {key}\n")


# ------------------------------------------------------------------ hardware identity


@pytest.mark.parametrize(
    ("name", "form", "memory", "partition"),
    [
        ("NVIDIA H200-SXM-141GB", "SXM", 141, None),
        ("NVIDIA H200", "SXM", None, None),  # nvidia-smi's name of the SXM module
        ("NVIDIA H200-NVL-141GB", "NVL", 141, None),
        ("NVIDIA H200 PCIe", "NVL", None, None),  # the H200's PCIe card is the NVL
        ("NVIDIA H100 94GB", "NVL", 94, None),  # only the NVL has 94 GB
        ("AMD Instinct MI325X 256GB HBM3e", "OAM", 256, None),
        ("NVIDIA Blackwell GPU (B200-SXM-180GB)", "SXM", 180, None),
        ("NVIDIA H200 MIG 3g.71gb", "SXM", None, "a MIG slice (3g.71gb)"),
        ("AMD Instinct MI300X CPX", "OAM", None, "a compute partition (cpx)"),
        ("Virtualized NVIDIA H200-SXM-141GB", "SXM", 141, "a virtual GPU"),
    ],
)
def test_accelerator_names_read_against_the_table(
    name: str, form: str, memory: float | None, partition: str | None
) -> None:
    found = identify(name)
    assert found.family is not None
    assert (found.form, found.memory_gb, found.partition) == (form, memory, partition)


@pytest.mark.parametrize(
    ("value", "wanted", "why"),
    [
        (
            "NVIDIA H200-SXM-141GB",
            "NVIDIA H200 NVL 141GB",
            "NVIDIA H200 SXM is not NVIDIA H200 NVL",
        ),
        ("NVIDIA H200 MIG 3g.71gb", "NVIDIA H200", "a MIG slice (3g.71gb) is not a whole"),
        ("NVIDIA A100-SXM4-40GB", "NVIDIA A100-SXM4-80GB", "40 GB is not the 80 GB one"),
        ("NVIDIA GB200", "NVIDIA B200", "NVIDIA GB200 is not NVIDIA B200"),
        ("Acme Tensor X1", "Acme Tensor X2", "not in the table of known accelerators"),
        ("NVIDIA H200 120GB", "NVIDIA H200", "ships with 141 GB, not 120 GB"),
    ],
)
def test_other_hardware_is_named_with_the_rule(value: str, wanted: str, why: str) -> None:
    found = difference(value, wanted)
    assert found is not None
    assert why in found


@pytest.mark.parametrize(
    ("value", "wanted"),
    [
        ("NVIDIA H200", "NVIDIA H200-SXM-141GB"),
        ("AMD Instinct MI325X 256GB HBM3E", "AMD Instinct MI325X 256GB HBM3e"),
        ("NVIDIA B200 192GB", "NVIDIA B200-SXM-180GB"),  # one product, quoted two ways
        ("acme tensor-x1", "Acme Tensor X1"),  # unknown: the same whole name
    ],
)
def test_the_same_hardware_written_differently_matches(value: str, wanted: str) -> None:
    assert difference(value, wanted) is None


def test_h200_sxm_runs_never_size_an_h200_nvl_candidate(samples: Path) -> None:
    _edit(
        samples,
        "      accelerator: NVIDIA H200-SXM-141GB\n",
        "      accelerator: NVIDIA H200 NVL\n",
    )
    doc = _decide(samples)
    runs = [f for f in doc.fit if f.kind == "run" and f.candidate == "h200-vllm"]
    assert len(runs) == 5
    for fit in runs:
        assert not fit.fits
        assert any("NVIDIA H200 SXM is not NVIDIA H200 NVL" in r for r in fit.reasons), fit.reasons
    assert _accelerators(doc)["h200-vllm"] is None
    assert _check(doc, "FIT", "h200-vllm").status == "FAIL"
    # Its MLPerf result ran on the SXM module too: shown, supporting nothing of the NVL.
    ref = _reference(doc, "h200-vllm", H200_KEY)
    assert not ref.supports
    assert ref.measured_ratio is None
    assert "not this candidate's reference" in _check(doc, "C3", "h200-vllm").reason


@pytest.mark.parametrize(
    ("hardware", "why"),
    [
        ("NVIDIA H200 MIG 3g.71gb", "a MIG slice (3g.71gb) is not a whole accelerator"),
        ("NVIDIA H200 NVL", "NVIDIA H200 NVL is not NVIDIA H200 SXM"),
        ("Virtualized NVIDIA H200-SXM-141GB", "a virtual GPU is not a whole accelerator"),
        ("Acme Tensor X1", "not in the table of known accelerators"),
    ],
)
def test_a_run_on_a_slice_or_other_hardware_never_sizes(
    samples: Path, hardware: str, why: str
) -> None:
    write_json(samples / "slice.json", _fast_vllm(request_rate=4.0))
    _add_run(
        samples,
        "h200-vllm",
        "qps_5.5",
        "slice.json",
        f"          declared: {{hardware: '{hardware}', tensor_parallel: 2}}\n",
    )
    doc = _decide(samples)
    fit = _fit(doc, "slice.json")
    assert not fit.fits
    assert any(why in r and f"hardware {hardware!r}" in r for r in fit.reasons), fit.reasons
    assert _accelerators(doc) == BASELINE


def test_an_unknown_accelerator_is_compared_by_its_whole_name_and_says_so(samples: Path) -> None:
    for text in (samples / "pack.yaml").read_text(encoding="utf-8").splitlines():
        assert "Acme Tensor X1" not in text
    spec = samples / "pack.yaml"
    spec.write_text(
        spec.read_text(encoding="utf-8").replace("NVIDIA B200-SXM-180GB", "Acme Tensor X1"),
        encoding="utf-8",
    )
    doc = _decide(samples)
    runs = [f for f in doc.fit if f.kind == "run" and f.candidate == "b200-trtllm"]
    assert all(f.fits for f in runs)
    assert all(any("not in the table of known accelerators" in n for n in f.notes) for f in runs)
    assert _accelerators(doc) == BASELINE


# ------------------------------------------------------------------ plausibility (C4)


def test_a_run_far_beyond_the_same_systems_mlperf_result_fails_c4(samples: Path) -> None:
    """The MI325X result read as 8 nodes of 8: 190.7 tok/s per accelerator, which every
    MI325X run of the sample exceeds more than 1.5 times."""
    _system(samples, "8xMI325X_vLLM", number_of_nodes=8)
    doc = _decide(samples)
    c4 = _check(doc, "C4", "mi325x-vllm")
    assert c4.status == "FAIL"
    assert c4.hard
    reference = 12202.6 / 64
    assert f"the {reference:.1f} of {MI325X_KEY}" in c4.reason
    assert "evidence/mi325x-vllm/runs/qps_2.2: 497.5 output tok/s per accelerator is 2.61x" in (
        c4.reason
    )
    assert "fit.max_over_reference (1.5x)" in c4.reason
    assert "within" not in c4.reason
    assert doc.recommendation != "mi325x-vllm"
    assert doc.verdict != "PASS"


def test_plausibility_reads_the_spec_setting_and_a_waiver_covers_it(samples: Path) -> None:
    _system(samples, "8xMI325X_vLLM", number_of_nodes=8)
    _edit(
        samples,
        "stack_mismatch_discount: 0.15\n",
        "stack_mismatch_discount: 0.15\nfit:\n  max_over_reference: 5\n",
    )
    assert _check(_decide(samples), "C4", "mi325x-vllm").status == "PASS"
    _edit(samples, "  max_over_reference: 5\n", "  max_over_reference: 1.5\n")
    _edit(
        samples,
        "approvals:\n",
        "waivers:\n  - {check: C4, candidate: mi325x-vllm, reason: the MLPerf system was "
        "power-capped, approver: Head of ML, expires: 2027-01-01}\napprovals:\n",
    )
    doc = _decide(samples)
    c4 = _check(doc, "C4", "mi325x-vllm")
    assert c4.status == "FAIL"
    assert c4.waived is not None


# ------------------------------------------------------------------ what a reference is


def test_an_open_division_result_never_passes_c3_as_production_like(samples: Path) -> None:
    tree = samples / "evidence" / "mlperf"
    (tree / "closed").rename(tree / "open")
    for system in (tree / "open" / "SampleVendor" / "systems").iterdir():
        data = json.loads(system.read_text(encoding="utf-8"))
        system.write_text(json.dumps({**data, "division": "open"}, indent=4), encoding="utf-8")
    spec = samples / "pack.yaml"
    spec.write_text(
        spec.read_text(encoding="utf-8").replace("no-round/closed/", "no-round/open/"),
        encoding="utf-8",
    )
    doc = _decide(samples)
    c3 = _check(doc, "C3", "mi325x-vllm")
    assert c3.status == "WARN"
    assert "Open-division result" in c3.reason
    assert "like production" not in c3.reason
    assert _reference(doc, "mi325x-vllm", MI325X_KEY.replace("closed", "open")).division == "open"
    assert _accelerators(doc) == BASELINE


@pytest.mark.parametrize(
    ("fields", "supports", "said"),
    [
        ({"status": "rdi"}, False, "not for sale (status 'rdi'"),
        ({"status": "preview"}, False, "no availability date stated"),
        (
            {"status": "preview", "target_availability_date": "2027-03-01"},
            False,
            "to be available by 2027-03-01, after the decision date",
        ),
        (
            {"status": "preview", "target_availability_date": "2026-10-01"},
            True,
            "to be available by 2026-10-01 (on or before the decision date 2026-11-30)",
        ),
    ],
)
def test_a_reference_not_for_sale_is_a_visible_finding(
    samples: Path, fields: dict[str, str], supports: bool, said: str
) -> None:
    _system(samples, "8xMI325X_vLLM", **fields)
    doc = _decide(samples)
    ref = _reference(doc, "mi325x-vllm", MI325X_KEY)
    assert ref.availability == fields["status"]
    assert ref.supports is supports
    assert any(said in f for f in ref.findings), ref.findings
    c3 = _check(doc, "C3", "mi325x-vllm")
    assert c3.status == "WARN"
    assert said in c3.reason
    assert ("like production" in c3.reason) is supports
    assert _accelerators(doc) == BASELINE


def test_check_json_shows_the_reference_findings(
    samples: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    _system(samples, "8xMI325X_vLLM", status="rdi")
    code = main(["check", str(samples / "pack.yaml"), "--json"])
    out = json.loads(capsys.readouterr().out)
    assert code == 0
    (ref,) = [r for r in out["references"] if r["candidate"] == "mi325x-vllm"]
    assert ref["supports"] is False
    assert ref["availability"] == "rdi"
    assert any("not for sale" in f for f in ref["findings"])
    (c3,) = [c for c in out["checks"] if c["id"] == "C3" and c["candidate"] == "mi325x-vllm"]
    assert "not for sale" in c3["reason"]


@pytest.mark.no_pdf  # reads the report's HTML and the decision only (tests/pdf_cache.py)
def test_the_report_shows_what_a_reference_is(samples: Path, tmp_path: Path) -> None:
    _system(samples, "8xMI325X_vLLM", status="preview")
    result = build(samples / "pack.yaml", tmp_path / "pack", BuildOptions(compile=CompileOptions()))
    html = (result.out_dir / "report.html").read_text(encoding="utf-8")
    assert "closed division; preview" in html
    assert "supports nothing" in html
    assert "a preview system, no availability date stated" in html


def test_another_accelerators_result_is_not_the_candidates_reference(samples: Path) -> None:
    _edit(samples, f"result: {H200_KEY}\n", f"result: {MI325X_KEY}\n")
    doc = _decide(samples)
    c3 = _check(doc, "C3", "h200-vllm")
    assert c3.status == "WARN"
    assert "AMD Instinct MI325X is not NVIDIA H200" in c3.reason
    assert "not this candidate's reference" in c3.reason
    ref = _reference(doc, "h200-vllm", MI325X_KEY)
    assert not ref.supports
    assert ref.measured_ratio is None
    assert MI325X_KEY not in _check(doc, "C4", "h200-vllm").reason  # no ratio, no bound
    assert _accelerators(doc) == BASELINE


def test_a_smaller_models_result_is_not_a_70b_candidates_reference(
    samples: Path, shared_data: Path
) -> None:
    shutil.copytree(shared_data / "mlperf" / "v5.1-power", samples / "power")
    _cite(
        samples,
        "no-round/closed/SampleVendor/8xB200-SXM-180GB_TRT/llama2-70b-99/Server",
        "power",
        LENOVO_KEY,
    )
    doc = _decide(samples)
    c3 = _check(doc, "C3", "b200-trtllm")
    assert c3.status == "WARN"
    assert "measures llama3.1-8b (8B parameters)" in c3.reason
    assert "has 70B" in c3.reason
    ref = _reference(doc, "b200-trtllm", LENOVO_KEY)
    assert not ref.supports
    assert ref.measured_ratio is None
    assert LENOVO_KEY not in _check(doc, "C4", "b200-trtllm").reason
    assert _accelerators(doc) == BASELINE


def test_mlperf_power_of_another_system_is_not_the_candidates_energy(
    samples: Path, shared_data: Path
) -> None:
    shutil.copytree(shared_data / "mlperf" / "v5.1-power", samples / "power")
    _cite(samples, MI325X_KEY, "power", LENOVO_KEY)
    doc = _decide(samples)
    assert doc.cost_bases is not None
    (energy,) = [e for e in doc.cost_bases.energy if e.candidate == "mi325x-vllm"]
    assert energy.source == "SAMPLE rated power of an 8x MI325X server (made up)"
    assert energy.provenance == "rated"
    assert not [c for c in doc.claims if c.id == f"energy.mi325x-vllm.{LENOVO_KEY}"]
    ref = _reference(doc, "mi325x-vllm", LENOVO_KEY)
    assert ref.average_watts is not None  # shown as the reference's own figure
    assert "NVIDIA B200 is not AMD Instinct MI325X" in _check(doc, "C3", "mi325x-vllm").reason


def test_a_real_preview_system_is_read_and_supports_nothing(shared_data: Path) -> None:
    """CoreWeave's v5.1 GB300 system says ``status: preview`` and gives no date."""
    store = Store()
    import_path(store, shared_data / "mlperf/v5.1/closed/CoreWeave", round="v5.1")
    results = load_results(store)
    assert results
    assert {r.availability for r in results} == {"preview"}
    result = results[0]
    assert result.availability == "preview"
    assert result.available_by is None
    ref = reference_view(result, [])
    spec = load_spec(SAMPLE_SPEC).spec
    b200 = spec.candidate("b200-trtllm")
    gb300 = b200.model_copy(
        update={"hardware": b200.hardware.model_copy(update={"accelerator": "NVIDIA GB300"})}
    )
    fit = judge_reference(spec, gb300, ref)
    assert fit.same_system
    assert not fit.for_sale
    assert not fit.supports
    assert any("a preview system, no availability date stated" in t for _, t in fit.findings)
