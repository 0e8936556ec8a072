"""A score set on another dataset version or split, or run with settings outside the envelope,
does not judge the bar; a self-judged set is a visible finding (issue 37, point 4)."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

from evidencepack.analyze.models import DecisionDocument
from evidencepack.analyze.score_fit import _same
from evidencepack.pipeline import CompileOptions, check

from ..test_pipeline import _edit

MI = "mi325x-vllm"
MI_SCORES = "evidence/mi325x-vllm/scores.jsonl"


def _header(samples: Path, edit: Callable[[dict[str, Any]], None]) -> Path:
    """mi325x-vllm's score file with its header edited by ``edit``, its pin dropped."""
    path = samples / MI_SCORES
    lines = path.read_text().splitlines()
    header = json.loads(lines[0])
    edit(header)
    path.write_text("\n".join([json.dumps(header), *lines[1:]]) + "\n")
    spec = samples / "pack.yaml"
    text = spec.read_text()
    pin = f"- path: {MI_SCORES}\n          sha256: "
    start = text.index(pin)
    spec.write_text(
        text[:start] + f"- path: {MI_SCORES}" + text[text.index("\n", start + len(pin)) :]
    )
    return spec


def _fit(decision: DecisionDocument) -> tuple[bool, tuple[str, ...]]:
    fit = next(f for f in decision.fit if f.candidate == MI and f.kind == "scores")
    return fit.fits, fit.reasons


def _status(decision: DecisionDocument, check_id: str) -> tuple[str, str]:
    found = next(c for c in decision.checks if c.id == check_id and c.candidate == MI)
    return found.status, found.reason


def test_another_dataset_version_does_not_judge_the_bar(samples: Path) -> None:
    spec = _header(samples, lambda h: h["dataset"].update(version="2026.11-train"))
    decision = check(spec, CompileOptions())
    fits, reasons = _fit(decision)
    assert not fits
    assert (
        "scored on dataset version '2026.11-train', the spec's contracts-eval (sample) is '2026.11'"
        in reasons
    )
    quality = next(q for q in decision.quality if q.candidate == MI)
    assert quality.estimate is None
    assert _status(decision, "FIT")[0] == "FAIL"
    assert decision.recommendation != MI


def test_a_training_split_does_not_judge_the_bar(samples: Path) -> None:
    spec = _header(samples, lambda h: h["dataset"].update(split="train"))
    fits, reasons = _fit(check(spec, CompileOptions()))
    assert not fits
    assert any("scored on the train split" in r for r in reasons)


def test_the_spec_names_the_split(samples: Path) -> None:
    spec = _header(samples, lambda h: h["dataset"].update(split="validation"))
    _edit(spec, '  version: "2026.11"\n', '  version: "2026.11"\n  split: test\n')
    fits, reasons = _fit(check(spec, CompileOptions()))
    assert not fits
    assert "scored on the validation split, the spec's is test" in reasons
    _edit(spec, "  split: test\n", "  split: validation\n")
    assert _fit(check(spec, CompileOptions()))[0]


def test_settings_outside_the_envelope_do_not_judge_the_bar(samples: Path) -> None:
    def other(header: dict[str, Any]) -> None:
        header["settings"].update(kv_cache_dtype="bf16", max_model_len=4096)

    decision = check(_header(samples, other), CompileOptions())
    fits, reasons = _fit(decision)
    assert not fits
    assert (
        "evaluated with kv_cache_dtype bf16, the envelope pins kv_cache_dtype fp8 "
        "(envelope.settings)" in reasons
    )
    assert (
        "evaluated with max_model_len 4096, the envelope pins max_model_len 8192 "
        "(envelope.settings)" in reasons
    )
    assert decision.recommendation != MI


def test_an_unrecorded_setting_is_a_note(samples: Path) -> None:
    spec = _header(samples, lambda h: h.update(settings={}))
    decision = check(spec, CompileOptions())
    fit = next(f for f in decision.fit if f.candidate == MI and f.kind == "scores")
    assert fit.fits
    assert any("settings not recorded by the file" in n for n in fit.notes)


def test_setting_values_compare_by_meaning() -> None:
    assert _same("fp8", "fp8_e4m3")
    assert not _same("fp8", "bf16")
    assert _same(8192, "8192")
    assert not _same(8192, 4096)
    assert _same(False, "false")
    assert not _same(False, True)


def test_a_self_judged_set_is_a_visible_finding(samples: Path) -> None:
    spec = _header(
        samples, lambda h: h.update(judge_model="acme/contract-summariser-70b-fp8 (sample)")
    )
    decision = check(spec, CompileOptions())
    quality = next(q for q in decision.quality if q.candidate == MI)
    assert quality.self_judged
    assert quality.meets_bar
    status, reason = _status(decision, "QUALITY")
    assert status == "WARN"
    assert (
        "self-judged: the items were graded by acme/contract-summariser-70b-fp8 (sample)" in reason
    )


def test_an_independent_judge_is_no_finding(samples: Path) -> None:
    spec = _header(samples, lambda h: h.update(judge_model="openai/gpt-4o-2024-08-06"))
    decision = check(spec, CompileOptions())
    quality = next(q for q in decision.quality if q.candidate == MI)
    assert quality.judge_model == "openai/gpt-4o-2024-08-06"
    assert not quality.self_judged
    assert _status(decision, "QUALITY")[0] == "PASS"


def test_a_grader_named_in_the_settings_counts_too(samples: Path) -> None:
    """inspect-ai's model_roles grader reaches the set as the setting ``judge_model``."""
    spec = _header(
        samples,
        lambda h: h["settings"].update(judge_model="vllm/acme/contract-summariser-70b-fp8"),
    )
    decision = check(spec, CompileOptions())
    quality = next(q for q in decision.quality if q.candidate == MI)
    assert quality.self_judged
    assert _status(decision, "QUALITY")[0] == "WARN"
