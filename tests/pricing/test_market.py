"""A market reference for prices (issue 40, point 5): a dated price index cited in
``market_prices`` shows each quote beside the range for the same accelerator and month, and a
quote far outside it is a PRICE warning naming both. Cases are copies of the sample spec with a
small made-up index beside it (SAMPLE figures)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from evidencepack.analyze.models import DecisionDocument
from evidencepack.errors import InputError
from evidencepack.pipeline import CompileOptions, check
from evidencepack.pricing.market import read_market

INDEX = """provider,accelerator,region,price,currency,date
SampleCloud A,AMD Instinct MI325X,us-east,1.60,USD,2026-11-03
SampleCloud B,MI325X,eu-west,2.10,USD,2026-11-17
SampleCloud C,AMD Instinct MI325X 256GB,us-west,1.85,USD,2026-11-09
SampleCloud A,AMD Instinct MI325X,us-east,4.00,USD,2026-10-01
SampleCloud A,NVIDIA H200,us-east,2.90,USD,2026-11-03
SampleCloud B,NVIDIA H200 SXM,eu-west,3.60,USD,2026-11-12
SampleCloud A,NVIDIA H100,us-east,9.00,USD,2026-11-03
SampleCloud A,NVIDIA B200,us-east,4.20,EUR,2026-11-03
"""


def _cite(samples: Path, index: str = INDEX, name: str = "index.csv", extra: str = "") -> Path:
    (samples / "evidence" / name).write_text(index, encoding="utf-8")
    spec = samples / "pack.yaml"
    text = spec.read_text(encoding="utf-8")
    spec.write_text(
        text.replace(
            "headroom: 0.25\n",
            f"headroom: 0.25\nmarket_prices:\n  - path: evidence/{name}\n{extra}",
            1,
        ),
        encoding="utf-8",
    )
    return spec


def _price(doc: DecisionDocument, candidate: str) -> tuple[str, str]:
    c = next(c for c in doc.checks if c.id == "PRICE" and c.candidate == candidate)
    return c.status, c.reason


def test_a_quote_far_above_the_market_warns_naming_both(samples: Path) -> None:
    doc = check(_cite(samples), CompileOptions())
    status, reason = _price(doc, "mi325x-vllm")
    assert status == "WARN"
    # 2.90 against 1.60-2.10 in 2026-11 (October's 4.00 is another month): 38% above
    assert (
        "the quote USD 2.9 per accelerator-hour is 38% above the market reference "
        "(evidence/index.csv: USD 1.6-2.1 per accelerator-hour for AMD Instinct MI325X 256GB "
        "HBM3E in 2026-11 (3 price(s) from 3 provider(s)))"
    ) in reason
    # H200 at 3.50 lies within 2.90-3.60 (the H100 row is other hardware): shown, no warning
    status, reason = _price(doc, "h200-vllm")
    assert "market evidence/index.csv: USD 2.9-3.6 per accelerator-hour" in reason
    assert "above the market" not in reason
    # B200 is indexed in EUR only: said, never converted silently
    _, reason = _price(doc, "b200-trtllm")
    assert "evidence/index.csv has no USD price for NVIDIA B200-SXM-180GB in 2026-11" in reason
    # the index is packed and hashed like any input
    assert any(f.spec_path == "evidence/index.csv" and f.role == "prices" for f in doc.inputs)


def test_far_outside_is_the_specs_to_set(samples: Path) -> None:
    doc = check(_cite(samples, extra="    far_outside: 0.5\n"), CompileOptions())
    _, reason = _price(doc, "mi325x-vllm")
    # 2.90 is within 1.5 x 2.10 = 3.15: shown beside the range, not a warning
    assert "above the market reference" not in reason
    assert "market evidence/index.csv: USD 1.6-2.1" in reason


def test_a_bad_row_is_a_located_problem(samples: Path) -> None:
    bad = INDEX.replace("1.85,USD,2026-11-09", "cheap,USD,2026-11-09")
    with pytest.raises(InputError) as caught:
        read_market(Path("index.csv"), read_from=_write(samples / "bad.csv", bad))
    assert "index.csv:row 4: price: 'cheap' is not a number" in caught.value.problems
    doc = check(_cite(samples, bad), CompileOptions())
    files = next(c for c in doc.checks if c.id == "PROV-FILES" and c.candidate == "mi325x-vllm")
    assert files.status == "FAIL"
    assert "evidence/index.csv: cannot read the price index" in files.reason


def test_a_json_index_reads_like_the_csv(samples: Path) -> None:
    header = INDEX.splitlines()[0].split(",")
    rows = [dict(zip(header, line.split(","), strict=True)) for line in INDEX.splitlines()[1:]]
    for row in rows:
        row["price"] = float(row["price"])  # JSON states numbers
    doc = check(_cite(samples, json.dumps({"rows": rows}), "index.json"), CompileOptions())
    status, reason = _price(doc, "mi325x-vllm")
    assert status == "WARN"
    assert "38% above the market reference (evidence/index.json" in reason


def _write(path: Path, text: str) -> Path:
    path.write_text(text, encoding="utf-8")
    return path
