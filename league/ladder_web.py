"""The ladder's web page: standings, rating history, decision times, every game
with its replay, for anyone with a browser (``kaitaku server --ladder-http``).

A small read-only HTTP server (the standard library's, in a thread of its
own) over the ladder's database, opened read-only for each request. Pages:

* ``/`` — the standings, each bot's rating over the ladder's games (mu with a
  band of ±2σ, :func:`league.charts.rating_chart`), the decision-time
  distributions, the latest games;
* ``/game/ID`` — one game: seats, result, forfeits and timeouts, and its
  replay as text, turn by turn; ``/game/ID.json`` its log
  (``GameLog.to_dict()``; ``kaitaku replay --ladder-db DB ID [--window]``
  shows the same game from the database).

Everything read from the database is escaped; the only inputs are the path's
game number (digits only) and nothing else. No scripts, no external files.
"""

from __future__ import annotations

import html
import json
import logging
import re
import sqlite3
import threading
from collections.abc import Callable, Sequence
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

from protocol.rules import GameLog
from protocol.rules.chance import verify

from .charts import CSS, decision_times, rating_chart
from .ladder import (
    open_read_only,
    read_decision_times,
    read_game,
    read_games,
    read_history,
    read_standings,
)
from .stats import wilson_interval

log = logging.getLogger("kaitaku.ladder.web")

ReplayText = Callable[[GameLog, Sequence[str]], list[list[str]]]
"""A game's text, one list of lines per turn (``kaitaku.replay.replay_lines``)."""

CHART_BOTS = 10
"""Bots drawn in the rating chart (the best by ordinal)."""
RENDERS_AT_ONCE = 4
"""Pages rendered at the same time (more requests wait for a turn)."""
REQUEST_TIMEOUT = 10.0
"""Seconds a connection may take to send its request (a slow one is dropped)."""
CACHE_SECONDS = 2.0
"""How long a rendered page is served again before it is made anew."""
GAME_PAGE = re.compile(r"/game/([0-9]{1,12})(\.json)?")

esc = html.escape


def _page(title: str, body: list[str]) -> bytes:
    return "\n".join(["<!doctype html>", '<html lang="en"><head><meta charset="utf-8">',
                      f"<title>{esc(title)}</title><style>{CSS}</style></head><body>",
                      *body, "</body></html>"]).encode("utf-8")


def _table(head: Sequence[str], rows: Sequence[Sequence[str]], left: Sequence[int] = (1,),
           raw: Sequence[int] = ()) -> str:
    """An HTML table; cells are escaped unless their column is in ``raw``."""
    out = ["<table><tr>" + "".join(f'<th class="{"l" if i in left else ""}">{esc(h)}</th>'
                                   for i, h in enumerate(head)) + "</tr>"]
    for r in rows:
        out.append("<tr>" + "".join(
            f'<td class="{"l" if i in left else ""}">{c if i in raw else esc(c)}</td>'
            for i, c in enumerate(r)) + "</tr>")
    out.append("</table>")
    return "\n".join(out)


def render_index(conn: sqlite3.Connection, title: str = "Kaitaku ladder") -> bytes:
    entries, total, games = read_standings(conn)
    body = [f"<h1>{esc(title)}</h1>",
            f"<p>{total} bots, {games} games rated. Ratings: openskill Plackett-Luce over "
            "each game's ranking (final VP, the winner first, a seat that forfeited last); "
            "ordinal = mu &minus; 3&sigma;.</p>", "<h2>Standings</h2>"]
    rows = []
    for e in entries:
        lo, hi = wilson_interval(e["wins"], e["games"])
        rate = e["wins"] / e["games"] if e["games"] else 0.0
        rows.append([str(e["rank"]), e["name"], f"{e['ordinal']:.2f}", f"{e['mu']:.2f}",
                     f"{e['sigma']:.2f}", str(e["games"]), str(e["wins"]), f"{rate:.1%}",
                     f"{lo:.0%}-{hi:.0%}", str(e["forfeits"]), str(e["timeouts"])])
    body.append(_table(["#", "bot", "ordinal", "mu", "sigma", "games", "wins", "win rate",
                        "95% CI", "forfeits", "timeouts"], rows))
    top = [e["name"] for e in entries[:CHART_BOTS]]
    if top:
        history = read_history(conn, top)
        body += ["<h2>Rating over the ladder's games</h2>",
                 rating_chart(history, top, max(games, 1))]
        body += ["<h2>Decision times</h2><p>As the server measures them: from the legal "
                 "actions it sent to the action it received (the network included), over "
                 "the last 200 games.</p>", decision_times(read_decision_times(conn, top), top)]
    recent = read_games(conn, 50)
    body.append("<h2>Latest games</h2>")
    rows = []
    for g in recent:
        seats = ", ".join(
            n + (f" ({g.vp[q]}{', forfeit' if q in g.forfeits else ''})" if g.vp else "")
            for q, n in enumerate(g.seats))
        winner = g.seats[g.winner] if g.winner is not None and g.winner < len(g.seats) else "–"
        link = f'<a href="/game/{g.id}">{g.id}</a>'
        what = f"{g.rotation + 1}/{g.rotations}" if g.rotations > 1 else "single"
        rows.append([link, what, esc(seats), esc(winner), str(g.turns),
                     esc(g.status if g.status != "aborted" else f"aborted: {g.error}")])
    body.append(_table(["game", "duplicate set", "seats (VP)", "winner", "turns", "status"],
                       rows, left=(2, 3, 5), raw=(0, 1, 2, 3, 4, 5)))
    return _page(title, body)


def _fallback_text(log: GameLog, seats: Sequence[str]) -> list[list[str]]:
    """The log's actions, one line each (when no text replayer is given)."""
    lines = [f"{seats[seat] if seat < len(seats) else seat}: "
             f"{json.dumps(action.to_dict())}" + (f" -> {list(outcome)}" if outcome else "")
             for seat, action, outcome in log.steps]
    return [lines]


def chance_line(log: GameLog) -> str:
    """What the page says of a game's committed chance."""
    if log.chance is None or "secret" not in log.chance:
        return f"committed ({(log.chance or {}).get('commitment', '')[:16]}…), not revealed yet"
    verdict = verify(log)
    return ("dice verified: " if verdict.ok else "") + verdict.summary()


def render_game(conn: sqlite3.Connection, game_id: int,
                replay: ReplayText | None = None) -> bytes:
    game, glog = read_game(conn, game_id)
    title = f"Ladder game {game.id}"
    body = [f"<h1>{esc(title)}</h1>", '<p><a href="/">standings</a></p>']
    what = (f"duplicate set {game.match}, rotation {game.rotation + 1} of {game.rotations}"
            if game.rotations > 1 else f"match {game.match}")
    body.append(f"<p>{esc(what)}; status {esc(game.status)}"
                + (f" ({esc(str(game.error))})" if game.error else "")
                + f"; {game.turns} turns, {game.decisions} decisions.</p>")
    if glog is not None and glog.chance is not None:
        body.append(f"<p>Chance: {esc(chance_line(glog))} (<code>kaitaku verify --ladder-db "
                    f"FILE {game.id}</code> checks it too).</p>")
    rows = []
    for q, n in enumerate(game.seats):
        vp = str(game.vp[q]) if q < len(game.vp) else "–"
        rank = str(game.ranks[q] + 1) if q < len(game.ranks) else "–"
        t = game.timeouts[q] if q < len(game.timeouts) else 0
        times = game.times[q] if q < len(game.times) else []
        mean = f"{sum(times) / len(times) / 1000:.1f}" if times else "–"
        rows.append([str(q + 1), n, vp, rank, "yes" if q in game.forfeits else "",
                     str(t), mean])
    body.append(_table(["seat", "bot", "VP", "rank", "forfeited", "timeouts",
                        "ms/decision"], rows))
    if glog is not None:
        body.append(f'<p><a href="/game/{game.id}.json">the log (JSON)</a>; in the '
                    "replay viewer: <code>kaitaku replay --ladder-db LADDER.db "
                    f"{game.id} --window</code></p>")
        try:
            turns = (replay or _fallback_text)(glog, game.seats)
        except Exception as exc:  # a log that does not replay is shown as such
            turns = [[f"this log does not replay: {type(exc).__name__}: {exc}"]]
        body.append("<h2>Replay</h2>")
        for i, lines in enumerate(turns):
            body.append(f"<h3>{'set-up' if i == 0 else f'turn {i}'}</h3><pre>"
                        + esc("\n".join(lines)) + "</pre>")
    return _page(title, body)


class LadderWeb:
    """The page's HTTP server: :meth:`start` (a daemon thread), :meth:`stop`."""

    def __init__(self, db: str | Path, host: str = "127.0.0.1", port: int = 8080,
                 replay: ReplayText | None = None, title: str = "Kaitaku ladder") -> None:
        self.db = Path(db)
        self.replay = replay
        self.title = title
        web = self

        class Handler(BaseHTTPRequestHandler):
            server_version = "kaitaku-ladder"
            timeout = REQUEST_TIMEOUT

            def log_message(self, fmt: str, *args: Any) -> None:
                log.debug("%s " + fmt, self.address_string(), *args)

            def do_HEAD(self) -> None:
                self._serve(head=True)

            def do_GET(self) -> None:
                self._serve(head=False)

            def _serve(self, head: bool) -> None:
                path = self.path.split("?", 1)[0]
                status, kind, data = web.respond(path)
                self.send_response(status)
                self.send_header("Content-Type", kind)
                self.send_header("Content-Length", str(len(data)))
                self.send_header("Cache-Control", "no-store")
                self.send_header("X-Content-Type-Options", "nosniff")
                self.send_header("Content-Security-Policy", "default-src 'none'; "
                                 "style-src 'unsafe-inline'; img-src data:")
                self.end_headers()
                if not head:
                    self.wfile.write(data)

        self._turns = threading.BoundedSemaphore(RENDERS_AT_ONCE)
        self._cache: dict[str, tuple[float, tuple[int, str, bytes]]] = {}
        self._cache_lock = threading.Lock()
        self.httpd = ThreadingHTTPServer((host, port), Handler)
        self.httpd.daemon_threads = True
        self.port = int(self.httpd.server_address[1])
        self.host = host
        self._thread: threading.Thread | None = None

    def respond(self, path: str) -> tuple[int, str, bytes]:
        """(status, content type, body) for a GET of ``path`` (a page made in the
        last CACHE_SECONDS is served again; at most RENDERS_AT_ONCE are made at
        once)."""
        import time

        now = time.monotonic()
        with self._cache_lock:
            hit = self._cache.get(path)
            if hit is not None and now - hit[0] < CACHE_SECONDS:
                return hit[1]
        with self._turns:
            answer = self._render(path)
        if answer[0] == 200:
            with self._cache_lock:
                if len(self._cache) > 256:
                    self._cache.clear()
                self._cache[path] = (now, answer)
        return answer

    def _render(self, path: str) -> tuple[int, str, bytes]:
        html_type = "text/html; charset=utf-8"
        try:
            conn = open_read_only(self.db)
        except sqlite3.Error:
            return 503, html_type, _page("unavailable", ["<p>The ladder's database cannot "
                                                         "be read now.</p>"])
        try:
            if path in ("/", "/index.html"):
                return 200, html_type, render_index(conn, self.title)
            m = GAME_PAGE.fullmatch(path)
            if m is not None:
                game_id = int(m.group(1))
                if m.group(2):
                    _, glog = read_game(conn, game_id)
                    if glog is None:
                        raise KeyError(game_id)
                    return (200, "application/json",
                            json.dumps(glog.to_dict()).encode("utf-8"))
                return 200, html_type, render_game(conn, game_id, self.replay)
            return 404, html_type, _page("not found", ["<p>No such page.</p>",
                                                       '<p><a href="/">standings</a></p>'])
        except KeyError:
            return 404, html_type, _page("not found", ["<p>No such game.</p>",
                                                       '<p><a href="/">standings</a></p>'])
        except Exception:  # a damaged row: one traceback in the log, an error page
            log.exception("ladder page %s failed", path)
            return 500, html_type, _page("error", ["<p>This page failed.</p>"])
        finally:
            conn.close()

    def start(self) -> None:
        self._thread = threading.Thread(target=self.httpd.serve_forever,
                                        name="kaitaku-ladder-web", daemon=True)
        self._thread.start()
        log.info("ladder page on http://%s:%d/", self.host, self.port)

    def stop(self) -> None:
        if self._thread is not None:
            self.httpd.shutdown()
            self._thread.join(5)
        self.httpd.server_close()
