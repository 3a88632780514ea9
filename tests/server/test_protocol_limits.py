"""docs/PROTOCOL.md states no behaviour the server does not have: every
connection error code of section 9.1 and every documented limit, driven over
real loopback TCP against the real server (long timeouts made short through
the server's module constants and ``Limits``).

``DRIVEN`` names, for every code of ``ERROR_CODES``, the test below that
makes the server send it; a test checks that it covers them all. The
outbound queue of a client that never reads (512 frames) is driven by
``test_limits.test_a_client_that_never_reads_is_dropped_without_slowing_the_table``.
"""

from __future__ import annotations

import asyncio
import contextlib
import struct
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import msgpack
import pytest

from protocol.rules import MAX_OFFERS, Phase
from protocol.wire import ERROR_CODES, MAX_CLIENT_FRAME, VERSION_STRING, encode_frame
from protocol.wire.messages import MAX_CHAT, MAX_NAME
from server.app import Limits, Server

from .conftest import (
    TIMEOUT,
    Connect,
    RawClient,
    play_bot_game,
    raw_table,
    start_bot_game,
    until,
)

DRIVEN: dict[str, str] = {
    "bad_frame": "test_framing_errors_close",
    "too_large": "test_the_client_frame_limit_is_exact",
    "bad_msgpack": "test_framing_errors_close",
    "bad_message": "test_framing_errors_close",
    "unexpected_message": "test_out_of_phase_messages",
    "version_unsupported": "test_versions",
    "bad_resume": "test_versions",
    "handshake_timeout": "test_the_handshake_deadline",
    "idle_timeout": "test_the_server_pings_then_closes_a_silent_client",
    "rate_limited": "test_the_rate_limit",
    "no_such_table": "test_lobby_refusals",
    "seat_taken": "test_lobby_refusals",
    "table_full": "test_lobby_refusals",
    "not_seated": "test_results_of_actions_without_a_game",
    "not_creator": "test_lobby_refusals",
    "table_closed": "test_a_waiting_table_closes_for_the_bots_left",
    "bad_settings": "test_lobby_refusals",
    "game_not_started": "test_results_of_actions_without_a_game",
    "server_shutdown": "test_shutdown_and_replaced",
    "replaced": "test_shutdown_and_replaced",
    "too_many_connections": "test_connections_per_address",
    "too_many_tables": "test_open_tables_are_counted_not_tables_made",
    "too_many_bots": "test_bot_processes_are_capped",
    "too_many_spectators": "test_spectators_are_capped",
    "frame_timeout": "test_a_started_frame_must_end_in_time",
    "storage_unavailable": "test_a_full_database_refuses_actions",
    "acted_for_you": "test_the_turn_timer_plays_set_up_and_hands_the_seat_to_a_stand_in",
    "internal_error": "test_internal_errors_are_contained",
    "forfeited": "test_a_chess_clock_forfeit",
    "no_ladder": "test_ladder_codes",
    "bad_key": "test_ladder_codes",
    "name_taken": "test_ladder_codes",
    "ladder_busy": "test_ladder_codes",
    "banned": "test_the_hosts_codes",
    "kicked": "test_the_hosts_codes",
    "closed_by_host": "test_the_hosts_codes",
    "announcement": "test_the_hosts_codes",
    "draining": "test_the_hosts_codes",
    "version_too_old": "test_an_older_client_and_a_six_player_table",
}


def test_every_connection_error_code_is_driven_here() -> None:
    assert set(DRIVEN) == set(ERROR_CODES)
    for name in DRIVEN.values():
        assert callable(globals().get(name)), name


# -- helpers ------------------------------------------------------------------------


@contextlib.asynccontextmanager
async def running(**kw: Any) -> AsyncIterator[Server]:
    """A server of its own (limits, a database, an extension)."""
    srv = Server("127.0.0.1", 0, **{"spawn_bots": False, **kw})
    await srv.start()
    try:
        yield srv
    finally:
        await asyncio.wait_for(srv.close(), 15.0)


async def dial(srv: Server, name: str = "raw", role: str | None = "player") -> RawClient:
    reader, writer = await asyncio.wait_for(
        asyncio.open_connection("127.0.0.1", srv.port), TIMEOUT)
    c = RawClient(reader, writer, name)
    if role is not None:
        await c.hello(role)
    return c


async def error_then_close(c: RawClient, code: str) -> dict[str, Any]:
    msgs = await c.closed()
    errors = [m for m in msgs if m["type"] == "error"]
    assert errors and errors[-1]["code"] == code, msgs
    return errors[-1]


async def still_open(c: RawClient) -> None:
    await c.send({"type": "ping", "nonce": 99})
    assert (await c.recv_type("pong"))["nonce"] == 99


def frame(body: bytes) -> bytes:
    return struct.pack(">I", len(body)) + body


def token(c: RawClient) -> str:
    return next(m for m in c.received if m["type"] == "welcome")["resume_token"]


# -- framing, handshake, keep-alive ---------------------------------------------------


@pytest.mark.parametrize(("data", "code"), [
    (b"\x00\x00\x00\x00", "bad_frame"),
    (frame(b"\xc1"), "bad_msgpack"),
    (frame(msgpack.packb({"type": "ping", "x": b"\x00"})), "bad_msgpack"),
    (frame(msgpack.packb([1, 2])), "bad_message"),
    (frame(msgpack.packb({"type": "no_such_message"})), "bad_message"),
    (encode_frame({"type": "chat", "text": "x" * (MAX_CHAT + 1)}), "bad_message"),
])
async def test_framing_errors_close(connect: Connect, data: bytes, code: str) -> None:
    c = await connect()
    await c.send_raw(data)
    await error_then_close(c, code)


def _padded_ping(size: int) -> bytes:
    """A ping frame whose body is exactly ``size`` bytes (unknown fields pad it)."""
    msg: dict[str, Any] = {"type": "ping", "nonce": 1}
    k = 0
    while len(msgpack.packb(msg)) < size - 4200:
        msg[f"p{k}"] = "x" * 4000
        k += 1
    pad = size - len(msgpack.packb({**msg, "z": ""}))
    for _ in range(8):  # the string header grows with the string
        body = msgpack.packb({**msg, "z": "x" * pad})
        pad += size - len(body)
    body = msgpack.packb({**msg, "z": "x" * pad})
    assert len(body) == size
    return frame(body)


async def test_the_client_frame_limit_is_exact(connect: Connect) -> None:
    c = await connect()
    await c.send_raw(_padded_ping(MAX_CLIENT_FRAME))
    assert (await c.recv_type("pong"))["nonce"] == 1
    await c.send_raw(_padded_ping(MAX_CLIENT_FRAME + 1)[:4])  # the header alone is refused
    err = await error_then_close(c, "too_large")
    assert str(MAX_CLIENT_FRAME) in err["message"]


async def test_versions(connect: Connect) -> None:
    for version in ("2.0", "².0", "1.0.1"):
        c = await connect(hello=False)
        await c.send({"type": "hello", "version": version, "role": "bot", "name": "b"})
        await error_then_close(c, "version_unsupported")
    c = await connect(hello=False)
    await c.send({"type": "hello", "version": "1.3", "role": "bot", "name": "b",
                  "resume": "-_forged-token_-"})
    welcome = await c.recv()
    assert welcome["type"] == "welcome" and welcome["version"] == VERSION_STRING
    assert (await c.recv())["code"] == "bad_resume"
    await still_open(c)
    # Tokens and keys are URL-safe base64 (may hold - and _), 32 and 22 characters.
    alphabet = set("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_")
    assert len(welcome["resume_token"]) == 32 and set(welcome["resume_token"]) <= alphabet
    assert len(welcome["session"]) == 16 and set(welcome["session"]) <= set("0123456789abcdef")


async def test_the_handshake_deadline(connect: Connect, monkeypatch: pytest.MonkeyPatch
                                      ) -> None:
    monkeypatch.setattr("server.session.HANDSHAKE_DEADLINE", 0.3)
    c = await connect(hello=False)
    await error_then_close(c, "handshake_timeout")


async def test_the_server_pings_then_closes_a_silent_client(
        connect: Connect, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr("server.session.IDLE_PING", 0.1)
    monkeypatch.setattr("server.session.IDLE_TIMEOUT", 0.35)
    c = await connect()
    ping = await c.recv_type("ping", timeout=2.0)
    assert isinstance(ping["nonce"], int)
    await error_then_close(c, "idle_timeout")


async def test_the_rate_limit(connect: Connect, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr("server.session.RATE", 50.0)
    monkeypatch.setattr("server.session.BURST", 100.0)
    c = await connect()
    await c.send_raw(encode_frame({"type": "ping", "nonce": 1}) * 150)
    await error_then_close(c, "rate_limited")


async def test_a_started_frame_must_end_in_time(connect: Connect,
                                                monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr("server.session.FRAME_DEADLINE", 0.3)
    c = await connect()
    await c.send_raw(encode_frame({"type": "ping", "nonce": 2})[:7])
    await error_then_close(c, "frame_timeout")


async def test_connections_per_address(server: Server, connect: Connect) -> None:
    server.limits = Limits(connections_per_address=2)
    await connect("a")
    await connect("b")
    c = await connect("c", hello=False)
    await error_then_close(c, "too_many_connections")


# -- phases ---------------------------------------------------------------------------


async def test_out_of_phase_messages(connect: Connect) -> None:
    c = await connect(hello=False)
    await c.send({"type": "list_tables"})
    await error_then_close(c, "unexpected_message")  # before the hello: closes
    c = await connect()
    await c.send({"type": "chat", "text": "hello lobby"})  # chat in the lobby
    err = await c.recv()
    assert err["type"] == "error" and err["code"] == "unexpected_message"
    await c.send({"type": "action", "seq": 1, "action": {"type": "end_turn"}})
    res = await c.recv()
    assert res["type"] == "result" and res["code"] == "unexpected_message"
    assert "version" not in res
    await still_open(c)


async def test_results_of_actions_without_a_game(server: Server, connect: Connect) -> None:
    creator = await connect("creator")
    await creator.send({"type": "create_table", "settings": {"players": 3}})
    tid = (await creator.recv_type("joined"))["table"]
    await creator.send({"type": "action", "seq": 4, "action": {"type": "roll_dice"}})
    res = await creator.recv_type("result")
    assert (res["code"], res["seq"], res["version"]) == ("game_not_started", 4, 0)
    assert server.tables[tid].seats[0].last_seq == 4  # used up
    res = await creator.act({"type": "roll_dice"}, seq=4)
    assert res == {**res, "code": "game_not_started"}  # the remembered answer
    fan = await connect("fan")
    await fan.send({"type": "spectate", "table": tid})
    await fan.recv_type("joined")
    await fan.send({"type": "action", "seq": 1, "action": {"type": "roll_dice"}})
    assert (await fan.recv_type("result"))["code"] == "not_seated"
    # A seat that has not acted: a negative seq is stale, with words that say why.
    table = await raw_table(server, connect, players=3)
    actor = table.actor()
    stale = await actor.act({"type": "end_turn"}, seq=-1)
    assert stale["code"] == "stale_seq" and "start at 0" in stale["message"]


async def test_lobby_refusals(server: Server, connect: Connect) -> None:
    c = await connect("ann")
    for create in ({"settings": {"players": 7}}, {"settings": {"vp_target": 2}},
                   {"settings": {"players": 3}, "bots": ["random"] * 3},
                   {"settings": {"players": 3}, "bots": ["clever"]},
                   {"settings": {"players": 3}, "turn_timer": 3601},
                   {"settings": {"clock_timeouts": 0}}):
        await c.send({"type": "create_table", **create})
        assert (await c.recv_type("error"))["code"] == "bad_settings", create
    await c.send({"type": "join", "table": "ffffffff"})
    assert (await c.recv_type("error"))["code"] == "no_such_table"
    await c.send({"type": "spectate", "table": "ffffffff"})
    assert (await c.recv_type("error"))["code"] == "no_such_table"
    await c.send({"type": "create_table", "settings": {"players": 2}})
    tid = (await c.recv_type("joined"))["table"]
    bob = await connect("bob")
    await bob.send({"type": "join", "table": tid, "seat": 0})
    assert (await bob.recv_type("error"))["code"] == "seat_taken"
    await bob.send({"type": "join", "table": tid, "seat": 7})
    assert (await bob.recv_type("error"))["code"] == "seat_taken"
    fan = await connect("fan")
    await fan.send({"type": "spectate", "table": tid})
    await fan.recv_type("joined")
    await fan.send({"type": "start"})
    assert (await fan.recv_type("error"))["code"] == "not_creator"
    await bob.send({"type": "join", "table": tid})
    await bob.recv_type("joined")
    late = await connect("late")
    await late.send({"type": "join", "table": tid})
    assert (await late.recv_type("error"))["code"] == "table_full"
    # more than six bot kinds (the most seats, 1.4) is not a valid message at all
    await late.send({"type": "create_table", "settings": {}, "bots": ["random"] * 7})
    await error_then_close(late, "bad_message")


async def test_names_and_chat_lengths(server: Server, connect: Connect) -> None:
    c = await connect(hello=False)
    await c.send({"type": "hello", "version": "1.3", "role": "player", "name": "n" * MAX_NAME})
    assert (await c.recv())["type"] == "welcome"
    await c.send({"type": "create_table", "settings": {"players": 3}, "name": "\x1b\x07"})
    tid = (await c.recv_type("joined"))["table"]
    assert server.tables[tid].name.startswith("table ")
    await c.send({"type": "chat", "text": "y" * MAX_CHAT})
    said = await c.recv_type("chat")
    assert said["text"] == "y" * MAX_CHAT and said["seat"] == 0
    for name in ("n" * (MAX_NAME + 1), "\x00\x1b"):
        bad = await connect(hello=False)
        await bad.send({"type": "hello", "version": "1.3", "role": "player", "name": name})
        await error_then_close(bad, "bad_message")
    bad = await connect()
    await bad.send({"type": "create_table", "settings": {}, "name": "t" * (MAX_NAME + 1)})
    await error_then_close(bad, "bad_message")


# -- tables ---------------------------------------------------------------------------


async def test_one_table_message_per_change(server: Server, connect: Connect) -> None:
    creator = await connect("creator")
    await creator.send({"type": "create_table", "settings": {"players": 4},
                        "bots": ["greedy", "random"]})
    joined = await creator.recv()
    assert joined["type"] == "joined" and joined["seat"] == 0
    first = await creator.recv()
    assert first["type"] == "table" and first["can_start"] is True
    assert [(s["kind"], s["name"], s["auto"]) for s in first["seats"]] == [
        ("human", "creator", False), ("empty", None, False),
        ("bot", first["seats"][2]["name"], False), ("bot", first["seats"][3]["name"], False)]
    tid = joined["table"]
    table = server.tables[tid]
    assert [s.bot_kind for s in table.seats] == [None, None, "random", "greedy"]  # last first
    assert await creator.quiet(0.3) == []  # one table message for the one change
    bob = await connect("bob")
    await bob.send({"type": "join", "table": tid})
    await bob.recv_type("joined")
    got = await creator.quiet(0.3)
    assert [m["type"] for m in got] == ["table"]
    listed = await connect("lister")
    await listed.send({"type": "list_tables"})
    summary = (await listed.recv_type("tables"))["tables"][0]
    assert set(summary["seats"][0]) >= {"name", "kind", "connected", "auto"}


async def test_open_tables_are_counted_not_tables_made(monkeypatch: pytest.MonkeyPatch
                                                       ) -> None:
    async with running(limits=Limits(tables=3, tables_per_address=2)) as srv:
        c = await dial(srv, "maker")
        # A connection makes any number of tables one after the other.
        for _ in range(6):
            await c.send({"type": "create_table", "settings": {"players": 3}})
            await c.recv_type("joined")
            await c.send({"type": "leave"})  # nobody left at it: it closes
            await c.recv_type("left")
        # Two open tables from this address (their creators stay at them)...
        for name in ("one", "two"):
            maker = await dial(srv, name)
            await maker.send({"type": "create_table", "settings": {"players": 3}})
            await maker.recv_type("joined")
        await c.send({"type": "create_table", "settings": {"players": 3}})
        err = await c.recv_type("error")
        assert err["code"] == "too_many_tables" and "one address" in err["message"]
        # ...and the cap in all, which tables made from another address count for
        next(iter(srv.tables.values())).creator_address = "192.0.2.1"
        await c.send({"type": "create_table", "settings": {"players": 3}})
        await c.recv_type("joined")
        third = await dial(srv, "third")
        await third.send({"type": "create_table", "settings": {"players": 3}})
        err = await third.recv_type("error")
        assert err["code"] == "too_many_tables" and "the server has 3" in err["message"]
    # A finished table does not count: one game after another from one address.
    async with running(limits=Limits(tables_per_address=1)) as srv:
        for seed in (1, 2):
            game = await start_bot_game(srv, {"players": 2, "vp_target": 3}, ["greedy"] * 2,
                                        seed)
            await play_bot_game(game)
            assert srv.tables[game.table].status == "finished"


async def test_the_listing_pages_and_the_finished_retention(
        server: Server, connect: Connect, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr("server.app.MAX_PAGE", 2)
    monkeypatch.setattr("server.app.FINISHED_TTL", 2.0)
    for k in range(3):
        maker = await connect(f"maker{k}")
        await maker.send({"type": "create_table", "settings": {"players": 3}})
        await maker.recv_type("joined")
    c = await connect("lister")
    for ask, first, count in (({}, 0, 2), ({"offset": 2}, 2, 1), ({"offset": -5}, 0, 2),
                              ({"offset": 9}, 9, 0), ({"limit": 1}, 0, 1),
                              ({"limit": 500}, 0, 2)):
        await c.send({"type": "list_tables", **ask})
        page = await c.recv_type("tables")
        assert (page["total"], page["offset"], len(page["tables"])) == (3, first, count), ask
    # A finished game: resumed into and watched with its final view and game_over,
    # listed for FINISHED_TTL, then gone.
    game = await start_bot_game(server, {"players": 2, "vp_target": 3}, ["greedy"] * 2, 3)
    await play_bot_game(game)
    table = server.tables[game.table]
    assert table.status == "finished"
    away = game.clients[0]
    assert away.resume_token is not None
    back = await connect("back", hello=False)
    await back.send({"type": "hello", "version": "1.3", "role": "bot", "name": "back",
                     "resume": away.resume_token})
    end = await back.recv_type("game_over")
    kinds = [m["type"] for m in back.received if m["type"] != "events"]
    assert kinds == ["welcome", "joined", "table", "game_started", "view", "legal",
                     "game_over"], kinds
    # the game's history (no seen: every batch) comes before the final view
    history = [m["version"] for m in back.received if m["type"] == "events"]
    assert history == list(range(1, table.version + 1))
    view = next(m for m in back.received if m["type"] == "view")
    assert view["view"]["phase"] == "game_over" and view["view"]["final_scores"] == end["scores"]
    assert next(m for m in back.received if m["type"] == "legal")["actions"] == []
    assert end["winner"] == game.outcomes[0].winner
    fan = await connect("fan")
    await fan.send({"type": "spectate", "table": game.table})
    assert (await fan.recv_type("game_over")) == end
    assert [m["type"] for m in fan.received if m["type"] != "events"][-3:] == [
        "game_started", "view", "game_over"]
    await until(lambda: game.table not in server.tables)
    gone = await connect("gone", hello=False)
    await gone.send({"type": "hello", "version": "1.3", "role": "bot", "name": "gone",
                     "resume": away.resume_token})
    await gone.recv_type("welcome")
    assert (await gone.recv())["code"] == "bad_resume"


async def test_a_waiting_table_closes_for_the_bots_left(server: Server,
                                                        connect: Connect) -> None:
    creator = await connect("creator")
    await creator.send({"type": "create_table", "settings": {"players": 3}})
    tid = (await creator.recv_type("joined"))["table"]
    bot = await connect("bot", role="bot")
    await bot.send({"type": "join", "table": tid})
    await bot.recv_type("joined")
    await creator.send({"type": "leave"})
    assert (await bot.recv_type("error"))["code"] == "table_closed"
    assert (await bot.recv())["type"] == "left"


async def test_spectators_are_capped(connect: Connect) -> None:
    async with running(limits=Limits(spectators_per_table=1, spectators_per_address=5)) as srv:
        c = await dial(srv, "maker")
        await c.send({"type": "create_table", "settings": {"players": 3}, "seat": False})
        tid = (await c.recv_type("joined"))["table"]
        fan = await dial(srv, "fan")
        await fan.send({"type": "spectate", "table": tid})
        err = await fan.recv_type("error")
        assert err["code"] == "too_many_spectators" and "1 spectators" in err["message"]


async def test_bot_processes_are_capped() -> None:
    async with running(spawn_bots=True, limits=Limits(bots=1, bots_per_address=1)) as srv:
        c = await dial(srv, "maker")
        await c.send({"type": "create_table", "settings": {"players": 3},
                      "bots": ["random", "random"]})
        assert (await c.recv_type("error"))["code"] == "too_many_bots"
        await c.send({"type": "create_table", "settings": {"players": 3}})
        await c.recv_type("joined")
        await c.send({"type": "start"})  # two empty seats: two random bots
        assert (await c.recv_type("error"))["code"] == "too_many_bots"
        assert srv.bot_processes == []


# -- the game -------------------------------------------------------------------------


def _main_phase(table: Any) -> int:
    """Jump the server's game to the current player's main phase with cards."""
    game = table.game()
    game.phase = Phase.MAIN
    game.rolled = True
    cur: int = game.current
    for seat in range(len(game.hands)):
        game.hands[seat] = [4, 4, 4, 4, 4]
        for r in range(5):
            game.bank[r] -= 4
    return cur


async def test_offers_per_turn_and_the_offerers_early_legal(server: Server,
                                                            connect: Connect) -> None:
    table = await raw_table(server, connect, players=3)
    cur = _main_phase(table)
    offerer = table.clients[cur]
    a, b = (table.clients[(cur + k) % 3] for k in (1, 2))
    offer = {"type": "offer_trade", "give": [1, 0, 0, 0, 0], "get": [0, 1, 0, 0, 0],
             "to": None}
    v = table.version
    res = await offerer.act(offer)
    assert res == {"type": "result", "seq": offerer.seq, "ok": True, "version": v + 1}
    # Nobody answered: the offerer owes nothing and gets no legal list.
    await a.recv_until(lambda m: m["type"] == "legal" and m["version"] == v + 1)
    assert (await a.act({"type": "accept_trade"}))["version"] == v + 2
    early = await offerer.recv_until(lambda m: m["type"] == "legal" and m["version"] == v + 2)
    assert early["actions"] == [{"type": "confirm_trade", "seat": a.seat},
                                {"type": "cancel_trade"}]
    assert "timer_ms" not in early
    assert offerer.views[v + 2]["to_act"] == [b.seat]  # not owed yet
    assert (await offerer.act({"type": "confirm_trade", "seat": a.seat}))["ok"] is True
    # Ten offers a turn; the eleventh is refused, and the view counts them.
    for _ in range(MAX_OFFERS - 1):
        assert (await offerer.act(offer))["ok"] is True
        assert (await offerer.act({"type": "cancel_trade"}))["ok"] is True  # before answers
    last = await offerer.act(offer)
    assert last["code"] == "offer_limit" and last["version"] == table.version
    assert offerer.views[table.version]["seats"][cur]["offers_made"] == MAX_OFFERS
    assert (await offerer.act({"type": "maritime_trade", "give": 1, "get": 4}))["ok"] is True


async def test_a_one_dot_two_offerer_gets_no_early_legal(server: Server,
                                                         connect: Connect) -> None:
    table = await raw_table(server, connect, players=3)
    cur = _main_phase(table)
    old = await connect("old", hello=False)
    await old.send({"type": "hello", "version": "1.2", "role": "player", "name": "old",
                    "resume": token(table.clients[cur])})
    await old.recv_type("legal")
    v = table.version
    await old.act({"type": "offer_trade", "give": [1, 0, 0, 0, 0], "get": [0, 1, 0, 0, 0],
                   "to": None})
    a = table.clients[(cur + 1) % 3]
    await a.recv_until(lambda m: m["type"] == "legal" and m["version"] == v + 1)
    await a.act({"type": "accept_trade"})
    await old.recv_until(lambda m: m["type"] == "events" and m["version"] == v + 2)
    assert not [m for m in await old.quiet(0.2) if m["type"] == "legal"]
    assert (await old.act({"type": "cancel_trade"}))["ok"] is True  # accepted all the same


async def test_the_turn_timer_plays_set_up_and_hands_the_seat_to_a_stand_in(
        server: Server, connect: Connect, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr("server.table.STAND_IN_PACE", 0.01)
    creator = await connect("seat0")
    await creator.send({"type": "create_table", "settings": {"players": 3}})
    tid = (await creator.recv_type("joined"))["table"]
    srv_table = server.tables[tid]
    srv_table.turn_timer = 0.05  # fractions of a second for the test (the wire takes ints)
    clients = [creator]
    for i in (1, 2):
        c = await connect(f"seat{i}")
        await c.send({"type": "join", "table": tid})
        await c.recv_type("joined")
        clients.append(c)
    await until(lambda: srv_table.game is not None)
    assert srv_table.game is not None
    first = clients[srv_table.game.first_seat]
    told = await first.recv_type("error")
    assert told["code"] == "acted_for_you" and "build_settlement" in told["message"]
    seat = first.seat
    assert seat is not None
    legal = next(m for m in first.received if m["type"] == "legal")
    assert 0 < legal["timer_ms"] <= 50
    await until(lambda: srv_table.seats[seat].auto)
    auto = await first.recv_until(lambda m: m["type"] == "table"
                                  and m["seats"][seat]["auto"] is True)
    assert auto["status"] == "playing"
    # The stand-in's actions use no seq: the seat's numbering is untouched.
    assert srv_table.seats[seat].last_seq == -1


async def test_acting_again_takes_a_timed_out_seat_back(server: Server,
                                                        connect: Connect) -> None:
    table = await raw_table(server, connect, players=3)
    srv_table = server.tables[table.id]
    cur = _main_phase(table)
    me = table.clients[cur]
    srv_table.seats[cur].auto = True  # as after three timeouts, with a slow stand-in
    srv_table.stand_in_pace = 30.0
    res = await me.act({"type": "maritime_trade", "give": 0, "get": 4})
    assert res["ok"] is True
    back = [m for m in me.received if m["type"] == "table"][-1]  # before the result
    assert back["seats"][cur]["auto"] is False and not srv_table.seats[cur].auto


async def test_shutdown_and_replaced() -> None:
    srv = Server("127.0.0.1", 0, spawn_bots=False)
    await srv.start()
    try:
        table = await raw_table(srv, lambda name="raw", **kw: dial(srv, name), players=3)
        first = table.clients[0]
        again = await dial(srv, "again", role=None)
        await again.send({"type": "hello", "version": "1.3", "role": "player",
                          "name": "again", "resume": token(first)})
        await again.recv_type("joined")
        await error_then_close(first, "replaced")
        watcher = await dial(srv, "watcher")
    finally:
        await asyncio.wait_for(srv.close(), 15.0)
    msgs = await watcher.closed()
    assert [m["type"] for m in msgs][-2:] == ["error", "bye"]
    assert msgs[-2]["code"] == "server_shutdown"


async def test_internal_errors_are_contained(server: Server, connect: Connect,
                                             monkeypatch: pytest.MonkeyPatch) -> None:
    table = await raw_table(server, connect, players=3)
    actor = table.actor()
    legal = await table.legal_for(actor)

    def broken(*args: Any, **kw: Any) -> Any:
        raise RuntimeError("a bug")

    monkeypatch.setattr("server.table.apply", broken)
    res = await actor.act(legal[0])
    assert res["code"] == "internal_error" and table.version == 0

    class Failing:
        messages = frozenset({"ladder_standings"})

        def attach(self, server: Server) -> None: ...

        def handle(self, sess: Any, msg: dict[str, Any]) -> None:
            raise RuntimeError("an extension bug")

        def forget(self, sess: Any) -> None: ...

        async def close(self) -> None: ...

    async with running(extension=Failing()) as srv:
        c = await dial(srv)
        await c.send({"type": "ladder_standings"})
        assert (await c.recv_type("error"))["code"] == "internal_error"
        await still_open(c)


async def test_a_chess_clock_forfeit(server: Server, connect: Connect) -> None:
    table = await raw_table(server, connect, players=2,
                            settings={"clock_ms": 100, "clock_timeouts": 1})
    actor = table.actor()
    told = await actor.recv_until(lambda m: m["type"] == "error" and m["code"] == "forfeited")
    assert "forfeited" in told["message"]
    res = await actor.act({"type": "end_turn"})
    assert res["code"] == "forfeited"


async def test_a_full_database_refuses_actions(tmp_path: Path) -> None:
    async with running(db=tmp_path / "k.db") as srv:
        table = await raw_table(srv, lambda name="raw", **kw: dial(srv, name), players=3)
        assert srv.storage is not None
        (pages,) = srv.storage.db.execute("PRAGMA page_count").fetchone()
        srv.storage.db.execute(f"PRAGMA max_page_count = {pages}")
        refused: dict[str, Any] | None = None
        for _ in range(500):
            actor = table.actor()
            legal = await table.legal_for(actor)
            res = await actor.act(legal[-1] if legal[-1]["type"] != "end_turn" else legal[0])
            if not res["ok"]:
                refused = res
                break
        assert refused is not None and refused["code"] == "storage_unavailable"
        for c in table.clients:  # every member is told (the actor before its result)
            if not any(m["type"] == "error" for m in c.received):
                await c.recv_type("error")
            told = next(m for m in c.received if m["type"] == "error")
            assert told["code"] == "storage_unavailable"
        srv.storage.db.execute("PRAGMA max_page_count = 1073741823")


async def test_ladder_codes(tmp_path: Path, server: Server, connect: Connect) -> None:
    plain = await connect()
    await plain.send({"type": "ladder_register", "name": "x"})
    assert (await plain.recv_type("error"))["code"] == "no_ladder"
    from league.ladder import Ladder, LadderConfig

    ladder = Ladder(tmp_path / "ladder.db", LadderConfig(players=2, seed=5))
    async with running(extension=ladder) as srv:
        c = await dial(srv, "author", role="bot")
        await c.send({"type": "ladder_register", "name": "solo"})
        key = (await c.recv_type("ladder_registered"))["key"]
        await c.send({"type": "ladder_register", "name": "SOLO"})
        assert (await c.recv_type("error"))["code"] == "name_taken"
        await c.send({"type": "ladder_ready", "name": "solo", "key": key[:-1] + "?",
                      "games": 1})
        assert (await c.recv_type("error"))["code"] == "bad_key"
        await c.send({"type": "ladder_ready", "name": "solo", "key": key, "games": 1})
        await c.recv_type("ladder_queued")
        twin = await dial(srv, "twin", role="bot")
        await twin.send({"type": "ladder_ready", "name": "solo", "key": key, "games": 1})
        assert (await twin.recv_type("error"))["code"] == "ladder_busy"


async def test_the_hosts_codes() -> None:
    """What the host's commands (kaitaku admin) send: a banned name at its hello,
    a kick, a table closed and an announcement to a 1.3 client, a drain."""
    async with running() as srv:
        srv.ban("name", "Pest", "spam")
        pest = await dial(srv, "pest", role=None)
        await pest.send({"type": "hello", "version": VERSION_STRING, "role": "player",
                         "name": "pest"})
        assert (await error_then_close(pest, "banned"))["message"].endswith("spam")
        old = await dial(srv, "old", role=None)
        await old.send({"type": "hello", "version": "1.3", "role": "player", "name": "old"})
        await old.recv_type("welcome")
        srv.announce("restart soon")
        err = await old.recv_type("error")
        assert (err["code"], err["message"]) == ("announcement", "restart soon")
        await old.send({"type": "create_table", "settings": {"players": 3}})
        tid = (await old.recv_type("joined"))["table"]
        srv.close_by_host(tid, "closing time")
        err = await old.recv_type("error")
        assert err["code"] == "closed_by_host" and "closing time" in err["message"]
        await old.recv_type("left")
        srv.drain(None)
        await old.send({"type": "create_table", "settings": {"players": 3}})
        assert (await old.recv_type("error"))["code"] == "draining"
        assert old.table is None
        srv.kick("old", "")
        msgs = await old.closed()
        assert [m.get("code") for m in msgs if m["type"] == "error"] == ["kicked"]


async def test_an_older_client_and_a_six_player_table(server: Server, connect: Connect) -> None:
    """1.4: a client older than 1.4 cannot create, join or watch a 5–6 player
    table (version_too_old), and stays in the lobby (tests/server/test_five_six.py
    has the listing)."""
    host = await connect("host")
    await host.send({"type": "create_table", "settings": {"players": 6}})
    tid = (await host.recv_type("joined"))["table"]
    old = await connect("old", hello=False)
    await old.send({"type": "hello", "version": "1.3", "role": "player", "name": "old"})
    assert (await old.recv())["type"] == "welcome"
    for msg in ({"type": "create_table", "settings": {"players": 6}},
                {"type": "join", "table": tid}, {"type": "spectate", "table": tid}):
        await old.send(msg)
        assert (await old.recv_type("error"))["code"] == "version_too_old"
    await old.send({"type": "list_tables"})
    assert (await old.recv_type("tables"))["tables"] == []
