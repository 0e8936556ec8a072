"""A hosted API as a candidate (``candidates[].api``): the spec's rules, and the analysis on
edited copies of ``samples/pack-api.yaml`` (sizing by rate limits, cost from the token mix,
fit of the model and version, the price in the decision's currency)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from evidencepack._cli import main
from evidencepack.errors import SpecError
from evidencepack.spec.load import load_spec

API_BLOCK_END = (
    "          sha256: 52d944ecf09608cda3c8d0d5a9982735b631539ec46ea02ae015fac7255b323e\n"
)


def _edit(samples: Path, old: str, new: str, count: int = 1) -> Path:
    spec = samples / "pack-api.yaml"
    text = spec.read_text(encoding="utf-8")
    assert text.count(old) == count, old
    spec.write_text(text.replace(old, new), encoding="utf-8")
    return spec


def _problems(spec: Path) -> list[str]:
    with pytest.raises(SpecError) as info:
        load_spec(spec)
    return list(info.value.problems)


def _check(spec: Path, capsys: pytest.CaptureFixture[str]) -> dict[str, Any]:
    capsys.readouterr()
    main(["check", "--json", str(spec)])
    doc: dict[str, Any] = json.loads(capsys.readouterr().out)
    return doc


def _mine(rows: list[dict[str, Any]], cid: str = "hosted-api") -> dict[str, Any]:
    (row,) = [r for r in rows if r["candidate"] == cid]
    return row


def _status(doc: dict[str, Any], check: str) -> tuple[str, str]:
    (found,) = [c for c in doc["checks"] if c["id"] == check and c["candidate"] == "hosted-api"]
    return found["status"], found["reason"]


def test_a_candidate_is_hardware_or_an_api_never_both(samples: Path) -> None:
    spec = _edit(
        samples,
        "      provider: example-ai\n",
        "      provider: example-ai\n",
    )
    text = spec.read_text(encoding="utf-8")
    spec.write_text(
        text.replace(
            "    api:\n      provider: example-ai\n",
            "    hardware: {accelerator: NVIDIA H100, accelerators_per_node: 8, "
            "accelerators_per_replica: 1}\n    api:\n      provider: example-ai\n",
        ),
        encoding="utf-8",
    )
    (text,) = _problems(spec)
    line = next(
        i for i, t in enumerate(spec.read_text().splitlines(), 1) if "- id: hosted-api" in t
    )
    assert f"pack-api.yaml:{line}:" in text
    assert "candidates[0]" in text
    assert "either hardware or an API" in text
    assert "drop `hardware`" in text


def test_a_candidate_with_neither_hardware_nor_api_is_refused(samples: Path) -> None:
    spec = _edit(samples, "    api:\n      provider: example-ai\n", "    apx:\n      provider: x\n")
    problems = _problems(spec)
    assert any("`hardware`" in p and "`api`" in p for p in problems), problems


def test_rate_limits_state_at_least_one_limit(samples: Path) -> None:
    spec = _edit(
        samples,
        "      rate_limits:\n        requests_per_minute: 240\n        tokens_per_minute: 600000\n",
        "      rate_limits: {}\n",
    )
    (text,) = _problems(spec)
    assert "state at least one limit" in text
    assert "candidates[0].api.rate_limits" in text


def test_the_api_candidate_is_filled_in_as_one_account(samples: Path) -> None:
    spec = load_spec(samples / "pack-api.yaml").spec
    api = spec.candidates[0]
    assert api.api is not None
    assert api.hardware.accelerator == "hosted API: example-ai example-ai/summarise-large (sample)"
    assert (api.hardware.accelerators_per_replica, api.hardware.accelerators_per_node) == (1, 1)
    assert (api.stack.runtime, api.stack.version) == ("example-ai", "2026-10-01")
    assert api.price.per_accelerator_hour is None
    assert api.price.as_of == api.api.prices.as_of
    # A hardware price still needs a rate.
    assert spec.candidates[1].api is None


def test_without_a_cache_hit_ratio_every_input_token_is_full_price(
    samples: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    spec = _edit(samples, "  cache_hit_ratio: 0.5\n", "")
    cost = _mine(_check(spec, capsys)["cost"])
    assert cost["api"]["cache_hit_ratio"] == 0.0
    assert cost["per_request"] == pytest.approx((1800 * 0.30 + 260 * 1.20) / 1e6)


def test_without_tiers_no_tier_is_named_and_tighter_limits_need_more_accounts(
    samples: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    _edit(
        samples,
        "        - {name: tier-4, requests_per_minute: 600, tokens_per_minute: 1500000}\n",
        "",
    )
    _edit(
        samples,
        "        - {name: tier-5, requests_per_minute: 1500, tokens_per_minute: 4000000}\n",
        "",
    )
    spec = _edit(samples, "      tiers:\n", "")
    spec = _edit(
        samples, "        tokens_per_minute: 600000\n", "        tokens_per_minute: 200000\n"
    )
    doc = _check(spec, capsys)
    sizing = _mine(doc["capacity"])["api"]
    assert sizing["tier"] is None
    # 17.5 req/s x 60 x (1800 + 260) tokens = 2,163,000 a minute over 200,000 per account.
    assert sizing["accounts_by_limit"]["tokens_per_minute"] == 11
    assert sizing["accounts"] == 11
    assert _mine(doc["capacity"])["accelerators"] == 11


def test_a_score_set_of_another_model_version_than_the_runs_does_not_fit(
    samples: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    scores = samples / "evidence" / "hosted-api" / "scores.jsonl"
    lines = scores.read_text(encoding="utf-8").splitlines(keepends=True)
    header = json.loads(lines[0])
    header["runtime"]["version"] = "2026-07-01"  # an older snapshot of the model was scored
    scores.write_text(json.dumps(header) + "\n" + "".join(lines[1:]), encoding="utf-8")
    spec = _edit(samples, API_BLOCK_END, "")
    doc = _check(spec, capsys)
    status, reason = _status(doc, "FIT")
    assert status == "FAIL"
    assert "scores.jsonl does not fit" in reason
    assert "2026-07-01" in reason
    assert doc["recommendation"] == "mi325x-vllm"


def test_runs_of_another_model_than_the_api_serves_do_not_fit(
    samples: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    spec = _edit(
        samples,
        "      model: example-ai/summarise-large (sample)\n",
        "      model: example-ai/summarise-xl (sample)\n",
    )
    doc = _check(spec, capsys)
    status, reason = _status(doc, "FIT")
    assert status == "FAIL"
    assert "no run fits" in reason
    assert _status(doc, "PROV-MODEL")[0] == "FAIL"


def test_api_prices_in_another_currency_need_a_rate(
    samples: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    spec = _edit(samples, "        currency: USD\n", "        currency: EUR\n")
    text = spec.read_text(encoding="utf-8")
    spec.write_text(
        text.replace(
            "objective: lowest_cost_at_slo", "currency: USD\nobjective: lowest_cost_at_slo"
        )
    )
    doc = _check(spec, capsys)
    status, reason = _status(doc, "PRICE")
    assert status == "FAIL"
    assert "EUR" in reason
    assert _mine(doc["cost"])["per_year"] is None
    spec.write_text(
        spec.read_text(encoding="utf-8")
        + "exchange_rates:\n  - {currency: EUR, to: USD, rate: 1.10, as_of: 2026-11-30,\n"
        + "     source: SAMPLE rate}\n"
    )
    doc = _check(spec, capsys)
    assert _status(doc, "PRICE")[0] == "PASS"
    cost = _mine(doc["cost"])
    assert cost["api"]["output_per_million"] == pytest.approx(1.20 * 1.10)
    assert cost["currency"] == "USD"
