"""The league report's charts (league.charts): real data in, well-formed SVG and
HTML out, with the facts they show."""

from __future__ import annotations

import xml.etree.ElementTree as ET

from league.charts import decision_times, heat, heatmap_table, rating_chart


def test_rating_chart_draws_a_band_and_a_line_per_entry() -> None:
    history = {"a": [(-1, 25.0, 8.3), (0, 27.0, 7.9), (1, 29.0, 7.5)],
               "b": [(-1, 25.0, 8.3), (1, 22.0, 7.6)]}
    svg = rating_chart(history, ["a", "b"], 2).split("\n<div")[0]
    root = ET.fromstring(svg)
    ns = "{http://www.w3.org/2000/svg}"
    assert len(root.findall(f"{ns}polygon")) == 2  # the uncertainty bands
    lines = root.findall(f"{ns}polyline")
    assert [line.find(f"{ns}title").text for line in lines] == ["a", "b"]  # type: ignore[union-attr]
    band = root.findall(f"{ns}polygon")[0].get("points", "").split()
    assert len(band) == 6  # upper and lower edge over a's three points


def test_heat_is_white_at_parity_green_above_red_below() -> None:
    assert heat(0.25, 0.25) == "#ffffff"
    above, below = heat(0.6, 0.25), heat(0.05, 0.25)
    assert int(above[3:5], 16) > int(above[1:3], 16)  # more green than red
    assert int(below[1:3], 16) > int(below[3:5], 16)  # more red than green
    table = heatmap_table(["x", "y"], {"x": {"x": [0, 0], "y": [3, 4]},
                                       "y": {"x": [1, 4], "y": [0, 0]}}, 0.5)
    assert "75% (3/4)" in table and "25% (1/4)" in table


def test_decision_time_rows_mark_median_and_p99() -> None:
    svg = decision_times({"fast": [0.01] * 99 + [1.0], "slow": [5.0, 6.0, 7.0]},
                         ["fast", "slow"])
    root = ET.fromstring(svg)
    texts = [t.text or "" for t in root.iter("{http://www.w3.org/2000/svg}text")]
    assert "median 0.01, p99 1 ms" in texts
    assert "median 6, p99 7 ms" in texts
    assert "no decisions timed" in decision_times({}, ["x"])
