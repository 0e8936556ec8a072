"""Prices attacked (issue 42): a FOCUS credit row, a second billing account and an overflowing
figure never change the rate silently, and an absurd ownership life is a located spec error,
never a traceback. Guards: each case is handled on main (the rules live in pricing/focus_rules.py
and spec/cost.py)."""

from __future__ import annotations

import csv
from pathlib import Path

import pytest

from evidencepack._cli import main
from evidencepack.errors import EXIT_FAILED, InputError
from evidencepack.pricing.focus import read_focus
from evidencepack.spec.cost import FocusFilter

G5 = FocusFilter(provider="AWS", region="us-east-1", instance_type="g5.4xlarge")
Row = dict[str, str]


@pytest.fixture
def focus_rows(shared_data: Path) -> tuple[Path, list[Row]]:
    source = shared_data / "pricing" / "focus" / "focus-1.0_sample_1000rows.csv"
    with source.open(newline="", encoding="utf-8") as handle:
        return source, list(csv.DictReader(handle))


def _with(rows: list[Row], extra: list[Row], path: Path) -> Path:
    with path.open("w", newline="", encoding="utf-8") as handle:
        writer = csv.DictWriter(handle, fieldnames=list(rows[0]))
        writer.writeheader()
        writer.writerows([*rows, *extra])
    return path


def _a_kept_row(rows: list[Row]) -> Row:
    return next(
        r
        for r in rows
        if r["ChargeCategory"] == "Usage"
        and "g5.4xlarge" in r["ChargeDescription"]
        and float(r["EffectiveCost"]) > 0
    )


def test_a_goodwill_credit_does_not_cut_the_rate(
    focus_rows: tuple[Path, list[Row]], tmp_path: Path
) -> None:
    source, rows = focus_rows
    before = read_focus(source, G5).rate_per_hour
    kept = _a_kept_row(rows)
    credit = kept | {"EffectiveCost": "-200", "BilledCost": "-200"}
    rate = read_focus(_with(rows, [credit], tmp_path / "focus.csv"), G5)
    assert rate.rate_per_hour == pytest.approx(before)
    assert ("credits, refunds and corrections excluded", 8) in [
        (s.filter, s.rows) for s in rate.kept
    ]
    assert "-200 USD" in rate.warnings[0]


def test_a_second_billing_account_is_never_blended_silently(
    focus_rows: tuple[Path, list[Row]], tmp_path: Path
) -> None:
    _, rows = focus_rows
    sandbox = _a_kept_row(rows) | {"BillingAccountId": "999999999999", "EffectiveCost": "0.01"}
    rate = read_focus(_with(rows, [sandbox], tmp_path / "focus.csv"), G5)
    assert any("blend 2 billing accounts" in p and "999999999999" in p for p in rate.problems)


def test_an_overflowing_effective_cost_is_a_located_error(
    focus_rows: tuple[Path, list[Row]], tmp_path: Path
) -> None:
    _, rows = focus_rows
    huge = _a_kept_row(rows) | {"EffectiveCost": "1e308"}
    path = _with(rows, [huge, huge], tmp_path / "focus.csv")
    with pytest.raises(InputError, match=r"data row 1001: EffectiveCost 1e308 is past any bill"):
        read_focus(path, G5)


def test_a_life_of_1e_300_years_is_a_located_spec_error(
    samples: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    spec = samples / "pack.yaml"
    text = spec.read_text(encoding="utf-8")
    spec.write_text(text.replace("life_years: 5", "life_years: 1.0e-300", 1), encoding="utf-8")
    assert main(["check", str(spec)]) == EXIT_FAILED
    err = capsys.readouterr().err
    assert "Traceback" not in err
    assert "ZeroDivisionError" not in err
    assert "own.life_years" in err, err
