"""The live ladder (league.ladder) on a real server over real TCP (and TLS):
registration with hashed keys, remote bots matched and rated while the server
runs, duplicate sets, forfeits after a drop, the standings over the protocol
and as a web page."""

from __future__ import annotations

import asyncio
import json
import sqlite3
import urllib.request
from collections.abc import AsyncIterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from bots import HeuristicBot, RandomBot
from bots.client import BotClient
from bots.ladder_client import register, run_ladder, standings
from kaitaku.replay import replay_lines
from league.ladder import Ladder, LadderConfig, LadderStore, hash_key
from league.ladder_web import LadderWeb
from protocol.rules import apply as apply_action
from protocol.rules import new_game, replay
from protocol.rules.chance import verify
from protocol.wire import ProtocolError
from server.app import Server
from server.clock import Clock

TIMEOUT = 60.0


@dataclass
class Ladderd:
    server: Server
    ladder: Ladder
    db: Path
    tls: Any = None


async def _start(tmp_path: Path, tls: Any = None, **config: Any) -> Ladderd:
    db = tmp_path / "ladder.db"
    ladder = Ladder(db, LadderConfig(**{"players": 2, "seed": 5, **config}))
    kw: dict[str, Any] = {}
    if tls is not None:
        kw = {"tls_cert": str(tls.chain), "tls_key": str(tls.key)}
    srv = Server("127.0.0.1", 0, spawn_bots=False, extension=ladder, **kw)
    await srv.start()
    return Ladderd(srv, ladder, db)


@pytest.fixture
async def ladderd(tmp_path: Path) -> AsyncIterator[Ladderd]:
    d = await _start(tmp_path, grace=0.3)
    try:
        yield d
    finally:
        await asyncio.wait_for(d.server.close(), 15)


async def _raw(port: int, name: str = "raw", source: str | None = None,
               tls: Any = None) -> BotClient:
    """A connection from ``source`` (another loopback address: another owner)."""
    reader, writer = await asyncio.open_connection(
        "127.0.0.1", port, ssl=tls, local_addr=(source, 0) if source else None)
    client = BotClient(RandomBot(0), reader, writer, name)
    await asyncio.wait_for(client.handshake(), 5)
    return client


async def _register(port: int, name: str, source: str, tls: Any = None) -> str:
    """Register ``name`` from ``source`` (names registered from one address share
    an owner, and the ladder never seats one owner's bots together)."""
    client = await _raw(port, name, source, tls)
    try:
        client.send({"type": "ladder_register", "name": name})
        while True:
            msg = await asyncio.wait_for(client.recv(), 10)
            if msg["type"] == "ladder_registered":
                return str(msg["key"])
            if msg["type"] == "error":
                raise ProtocolError(msg["message"], msg["code"])
    finally:
        client.writer.close()


async def _error(client: BotClient) -> dict[str, Any]:
    while True:
        msg = await asyncio.wait_for(client.recv(), 10)
        if msg["type"] == "error":
            return msg


def _rows(db: Path) -> list[dict[str, Any]]:
    with sqlite3.connect(db) as conn:
        conn.row_factory = sqlite3.Row
        return [dict(r) for r in conn.execute("SELECT * FROM games ORDER BY id")]


async def test_registration_gives_a_key_that_is_stored_only_as_a_salted_hash(
        ladderd: Ladderd) -> None:
    port = ladderd.server.port
    key = await register("127.0.0.1", port, "Aiko's bot")
    assert len(key) >= 32
    with pytest.raises(ProtocolError) as taken:
        await register("127.0.0.1", port, "AIKO'S BOT")  # names ignore case
    assert taken.value.code == "name_taken"
    with sqlite3.connect(ladderd.db) as conn:
        salt, stored = conn.execute("SELECT salt, hash FROM bots WHERE name = ?",
                                    ("Aiko's bot",)).fetchone()
        dump = "\n".join(conn.iterdump())
    assert key not in dump and key.encode() not in bytes(stored)
    assert len(salt) == 16 and bytes(stored) == hash_key(key, bytes(salt))
    other = await register("127.0.0.1", port, "Bo")
    with sqlite3.connect(ladderd.db) as conn:
        salts = [bytes(r[0]) for r in conn.execute("SELECT salt FROM bots")]
    assert len(set(salts)) == 2 and other != key


async def test_a_wrong_key_is_refused_and_a_bot_is_ready_once(ladderd: Ladderd) -> None:
    port = ladderd.server.port
    key = await register("127.0.0.1", port, "solo")
    bad = await _raw(port)
    wrong = key[:-1] + "?"  # "?" is outside the keys' alphabet: certainly wrong
    bad.send({"type": "ladder_ready", "name": "solo", "key": wrong, "games": 3})
    assert (await _error(bad))["code"] == "bad_key"
    nobody = await _raw(port)
    nobody.send({"type": "ladder_ready", "name": "nobody", "key": key, "games": 3})
    assert (await _error(nobody))["code"] == "bad_key"
    first = await _raw(port)
    first.send({"type": "ladder_ready", "name": "solo", "key": key, "games": 3})
    queued = await asyncio.wait_for(first.recv(), 10)
    assert queued == {"type": "ladder_queued", "games": 3, "name": "solo"}
    second = await _raw(port)
    second.send({"type": "ladder_ready", "name": "solo", "key": key, "games": 3})
    assert (await _error(second))["code"] == "ladder_busy"
    for c in (bad, nobody, first, second):
        c.writer.close()


async def test_a_server_without_a_ladder_says_so() -> None:
    srv = Server("127.0.0.1", 0, spawn_bots=False)
    await srv.start()
    try:
        client = await _raw(srv.port)
        for msg in ({"type": "ladder_register", "name": "x"},
                    {"type": "ladder_ready", "name": "x", "key": "k", "games": 1},
                    {"type": "ladder_standings"}):
            client.send(msg)
            err = await _error(client)
            assert err["code"] == "no_ladder" and "--ladder" in err["message"]
        client.send({"type": "list_tables"})  # the connection goes on
        assert (await asyncio.wait_for(client.recv(), 5))["type"] == "tables"
        client.writer.close()
    finally:
        await srv.close()


def _dice_by_turn(log: Any) -> dict[int, tuple[int, ...]]:
    s = new_game(log.settings, log.seed, board=log.board, first_seat=log.first_seat)
    out: dict[int, tuple[int, ...]] = {}
    for seat, action, outcome in log.steps:
        if action.to_dict()["type"] == "roll_dice" and outcome is not None:
            out[s.turn] = tuple(outcome)
        apply_action(s, action, seat, outcome)
    return out


async def test_two_remote_bots_are_matched_and_rated_live_over_tls(tmp_path: Path) -> None:
    trustme = pytest.importorskip("trustme")
    from bots.tls import client_context

    from ..server.test_tls import Certs

    certs = Certs(tmp_path)
    tls = client_context(str(certs.ca))
    d = await _start(tmp_path, tls=certs, clock=Clock(30_000, 1_000, 3))
    assert trustme
    web = LadderWeb(d.db, "127.0.0.1", 0, replay=replay_lines)
    web.start()
    try:
        port = d.server.port
        keys = {n: await _register(port, n, f"127.0.0.{i + 2}", tls=tls)
                for i, n in enumerate(("heur", "rand", "<b>late</b>"))}
        rated: list[int] = []
        d.ladder.on_game = rated.append
        outs = await asyncio.wait_for(asyncio.gather(
            run_ladder(lambda: HeuristicBot(1), "127.0.0.1", port, name="heur",
                       key=keys["heur"], games=2, tls=tls),
            run_ladder(lambda: RandomBot(2), "127.0.0.1", port, name="rand",
                       key=keys["rand"], games=2, tls=tls)), TIMEOUT)
        assert [len(o.games) for o in outs] == [2, 2]
        assert all(g.finished for o in outs for g in o.games)
        assert all(o.remaining == 0 for o in outs)
        assert len(rated) == 2
        rows = _rows(d.db)
        assert [r["status"] for r in rows] == ["ok", "ok"]
        # One duplicate set: the same board in both rotations; each rotation its own
        # dice (the bots saw the first one's), revealed at its end, and verified.
        assert rows[0]["match"] == rows[1]["match"] and rows[0]["rotations"] == 2
        assert rows[0]["seed"] == rows[1]["seed"]
        assert json.loads(rows[0]["seats"]) == json.loads(rows[1]["seats"])[::-1]
        conn = sqlite3.connect(d.db)
        from league.ladder import read_game

        logs = [read_game(conn, r["id"])[1] for r in rows]
        conn.close()
        assert all(log is not None for log in logs)
        dice = [_dice_by_turn(log) for log in logs]
        common = set(dice[0]) & set(dice[1])
        assert len(common) > 5 and sum(dice[0][t] == dice[1][t] for t in common) < len(common) / 2
        assert logs[0] is not None and logs[1] is not None
        assert (logs[0].board, logs[0].first_seat) == (logs[1].board, logs[1].first_seat)
        for r, log in zip(rows, logs, strict=True):
            assert log is not None and replay(log).winner == r["winner"]
            assert verify(log).ok, verify(log).message
        from kaitaku.cli import main

        assert main(["verify", str(rows[1]["id"]), "--ladder-db", str(d.db)]) == 0
        # Rated at once, in the standings over the protocol.
        table = await standings("127.0.0.1", port, tls=tls)
        by_name = {e["name"]: e for e in table["entries"]}
        assert table["total"] == 3 and table["games"] == 2
        assert by_name["heur"]["games"] == by_name["rand"]["games"] == 2
        assert by_name["heur"]["mu"] > 25 > by_name["rand"]["mu"]
        assert by_name["<b>late</b>"]["games"] == 0
        assert table["entries"][0]["name"] == "heur"
        # ... and on the web page: standings, the rating chart, each game's replay.
        base = f"http://127.0.0.1:{web.port}"

        def get(path: str) -> tuple[int, str]:
            try:
                with urllib.request.urlopen(base + path, timeout=10) as resp:
                    return resp.status, resp.read().decode()
            except urllib.error.HTTPError as exc:
                return exc.code, exc.read().decode()

        status, page = await asyncio.to_thread(get, "/")
        assert status == 200 and "heur" in page and "rand" in page and "<svg" in page
        assert "&lt;b&gt;late&lt;/b&gt;" in page and "<b>late</b>" not in page
        status, game = await asyncio.to_thread(get, f"/game/{rows[0]['id']}")
        assert status == 200 and "Replay" in game and "turn 1" in game
        first = json.loads(rows[0]["seats"])
        assert f"[{first[0]} 赤 Red] rolls" in game and f"[{first[1]} 青 Blue]" in game
        assert 'http-equiv="refresh"' not in page + game  # nothing in play: no reloads
        assert "Chance: dice verified: fair: the commitment matches" in game
        status, raw = await asyncio.to_thread(get, f"/game/{rows[0]['id']}.json")
        assert status == 200 and json.loads(raw)["seed"] == rows[0]["seed"]
        assert (await asyncio.to_thread(get, "/game/999"))[0] == 404
        assert (await asyncio.to_thread(get, "/../etc/passwd"))[0] == 404
    finally:
        web.stop()
        await asyncio.wait_for(d.server.close(), 15)


async def test_a_bot_that_drops_loses_its_seat_to_a_stand_in_and_forfeits(
        ladderd: Ladderd) -> None:
    port = ladderd.server.port
    keys = {n: await _register(port, n, f"127.0.0.{i + 2}")
            for i, n in enumerate(("stays", "drops"))}
    dropper = await _raw(port, "drops")
    dropper.send({"type": "ladder_ready", "name": "drops", "key": keys["drops"], "games": 1})
    stays = asyncio.ensure_future(run_ladder(
        lambda: RandomBot(3), "127.0.0.1", port, name="stays", key=keys["stays"], games=1))

    async def play_then_drop() -> None:
        while True:
            msg = await dropper.recv()
            if msg["type"] == "legal" and msg["actions"] and dropper.outcome.actions >= 6:
                dropper.writer.transport.abort()  # gone mid-game, without a word
                return
            await dropper._handle(msg)

    await asyncio.wait_for(play_then_drop(), TIMEOUT)
    out = await asyncio.wait_for(stays, TIMEOUT)
    assert len(out.games) == 1 and out.games[0].finished
    (row,) = _rows(ladderd.db)
    seats = json.loads(row["seats"])
    gone = seats.index("drops")
    assert row["status"] == "ok" and json.loads(row["forfeits"]) == [gone]
    ranks = json.loads(row["ranks"])
    assert ranks[gone] == 1 and ranks[1 - gone] == 0
    table = await standings("127.0.0.1", port)
    by_name = {e["name"]: e for e in table["entries"]}
    assert by_name["drops"]["forfeits"] == 1 and by_name["drops"]["wins"] == 0
    assert by_name["stays"]["mu"] > by_name["drops"]["mu"]


def test_a_game_running_when_the_server_stopped_is_stored_as_aborted(tmp_path: Path) -> None:
    store = LadderStore(tmp_path / "l.db")
    assert store.register("a", "k1") and store.register("b", "k2")
    gid = store.start_game(1, 0, 1, "ladder-x", 7, ["a", "b"])
    store.close()
    again = LadderStore(tmp_path / "l.db")
    (status, error), = again.db.execute("SELECT status, error FROM games WHERE id = ?", (gid,))
    again.close()
    assert status == "aborted" and "stopped" in error
    with pytest.raises(ValueError, match="not a ladder database"):
        (tmp_path / "junk.db").write_bytes(b"not a database at all" * 100)
        LadderStore(tmp_path / "junk.db")
    from league import Entry, run_league

    run_league([Entry("r", "random")], 1, players=2, db=tmp_path / "league.db")
    with pytest.raises(ValueError, match="not a ladder database"):
        LadderStore(tmp_path / "league.db")  # a league's database is left alone


def test_pages_with_a_game_in_play_reload_themselves(tmp_path: Path) -> None:
    from league.ladder_web import REFRESH, render_game, render_index

    store = LadderStore(tmp_path / "ladder.db")
    try:
        game = store.start_game(1, 0, 1, "t1", 5, ["heur", "rand"])
        meta = f'<meta http-equiv="refresh" content="{REFRESH}">'
        assert meta in render_index(store.db).decode()
        assert meta in render_game(store.db, game).decode()
        store.abort_game(game, "stopped")
        assert meta not in render_index(store.db).decode()
    finally:
        store.close()

async def test_a_six_seat_ladder_plays_a_duplicate_set_and_refuses_older_bots(
        tmp_path: Path) -> None:
    """A ladder of 6-seat tables (R-56): six bots are matched into one table,
    play a duplicate set of six rotations on the 30-hex board and are rated
    from the 6-seat results; a bot that said hello with 1.3 is refused
    (version_too_old), as such a table would be beyond it."""
    d = await _start(tmp_path, players=6, grace=0.3, clock=Clock(60_000, 1_000, 3))
    try:
        port = d.server.port
        names = [f"b{i}" for i in range(6)]
        keys = {n: await _register(port, n, f"127.0.0.{i + 2}")  # six owners (item 11)
                for i, n in enumerate(names)}
        reader, writer = await asyncio.open_connection("127.0.0.1", port)
        old = BotClient(RandomBot(0), reader, writer, "old")
        old.send({"type": "hello", "version": "1.3", "role": "bot", "name": "old"})
        assert (await asyncio.wait_for(old.recv(), 5))["type"] == "welcome"
        old.send({"type": "ladder_ready", "name": "b0", "key": keys["b0"], "games": 6})
        err = await _error(old)
        assert err["code"] == "version_too_old" and "1.4" in err["message"]
        writer.close()
        outs = await asyncio.wait_for(asyncio.gather(*(
            run_ladder((lambda i=i: HeuristicBot(i) if i % 2 else RandomBot(i)), "127.0.0.1",
                       port, name=n, key=keys[n], games=6)
            for i, n in enumerate(names))), 4 * TIMEOUT)
        assert all(len(o.games) == 6 and all(g.finished for g in o.games) for o in outs)
        rows = _rows(d.db)
        assert len(rows) == 6 and all(r["status"] == "ok" for r in rows)
        assert len({r["match"] for r in rows}) == 1 and rows[0]["rotations"] == 6
        assert len({r["seed"] for r in rows}) == 1
        seatings = [json.loads(r["seats"]) for r in rows]
        assert all(len(s) == 6 for s in seatings)
        for seat in range(6):  # each bot in each seat once
            assert len({s[seat] for s in seatings}) == 6
        table = await standings("127.0.0.1", port)
        assert table["games"] == 6
        assert all(e["games"] == 6 for e in table["entries"])
    finally:
        await asyncio.wait_for(d.server.close(), 15)
