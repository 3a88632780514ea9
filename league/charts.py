"""Self-contained SVG charts for league reports and the ladder page (no
JavaScript, no external files): ratings over games with uncertainty bands, a
head-to-head heat map, decision-time distributions, per-board comparisons."""

from __future__ import annotations

import html
import math
from collections.abc import Mapping, Sequence

COLOURS = ("#d62728", "#1f77b4", "#2ca02c", "#ff7f0e", "#9467bd", "#8c564b", "#e377c2",
           "#7f7f7f", "#bcbd22", "#17becf")

CSS = """
body{font-family:system-ui,sans-serif;margin:2em auto;max-width:1100px;color:#222}
h1,h2{font-weight:600}table{border-collapse:collapse;margin:1em 0}
th,td{border:1px solid #ccc;padding:.25em .6em;text-align:right}
th{background:#f3f3f3}td.l,th.l{text-align:left}tr.failed td{background:#fde8e8}
code{background:#f3f3f3;padding:0 .3em}.legend span{margin-right:1.2em}
svg text{font-size:11px;fill:#444}td.heat{color:#111}
"""

Series = Sequence[tuple[int, float, float]]
"""(game index, mu, sigma) points of one entry, in game order."""


def _esc(text: str) -> str:
    return html.escape(text, quote=True)


def _frame(width: int, height: int, label: str) -> list[str]:
    return [f'<svg xmlns="http://www.w3.org/2000/svg" width="{width}" height="{height}" '
            f'viewBox="0 0 {width} {height}" role="img" aria-label="{_esc(label)}">']


def colour(i: int) -> str:
    return COLOURS[i % len(COLOURS)]


def rating_chart(history: Mapping[str, Series], order: Sequence[str], games: int,
                 width: int = 900, height: int = 340, band: float = 2.0) -> str:
    """Each entry's rating (mu) after each of its games, with a shaded band of
    ``band`` standard deviations (sigma) around it; a legend below."""
    pad_l, pad_r, pad_t, pad_b = 50, 10, 10, 30
    values = [v for n in order for _, mu, sg in history.get(n, ())
              for v in (mu - band * sg, mu + band * sg)]
    lo, hi = (min(values), max(values)) if values else (0.0, 1.0)
    if hi - lo < 1e-9:
        hi = lo + 1
    span = max(games, 1)

    def x(i: int) -> float:
        return pad_l + (i + 1) / span * (width - pad_l - pad_r)

    def y(v: float) -> float:
        return pad_t + (hi - v) / (hi - lo) * (height - pad_t - pad_b)

    parts = _frame(width, height, "ratings over games")
    parts.append(f'<rect x="{pad_l}" y="{pad_t}" width="{width - pad_l - pad_r}" '
                 f'height="{height - pad_t - pad_b}" fill="none" stroke="#ccc"/>')
    for k in range(5):
        v = lo + (hi - lo) * k / 4
        parts.append(f'<line x1="{pad_l}" x2="{width - pad_r}" y1="{y(v):.1f}" '
                     f'y2="{y(v):.1f}" stroke="#eee"/><text x="{pad_l - 4}" '
                     f'y="{y(v) + 4:.1f}" text-anchor="end">{v:.1f}</text>')
    parts.append(f'<text x="{width / 2:.0f}" y="{height - 6}" text-anchor="middle">'
                 f'game (0-{max(games - 1, 0)}); line: mu, band: mu &#177; {band:g} sigma</text>')
    legend = []
    for n, name in enumerate(order):
        pts = list(history.get(name, ()))
        if not pts:
            continue
        c = colour(n)
        upper = " ".join(f"{x(i):.1f},{y(mu + band * sg):.1f}" for i, mu, sg in pts)
        lower = " ".join(f"{x(i):.1f},{y(mu - band * sg):.1f}" for i, mu, sg in reversed(pts))
        parts.append(f'<polygon fill="{c}" fill-opacity="0.12" stroke="none" '
                     f'points="{upper} {lower}"/>')
        line = " ".join(f"{x(i):.1f},{y(mu):.1f}" for i, mu, _ in pts)
        parts.append(f'<polyline fill="none" stroke="{c}" stroke-width="1.6" points="{line}">'
                     f"<title>{_esc(name)}</title></polyline>")
        legend.append(f'<span style="color:{c}">&#9632; {_esc(name)}</span>')
    parts.append("</svg>")
    return "\n".join(parts) + '\n<div class="legend">' + "".join(legend) + "</div>"


def heat(rate: float | None, parity: float) -> str:
    """A cell colour for a win rate: white at parity, green above, red below."""
    if rate is None:
        return "#f7f7f7"
    d = max(-1.0, min(1.0, (rate - parity) / max(parity, 1 - parity)))
    if d >= 0:
        r, g, b = int(255 - 120 * d), int(255 - 40 * d), int(255 - 120 * d)
    else:
        r, g, b = int(255 + 20 * d), int(255 + 130 * d), int(255 + 130 * d)
    return f"#{r:02x}{g:02x}{b:02x}"


def heatmap_table(names: Sequence[str], cells: Mapping[str, Mapping[str, Sequence[int]]],
                  parity: float) -> str:
    """The head-to-head matrix as an HTML table whose cells are coloured by the
    row entry's win rate against the column entry (``cells[a][b] = (wins, n)``)."""
    out = ["<table><tr><th></th>" + "".join(f"<th>{_esc(b)}</th>" for b in names) + "</tr>"]
    for a in names:
        row = [f'<tr><th class="l">{_esc(a)}</th>']
        for b in names:
            wins, n = cells[a][b] if a != b else (0, 0)
            rate = wins / n if n else None
            text = f"{rate:.0%} ({wins}/{n})" if rate is not None else "&#8211;"
            row.append(f'<td class="heat" style="background:{heat(rate, parity)}" '
                       f'title="{_esc(a)} vs {_esc(b)}">{text}</td>')
        out.append("".join(row) + "</tr>")
    out.append("</table>")
    return "\n".join(out)


def _log_bins(lo: float, hi: float, bins: int) -> list[float]:
    lo = max(lo, 1e-4)
    hi = max(hi, lo * 1.0001)
    a, b = math.log10(lo), math.log10(hi)
    return [10 ** (a + (b - a) * k / bins) for k in range(bins + 1)]


def decision_times(times_ms: Mapping[str, Sequence[float]], order: Sequence[str],
                   width: int = 900, row: int = 46, bins: int = 40) -> str:
    """One histogram row per entry of its decision times on a shared log scale,
    with the median and the 99th percentile marked."""
    present = [n for n in order if times_ms.get(n)]
    pad_l, pad_r, pad_t, pad_b = 210, 10, 8, 30
    height = pad_t + pad_b + row * max(1, len(present))
    parts = _frame(width, height, "decision time distributions")
    if not present:
        parts.append(f'<text x="{width / 2:.0f}" y="{height / 2:.0f}" text-anchor="middle">'
                     "no decisions timed</text></svg>")
        return "\n".join(parts)
    all_t = [t for n in present for t in times_ms[n]]
    edges = _log_bins(min(all_t), max(all_t), bins)
    la, lb = math.log10(edges[0]), math.log10(edges[-1])

    def x(v: float) -> float:
        v = min(max(v, edges[0]), edges[-1])
        return pad_l + (math.log10(v) - la) / max(lb - la, 1e-9) * (width - pad_l - pad_r)

    for r, name in enumerate(present):
        ts = sorted(times_ms[name])
        counts = [0] * bins
        for t in ts:
            k = min(bins - 1, max(0, int((math.log10(max(t, edges[0])) - la)
                                         / max(lb - la, 1e-9) * bins)))
            counts[k] += 1
        top = max(counts) or 1
        base = pad_t + row * (r + 1) - 6
        c = colour(order.index(name))
        for k, cnt in enumerate(counts):
            if not cnt:
                continue
            h = (row - 14) * cnt / top
            parts.append(f'<rect x="{x(edges[k]):.1f}" y="{base - h:.1f}" '
                         f'width="{max(x(edges[k + 1]) - x(edges[k]) - 0.5, 0.5):.1f}" '
                         f'height="{h:.1f}" fill="{c}" fill-opacity="0.7"/>')
        med, p99 = ts[len(ts) // 2], ts[min(len(ts) - 1, int(0.99 * len(ts)))]
        for v, dash in ((med, ""), (p99, ' stroke-dasharray="3,2"')):
            parts.append(f'<line x1="{x(v):.1f}" x2="{x(v):.1f}" y1="{base - row + 12}" '
                         f'y2="{base}" stroke="#222"{dash}/>')
        parts.append(f'<text x="{pad_l - 6}" y="{base - 14}" text-anchor="end">'
                     f"{_esc(name)}</text><text x=\"{pad_l - 6}\" y=\"{base - 2}\" "
                     f'text-anchor="end">median {med:.2g}, p99 {p99:.2g} ms</text>')
    for k in range(int(math.floor(la)), int(math.ceil(lb)) + 1):
        v = 10.0 ** k
        if edges[0] <= v <= edges[-1]:
            parts.append(f'<line x1="{x(v):.1f}" x2="{x(v):.1f}" y1="{pad_t}" '
                         f'y2="{height - pad_b}" stroke="#ddd"/><text x="{x(v):.1f}" '
                         f'y="{height - pad_b + 14}" text-anchor="middle">{v:g} ms</text>')
    parts.append(f'<text x="{(pad_l + width) / 2:.0f}" y="{height - 4}" '
                 'text-anchor="middle">decision time (log scale); solid: median, '
                 "dashed: 99th percentile</text></svg>")
    return "\n".join(parts)
