"""The hosted-API sample (``samples/pack-api.yaml``): a hosted model API against two hardware
candidates, built and key-signed, verified, and diffed against the same spec after the API's
price rise (``samples/pack-api-price-rise.yaml``), which flips the decision.

Expected figures are worked out here from the spec's own numbers and the run records, read
as plain YAML and JSON."""

from __future__ import annotations

import json
import math
from pathlib import Path
from typing import Any

import jsonschema
import pytest
import yaml

from evidencepack._cli import main
from evidencepack.pipeline import BuildOptions, CompileOptions, build
from evidencepack.signing.keyed import KeySigner
from evidencepack.signing.keys import generate_keypair

from .conftest import REPO_ROOT

SAMPLES = REPO_ROOT / "samples"
API_SPEC = SAMPLES / "pack-api.yaml"
PRICE_RISE = SAMPLES / "pack-api-price-rise.yaml"
PASSPHRASE = b"sample-api-passphrase"
KEY = "sample-key-made-up-not-a-secret"


@pytest.fixture(scope="module")
def signed(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    folder = tmp_path_factory.mktemp("sample-api")
    keys = generate_keypair(folder / "key.pem", folder / "key.pub", PASSPHRASE)
    signer = KeySigner.from_file(keys.private_key, lambda: PASSPHRASE)
    result = build(API_SPEC, folder / "pack", BuildOptions(compile=CompileOptions()), signer)
    return {"pack": result.out_dir, "pub": keys.public_key}


def _decision(pack: Path) -> dict[str, Any]:
    data: dict[str, Any] = json.loads((pack / "decision.json").read_text(encoding="utf-8"))
    return data


def _one(rows: list[dict[str, Any]], cid: str) -> dict[str, Any]:
    (row,) = [r for r in rows if r["candidate"] == cid]
    return row


def test_the_api_sample_builds_verifies_and_recommends_the_api(
    signed: dict[str, Path], capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["verify", str(signed["pack"]), "--key", str(signed["pub"])]) == 0
    capsys.readouterr()
    doc = _decision(signed["pack"])
    schema = json.loads((REPO_ROOT / "schemas" / "decision.v1.schema.json").read_text())
    jsonschema.validate(doc, schema)
    assert doc["recommendation"] == "hosted-api"
    assert doc["verdict"] == "PASS"
    spec = yaml.safe_load(API_SPEC.read_text(encoding="utf-8"))
    api = spec["candidates"][0]["api"]
    traffic = spec["traffic"]
    # Cost from the token mix, per year at peak x utilisation.
    ratio = traffic["cache_hit_ratio"]
    tin, tout = traffic["input_tokens"]["mean"], traffic["output_tokens"]["mean"]
    prices = api["prices"]
    per_request = (
        tin
        * ((1 - ratio) * prices["input_per_million"] + ratio * prices["cached_input_per_million"])
        + tout * prices["output_per_million"]
    ) / 1e6
    requests = traffic["peak_requests_per_s"] * traffic["utilisation"] * 3600 * 8760
    cost = _one(doc["cost"], "hosted-api")
    assert cost["per_request"] == pytest.approx(per_request)
    assert cost["per_year"] == pytest.approx(per_request * requests)
    assert cost["per_million_output_tokens"] == pytest.approx(per_request / tout * 1e6)
    # Comparable with the hardware candidates: the same table, ranked by cost per year.
    years = {c["candidate"]: c["per_year"] for c in doc["cost"]}
    assert set(years) == {"hosted-api", "mi325x-vllm", "b200-trtllm"}
    assert years["hosted-api"] < years["mi325x-vllm"] < years["b200-trtllm"]
    # Sizing by the rate limits and by the measured runs, the larger winning.
    capacity = _one(doc["capacity"], "hosted-api")
    required = traffic["peak_requests_per_s"] * (1 + spec["headroom"])
    limits = api["rate_limits"]
    sizing = capacity["api"]
    assert sizing["accounts_by_limit"] == {
        "requests_per_minute": math.ceil(required * 60 / limits["requests_per_minute"]),
        "tokens_per_minute": math.ceil(required * 60 * (tin + tout) / limits["tokens_per_minute"]),
    }
    assert sizing["accounts_by_latency"] == math.ceil(required / capacity["operating_point_rps"])
    assert sizing["accounts"] == max(
        sizing["accounts_by_latency"], *sizing["accounts_by_limit"].values()
    )
    assert sizing["tier"] == "tier-5"  # tier-4's 600 requests/minute cannot carry 1,050
    # The run past the rate limit: its 429s are failed requests, so it misses the SLO.
    (limited,) = [lp for lp in capacity["load_points"] if lp["run"].endswith("qps_4.8")]
    record = json.loads((SAMPLES / "evidence/hosted-api/runs/qps_4.8/run.json").read_text())
    counts = record["requests"]
    assert counts["rate_limited"] > 0
    assert limited["error_rate"] == pytest.approx(counts["failed"] / counts["sent"])
    assert not limited["meets_slo"]
    assert capacity["operating_point_run"].endswith("qps_3.6")
    # Every check of a candidate applies to the API too.
    statuses = {c["id"]: c["status"] for c in doc["checks"] if c["candidate"] == "hosted-api"}
    for check in ("SLO-MET", "QUALITY", "PRICE", "FIT"):
        assert statuses[check] == "PASS", check
    # The robustness search covers the API's price.
    flips = {f["input"]: f for f in doc["robustness"]["flips"]}
    assert flips["hosted-api's price"]["becomes"] == "mi325x-vllm"
    # The sample key the runs were measured with is nowhere in the pack.
    for path in signed["pack"].rglob("*"):
        if path.is_file():
            assert KEY.encode() not in path.read_bytes(), path
    report = (signed["pack"] / "report.html").read_text(encoding="utf-8")
    assert "API accounts</strong> of the hosted API: example-ai" in report
    assert "or one account on tier-5" in report


def test_the_spec_schema_takes_an_api_candidate_and_refuses_one_with_neither() -> None:
    schema = json.loads((REPO_ROOT / "schemas" / "pack-spec.v1.schema.json").read_text())
    spec = json.loads(json.dumps(yaml.safe_load(API_SPEC.read_text(encoding="utf-8")), default=str))
    jsonschema.validate(spec, schema)
    del spec["candidates"][0]["api"]
    with pytest.raises(jsonschema.ValidationError):
        jsonschema.validate(spec, schema)


def test_the_price_rise_spec_differs_only_in_the_api_prices() -> None:
    old = yaml.safe_load(API_SPEC.read_text(encoding="utf-8"))
    new = yaml.safe_load(PRICE_RISE.read_text(encoding="utf-8"))
    old_prices = old["candidates"][0]["api"].pop("prices")
    new_prices = new["candidates"][0]["api"].pop("prices")
    assert old == new
    for name in ("input_per_million", "cached_input_per_million", "output_per_million"):
        assert new_prices[name] == pytest.approx(old_prices[name] * 1.5)


def test_a_price_rise_of_the_api_flips_the_decision_and_diff_says_so(
    signed: dict[str, Path], capsys: pytest.CaptureFixture[str]
) -> None:
    code = main(["diff", str(signed["pack"]), str(PRICE_RISE), "--json"])
    doc = json.loads(capsys.readouterr().out)
    assert code == 1
    outcome = doc["outcome"]
    assert outcome["old_recommendation"] == "hosted-api"
    assert outcome["new_recommendation"] == "mi325x-vllm"
    assert outcome["reasons"][0].startswith("the recommendation changed")
    (stack,) = doc["stacks"]
    assert [(f["field"], f["old"], f["new"]) for f in stack["fields"]] == [
        ("api.prices.cached_input_per_million", "0.075", "0.1125"),
        ("api.prices.input_per_million", "0.3", "0.45"),
        ("api.prices.output_per_million", "1.2", "1.8"),
    ]
    api = next(c for c in doc["candidates"] if c["id"] == "hosted-api")
    assert api["cost_per_month"]["relative"] == pytest.approx(0.5)
    assert main(["diff", str(signed["pack"]), str(PRICE_RISE)]) == 1
    text = capsys.readouterr().out
    assert "mi325x-vllm" in text
