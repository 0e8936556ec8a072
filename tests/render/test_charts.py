"""Chart geometry: round ticks, points where the data says, the SLO line at the SLO."""

from __future__ import annotations

import pytest

from evidencepack.analyze.models import Cost
from evidencepack.render import charts

from . import fixture


def test_nice_ticks_cover_the_range_with_round_steps() -> None:
    assert charts.nice_ticks(0.0, 10.35) == (0.0, 2.5, 5.0, 7.5, 10.0, 12.5)
    assert charts.nice_ticks(0.0, 2597.0) == (0.0, 1000.0, 2000.0, 3000.0)
    assert charts.nice_ticks(0.0, 2597.0, 6) == (0.0, 500.0, 1000.0, 1500.0, 2000.0, 2500.0, 3000.0)
    assert charts.nice_ticks(0.78, 0.95, 6) == (0.75, 0.8, 0.85, 0.9, 0.95)
    # A degenerate range still gives an axis.
    assert charts.nice_ticks(5.0, 5.0)[0] <= 5.0 < charts.nice_ticks(5.0, 5.0)[-1]
    with pytest.raises(ValueError, match="finite"):
        charts.nice_ticks(0.0, float("inf"))


def test_latency_chart_places_points_slo_and_operating_point() -> None:
    doc = fixture.decision()
    capacity = doc.capacity[0]
    chart = charts.latency_chart(capacity, doc.spec.slo, 0)
    ttft, tpot = chart.panels
    assert chart.colour == charts.PALETTE[0]
    assert len(ttft.markers) == len(capacity.load_points) == 5
    assert [m.meets for m in ttft.markers] == [p.meets_slo for p in capacity.load_points]
    assert [m.operating for m in ttft.markers].count(True) == 1
    # The SLO line sits where its value maps on the y axis: between the 1,500 and 2,500 ticks.
    ticks = {t.label: float(t.pos) for t in ttft.y_ticks}
    assert ticks["1,500"] > float(ttft.limit_y) > ticks["2,500"]
    assert ttft.limit_label == "SLO 2,000 ms"
    assert tpot.limit_label == "SLO 100 ms"
    # Higher latency is drawn higher (smaller y): the last point of the sweep is the highest.
    ys = [float(m.y) for m in ttft.markers]
    assert ys == sorted(ys, reverse=True)
    assert [t.label for t in ttft.x_ticks] == ["0.0", "2.5", "5.0", "7.5", "10.0", "12.5"]


def test_a_saturated_point_is_drawn_at_the_top_with_its_value() -> None:
    doc = fixture.decision()
    capacity = doc.capacity[0]
    points = list(capacity.load_points)
    points[-1] = points[-1].model_copy(update={"ttft_p99_ms": 9_450.0})
    chart = charts.latency_chart(
        capacity.model_copy(update={"load_points": tuple(points)}), doc.spec.slo, 0
    )
    ttft, tpot = chart.panels
    # The axis ends near twice the 2,000 ms SLO, not at 9,450 ms: the points near it stay apart.
    assert [t.label for t in ttft.y_ticks][-1] == "5,000"
    assert [m.clipped for m in ttft.markers] == ["", "", "", "", "\u2191 9,450 ms"]
    assert ttft.markers[-1].y == ttft.y_ticks[-1].pos
    assert float(ttft.markers[-2].y) > float(ttft.markers[-1].y)
    assert all(m.clipped == "" for m in tpot.markers)
    # Inside the cap the axis is fitted to the data as before.
    unclipped = charts.latency_chart(capacity, doc.spec.slo, 0).panels[0]
    assert [t.label for t in unclipped.y_ticks][-1] == "3,000"
    assert all(m.clipped == "" for m in unclipped.markers)


def test_latency_panel_without_values_says_no_data() -> None:
    doc = fixture.decision()
    capacity = doc.capacity[1]
    points = tuple(p.model_copy(update={"tpot_p99_ms": None}) for p in capacity.load_points)
    chart = charts.latency_chart(
        capacity.model_copy(update={"load_points": points}), doc.spec.slo, 1
    )
    assert not chart.panels[0].empty
    assert chart.panels[1].empty
    assert chart.panels[1].markers == ()


def test_cost_chart_bars_scale_and_mark_ineligible() -> None:
    doc = fixture.decision()
    eligible = {c.id: c.eligible for c in doc.candidates}
    chart = charts.cost_chart([(i, c, eligible[c.candidate]) for i, c in enumerate(doc.cost)])
    assert chart is not None
    widths = {b.label: float(b.width) for b in chart.bars}
    values = {c.candidate: c.per_million_output_tokens or 0.0 for c in doc.cost}
    assert widths["h200-vllm"] / widths["mi325x-vllm"] == pytest.approx(
        values["h200-vllm"] / values["mi325x-vllm"], rel=0.01
    )
    notes = {b.label: b.note for b in chart.bars}
    assert notes == {"h200-vllm": "", "mi325x-vllm": "", "b200-trtllm": "ineligible"}
    assert chart.frame.axis_label == "cost per 1M output tokens (USD)"
    assert all(b.whisker is not None for b in chart.bars)


def test_cost_chart_without_figures_is_none_and_mixed_currencies_are_named() -> None:
    doc = fixture.decision()
    empty = [
        (i, c.model_copy(update={"per_million_output_tokens": None}), True)
        for i, c in enumerate(doc.cost)
    ]
    assert charts.cost_chart(empty) is None
    mixed: list[tuple[int, Cost, bool]] = [
        (0, doc.cost[0], True),
        (1, doc.cost[1].model_copy(update={"currency": "EUR"}), True),
    ]
    chart = charts.cost_chart(mixed)
    assert chart is not None
    assert "not comparable" in chart.frame.axis_label


def test_quality_chart_intervals_and_bar() -> None:
    doc = fixture.decision()
    chart = charts.quality_chart(list(enumerate(doc.quality)))
    assert chart is not None
    assert chart.bar_label == "bar 80.0%"
    bar_x = float(chart.bar_x)
    by_label = {r.label: r for r in chart.rows}
    # b200-trtllm's interval starts left of the bar; the others lie wholly right of it.
    assert float(by_label["b200-trtllm"].lo or 0) < bar_x
    assert float(by_label["mi325x-vllm"].lo or 0) > bar_x
    assert not by_label["b200-trtllm"].meets
    for row in chart.rows:
        assert float(row.lo or 0) < float(row.est or 0) < float(row.hi or 0)
    labels = [t.label for t in chart.frame.ticks]
    assert "80.0" in labels
    assert [float(x) for x in labels] == sorted(float(x) for x in labels)
    assert charts.quality_chart([]) is None


def test_chart_geometry_is_the_same_every_time() -> None:
    a, b = fixture.decision(), fixture.decision()
    assert charts.latency_chart(a.capacity[2], a.spec.slo, 2) == charts.latency_chart(
        b.capacity[2], b.spec.slo, 2
    )
