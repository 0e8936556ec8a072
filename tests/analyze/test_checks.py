"""The reading checklist C1-C5 and the provenance checks, each made to pass, warn and fail
with real MLPerf rows from ../shared/data (runs and scores are the team's own, built here)."""

from __future__ import annotations

import dataclasses
from pathlib import Path

import pytest

from evidencepack.analyze.capacity import RunPoint, size_candidate
from evidencepack.analyze.checklist import (
    c1_scenario,
    c2_own_scores,
    c3_stack,
    c4_remeasured,
    c5_envelope,
)
from evidencepack.analyze.comparability import compare, envelope_for
from evidencepack.analyze.evidence import (
    CandidateEvidence,
    Conditions,
    ReferenceEvidence,
    RunEvidence,
    ScoreEvidence,
)
from evidencepack.analyze.provenance_checks import provenance_checks
from evidencepack.analyze.references import reference_view
from evidencepack.intake.records import InputFile
from evidencepack.mlperf.importer import import_path
from evidencepack.mlperf.query import load_results
from evidencepack.spec.load import load_spec
from evidencepack.spec.models import PackSpec
from evidencepack.store import Store

from ..conftest import SAMPLE_SPEC

AMD = "v5.1/closed/AMD/8xMI325X_2xEPYC_9575F_1/llama2-70b-99"
FILE = InputFile(
    pack_path="inputs/x.json", spec_path="x.json", role="runs", sha256="0" * 64, size_bytes=1
)


@pytest.fixture(scope="module")
def refs(shared_data: Path) -> dict[str, ReferenceEvidence]:
    """Real v5.1 AMD and NVIDIA results and a real INVALID LoadGen run, as reference views."""
    store = Store()
    for part in ("mlperf/v5.1/closed/AMD", "mlperf/v5.1/closed/NVIDIA"):
        import_path(store, shared_data / part, round="v5.1")
    import_path(store, shared_data / "loadgen" / "custom_Server_overload_perf")
    import_path(store, shared_data / "loadgen" / "llama2-70b_Server_perf")
    return {r.key: reference_view(r, [FILE]) for r in load_results(store)}


@pytest.fixture(scope="module")
def spec() -> PackSpec:
    return load_spec(SAMPLE_SPEC).spec


def _key(
    refs: dict[str, ReferenceEvidence],
    *,
    accelerator: str,
    scenario: str,
    benchmark: str = "llama2-70b-99",
    submitter: str = "",
) -> ReferenceEvidence:
    for key, ref in sorted(refs.items()):
        if (
            accelerator in ref.accelerator
            and ref.scenario == scenario
            and ref.benchmark == benchmark
            and f"/{submitter}" in key
        ):
            return ref
    raise LookupError(accelerator, scenario)


def _ev(
    *refs: ReferenceEvidence,
    runs: tuple[RunEvidence, ...] = (),
    scores: tuple[ScoreEvidence, ...] = (),
) -> CandidateEvidence:
    return CandidateEvidence(
        "mi325x-vllm", runs=list(runs), scores=list(scores), references=list(refs)
    )


def _run(
    run_id: str = "r1",
    *,
    precision: str | None = "fp8",
    model: str | None = None,
    output_tokens: float = 260.0,
    load: str = "open_loop",
) -> RunEvidence:
    point = RunPoint(
        run=run_id,
        load=load,
        offered_rate_rps=2.0,
        concurrency=None,
        completed=1000,
        failed=0,
        request_rate_rps=2.0,
        output_tokens_per_s=520.0,
        ttft_p99_ms=900.0,
        tpot_p99_ms=70.0,
        e2e_p99_ms=20000.0,
        e2e_mean_ms=None,
    )
    observed = Conditions(
        model_name=model,
        precision=precision,
        runtime="vllm",
        runtime_version="0.9.2",
        input_tokens_mean=1800.0,
        output_tokens_mean=output_tokens,
    )
    return RunEvidence(
        id=run_id, file=FILE, tool="vllm", point=point, observed=observed, declared=Conditions()
    )


def _scores(*, model: str | None) -> ScoreEvidence:
    return ScoreEvidence(
        id="s1",
        file=FILE,
        tool="evidencepack-scores",
        metric="pass_rate",
        scores=(1.0,) * 90 + (0.0,) * 10,
        observed=Conditions(model_name=model, precision="fp8"),
        declared=Conditions(),
    )


def test_c1_offline_figure_for_interactive_traffic_fails(refs, spec) -> None:  # type: ignore[no-untyped-def]
    offline = _key(refs, accelerator="MI325X", scenario="Offline", submitter="AMD")
    check = c1_scenario(spec, "mi325x-vllm", _ev(offline))
    assert check.status == "FAIL"
    assert check.hard
    assert "Offline figure sizing interactive traffic" in check.reason
    assert check.evidence[0].row == offline.key


def test_c1_server_limits_looser_than_slo_warn_interactive_pass(refs, spec) -> None:  # type: ignore[no-untyped-def]
    server = _key(refs, accelerator="MI325X", scenario="Server", submitter="AMD")
    assert server.tpot_limit_ms == 200  # the real Server limit for llama2-70b
    check = c1_scenario(spec, "mi325x-vllm", _ev(server))
    assert check.status == "WARN"
    assert "TPOT p99 < 200 ms (yours 100 ms)" in check.reason
    interactive = _key(refs, accelerator="MI325X", scenario="Interactive", submitter="AMD")
    assert c1_scenario(spec, "mi325x-vllm", _ev(interactive)).status == "PASS"


def test_c1_batch_traffic_wants_offline(refs, spec) -> None:  # type: ignore[no-untyped-def]
    batch = spec.model_copy(
        update={"traffic": spec.traffic.model_copy(update={"pattern": "batch"})}
    )
    offline = _key(refs, accelerator="MI325X", scenario="Offline", submitter="AMD")
    server = _key(refs, accelerator="MI325X", scenario="Server", submitter="AMD")
    assert c1_scenario(batch, "c", _ev(offline)).status == "PASS"
    assert c1_scenario(batch, "c", _ev(server)).status == "WARN"


def test_c2_own_scores(refs, spec) -> None:  # type: ignore[no-untyped-def]
    ref = _key(refs, accelerator="MI325X", scenario="Interactive", submitter="AMD")
    failed = c2_own_scores(spec, "c", _ev(ref))
    assert failed.status == "FAIL"
    assert "inherited from MLPerf's accuracy floor" in failed.reason
    assert "rougeL" in failed.reason  # the real accuracy, shown as a guardrail only
    assert c2_own_scores(spec, "c", _ev(ref, scores=(_scores(model=None),))).status == "WARN"
    passed = c2_own_scores(spec, "c", _ev(ref, scores=(_scores(model=spec.envelope.model.name),)))
    assert passed.status == "PASS"
    assert "100 items" in passed.reason


def test_c3_stack_match_mismatch_and_discount(refs, spec) -> None:  # type: ignore[no-untyped-def]
    amd = _key(refs, accelerator="MI325X", scenario="Interactive", submitter="AMD")
    assert amd.runtime == "vLLM"
    same = spec.candidate("mi325x-vllm").model_copy(
        update={
            "stack": spec.candidate("mi325x-vllm").stack.model_copy(
                update={"version": amd.runtime_version}
            )
        }
    )
    assert c3_stack(spec, same, _ev(amd)).status == "PASS"
    # The production vLLM 0.9.2 is not the submission's vLLM 0.6.5: discounted and shown.
    warned = c3_stack(spec, spec.candidate("mi325x-vllm"), _ev(amd))
    assert warned.status == "WARN"
    assert "discounted by 15%" in warned.reason
    # NVIDIA's B200 submission: TensorRT at FP4, against a vLLM FP8 production stack.
    nvidia = _key(refs, accelerator="B200", scenario="Interactive", submitter="NVIDIA")
    other = c3_stack(spec, spec.candidate("mi325x-vllm"), _ev(nvidia))
    assert other.status == "WARN"
    assert f"runtime {nvidia.runtime} vs production vllm" in other.reason
    assert "precision fp4 vs production fp8" in other.reason
    # With no discount configured the mismatched figure would be taken at face value: FAIL.
    undiscounted = spec.model_copy(update={"stack_mismatch_discount": 0.0})
    failed = c3_stack(undiscounted, spec.candidate("mi325x-vllm"), _ev(nvidia))
    assert failed.status == "FAIL"
    assert failed.hard
    assert "taken at face value" in failed.reason


def test_c4_remeasurement(refs, spec) -> None:  # type: ignore[no-untyped-def]
    ref = _key(refs, accelerator="MI325X", scenario="Interactive", submitter="AMD")
    candidate = spec.candidate("mi325x-vllm")
    none = c4_remeasured(spec, candidate, _ev(ref), size_candidate(spec, candidate, []))
    assert none.status == "FAIL"
    assert none.hard
    runs = (_run(model=spec.envelope.model.name),)
    capacity = size_candidate(spec, candidate, [r.point for r in runs])
    passed = c4_remeasured(spec, candidate, _ev(ref, runs=runs), capacity)
    assert passed.status == "PASS"
    value = ref.tokens_per_s / ref.accelerators_total  # type: ignore[operator]
    assert f"is {520.0 / value:.2f}x the reference's {value:.1f} (within" in passed.reason
    unnamed = c4_remeasured(spec, candidate, _ev(ref, runs=(_run(),)), capacity)
    assert unnamed.status == "WARN"


def test_c4_a_run_far_beyond_the_same_systems_mlperf_result_fails(refs, spec) -> None:  # type: ignore[no-untyped-def]
    """2.4x the per-accelerator throughput of the same system's tuned MLPerf result is not
    plausible: C4 fails naming both figures; the ratio is never printed beside a PASS."""
    ref = _key(refs, accelerator="MI325X", scenario="Server", submitter="AMD")
    value = ref.tokens_per_s / ref.accelerators_total  # type: ignore[operator]
    candidate = spec.candidate("mi325x-vllm")
    run = _run(model=spec.envelope.model.name)
    fast = RunEvidence(
        id=run.id,
        file=run.file,
        tool=run.tool,
        point=dataclasses.replace(run.point, output_tokens_per_s=value * 2.4),
        observed=run.observed,
        declared=run.declared,
    )
    capacity = size_candidate(spec, candidate, [fast.point])
    failed = c4_remeasured(spec, candidate, _ev(ref, runs=(fast,)), capacity)
    assert failed.status == "FAIL"
    assert f"{value * 2.4:.1f} output tok/s per accelerator is 2.40x the {value:.1f}" in (
        failed.reason
    )
    assert "fit.max_over_reference (1.5x)" in failed.reason
    assert "within" not in failed.reason
    lenient = spec.model_copy(
        update={"fit": spec.fit.model_copy(update={"max_over_reference": 3.0})}
    )
    assert c4_remeasured(lenient, candidate, _ev(ref, runs=(fast,)), capacity).status == "PASS"
    # Another system's result (NVIDIA B200) bounds nothing for the MI325X candidate.
    b200 = _key(refs, accelerator="B200", scenario="Server", submitter="NVIDIA")
    other = c4_remeasured(spec, candidate, _ev(b200, runs=(fast,)), capacity)
    assert other.status == "PASS"
    assert b200.key not in other.reason


def test_c5_envelope(spec) -> None:  # type: ignore[no-untyped-def]
    candidate = spec.candidate("mi325x-vllm")
    envelope = envelope_for(spec, candidate)
    model = spec.envelope.model

    def rows(*runs: RunEvidence) -> tuple[CandidateEvidence, list]:  # type: ignore[type-arg]
        ev = _ev(runs=runs)
        return ev, [
            compare(
                r.id,
                "run",
                ev.candidate,
                envelope,
                Conditions(
                    **{
                        **r.observed.__dict__,
                        "model_digest": model.digest,
                        "model_name": model.name,
                        "hardware": candidate.hardware.accelerator,
                    }
                ),
                r.declared,
            )
            for r in runs
        ]

    ev, matrix = rows(_run())
    assert c5_envelope(spec, candidate, matrix, ev).status == "PASS"
    # The same evidence, but the candidate's own stack departs from the frozen envelope.
    other = candidate.model_copy(
        update={
            "stack": candidate.stack.model_copy(update={"runtime": "sglang", "version": "0.4.9"})
        }
    )
    departed = c5_envelope(spec, other, matrix, ev)
    assert departed.status == "WARN"
    assert "runtime sglang 0.4.9 instead of the envelope's vllm 0.9.2" in departed.reason
    ev, matrix = rows(_run(precision="bf16"))
    failed = c5_envelope(spec, candidate, matrix, ev)
    assert failed.status == "FAIL"
    assert "precision bf16, envelope fp8" in failed.reason
    ev, matrix = rows(_run(output_tokens=120.0))
    warned = c5_envelope(spec, candidate, matrix, ev)
    assert warned.status == "WARN"
    assert "mean output tokens 120 vs traffic 260 (-53.8%" in warned.reason


def test_provenance_invalid_and_unchecked_mlperf(refs, spec) -> None:  # type: ignore[no-untyped-def]
    invalid = refs["loadgen/custom_Server_overload_perf"]
    assert invalid.validity == "INVALID"
    checks = {c.id: c for c in provenance_checks(spec, "c", _ev(invalid))}
    assert checks["PROV-MLPERF"].status == "FAIL"
    assert "INVALID" in checks["PROV-MLPERF"].reason
    no_round = refs["loadgen/llama2-70b_Server_perf"]
    checks = {c.id: c for c in provenance_checks(spec, "c", _ev(no_round))}
    assert checks["PROV-MLPERF"].status == "WARN"
    assert "no MLPerf round" in checks["PROV-MLPERF"].reason
    valid = _key(refs, accelerator="MI325X", scenario="Interactive", submitter="AMD")
    checks = {c.id: c for c in provenance_checks(spec, "c", _ev(valid))}
    assert checks["PROV-MLPERF"].status == "PASS"


def test_provenance_wrong_model(spec) -> None:  # type: ignore[no-untyped-def]
    checks = {
        c.id: c
        for c in provenance_checks(
            spec, "c", _ev(runs=(_run(model="meta-llama/Llama-2-70b-chat-hf"),))
        )
    }
    assert checks["PROV-MODEL"].status == "FAIL"
    assert "Llama-2-70b-chat-hf" in checks["PROV-MODEL"].reason
