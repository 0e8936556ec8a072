"""Evidence counts only where it describes this candidate and this question (issue: load,
hardware, tokens, dataset, metric, currency, time). Each case edits a private copy of the sample
the way a careless team or an attacker would; before, each gave exit 0 and a confident PASS with
changed sizing. Now each is shown as not fitting (sizing unchanged) or fails the right check."""

from __future__ import annotations

import dataclasses
import datetime as dt
import json
from pathlib import Path
from typing import Any

import pytest

from evidencepack.analyze.models import DecisionDocument
from evidencepack.pipeline import CompileOptions, check

from ..inputs.builders import requests, trtllm_report, vllm_result, write_json

BASELINE = {"h200-vllm": 12, "mi325x-vllm": 9, "b200-trtllm": 6}
"""Accelerators the unedited sample needs per candidate."""


def _decide(samples: Path, **options: Any) -> DecisionDocument:
    return check(samples / "pack.yaml", CompileOptions(**options))


def _edit(samples: Path, old: str, new: str) -> None:
    spec = samples / "pack.yaml"
    text = spec.read_text(encoding="utf-8")
    assert old in text, old
    spec.write_text(text.replace(old, new, 1), encoding="utf-8")


def _add_run(samples: Path, candidate: str, after: str, relative: str, extra: str = "") -> None:
    _edit(
        samples,
        f"        - path: evidence/{candidate}/runs/{after}\n",
        f"        - path: evidence/{candidate}/runs/{after}\n        - path: {relative}\n{extra}",
    )


def _fit(doc: DecisionDocument, subject: str) -> Any:
    return next(f for f in doc.fit if f.subject == subject)


def _accelerators(doc: DecisionDocument) -> dict[str, int | None]:
    return {v.id: v.accelerators_needed for v in doc.candidates}


def _check(doc: DecisionDocument, check_id: str, candidate: str | None) -> Any:
    return next(c for c in doc.checks if c.id == check_id and c.candidate == candidate)


def _fast_vllm(**fields: Any) -> dict[str, Any]:
    """A vLLM ``bench serve`` result that meets the sample's SLO at a high rate, with the
    traffic's token lengths (1,800 in, 260 out), so only the edited field can keep it out."""
    # 200 requests over about 100 s: long and large enough for steady state (fit.min_*).
    sent = requests(200, seed=3)
    sent = dataclasses.replace(sent, start_times=[t * 20 for t in sent.start_times])
    result = vllm_result(sent, detailed=False)
    completed = result["completed"]
    result.update(
        model_id="acme/contract-summariser-70b-fp8 (sample)",
        total_input_tokens=completed * 1800,
        total_output_tokens=completed * 260,
        output_throughput=completed * 260 / result["duration"],
    )
    result.update(fields)
    return result


def test_the_sample_fits_and_decides_as_before(samples: Path) -> None:
    doc = _decide(samples)
    assert _accelerators(doc) == BASELINE
    assert doc.recommendation == "mi325x-vllm"
    assert doc.verdict == "PASS"
    runs = [f for f in doc.fit if f.kind == "run"]
    assert len(runs) == 15
    assert all(f.fits for f in runs)
    assert all(_check(doc, "FIT", c).status == "PASS" for c in BASELINE)
    assert all(_check(doc, "PRICE", c).status == "PASS" for c in BASELINE)


def test_an_unbounded_rate_run_never_sizes_interactive_traffic(samples: Path) -> None:
    write_json(samples / "thru.json", _fast_vllm(request_rate="inf", max_concurrency=None))
    _add_run(samples, "mi325x-vllm", "qps_3.2", "thru.json")
    doc = _decide(samples)
    fit = _fit(doc, "thru.json")
    assert not fit.fits
    assert any("throughput run" in r or "offline" in r for r in fit.reasons)
    assert _accelerators(doc) == BASELINE
    assert _check(doc, "FIT", "mi325x-vllm").status == "WARN"
    assert "thru.json does not fit" in _check(doc, "FIT", "mi325x-vllm").reason


def test_a_tensor_parallel_8_run_is_not_a_one_accelerator_replica(samples: Path) -> None:
    report = trtllm_report(requests(200, seed=4))
    report["world_info"].update(tp_size=8, world_size=8)
    report["engine"]["model"] = "acme/contract-summariser-70b-fp8 (sample)"
    write_json(samples / "tp8.json", report)
    _add_run(samples, "b200-trtllm", "qps_4.8", "tp8.json")
    doc = _decide(samples)
    fit = _fit(doc, "tp8.json")
    assert not fit.fits
    assert any(
        "replicas of 8 accelerator(s) (tensor-parallel 8" in r and "replicas of 1" in r
        for r in fit.reasons
    ), fit.reasons
    assert _accelerators(doc) == BASELINE


def test_a_data_parallel_run_is_divided_by_its_replicas(samples: Path) -> None:
    """A run of 4 data-parallel replicas of 2 accelerators measured 4x one replica's rate."""
    one = _fast_vllm(request_rate=2.0)
    four = dict(one)
    for key in ("request_throughput", "output_throughput", "total_token_throughput"):
        four[key] = one[key] * 4
    # Four replicas complete four times the requests in the same time: the counts say so too.
    for key in ("num_prompts", "completed", "total_input_tokens", "total_output_tokens"):
        four[key] = one[key] * 4
    four["request_rate"] = 8.0
    write_json(samples / "dp4.json", four)
    _add_run(
        samples,
        "h200-vllm",
        "qps_5.5",
        "dp4.json",
        "          declared: {data_parallel: 4, tensor_parallel: 2, hardware: NVIDIA H200}\n",
    )
    doc = _decide(samples)
    fit = _fit(doc, "dp4.json")
    assert fit.fits
    assert fit.replicas == 4
    point = next(lp for lp in doc.capacity[0].load_points if lp.run == "dp4.json")
    assert point.achieved_rate_rps == pytest.approx(one["request_throughput"])


def test_runs_from_other_hardware_do_not_size_the_candidate(samples: Path) -> None:
    write_json(samples / "h100.json", _fast_vllm(request_rate=2.0))
    _add_run(
        samples,
        "h200-vllm",
        "qps_5.5",
        "h100.json",
        "          declared: {hardware: NVIDIA H100-SXM-80GB}\n",
    )
    doc = _decide(samples)
    fit = _fit(doc, "h100.json")
    assert not fit.fits
    assert any("hardware 'NVIDIA H100-SXM-80GB'" in r for r in fit.reasons), fit.reasons
    assert _accelerators(doc) == BASELINE


def test_loads_the_envelope_forbids_and_tokens_the_traffic_never_has(samples: Path) -> None:
    write_json(samples / "c256.json", _fast_vllm(request_rate="inf", max_concurrency=256))
    short = _fast_vllm(request_rate=6.0)
    short.update(total_input_tokens=short["completed"] * 100)
    short.update(total_output_tokens=short["completed"] * 20)
    write_json(samples / "short.json", short)
    _add_run(samples, "mi325x-vllm", "qps_3.2", "c256.json")
    _add_run(samples, "mi325x-vllm", "qps_3.2", "short.json")
    doc = _decide(samples)
    assert any("concurrency 256 exceeds" in r for r in _fit(doc, "c256.json").reasons)
    reasons = _fit(doc, "short.json").reasons
    assert any("mean input tokens 100 vs traffic 1800" in r for r in reasons), reasons
    assert any("mean output tokens 20 vs traffic 260" in r for r in reasons), reasons
    assert _accelerators(doc) == BASELINE


def test_a_run_dated_after_the_decision_or_long_before_does_not_count(samples: Path) -> None:
    write_json(samples / "future.json", _fast_vllm(request_rate=6.0, date="20310101-120000"))
    write_json(samples / "old.json", _fast_vllm(request_rate=6.0, date="19960101-120000"))
    _add_run(samples, "mi325x-vllm", "qps_3.2", "future.json")
    _add_run(samples, "mi325x-vllm", "qps_3.2", "old.json")
    doc = _decide(samples)
    assert any("after the decision date" in r for r in _fit(doc, "future.json").reasons)
    assert any("days before the decision" in r for r in _fit(doc, "old.json").reasons)
    assert _accelerators(doc) == BASELINE


def _scores(samples: Path, candidate: str, header: dict[str, Any]) -> None:
    path = samples / "evidence" / candidate / "scores.jsonl"
    lines = path.read_text(encoding="utf-8").splitlines()
    first = json.loads(lines[0])
    first.update(header)
    path.write_text("\n".join([json.dumps(first), *lines[1:]]) + "\n", encoding="utf-8")
    spec = samples / "pack.yaml"
    text = spec.read_text(encoding="utf-8")
    start = text.index(f"evidence/{candidate}/scores.jsonl")
    end = text.index("\n", text.index("sha256:", start))
    spec.write_text(text[:start] + f"evidence/{candidate}/scores.jsonl" + text[end:])


def test_a_bar_on_one_metric_is_never_judged_on_another(samples: Path) -> None:
    _edit(samples, "  metric: pass_rate\n", "  metric: accuracy\n")
    doc = _decide(samples)
    fit = _fit(doc, "evidence/mi325x-vllm/scores.jsonl")
    assert not fit.fits
    assert "scored as pass_rate; the bar is on accuracy" in fit.reasons
    quality = next(q for q in doc.quality if q.candidate == "mi325x-vllm")
    assert quality.estimate is None
    assert not quality.meets_bar
    assert doc.recommendation is None
    assert doc.verdict == "FAIL"


@pytest.mark.parametrize(
    ("header", "reason"),
    [
        ({"dataset": {"name": "mmlu"}}, "scored on dataset 'mmlu'"),
        ({"dataset": {"name": "contracts-eval", "digest": "ab" * 32}}, "dataset digest abababab"),
        ({"direction": "lower_is_better"}, "the file says pass_rate is lower is better"),
    ],
)
def test_a_score_set_of_another_dataset_or_direction_does_not_judge(
    samples: Path, header: dict[str, Any], reason: str
) -> None:
    _scores(samples, "mi325x-vllm", header)
    doc = _decide(samples)
    fit = _fit(doc, "evidence/mi325x-vllm/scores.jsonl")
    assert not fit.fits
    assert any(reason in r for r in fit.reasons), fit.reasons
    verdict = next(v for v in doc.candidates if v.id == "mi325x-vllm")
    assert not verdict.eligible
    assert "FIT" in verdict.failed_checks
    assert doc.recommendation != "mi325x-vllm"


def test_yen_is_never_compared_with_dollars(samples: Path) -> None:
    _edit(
        samples,
        "      per_accelerator_hour: 2.90\n      currency: USD\n",
        "      per_accelerator_hour: 420\n      currency: JPY\n",
    )
    # 420 JPY a month's worth is 2,759,400: as a plain number it "beat" 32,120 USD; now no
    # candidate is compared until the spec says which currency decides
    doc = _decide(samples)
    for candidate in BASELINE:
        price = _check(doc, "PRICE", candidate)
        assert price.status == "FAIL"
        assert "JPY" in price.reason
        assert "USD" in price.reason
    assert doc.recommendation is None
    assert doc.verdict == "FAIL"
    _edit(samples, "headroom: 0.25\n", "headroom: 0.25\ncurrency: USD\n")
    doc = _decide(samples)
    price = _check(doc, "PRICE", "mi325x-vllm")
    assert price.status == "FAIL"
    assert "no exchange rate for JPY" in price.reason
    assert _check(doc, "PRICE", "b200-trtllm").status == "PASS"
    assert doc.recommendation == "b200-trtllm"
    # with a dated rate the cost converts, and the rate enters the claim ledger
    _edit(
        samples,
        "headroom: 0.25\ncurrency: USD\n",
        "headroom: 0.25\ncurrency: USD\nexchange_rates:\n"
        "  - {currency: JPY, rate: 0.0069, as_of: 2026-11-27, source: central bank reference}\n",
    )
    doc = _decide(samples)
    assert _check(doc, "PRICE", "mi325x-vllm").status == "PASS"
    cost = next(c for c in doc.cost if c.candidate == "mi325x-vllm")
    assert cost.currency == "USD"
    assert cost.per_month == pytest.approx(9 * 420 * 0.0069 * 730)
    assert any(c.id == "cost.mi325x-vllm.exchange_rate" for c in doc.claims)


def test_a_price_quoted_after_the_decision_fails(samples: Path) -> None:
    _edit(samples, "      as_of: 2026-11-20\n", "      as_of: 2027-06-01\n")
    doc = _decide(samples)
    price = _check(doc, "PRICE", "mi325x-vllm")
    assert price.status == "FAIL"
    assert "after the decision date" in price.reason


def test_a_waiver_that_expired_before_the_decision_never_applies(samples: Path) -> None:
    _edit(samples, "      as_of: 2026-11-20\n", "      as_of: 2027-06-01\n")
    _edit(
        samples,
        "approvals:\n",
        "waivers:\n  - {check: PRICE, candidate: mi325x-vllm, reason: quote pending, "
        "approver: CFO, expires: 2026-10-01}\napprovals:\n",
    )
    doc = _decide(samples, as_of=dt.date(2026, 9, 1))
    assert _check(doc, "PRICE", "mi325x-vllm").waived is None
    assert any("expired on 2026-10-01" in r for r in doc.waivers_rejected)


def test_declared_identity_is_marked_and_can_be_required(samples: Path) -> None:
    # bare LoadGen folders: the logs name no model or stack; only the spec declares them
    for candidate in BASELINE:
        for run in (samples / "evidence" / candidate / "runs").iterdir():
            (run / "requests.jsonl").unlink()
            (run / "run.json").unlink()
    doc = _decide(samples)
    c4 = _check(doc, "C4", "mi325x-vllm")
    assert c4.status == "PASS"
    assert c4.basis == "declared"
    assert c4.shown == "PASS (declared)"
    _edit(samples, "headroom: 0.25\n", "headroom: 0.25\nfit: {require_observed_identity: true}\n")
    doc = _decide(samples)
    c4 = _check(doc, "C4", "mi325x-vllm")
    assert c4.status == "FAIL"
    assert "fit.require_observed_identity" in c4.reason
    assert doc.verdict == "FAIL"


def test_failed_requests_beside_the_log_are_counted(samples: Path) -> None:
    rows = samples / "evidence" / "mi325x-vllm" / "runs" / "qps_2.2" / "requests.jsonl"
    lines = [json.loads(line) for line in rows.read_text(encoding="utf-8").splitlines()]
    for row in lines[:150]:
        row.update(error="HTTP 500", http_status=500, output_tokens=0)
    rows.write_text("".join(json.dumps(r) + "\n" for r in lines), encoding="utf-8")
    doc = _decide(samples)
    found = [f for f in doc.findings if f.subject == "evidence/mi325x-vllm/runs/qps_2.2"]
    failing = [f for f in found if f.severity == "FAIL"]
    assert failing, found
    assert "records 150 of 500 requests failed" in failing[0].detail
    assert "mlperf_log_detail.txt" in failing[0].detail
    capacity = next(c for c in doc.capacity if c.candidate == "mi325x-vllm")
    assert capacity.operating_point_run != "evidence/mi325x-vllm/runs/qps_2.2"
    assert _check(doc, "PROV-DATA", "mi325x-vllm").status == "FAIL"


def test_no_pass_without_a_recommendation_even_with_the_decision_waived(samples: Path) -> None:
    _edit(samples, "    threshold: 0.80\n", "    threshold: 0.999\n")
    _edit(
        samples,
        "approvals:\n",
        "waivers:\n  - {check: DECISION, reason: ship anyway, approver: VP, expires: 2027-01-01}\n"
        "approvals:\n",
    )
    doc = _decide(samples)
    assert doc.recommendation is None
    assert doc.verdict == "FAIL"
    assert _check(doc, "DECISION", None).waived is None
    assert any("cannot be waived" in r for r in doc.waivers_rejected)


def test_a_waived_failure_reads_pass_with_waivers(samples: Path) -> None:
    _edit(samples, "    threshold: 0.80\n", "    threshold: 0.999\n")
    _edit(
        samples,
        "approvals:\n",
        "waivers:\n  - {check: QUALITY, candidate: mi325x-vllm, reason: accepted for launch, "
        "approver: Head of ML, expires: 2027-01-01}\napprovals:\n",
    )
    doc = _decide(samples)
    assert doc.recommendation == "mi325x-vllm"
    assert doc.verdict == "PASS WITH WAIVERS"
    verdict = next(v for v in doc.candidates if v.id == "mi325x-vllm")
    assert verdict.waived_checks == ("QUALITY",)
    assert "the bar is NOT met" in verdict.waivers[0]
    assert "0.999" in verdict.waivers[0]


def test_the_same_bytes_under_two_candidates_are_blamed_on_both(samples: Path) -> None:
    _add_run(samples, "b200-trtllm", "qps_4.8", "evidence/mi325x-vllm/runs/qps_2.0")
    doc = _decide(samples)
    for subject in ("evidence/mi325x-vllm/runs/qps_2.0",):
        fits = [f for f in doc.fit if f.subject == subject]
        assert {f.candidate for f in fits} == {"mi325x-vllm", "b200-trtllm"}
        assert all(not f.fits and "same bytes" in f.reasons[-1] for f in fits), fits


def test_several_result_files_in_one_cited_folder_each_get_an_id(samples: Path) -> None:
    folder = samples / "sweep"
    folder.mkdir()
    for rate in (2.0, 3.0):
        write_json(folder / f"rate{rate:g}.json", _fast_vllm(request_rate=rate))
    _add_run(samples, "mi325x-vllm", "qps_3.2", "sweep")
    doc = _decide(samples)
    subjects = {f.subject for f in doc.fit if f.candidate == "mi325x-vllm"}
    assert {"sweep/rate2.json", "sweep/rate3.json"} <= subjects


def test_a_score_set_too_small_for_the_confidence_does_not_judge(samples: Path) -> None:
    path = samples / "evidence" / "mi325x-vllm" / "scores.jsonl"
    lines = path.read_text(encoding="utf-8").splitlines()
    path.write_text("\n".join(lines[:21]) + "\n", encoding="utf-8")  # the header and 20 items
    spec = samples / "pack.yaml"
    text = spec.read_text(encoding="utf-8")
    start = text.index("evidence/mi325x-vllm/scores.jsonl")
    end = text.index("\n", text.index("sha256:", start))
    spec.write_text(text[:start] + "evidence/mi325x-vllm/scores.jsonl" + text[end:])
    doc = _decide(samples)
    quality = next(q for q in doc.quality if q.candidate == "mi325x-vllm")
    assert quality.estimate is None
    assert "20 items are too few" in quality.reason
    assert "fit.min_score_items: 30" in quality.reason
    assert doc.recommendation != "mi325x-vllm"
