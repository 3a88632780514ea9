"""The ladder's web page: standings, rating history, decision times, every game
with its replay and what befell each seat, for anyone with a browser
(``kaitaku server --ladder-http``).

Pages:

* ``/`` — the standings (the best MAX_PAGE), each of the best bots' rating over
  the ladder's games (mu with a band of ±2σ, :func:`league.charts.rating_chart`),
  their decision-time distributions, the latest games;
* ``/bot/NAME`` — one bot: its rating, its latest games, and for each what the
  server saw befall its seat (timeouts, refused actions, disconnections, its
  forfeit and why) and its decision times;
* ``/game/ID`` — one game: seats, result, each seat's events and decision
  times, and its replay as text, turn by turn; ``/game/ID.json`` its log to
  download (``GameLog.to_dict()``, the format of leagues' logs: ``kaitaku
  replay --ladder-db DB ID [--window]`` shows the same game from the database).

Everything read from the database is cleaned and escaped (a name, an error, an
event); a damaged row or log shows "cannot be read", never a traceback. The
only inputs are the path's game number (digits only) and a bot's name.

The pages are answered by :class:`Pages` and served by
:class:`server.http.CappedHTTPServer` (the metrics port's server too) with the
page's caps: at most PER_ADDRESS connections from one address and CONNECTIONS
in all (a connection over a cap is closed at once), a deadline of
REQUEST_DEADLINE seconds for each request from accept to the last byte, one
page made at a time in a worker thread (QUEUED_RENDERS waiting at most, more
get 503), and per-request errors as one short log line per kind and minute.
The game server runs it in a child process of its own (:class:`LadderWeb`):
the page's descriptors, memory and CPU are not the game port's, and whatever
the page suffers, the game port keeps accepting players and answering them.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import html
import importlib
import json
import logging
import os
import re
import resource
import signal
import socket
import sqlite3
import subprocess
import sys
import time
import urllib.parse
from collections import OrderedDict
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

from protocol.rules import GameLog
from protocol.rules.chance import verify
from protocol.wire import clean_text
from protocol.wire.messages import MAX_NAME
from server.http import CappedHTTPServer, Render, Response
from server.logs import JsonFormatter, configure

from .charts import CSS, decision_times, rating_chart
from .ladder import (
    Unreadable,
    last_game,
    open_read_only,
    read_decision_times,
    read_game,
    read_games,
    read_history,
    read_standings,
)
from .stats import percentile, wilson_interval

log = logging.getLogger("kaitaku.ladder.web")

ReplayText = Callable[[GameLog, Sequence[str]], list[list[str]]]
"""A game's text, one list of lines per turn (``kaitaku.replay.replay_lines``)."""

CHART_BOTS = 10
"""Bots drawn in the rating chart (the best by ordinal)."""
CONNECTIONS = 64
"""Connections the page serves at once (more are closed at accept); at most a
quarter of the process's descriptor limit."""
PER_ADDRESS = 8
"""Connections one address may hold at once."""
REQUEST_DEADLINE = 10.0
"""Seconds from accept to the last byte of the answer (a slower client is dropped)."""
INDEX_SECONDS = 2.0
"""The standings page is made anew at most this often (and only after a change)."""
CACHED_PAGES = 256
"""Game and bot pages kept made (by game number, by bot's name)."""
QUEUED_RENDERS = 16
"""Pages waiting for the render thread or being made; more requests get 503 at once."""
BOT_GAMES = 50
"""Games listed on a bot's page."""
GAME_PAGE = re.compile(r"/game/([0-9]{1,12})(\.json)?")
BOT_PAGE = re.compile(r"/bot/([^/?#]{1,400})")
HTML = "text/html; charset=utf-8"
CSP = "default-src 'none'; style-src 'unsafe-inline'; img-src data:"
"""The pages' Content-Security-Policy: no scripts, no requests elsewhere."""
DOWNLOAD = (("Content-Disposition", "attachment"),)
"""A game's log is a file to save, not a page."""

esc = html.escape


REFRESH = 30
"""Seconds after which a page with a game in play reloads itself."""


def _name(text: Any) -> str:
    """A name (or any short text) read from the database, safe to show."""
    return clean_text(str(text), MAX_NAME * 4)


def _bot_link(name: str) -> str:
    return (f'<a href="/bot/{urllib.parse.quote(name, safe="")}">{esc(_name(name))}</a>')


def _page(title: str, body: list[str], live: bool = False) -> bytes:
    """``live``: a game is in play; the page reloads itself every :data:`REFRESH` s."""
    refresh = f'<meta http-equiv="refresh" content="{REFRESH}">' if live else ""
    return "\n".join(["<!doctype html>", '<html lang="en"><head><meta charset="utf-8">'
                      + refresh, f"<title>{esc(title)}</title><style>{CSS}</style></head><body>",
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


def _times(times_us: Sequence[float]) -> str:
    """A seat's decision times (µs) in a few numbers (ms)."""
    if not times_us:
        return "–"
    ms = sorted(t / 1000 for t in times_us)
    return (f"{len(ms)} decisions: mean {sum(ms) / len(ms):.1f}, median "
            f"{percentile(ms, 0.5):.1f}, 90% {percentile(ms, 0.9):.1f}, max {ms[-1]:.1f} ms")


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
        rows.append([str(e["rank"]), _bot_link(e["name"]), f"{e['ordinal']:.2f}",
                     f"{e['mu']:.2f}", f"{e['sigma']:.2f}", str(e["games"]), str(e["wins"]),
                     f"{rate:.1%}", f"{lo:.0%}-{hi:.0%}", str(e["forfeits"]),
                     str(e["timeouts"])])
    body.append(_table(["#", "bot", "ordinal", "mu", "sigma", "games", "wins", "win rate",
                        "95% CI", "forfeits", "timeouts"], rows, raw=(1,)))
    top = [e["name"] for e in entries[:CHART_BOTS]]
    if top:
        history = read_history(conn, top)
        shown = [_name(n) for n in top]
        body += ["<h2>Rating over the ladder's games</h2>",
                 rating_chart({_name(n): h for n, h in history.items()}, shown,
                              max(last_game(conn), 1))]
        times = read_decision_times(conn, top)
        body += ["<h2>Decision times</h2><p>As the server measures them: from the legal "
                 "actions it sent to the action it received (the network included), over "
                 "the last 200 games.</p>",
                 decision_times({_name(n): t for n, t in times.items()}, shown)]
    body.append("<h2>Latest games</h2>")
    recent = read_games(conn, 50)
    body.append(_games_table(recent))
    return _page(title, body, live=any(g.status == "playing" for g in recent))


def _games_table(games: Sequence[Any], bot: str | None = None) -> str:
    rows = []
    for g in games:
        seats = ", ".join(
            _bot_link(n) + esc(f" ({g.vp[q]}{', forfeit' if q in g.forfeits else ''})"
                               if q < len(g.vp) else "")
            for q, n in enumerate(g.seats))
        winner = (_bot_link(g.seats[g.winner])
                  if g.winner is not None and 0 <= g.winner < len(g.seats) else "–")
        link = f'<a href="/game/{g.id}">{g.id}</a>'
        what = f"{g.rotation + 1}/{g.rotations}" if g.rotations > 1 else "single"
        row = [link, what, seats, winner, str(g.turns),
               esc(g.status if g.status != "aborted" else f"aborted: {_name(g.error)}")]
        if bot is not None:
            q = g.seats.index(bot) if bot in g.seats else -1
            events = g.events[q] if 0 <= q < len(g.events) else []
            times = g.times[q] if 0 <= q < len(g.times) else []
            row.append(esc("; ".join(_name(e) for e in events) or "–"))
            row.append(esc(_times(times)))
        rows.append(row)
    head = ["game", "duplicate set", "seats (VP)", "winner", "turns", "status"]
    if bot is not None:
        head += ["its seat's events", "its decision times"]
    return _table(head, rows, left=(2, 3, 5, 6, 7), raw=(0, 1, 2, 3, 4, 5))


def render_bot(conn: sqlite3.Connection, name: str) -> bytes:
    row = conn.execute("SELECT mu, sigma, games, wins, forfeits, timeouts FROM bots "
                       "WHERE name = ?", (name,)).fetchone()
    if row is None:
        raise KeyError(name)
    shown = _name(name)
    title = f"Ladder bot {shown}"
    mu, sigma, games, wins, forfeits, timeouts = (float(row[0]), float(row[1]), int(row[2]),
                                                  int(row[3]), int(row[4]), int(row[5]))
    body = [f"<h1>{esc(title)}</h1>", '<p><a href="/">standings</a></p>',
            f"<p>mu {mu:.2f}, sigma {sigma:.2f}, ordinal {mu - 3 * sigma:.2f}; {games} games, "
            f"{wins} wins, {forfeits} forfeits, {timeouts} timeouts.</p>",
            f"<h2>Its latest {BOT_GAMES} games</h2><p>What the server saw befall its seat "
            "(timeouts, refused actions, disconnections, a forfeit and why) and how long it "
            "took to decide.</p>"]
    ids = [int(r[0]) for r in conn.execute(
        "SELECT game FROM ratings WHERE name = ? ORDER BY game DESC LIMIT ?",
        (name, BOT_GAMES))]
    games_of = []
    for gid in ids:
        with contextlib.suppress(KeyError, Unreadable):
            games_of.append(read_game(conn, gid, with_log=False)[0])
    body.append(_games_table(games_of, bot=name))
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
    title = f"Ladder game {game_id}"
    body = [f"<h1>{esc(title)}</h1>", '<p><a href="/">standings</a></p>']
    try:
        game, glog = read_game(conn, game_id)
    except Unreadable as exc:
        body.append(f"<p>This game cannot be read: {esc(str(exc))}.</p>")
        return _page(title, body)
    what = (f"duplicate set {game.match}, rotation {game.rotation + 1} of {game.rotations}"
            if game.rotations > 1 else f"match {game.match}")
    body.append(f"<p>{esc(what)}; status {esc(_name(game.status))}"
                + (f" ({esc(_name(game.error))})" if game.error else "")
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
        events = game.events[q] if q < len(game.events) else []
        rows.append([str(q + 1), _bot_link(n), vp, rank,
                     "yes" if q in game.forfeits else "", str(t), esc(_times(times)),
                     "<br>".join(esc(_name(e)) for e in events) or "–"])
    body.append(_table(["seat", "bot", "VP", "rank", "forfeited", "timeouts",
                        "decision times", "what befell the seat"], rows,
                       left=(1, 6, 7), raw=(1, 6, 7)))
    if glog is not None:
        body.append(f'<p><a href="/game/{game.id}.json" download>the log (JSON, '
                    "GameLog.to_dict())</a>; in the replay viewer: <code>kaitaku replay "
                    f"--ladder-db LADDER.db {game.id} --window</code></p>")
        try:
            turns = (replay or _fallback_text)(glog, [_name(n) for n in game.seats])
        except Exception as exc:  # a log that does not replay is shown as such
            turns = [[f"this log does not replay: {type(exc).__name__}: {exc}"[:500]]]
        body.append("<h2>Replay</h2>")
        for i, lines in enumerate(turns):
            body.append(f"<h3>{'set-up' if i == 0 else f'turn {i}'}</h3><pre>"
                        + esc("\n".join(lines)) + "</pre>")
    return _page(title, body, live=game.status == "playing")


def set_over(conn: sqlite3.Connection, game_id: int) -> bool:
    """Whether no game of ``game_id``'s match (its duplicate set) is being played:
    its page is final then, and kept made."""
    row = conn.execute("SELECT COUNT(*) FROM games WHERE status = 'playing' AND match = "
                       "(SELECT match FROM games WHERE id = ?)", (game_id,)).fetchone()
    return row is not None and int(row[0]) == 0


def _message(status: int, text: str) -> Response:
    return Response(status, HTML, _page(text, [f"<p>{esc(text)}</p>",
                                               '<p><a href="/">standings</a></p>']))


class Pages:
    """What the page answers for a path, with its caches: the standings page
    by the database's state (made anew at most every INDEX_SECONDS, and only
    after a change), a game's page and log by its number (kept once no game of
    its match is being played: a finished set never changes), a bot's page by
    its name (made anew at most every INDEX_SECONDS). The path's
    spelling (``/game/007``, a query string) does not make a page anew."""

    def __init__(self, db: str | os.PathLike[str], replay: ReplayText | None = None,
                 title: str = "Kaitaku ladder") -> None:
        self.db = Path(db)
        self.replay = replay
        self.title = title
        self._index: tuple[float, Any, Response] | None = None
        self._cache: OrderedDict[Any, tuple[float, Response]] = OrderedDict()

    def key(self, path: str) -> Any:
        """The cache key of ``path`` (None: not a page)."""
        path = path.split("?", 1)[0].split("#", 1)[0]
        if path in ("/", "/index.html"):
            return ("index",)
        m = GAME_PAGE.fullmatch(path)
        if m is not None:
            return ("game", int(m.group(1)), bool(m.group(2)))
        m = BOT_PAGE.fullmatch(path)
        if m is not None:
            name = urllib.parse.unquote(m.group(1), errors="replace")
            return ("bot", name) if len(name) <= MAX_NAME * 4 else None
        return None

    def answer(self, path: str) -> Response | Render:
        """The page of ``path`` if it is made, else what makes it (in the
        server's render thread): :data:`server.http.Handler`."""
        key = self.key(path)
        made = self.cached(key)
        if made is not None:
            return made
        return lambda: self.render(key)

    def cached(self, key: Any) -> Response | None:
        if key is None:
            return _message(404, "No such page.")
        if key[0] == "index":
            if self._index is not None and time.monotonic() - self._index[0] < INDEX_SECONDS:
                return self._index[2]
            return None
        hit = self._cache.get(key)
        if hit is None or (key[0] == "bot" and time.monotonic() - hit[0] >= INDEX_SECONDS):
            return None  # a bot's page is made anew as the standings page is
        self._cache.move_to_end(key)
        return hit[1]

    def render(self, key: Any) -> Response:
        """Make the page of ``key`` (in the render thread)."""
        try:
            conn = open_read_only(self.db)
        except sqlite3.Error:
            return _message(503, "The ladder's database cannot be read now.")
        try:
            conn.execute("PRAGMA query_only = 1")
            if key[0] == "index":
                state = (last_game(conn), conn.execute(
                    "SELECT COUNT(*), COALESCE(SUM(games), 0) FROM bots").fetchone())
                if self._index is not None and self._index[1] == state:
                    answer = self._index[2]
                else:
                    answer = Response(200, HTML, render_index(conn, self.title))
                self._index = (time.monotonic(), state, answer)
                return answer
            if key[0] == "game":
                _, game_id, as_json = key
                if as_json:
                    game, glog = read_game(conn, game_id)
                    if glog is None:
                        raise KeyError(game_id)
                    answer = Response(200, "application/json",
                                      json.dumps(glog.to_dict()).encode(), DOWNLOAD)
                    final = True
                else:
                    answer = Response(200, HTML, render_game(conn, game_id, self.replay))
                    final = set_over(conn, game_id)
            else:
                answer = Response(200, HTML, render_bot(conn, key[1]))
                final = True
            if final:
                self._keep(key, answer)
            return answer
        except KeyError:
            return _message(404, "No such game or bot.")
        except Unreadable as exc:
            return _message(500, f"This cannot be read: {exc}")
        finally:
            conn.close()

    def _keep(self, key: Any, answer: Response) -> None:
        self._cache[key] = (time.monotonic(), answer)
        self._cache.move_to_end(key)
        while len(self._cache) > CACHED_PAGES:
            self._cache.popitem(last=False)


def load_replay(spec: str | None) -> ReplayText | None:
    """``module:function`` to the function (None: none)."""
    if not spec:
        return None
    module, _, name = spec.partition(":")
    fn: ReplayText = getattr(importlib.import_module(module), name)
    return fn


def serve_page(db: str, sock: socket.socket, replay: str | None, title: str) -> None:
    """Run the page on ``sock`` until SIGTERM (or until the parent process is gone)."""
    soft = resource.getrlimit(resource.RLIMIT_NOFILE)[0]
    budget = soft if soft != resource.RLIM_INFINITY else 1 << 20
    connections = min(CONNECTIONS, max(4, budget // 4))  # well under the descriptor budget
    server = CappedHTTPServer(
        Pages(db, load_replay(replay), title).answer, sock=sock, name="ladder page",
        max_connections=connections, max_per_address=min(PER_ADDRESS, connections),
        deadline=REQUEST_DEADLINE, rate=None, renders=QUEUED_RENDERS,
        headers=[("Content-Security-Policy", CSP)])
    parent = os.getppid()

    async def main() -> None:
        loop = asyncio.get_running_loop()
        task = asyncio.ensure_future(server.serve())
        loop.add_signal_handler(signal.SIGTERM, task.cancel)
        loop.add_signal_handler(signal.SIGINT, task.cancel)
        while not task.done():
            await asyncio.wait([task], timeout=1.0)
            if os.getppid() != parent:
                task.cancel()
        with contextlib.suppress(asyncio.CancelledError):
            await task

    asyncio.run(main())


class LadderWeb:
    """The page's server for ``kaitaku server --ladder-http``: the listening
    socket is made here (so the port is known and a bad address fails at once)
    and served by a child process (``python -m league.ladder_web``):
    :meth:`start`, :meth:`stop`."""

    def __init__(self, db: str | Path, host: str = "127.0.0.1", port: int = 8080,
                 replay: ReplayText | str | None = None,
                 title: str = "Kaitaku ladder") -> None:
        self.db = Path(db)
        self.replay = (replay if isinstance(replay, str) or replay is None
                       else f"{replay.__module__}:{replay.__qualname__}")
        self.title = title
        family = socket.AF_INET6 if ":" in host else socket.AF_INET
        self.sock = socket.socket(family, socket.SOCK_STREAM)
        try:
            self.sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
            self.sock.bind((host, port))
            self.sock.listen(128)
        except OSError:
            self.sock.close()
            raise
        self.port = int(self.sock.getsockname()[1])
        self.host = host
        self.process: subprocess.Popen[bytes] | None = None

    def start(self) -> None:
        fd = self.sock.fileno()
        cmd = [sys.executable, "-m", "league.ladder_web", "--fd", str(fd), "--db",
               str(self.db), "--title", self.title]
        if self.replay:
            cmd += ["--replay", self.replay]
        # The page's log lines as the server's: its level (DEBUG as INFO), its format.
        level = next((n for n in ("info", "warning", "error")
                      if logging.getLevelName(n.upper()) >= log.getEffectiveLevel()),
                     "critical")
        json_lines = any(isinstance(h.formatter, JsonFormatter)
                         for h in logging.getLogger().handlers)
        cmd += ["--log-level", level, "--log-format", "json" if json_lines else "text"]
        env = {**os.environ, "PYTHONPATH": os.pathsep.join(
            [str(Path(__file__).resolve().parents[1]), os.environ.get("PYTHONPATH", "")])}
        self.process = subprocess.Popen(cmd, pass_fds=(fd,), stdin=subprocess.DEVNULL,
                                        env=env)
        log.info("ladder page on http://%s:%d/ (process %d)", self.host, self.port,
                 self.process.pid)

    def stop(self) -> None:
        if self.process is not None and self.process.poll() is None:
            self.process.terminate()
            try:
                self.process.wait(5)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait()
        self.sock.close()


def main(argv: Sequence[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="python -m league.ladder_web",
                                 description="serve a ladder's page on an inherited socket")
    ap.add_argument("--fd", type=int, required=True)
    ap.add_argument("--db", required=True)
    ap.add_argument("--replay", default=None)
    ap.add_argument("--title", default="Kaitaku ladder")
    ap.add_argument("--log-level", default="warning",
                    choices=["debug", "info", "warning", "error", "critical"])
    ap.add_argument("--log-format", default="text", choices=["text", "json"])
    args = ap.parse_args(argv)
    configure(args.log_level, args.log_format)
    sock = socket.socket(fileno=args.fd)
    sock.setblocking(False)
    serve_page(args.db, sock, args.replay, args.title)
    return 0


if __name__ == "__main__":
    sys.exit(main())
