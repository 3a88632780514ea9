"""League reports (``kaitaku league --report DIR``).

The HTML report is one self-contained file: inline CSS, an inline SVG chart of
each entry's rating (openskill ordinal) over the games, the standings, a
head-to-head matrix and one row per game with the command that replays it.
"""

from __future__ import annotations

import html
from collections.abc import Sequence
from pathlib import Path

from .charts import CSS, decision_times, heatmap_table, rating_chart
from .ratings import Standings, head_to_head, rate
from .stats import percentile, wilson_interval
from .store import SeatLog, StoredGame, connect, league_info, load_games

_MD_SPECIAL = str.maketrans({c: "\\" + c for c in "\\`*_[]<>|&!#~"})


def _md(text: str) -> str:
    """Text for a Markdown table cell: already clean (the store cleans what it
    reads), with Markdown's and HTML's special characters escaped, so a name
    or an error cannot add a link, an image, a tag or a column."""
    return text.translate(_MD_SPECIAL)


def _md_row(cells: Sequence[str]) -> str:
    return "| " + " | ".join(_md(c) for c in cells) + " |"


def _standings_rows(standings: Standings) -> list[list[str]]:
    rows = []
    for i, s in enumerate(standings.entries, 1):
        lo, hi = wilson_interval(s.wins, s.games)
        rows.append([str(i), s.name, f"{s.ordinal:.2f}", f"{s.mu:.2f}", f"{s.sigma:.2f}",
                     str(s.games), str(s.wins), f"{s.win_rate:.1%}", f"{lo:.1%}-{hi:.1%}",
                     f"{s.mean_vp:.2f}", f"{s.mean_decision_ms:.3f}",
                     f"{s.p99_decision_ms:.3f}", str(s.timeouts), str(s.forfeits),
                     str(s.failed)])
    return rows


_STANDINGS_HEAD = ["#", "entry", "ordinal", "mu", "sigma", "games", "wins", "win rate",
                   "95% CI", "mean VP", "ms/decision", "p99 ms", "timeouts", "forfeits",
                   "failed games"]


def _h2h_cell(cell: Sequence[int]) -> str:
    wins, n = cell
    return f"{wins / n:.0%} ({wins}/{n})" if n else "–"


def _replay_cmd(game: StoredGame, db: str) -> str:
    return f"kaitaku replay {game.id} --db {db}"


def _game_row(g: StoredGame) -> list[str]:
    winner = g.seats[g.winner] if g.winner is not None else "–"
    if g.winner is not None and g.winner in g.forfeits:
        winner += " (forfeited)"

    def seat(q: int, n: str) -> str:
        if not g.vp:
            return n
        return f"{n} ({g.vp[q]}, forfeited)" if q in g.forfeits else f"{n} ({g.vp[q]})"

    seats = ", ".join(seat(q, n) for q, n in enumerate(g.seats))
    return [str(g.id), str(g.index), str(g.seed), seats, winner, str(g.turns),
            f"{g.duration:.2f}", g.status if g.status == "ok" else f"failed: {g.error}"]


_SEAT_HEAD = ["game", "seat", "entry", "decisions", "mean ms", "p99 ms", "max ms", "timeouts",
              "lost its seat"]


def _seat_rows(games: Sequence[StoredGame]) -> list[tuple[list[str], str]]:
    """Per game and seat, what its competitor wants to know: its decision
    times, timeouts, why it lost its seat; with the end of its stderr."""
    rows = []
    for g in games:
        for q, name in enumerate(g.seats):
            us = sorted(g.times[q]) if q < len(g.times) else []
            log = g.seat_logs[q] if q < len(g.seat_logs) else SeatLog()
            rows.append(([str(g.id), str(q), name, str(len(us)),
                          f"{sum(us) / len(us) / 1000:.3f}" if us else "–",
                          f"{percentile(us, 0.99) / 1000:.3f}" if us else "–",
                          f"{us[-1] / 1000:.3f}" if us else "–",
                          str(g.timeouts[q]) if q < len(g.timeouts) else "–",
                          log.why or ("forfeited" if q in g.forfeits else "")], log.stderr))
    return rows


def _seat_logs_html(games: Sequence[StoredGame]) -> str:
    esc = html.escape
    out = ["<table><tr>" + "".join(f'<th class="{"l" if c in ("entry", "lost its seat") else ""}">'
                                   f"{esc(c)}</th>" for c in _SEAT_HEAD)
           + '<th class="l">standard error (its end)</th></tr>']
    for cells, err in _seat_rows(games):
        tail = (f"<details><summary>{len(err)} characters</summary><pre>{esc(err)}</pre>"
                "</details>") if err else ""
        out.append("<tr>" + "".join(f'<td class="{"l" if i in (2, 8) else ""}">{esc(c)}</td>'
                                    for i, c in enumerate(cells))
                   + f'<td class="l">{tail}</td></tr>')
    out.append("</table>")
    return "\n".join(out)


def _board_rows(names: Sequence[str], games: Sequence[StoredGame]) -> list[list[str]]:
    """Per board (games sharing a seed): each entry's wins / seats and mean VP."""
    boards: dict[int, list[StoredGame]] = {}
    for g in games:
        if g.status == "ok":
            boards.setdefault(g.seed, []).append(g)
    rows = []
    for seed, group in sorted(boards.items(), key=lambda kv: min(g.index for g in kv[1])):
        row = [str(seed)]
        for n in names:
            seats = [(g, q) for g in group for q, m in enumerate(g.seats) if m == n]
            if not seats:
                row.append("–")
                continue
            wins = sum(g.winner == q for g, q in seats)
            vp = sum(g.vp[q] for g, q in seats) / len(seats)
            row.append(f"{wins}/{len(seats)}, {vp:.1f} VP")
        rows.append(row)
    return rows


def _boards_html(names: Sequence[str], games: Sequence[StoredGame]) -> str:
    esc = html.escape
    out = ['<table><tr><th class="l">board seed</th>'
           + "".join(f"<th>{esc(n)}</th>" for n in names) + "</tr>"]
    for row in _board_rows(names, games):
        out.append("<tr>" + "".join(f'<td class="{"l" if i == 0 else ""}">{esc(c)}</td>'
                                    for i, c in enumerate(row)) + "</tr>")
    out.append("</table>")
    return "\n".join(out)


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
    mode = "duplicate, " if info.get("mode") == "duplicate" else ""
    clock = info.get("clock")
    if clock:
        mode += (f"clock {clock['clock_ms'] / 1000:g}+{clock['clock_increment_ms'] / 1000:g} s "
                 f"({clock['clock_timeouts']:g} timeouts forfeit), ")
    summary = (f"{mode}seed {info['seed']}, {info['settings']['players']} players, "
               f"{len(games)} of {len(games) and max(g.index for g in games) + 1} games stored "
               f"({standings.played} ok, {standings.failed} failed); entries: {entries_text}")

    # Markdown
    md = [f"# {title}", "", _md(summary), "", "## Standings", "",
          "| " + " | ".join(_STANDINGS_HEAD) + " |",
          "|" + "---|" * len(_STANDINGS_HEAD)]
    md += [_md_row(r) for r in _standings_rows(standings)]
    md += ["", "Ratings: openskill Plackett-Luce over each game's ranking (final VP, the "
           "winner first, a seat that forfeited last); ordinal = mu - 3 sigma. Games and "
           "wins count seats. Decision times: in-process entries' act(), cmd: entries as "
           "the server measures them (its legal sent to their action received).", "",
           "## Head to head", "", "Row entry's win rate in games where the column entry "
           "also played.", "", "| " + _md_row(names), "|---|" + "---|" * len(names)]
    md += [_md_row([a, *(_h2h_cell(h2h[a][b]) for b in names)]) for a in names]
    md += ["", "## Games", "", "| id | index | seed | seats (VP) | winner | turns | seconds | "
           "status |", "|---|---|---|---|---|---|---|---|"]
    md += [_md_row(_game_row(g)) for g in games]
    md += ["", f"Replay a game: kaitaku replay ID --db {_md(db)}", ""]
    md += ["## Seats", "", "Per game and seat: decision times, chess-clock timeouts, why "
           "the seat was lost, and the end of a cmd: entry's standard error.", "",
           _md_row([*_SEAT_HEAD, "standard error (its end)"]),
           "|" + "---|" * (len(_SEAT_HEAD) + 1)]
    md += [_md_row([*cells, " / ".join(err.splitlines())[-300:]])
           for cells, err in _seat_rows(games)]
    md.append("")

    # HTML
    esc = html.escape
    order = [st.name for st in standings.entries]
    h = ["<!doctype html>", '<html lang="en"><head><meta charset="utf-8">',
         f"<title>{esc(title)}</title><style>{CSS}</style></head><body>",
         f"<h1>{esc(title)}</h1>", f"<p>{esc(summary)}</p>", "<h2>Rating over games</h2>",
         rating_chart(standings.history, order, max((g.index for g in games), default=0) + 1),
         "<h2>Standings</h2>", "<table><tr>"
         + "".join(f'<th class="{"l" if c == "entry" else ""}">{esc(c)}</th>'
                   for c in _STANDINGS_HEAD) + "</tr>"]
    for r in _standings_rows(standings):
        h.append("<tr>" + "".join(f'<td class="{"l" if i == 1 else ""}">{esc(c)}</td>'
                                  for i, c in enumerate(r)) + "</tr>")
    h.append("</table><p>Ratings: openskill Plackett-Luce over each game's ranking (final VP, "
             "the winner first, a seat that forfeited last); ordinal = mu &minus; 3&sigma;. "
             "Games and wins count seats; the interval is a 95% Wilson interval. Timeouts: "
             "decisions that ran past the chess clock's bank (the default action was played); "
             "forfeits: games in which a built-in bot finished the entry's seat.</p>")
    players = int(info["settings"].get("players", 4))
    h.append("<h2>Head to head</h2><p>Row entry's win rate in games where the column entry "
             f"also played; green above parity (1/{players}), red below.</p>")
    h.append(heatmap_table(names, h2h, 1 / players))
    h.append("<h2>Decision times</h2><p>In-process entries: the time of their act(); "
             "<code>cmd:</code> entries: as the server measures it, from the legal actions "
             "it sent to the action it received (the transport included).</p>")
    h.append(decision_times({st.name: [t / 1000 for t in st.decision_us]
                             for st in standings.entries}, order))
    if info.get("mode") == "duplicate":
        h.append("<h2>Boards (duplicate)</h2><p>Each board was played in every seat rotation "
                 "with the same dice, deck and draws: an entry's result on a board is "
                 "wins / seats played, then its mean VP.</p>")
        h.append(_boards_html(names, games))
        at = md.index("## Games")
        md[at:at] = (["## Boards (duplicate)", "", _md_row(["board seed", *names]),
                      "|---|" + "---|" * len(names)]
                     + [_md_row(r) for r in _board_rows(names, games)] + [""])
    h.append("<h2>Games</h2><table><tr><th>id</th><th>index</th><th>seed</th>"
             '<th class="l">seats (VP)</th><th class="l">winner</th><th>turns</th>'
             '<th>seconds</th><th class="l">status</th><th class="l">replay</th></tr>')
    for g in games:
        row = _game_row(g)
        cls = ' class="failed"' if g.status != "ok" else ""
        h.append(f"<tr{cls}>" + "".join(
            f'<td class="{"l" if i in (3, 4, 7) else ""}">{esc(c)}</td>'
            for i, c in enumerate(row))
            + f'<td class="l"><code>{esc(_replay_cmd(g, db))}</code></td></tr>')
    h.append("</table>")
    h.append("<h2>Seats</h2><p>Per game and seat: decision times (as above), chess-clock "
             "timeouts, why the seat was lost (a crash, an exit, timeouts, illegal actions: a "
             "built-in bot then played it), and the end of a <code>cmd:</code> entry's "
             "standard error.</p>")
    h.append(_seat_logs_html(games))
    h.append("</body></html>")
    return "\n".join(h) + "\n", "\n".join(md)


def write_report(db: str | Path, league: int, out_dir: str | Path) -> tuple[Path, Path]:
    """Write ``index.html`` and ``report.md`` into ``out_dir``; return their paths."""
    out = Path(out_dir)
    out.mkdir(parents=True, exist_ok=True)
    page, md = render(str(db), league)
    (out / "index.html").write_text(page, encoding="utf-8")
    (out / "report.md").write_text(md, encoding="utf-8")
    return out / "index.html", out / "report.md"
