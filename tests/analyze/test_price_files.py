"""A price cited as evidence: a FOCUS export (or a supplier's quote) sets the candidate's rate,
is packed and hashed like every input, and a changed row changes the cost and fails the old
pack's verification."""

from __future__ import annotations

import csv
import json
import shutil
from pathlib import Path

import pytest

from evidencepack._cli import main
from evidencepack.pipeline import CompileOptions, check
from evidencepack.signing.keys import PASSPHRASE_ENV

FOCUS = "pricing/focus/focus-1.0_sample_1000rows.csv"
FILTER = "provider: AWS, region: us-east-1, instance_type: g5.4xlarge, accelerators_per_instance: 1"


def _hand_rate(path: Path) -> float:
    """The effective hourly rate of the g5.4xlarge us-east-1 usage rows, by the csv module."""
    cost = hours = 0.0
    with path.open(newline="", encoding="utf-8") as handle:
        for row in csv.DictReader(handle):
            if (
                row["ProviderName"] == "AWS"
                and row["RegionId"] == "us-east-1"
                and row["ChargeCategory"] == "Usage"
                and "g5.4xlarge" in row["ChargeDescription"].split()
                and row["ConsumedUnit"] in ("Hours", "Hour", "Hrs", "Hr")
                and float(row["EffectiveCost"]) > 0  # zero-cost rows are excluded by default
            ):
                cost += float(row["EffectiveCost"])
                hours += float(row["ConsumedQuantity"])
    return cost / hours


def _cite(samples: Path, shared_data: Path) -> Path:
    bill = samples / "bill.csv"
    shutil.copy(shared_data / FOCUS, bill)
    spec = samples / "pack.yaml"
    text = spec.read_text(encoding="utf-8")
    old = "      per_accelerator_hour: 5.50\n      currency: USD\n"
    assert old in text
    # The bill's rate makes b200-trtllm the cheapest: keeping mi325x-vllm states why.
    text = text.replace(
        "chosen: mi325x-vllm\n",
        "chosen: mi325x-vllm\nchosen_reason: the team runs vLLM on ROCm already\n",
    )
    spec.write_text(
        text.replace(old, "      focus: {path: bill.csv, " + FILTER + "}\n      currency: USD\n")
    )
    return bill


def test_a_focus_export_sets_the_rate(samples: Path, shared_data: Path) -> None:
    bill = _cite(samples, shared_data)
    doc = check(samples / "pack.yaml", CompileOptions())
    rate = _hand_rate(bill)
    cost = next(c for c in doc.cost if c.candidate == "b200-trtllm")
    assert cost.price_per_accelerator_hour == pytest.approx(rate)
    assert cost.per_month == pytest.approx(8 * rate * 730)  # one whole server of 8, billed
    claim = next(c for c in doc.claims if c.id == "cost.b200-trtllm.price_file")
    assert claim.kind == "inherited"
    assert claim.evidence[0].pack_path == "inputs/bill.csv"
    roles = {f.pack_path: f.role for f in doc.inputs}
    assert roles["inputs/bill.csv"] == "prices"
    # the spec as written is what the decision records: the rate comes from the file
    assert doc.spec.candidate("b200-trtllm").price.per_accelerator_hour is None
    # one changed row changes the rate and the cost
    rows = bill.read_text(encoding="utf-8").splitlines()
    index = next(i for i, line in enumerate(rows) if "g5.4xlarge" in line and "us-east-1" in line)
    header = next(csv.reader([rows[0]]))
    cells = next(csv.reader([rows[index]]))
    cells[header.index("EffectiveCost")] = str(float(cells[header.index("EffectiveCost")]) + 5)
    out = Path(bill.parent / "row.csv")
    with out.open("w", newline="", encoding="utf-8") as handle:
        csv.writer(handle, lineterminator="\n").writerow(cells)
    rows[index] = out.read_text(encoding="utf-8").rstrip("\n")
    bill.write_text("\n".join(rows) + "\n", encoding="utf-8")
    changed = check(samples / "pack.yaml", CompileOptions())
    new = next(c for c in changed.cost if c.candidate == "b200-trtllm")
    assert new.price_per_accelerator_hour == pytest.approx(_hand_rate(bill))
    assert new.per_month != cost.per_month


@pytest.mark.no_pdf  # verify checks the files' digests; it reads no PDF (tests/pdf_cache.py)
def test_a_changed_row_fails_the_old_packs_verification(
    samples: Path, shared_data: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    _cite(samples, shared_data)
    monkeypatch.setenv(PASSPHRASE_ENV, "price-test")
    private, public = tmp_path / "k.pem", tmp_path / "k.pub.pem"
    assert main(["keygen", "--private-key", str(private), "--public-key", str(public)]) == 0
    pack = tmp_path / "pack"
    assert main(["build", str(samples / "pack.yaml"), "-o", str(pack), "--key", str(private)]) == 0
    assert main(["verify", str(pack), "--key", str(public)]) == 0
    packed = pack / "inputs" / "bill.csv"
    packed.write_text(packed.read_text(encoding="utf-8").replace("g5.4xlarge", "g5.8xlarge", 1))
    assert main(["verify", str(pack), "--key", str(public), "--json"]) == 1


def test_an_unreadable_price_file_fails_price_and_names_it(samples: Path) -> None:
    (samples / "bill.csv").write_text("not,a,focus,export\n1,2,3,4\n", encoding="utf-8")
    spec = samples / "pack.yaml"
    text = spec.read_text(encoding="utf-8")
    spec.write_text(
        text.replace(
            "      per_accelerator_hour: 5.50\n",
            "      focus: {path: bill.csv, provider: AWS}\n",
        )
    )
    doc = check(spec, CompileOptions())
    files = next(c for c in doc.checks if c.id == "PROV-FILES" and c.candidate == "b200-trtllm")
    assert files.status == "FAIL"
    assert "bill.csv: cannot read the price" in files.reason
    price = next(c for c in doc.checks if c.id == "PRICE" and c.candidate == "b200-trtllm")
    assert price.status == "FAIL"
    assert doc.recommendation == "mi325x-vllm"
    assert json.loads(doc.model_dump_json())["spec"]["candidates"][2]["price"]["focus"]


def test_what_the_focus_reader_could_not_use_reaches_the_inputs(
    samples: Path, shared_data: Path
) -> None:
    bill = _cite(samples, shared_data)
    rows = bill.read_text(encoding="utf-8").splitlines()
    header = next(csv.reader([rows[0]]))
    index = next(i for i, line in enumerate(rows) if "g5.4xlarge" in line and "us-east-1" in line)
    cells = next(csv.reader([rows[index]]))
    cells[header.index("EffectiveCost")] = "0"  # a kept row that costs nothing: warned
    out = bill.parent / "row.csv"
    with out.open("w", newline="", encoding="utf-8") as handle:
        csv.writer(handle, lineterminator="\n").writerow(cells)
    rows[index] = out.read_text(encoding="utf-8").rstrip("\n")
    bill.write_text("\n".join(rows) + "\n", encoding="utf-8")
    doc = check(samples / "pack.yaml", CompileOptions())
    packed = next(f for f in doc.inputs if f.pack_path == "inputs/bill.csv")
    assert packed.format is not None
    assert packed.format.startswith("focus-")
    assert packed.warnings, "the zero-cost row is said"
