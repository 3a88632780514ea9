"""Tables of five and six (R-56, protocol 1.4) over real loopback TCP: whole
games, a server restart in the middle of one, the special building phase with
turn timers and stand-ins, spectators and history, and clients older than 1.4,
which never meet such a table."""

from __future__ import annotations

import asyncio
import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from bots import HeuristicBot, RandomBot
from bots.client import BotClient
from protocol.rules import (
    GameLog,
    Phase,
    Settings,
    action_from_dict,
    apply,
    new_game,
    replay,
)
from server.app import Server

from .conftest import Connect, RawClient, assert_finished, run_bot_game, until


@pytest.mark.parametrize("players", [5, 6])
async def test_a_large_game_to_a_winner(server: Server, players: int) -> None:
    kinds = ["heuristic", "greedy", "random"] * 2
    game = await run_bot_game(server, {"players": players}, kinds[:players], seed=56)
    assert_finished(game, server)
    state = server.tables[game.table].game
    assert state is not None and state.info.geo.num_hexes == 30
    assert len(game.outcomes[0].scores or []) == players
    # Every seat saw the special building phase open (its event) and never lost sync.
    assert all(o.rejected == 0 for o in game.outcomes)


class _Client(BotClient):
    """A bot client that keeps every message it received; while ``hold()`` is
    true it receives but never acts again (it waits until cancelled)."""

    def __init__(self, *args: Any, hold: Callable[[], bool] | None = None, **kw: Any) -> None:
        super().__init__(*args, **kw)
        self.received: list[dict[str, Any]] = []
        self.hold = hold

    async def recv(self) -> dict[str, Any]:
        msg = await super().recv()
        self.received.append(msg)
        if self.hold is not None and self.hold():
            await asyncio.Event().wait()
        return msg


async def _six(port: int, resume: list[str] | None = None, table: str | None = None,
               hold: Callable[[], bool] | None = None) -> list[_Client]:
    clients = []
    for q in range(6):
        reader, writer = await asyncio.open_connection("127.0.0.1", port)
        bot = HeuristicBot(q) if q % 2 else RandomBot(q)
        c = _Client(bot, reader, writer, f"bot{q}", hold=hold)
        await asyncio.wait_for(c.handshake(resume[q] if resume else None), 10)
        clients.append(c)
    if resume is None:
        clients[0].send({"type": "create_table", "settings": {"players": 6}})
        while True:
            msg = await clients[0].recv()
            if msg["type"] == "joined":
                clients[0].outcome.seat = msg["seat"]
                table = msg["table"]
                break
        for c in clients[1:]:
            c.send({"type": "join", "table": table})
    return clients


async def test_a_six_player_game_survives_a_restart_in_a_special_building_phase(
        tmp_path: Path) -> None:
    """Six bots over TCP; the server shuts down while a seat is building in a
    special building phase, comes back from its database, the seats resume with
    their tokens, a spectator watches the rest with the game's history, and the
    game finishes; the stored log replays to the final state."""
    db = tmp_path / "k.db"
    srv = Server("127.0.0.1", 0, spawn_bots=False, db=db)
    await srv.start()

    def building() -> bool:
        """A special building phase after the opening: the seats stop acting."""
        return any(t.game is not None and t.version >= 60
                   and t.game.phase == Phase.SPECIAL_BUILD for t in srv.tables.values())

    clients = await _six(srv.port, hold=building)
    plays = [asyncio.ensure_future(c.play()) for c in clients]
    (table,) = srv.tables.values()
    await until(building, 60)
    await asyncio.sleep(0.3)  # anything still in flight reaches the table
    for p in plays:
        p.cancel()
    await asyncio.gather(*plays, return_exceptions=True)
    assert table.game is not None
    builder = table.game.current
    expected = table.game.to_dict(include_log=False)
    before = table.version
    tokens = [c.resume_token for c in clients]
    assert all(tokens)
    await srv.close()

    srv2 = Server("127.0.0.1", 0, spawn_bots=False, db=db)
    await srv2.start()
    try:
        restored = srv2.tables[table.id]
        assert restored.status == "playing" and restored.game is not None
        assert restored.version >= before
        if restored.version == before:  # nothing was in flight when it closed
            assert restored.game.to_dict(include_log=False) == expected
            assert restored.game.phase == Phase.SPECIAL_BUILD
            assert restored.game.current == builder
            assert restored.game.special_from == expected["special_from"]
        # A spectator (1.4) opens the table: it gets the history and public views.
        reader, writer = await asyncio.open_connection("127.0.0.1", srv2.port)
        spectator = RawClient(reader, writer, "watcher")
        await spectator.hello("spectator")
        await spectator.send({"type": "spectate", "table": table.id})
        joined = await spectator.recv_type("joined")
        assert joined["settings"]["players"] == 6
        history = await spectator.recv_until(lambda m: m["type"] == "events")
        assert history["version"] >= 1
        again = await _six(srv2.port, resume=tokens)
        outcomes = await asyncio.wait_for(asyncio.gather(*(c.play() for c in again)), 120)
        assert all(o.finished for o in outcomes)
        game = restored.game
        assert game.winner is not None and game.total_vp(game.winner) >= 10
        assert all(o.winner == game.winner for o in outcomes)
        over = await spectator.recv_until(lambda m: m["type"] == "game_over", 30)
        assert over["winner"] == game.winner and len(over["scores"]) == 6
        # The public view never shows a hand, in the special building phase too.
        views = [m["view"] for m in spectator.received if m["type"] == "view"]
        assert views and all(v["you"] is None for v in views)
        assert any("special_from" in v for v in views)
        await spectator.close()
        # The log in the database replays to the same final state.
        assert srv2.storage is not None
        rows = srv2.storage.db.execute(
            "SELECT COUNT(*) FROM actions WHERE table_id = ?", (table.id,)).fetchone()
        assert rows[0] == restored.version
        ((settings, seed),) = srv2.storage.db.execute(
            "SELECT settings, seed FROM tables WHERE id = ?", (table.id,))
        again_game = new_game(Settings.from_dict(json.loads(settings)), seed)
        for seat, action, outcome in srv2.storage.db.execute(
                "SELECT seat, action, outcome FROM actions WHERE table_id = ? ORDER BY version",
                (table.id,)):
            apply(again_game, action_from_dict(json.loads(action)), seat,
                  None if outcome is None else tuple(json.loads(outcome)))
        assert again_game.to_dict(include_log=False) == game.to_dict(include_log=False)
        events = [e for c in again for m in c.received if m["type"] == "events"
                  for e in m["events"]]
        assert any(e["type"] == "special_build_started" for e in events)
    finally:
        await srv2.close()


async def test_a_timeout_in_the_special_building_phase_passes(
        server: Server, connect: Connect, monkeypatch: pytest.MonkeyPatch) -> None:
    """A seat that never acts times out in every decision: in the special
    building phase its default action is end_turn (a pass); after three
    timeouts a stand-in plays it, and the game goes on to its end."""
    monkeypatch.setattr("server.table.STAND_IN_PACE", 0.002)
    creator = await connect("seat0")
    await creator.send({"type": "create_table", "settings": {"players": 5}})
    tid = (await creator.recv_type("joined"))["table"]
    table = server.tables[tid]
    table.seed = 11
    table.turn_timer = 0.05  # fractions of a second for the test (the wire takes ints)
    clients = [creator]
    for i in range(1, 5):
        c = await connect(f"seat{i}")
        await c.send({"type": "join", "table": tid})
        await c.recv_type("joined")
        clients.append(c)
    readers = [asyncio.ensure_future(c.recv_until(lambda m: m["type"] == "game_over", 120))
               for c in clients]
    await until(lambda: table.status == "finished", 120)
    await asyncio.gather(*readers)
    game = table.game
    assert game is not None and game.phase == Phase.GAME_OVER and game.winner is not None
    assert all(seat.auto for seat in table.seats)
    notes = [m["message"] for c in clients for m in c.received
             if m["type"] == "error" and m["code"] == "acted_for_you"]
    assert notes  # the first timeouts were told to their seats
    log = game.log
    assert log is not None
    passes = 0
    s = replay(GameLog.of(game), upto=0)
    for seat, action, outcome in log:
        if s.phase == Phase.SPECIAL_BUILD and action.name == "end_turn":
            passes += 1
        apply(s, action, seat, outcome)
    assert passes > 0  # timed-out and stand-in seats passed in the phase


async def test_a_1_3_client_never_meets_a_five_or_six_player_table(
        server: Server, connect: Connect) -> None:
    """Such tables are not listed to an older client, and creating, joining or
    watching one is refused with version_too_old; a 1.4 client sees them."""
    new = await connect("new")
    await new.send({"type": "create_table", "settings": {"players": 6}})
    tid = (await new.recv_type("joined"))["table"]
    await new.send({"type": "list_tables"})
    assert [t["id"] for t in (await new.recv_type("tables"))["tables"]] == [tid]

    old = await connect("old", hello=False)
    await old.send({"type": "hello", "version": "1.3", "role": "player", "name": "old"})
    assert (await old.recv())["type"] == "welcome"
    four = await connect("four")
    await four.send({"type": "create_table", "settings": {"players": 4}})
    four_id = (await four.recv_type("joined"))["table"]
    await old.send({"type": "list_tables"})
    listed = await old.recv_type("tables")
    assert [t["id"] for t in listed["tables"]] == [four_id]
    await old.send({"type": "list_tables", "offset": 0, "limit": 10})
    listed = await old.recv_type("tables")
    assert listed["total"] == 1 and [t["id"] for t in listed["tables"]] == [four_id]
    for msg in ({"type": "join", "table": tid}, {"type": "spectate", "table": tid},
                {"type": "create_table", "settings": {"players": 5}}):
        await old.send(msg)
        err = await old.recv_type("error")
        assert err["code"] == "version_too_old", err
        assert "1.4" in err["message"]
    assert len(server.tables[tid].spectators) == 0
    assert all(s.session is None for s in server.tables[tid].seats[1:])
    # Still in the lobby: the old client plays 4-player tables as before.
    await old.send({"type": "join", "table": four_id})
    joined = await old.recv_type("joined")
    assert joined["table"] == four_id and joined["settings"]["players"] == 4


async def test_a_six_player_seat_is_not_resumed_by_an_older_client(
        server: Server, connect: Connect) -> None:
    """A seat's resume token in the hands of a client that says hello with 1.3
    does not bring that client to the 5–6 player table."""
    new = await connect("new")
    await new.send({"type": "create_table", "settings": {"players": 5}})
    tid = (await new.recv_type("joined"))["table"]
    for i in range(1, 5):  # the table fills and its game starts
        c = await connect(f"seat{i}")
        await c.send({"type": "join", "table": tid})
        await c.recv_type("joined")
    await until(lambda: server.tables[tid].game is not None)
    token = next(m["resume_token"] for m in new.received if m["type"] == "welcome")
    await new.close()
    old = await connect("old", hello=False)
    await old.send({"type": "hello", "version": "1.3", "role": "player", "name": "old",
                    "resume": token})
    assert (await old.recv())["type"] == "welcome"
    err = await old.recv_type("error")
    assert err["code"] == "version_too_old"
    assert all(s.session is not old for s in server.tables[tid].seats)
