"""League reports (``kaitaku league --report DIR``).

The HTML report is one self-contained file: inline CSS, an inline SVG chart of
each entry's rating (openskill ordinal) over the games, the standings, a
head-to-head matrix and one row per game with the command that replays it.
"""

from __future__ import annotations

import html
from collections.abc import Sequence
from pathlib import Path

from .ratings import Standings, head_to_head, rate
from .stats import wilson_interval
from .store import StoredGame, connect, league_info, load_games

_COLOURS = ("#d62728", "#1f77b4", "#2ca02c", "#ff7f0e", "#9467bd", "#8c564b", "#e377c2",
            "#7f7f7f", "#bcbd22", "#17becf")

_CSS = """
body{font-family:system-ui,sans-serif;margin:2em auto;max-width:1100px;color:#222}
h1,h2{font-weight:600}table{border-collapse:collapse;margin:1em 0}
th,td{border:1px solid #ccc;padding:.25em .6em;text-align:right}
th{background:#f3f3f3}td.l,th.l{text-align:left}tr.failed td{background:#fde8e8}
code{background:#f3f3f3;padding:0 .3em}.legend span{margin-right:1.2em}
svg text{font-size:11px;fill:#444}
"""


def _chart(standings: Standings, games: int, width: int = 900, height: int = 320) -> str:
    """An SVG line chart: each entry's ordinal after each of its games."""
    pad_l, pad_r, pad_t, pad_b = 50, 10, 10, 30
    points = [v for h in standings.history.values() for _, v in h]
    lo, hi = (min(points), max(points)) if points else (0.0, 1.0)
    if hi - lo < 1e-9:
        hi = lo + 1
    span = max(games, 1)

    def x(i: int) -> float:
        return pad_l + (i + 1) / span * (width - pad_l - pad_r)

    def y(v: float) -> float:
        return pad_t + (hi - v) / (hi - lo) * (height - pad_t - pad_b)

    parts = [f'<svg xmlns="http://www.w3.org/2000/svg" width="{width}" height="{height}" '
             f'viewBox="0 0 {width} {height}" role="img" aria-label="ratings over games">',
             f'<rect x="{pad_l}" y="{pad_t}" width="{width - pad_l - pad_r}" '
             f'height="{height - pad_t - pad_b}" fill="none" stroke="#ccc"/>']
    for k in range(5):
        v = lo + (hi - lo) * k / 4
        parts.append(f'<line x1="{pad_l}" x2="{width - pad_r}" y1="{y(v):.1f}" y2="{y(v):.1f}" '
                     f'stroke="#eee"/><text x="{pad_l - 4}" y="{y(v) + 4:.1f}" '
                     f'text-anchor="end">{v:.1f}</text>')
    parts.append(f'<text x="{width / 2:.0f}" y="{height - 6}" text-anchor="middle">'
                 f'game (0-{games - 1})</text>')
    legend = []
    for n, st in enumerate(standings.entries):
        colour = _COLOURS[n % len(_COLOURS)]
        pts = " ".join(f"{x(i):.1f},{y(v):.1f}" for i, v in standings.history[st.name])
        parts.append(f'<polyline fill="none" stroke="{colour}" stroke-width="1.5" '
                     f'points="{pts}"><title>{html.escape(st.name)}</title></polyline>')
        legend.append(f'<span style="color:{colour}">&#9632; {html.escape(st.name)}</span>')
    parts.append("</svg>")
    return "\n".join(parts) + '\n<div class="legend">' + "".join(legend) + "</div>"


def _standings_rows(standings: Standings) -> list[list[str]]:
    rows = []
    for i, s in enumerate(standings.entries, 1):
        lo, hi = wilson_interval(s.wins, s.games)
        rows.append([str(i), s.name, f"{s.ordinal:.2f}", f"{s.mu:.2f}", f"{s.sigma:.2f}",
                     str(s.games), str(s.wins), f"{s.win_rate:.1%}", f"{lo:.1%}-{hi:.1%}",
                     f"{s.mean_vp:.2f}", f"{s.mean_decision_ms:.3f}",
                     f"{s.p99_decision_ms:.3f}", str(s.failed)])
    return rows


_STANDINGS_HEAD = ["#", "entry", "ordinal", "mu", "sigma", "games", "wins", "win rate",
                   "95% CI", "mean VP", "ms/decision", "p99 ms", "failed games"]


def _h2h_cell(cell: Sequence[int]) -> str:
    wins, n = cell
    return f"{wins / n:.0%} ({wins}/{n})" if n else "–"


def _replay_cmd(game: StoredGame, db: str) -> str:
    return f"kaitaku replay {game.id} --db {db}"


def _game_row(g: StoredGame) -> list[str]:
    winner = g.seats[g.winner] if g.winner is not None else "–"
    seats = ", ".join(f"{n} ({g.vp[q]})" if g.vp else n for q, n in enumerate(g.seats))
    return [str(g.id), str(g.index), str(g.seed), seats, winner, str(g.turns),
            f"{g.duration:.2f}", g.status if g.status == "ok" else f"failed: {g.error}"]


def render(db: str, league: int) -> tuple[str, str]:
    """The report of a stored league: (HTML, Markdown)."""
    conn = connect(db)
    try:
        info = league_info(conn, league)
        games = load_games(conn, league)
    finally:
        conn.close()
    names = [e["name"] for e in info["entries"]]
    standings = rate(names, games)
    h2h = head_to_head(names, games)
    title = f"Kaitaku league {league}"
    entries_text = ", ".join(f"{e['name']} = {e['spec']}" for e in info["entries"])
    summary = (f"seed {info['seed']}, {info['settings']['players']} players, "
               f"{len(games)} of {len(games) and max(g.index for g in games) + 1} games stored "
               f"({standings.played} ok, {standings.failed} failed); entries: {entries_text}")

    # Markdown
    md = [f"# {title}", "", summary, "", "## Standings", "",
          "| " + " | ".join(_STANDINGS_HEAD) + " |",
          "|" + "---|" * len(_STANDINGS_HEAD)]
    md += ["| " + " | ".join(r) + " |" for r in _standings_rows(standings)]
    md += ["", "Ratings: openskill Plackett-Luce over each game's ranking (final VP, the "
           "winner first); ordinal = mu - 3 sigma. Games and wins count seats.", "",
           "## Head to head", "", "Row entry's win rate in games where the column entry "
           "also played.", "", "| | " + " | ".join(names) + " |", "|---|" + "---|" * len(names)]
    md += [f"| {a} | " + " | ".join(_h2h_cell(h2h[a][b]) for b in names) + " |" for a in names]
    md += ["", "## Games", "", "| id | index | seed | seats (VP) | winner | turns | seconds | "
           "status |", "|---|---|---|---|---|---|---|---|"]
    md += ["| " + " | ".join(_game_row(g)) + " |" for g in games]
    md += ["", f"Replay a game: `kaitaku replay ID --db {db}`", ""]

    # HTML
    esc = html.escape
    h = ["<!doctype html>", '<html lang="en"><head><meta charset="utf-8">',
         f"<title>{esc(title)}</title><style>{_CSS}</style></head><body>",
         f"<h1>{esc(title)}</h1>", f"<p>{esc(summary)}</p>", "<h2>Rating over games</h2>",
         _chart(standings, max((g.index for g in games), default=0) + 1),
         "<h2>Standings</h2>", "<table><tr>"
         + "".join(f'<th class="{"l" if c == "entry" else ""}">{esc(c)}</th>'
                   for c in _STANDINGS_HEAD) + "</tr>"]
    for r in _standings_rows(standings):
        h.append("<tr>" + "".join(f'<td class="{"l" if i == 1 else ""}">{esc(c)}</td>'
                                  for i, c in enumerate(r)) + "</tr>")
    h.append("</table><p>Ratings: openskill Plackett-Luce over each game's ranking (final VP, "
             "the winner first); ordinal = mu &minus; 3&sigma;. Games and wins count seats; "
             "the interval is a 95% Wilson interval.</p>")
    h.append("<h2>Head to head</h2><p>Row entry's win rate in games where the column entry "
             "also played.</p><table><tr><th></th>"
             + "".join(f"<th>{esc(b)}</th>" for b in names) + "</tr>")
    for a in names:
        h.append(f'<tr><th class="l">{esc(a)}</th>'
                 + "".join(f"<td>{esc(_h2h_cell(h2h[a][b]))}</td>" for b in names) + "</tr>")
    h.append("</table><h2>Games</h2><table><tr><th>id</th><th>index</th><th>seed</th>"
             '<th class="l">seats (VP)</th><th class="l">winner</th><th>turns</th>'
             '<th>seconds</th><th class="l">status</th><th class="l">replay</th></tr>')
    for g in games:
        row = _game_row(g)
        cls = ' class="failed"' if g.status != "ok" else ""
        h.append(f"<tr{cls}>" + "".join(
            f'<td class="{"l" if i in (3, 4, 7) else ""}">{esc(c)}</td>'
            for i, c in enumerate(row))
            + f'<td class="l"><code>{esc(_replay_cmd(g, db))}</code></td></tr>')
    h.append("</table></body></html>")
    return "\n".join(h) + "\n", "\n".join(md)


def write_report(db: str | Path, league: int, out_dir: str | Path) -> tuple[Path, Path]:
    """Write ``index.html`` and ``report.md`` into ``out_dir``; return their paths."""
    out = Path(out_dir)
    out.mkdir(parents=True, exist_ok=True)
    page, md = render(str(db), league)
    (out / "index.html").write_text(page, encoding="utf-8")
    (out / "report.md").write_text(md, encoding="utf-8")
    return out / "index.html", out / "report.md"
