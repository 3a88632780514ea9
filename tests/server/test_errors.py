"""Protocol errors and rejected actions, each with its documented code.

Connection-level errors (bad frames, bad msgpack, a message the phase does not
allow, a refused hello, a silent client) are answered with one ``error`` frame
and the connection is closed. Table errors (unknown table, full table) leave
the connection open. Rejected actions are answered with ``result ok=false``
and the engine's code, and change nothing: the game goes on for everyone.
"""

from __future__ import annotations

import asyncio
import struct
import time
from typing import Any

import pytest

from protocol.wire import ERROR_CODES, MAX_FRAME, VERSION_STRING, encode_frame
from server.app import Server

from .conftest import (
    GAME_TIMEOUT,
    TIMEOUT,
    Connect,
    RawClient,
    RawTable,
    assert_finished,
    play_bot_game,
    raw_table,
    seat_dropped,
    start_bot_game,
)


async def expect_error_and_close(client: RawClient, code: str,
                                 timeout: float = TIMEOUT) -> list[dict[str, Any]]:
    """The server answers with exactly one ``error`` frame of ``code`` and closes."""
    assert code in ERROR_CODES
    rest = await client.closed(timeout)
    assert client.eof, "the server did not close the connection"
    errors = [m for m in rest if m["type"] == "error"]
    assert [e["code"] for e in errors] == [code], rest
    assert rest[-1] is errors[0]
    assert isinstance(errors[0]["message"], str) and errors[0]["message"]
    return rest


async def assert_server_alive(connect: Connect) -> None:
    c = await connect("probe")
    await c.send({"type": "ping", "nonce": 42})
    assert await c.recv_type("pong") == {"type": "pong", "nonce": 42}


# -- the handshake ------------------------------------------------------------------


async def test_hello_with_an_unsupported_version(server: Server, connect: Connect) -> None:
    c = await connect(hello=False)
    await c.send({"type": "hello", "version": "2.0", "role": "player", "name": "future"})
    await expect_error_and_close(c, "version_unsupported")
    await assert_server_alive(connect)


async def test_hello_with_a_newer_minor_version_is_welcome(server: Server,
                                                           connect: Connect) -> None:
    c = await connect(hello=False)
    await c.send({"type": "hello", "version": "1.9", "role": "player", "name": "minor"})
    welcome = await c.recv()
    assert welcome["type"] == "welcome" and welcome["version"] == VERSION_STRING
    assert welcome["session"] and welcome["resume_token"]


async def test_no_hello_within_the_deadline(server: Server, connect: Connect,
                                            monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr("server.session.HANDSHAKE_DEADLINE", 0.3)
    t0 = time.monotonic()
    silent = await connect(hello=False)
    partial = await connect(hello=False)
    frame = encode_frame({"type": "hello", "version": "1.0", "role": "player", "name": "slow"})
    await partial.send_raw(frame[:-3])  # a hello that never completes
    await expect_error_and_close(silent, "handshake_timeout")
    await expect_error_and_close(partial, "handshake_timeout")
    assert 0.25 <= time.monotonic() - t0 < 3
    await assert_server_alive(connect)  # a prompt hello is still fine


# -- bad frames -----------------------------------------------------------------------


@pytest.mark.parametrize("after_hello", [False, True])
async def test_garbage_frame_is_bad_msgpack(server: Server, connect: Connect,
                                            after_hello: bool) -> None:
    c = await connect(hello=after_hello)
    await c.send_raw(struct.pack(">I", 1) + b"\xc1")  # 0xC1 is never valid msgpack
    await expect_error_and_close(c, "bad_msgpack")
    await assert_server_alive(connect)


@pytest.mark.parametrize("body", [
    b"\x93\x01\x02\x03",  # an array, not a map
    b"\x81\xa4type\xa5hello",  # a hello without its fields
    b"\x81\xa4type\xa7unknown",  # an unknown type
])
async def test_malformed_message_is_bad_message(server: Server, connect: Connect,
                                                body: bytes) -> None:
    c = await connect(hello=False)
    await c.send_raw(struct.pack(">I", len(body)) + body)
    await expect_error_and_close(c, "bad_message")


async def test_huge_length_prefix_is_refused_at_once(server: Server, connect: Connect) -> None:
    c = await connect()
    t0 = time.monotonic()
    await c.send_raw(struct.pack(">I", 2**32 - 1))  # the header only: no body follows
    await expect_error_and_close(c, "too_large", timeout=2.0)
    assert time.monotonic() - t0 < 1.5  # it did not wait for 4 GiB that never come
    c2 = await connect(hello=False)
    await c2.send_raw(struct.pack(">I", MAX_FRAME + 1))
    await expect_error_and_close(c2, "too_large", timeout=2.0)
    await assert_server_alive(connect)


# -- messages the phase does not allow ------------------------------------------------


async def test_action_before_joining_is_unexpected(server: Server, connect: Connect) -> None:
    """After the handshake an out-of-phase message may be one the client sent
    before it saw the server's answer: it is refused, the connection stays."""
    c = await connect()
    await c.send({"type": "action", "seq": 1, "action": {"type": "roll_dice"}})
    reply = await c.recv()
    assert reply["type"] == "result" and reply["ok"] is False
    assert reply["code"] == "unexpected_message"
    await c.send({"type": "ping", "nonce": 5})
    assert (await c.recv_type("pong"))["nonce"] == 5


@pytest.mark.parametrize("msg", [
    {"type": "list_tables"},  # before the hello
    {"type": "action", "seq": 1, "action": {"type": "end_turn"}},
])
async def test_anything_before_hello_is_unexpected(server: Server, connect: Connect,
                                                   msg: dict[str, Any]) -> None:
    c = await connect(hello=False)
    await c.send(msg)
    await expect_error_and_close(c, "unexpected_message")


async def test_action_at_a_waiting_table_is_game_not_started(server: Server,
                                                             connect: Connect) -> None:
    c = await connect()
    await c.send({"type": "create_table", "settings": {"players": 3}})
    await c.recv_type("joined")
    await c.send({"type": "action", "seq": 1, "action": {"type": "roll_dice"}})
    reply = await c.recv_type("result")
    assert reply["ok"] is False and reply["code"] == "game_not_started"
    assert reply["seq"] == 1 and reply["version"] == 0
    await c.send({"type": "ping", "nonce": 6})
    assert (await c.recv_type("pong"))["nonce"] == 6


async def test_a_server_message_from_a_client_is_unexpected(server: Server,
                                                            connect: Connect) -> None:
    c = await connect()
    await c.send({"type": "welcome", "version": "1.0", "session": "x", "resume_token": "y",
                  "server": "me"})
    await expect_error_and_close(c, "unexpected_message")


async def test_second_hello_is_unexpected(server: Server, connect: Connect) -> None:
    c = await connect()
    await c.send({"type": "hello", "version": "1.0", "role": "player", "name": "again"})
    err = await c.recv_type("error")
    assert err["code"] == "unexpected_message"
    await c.send({"type": "ping", "nonce": 7})
    assert (await c.recv_type("pong"))["nonce"] == 7


# -- lobby errors (the connection stays open) ----------------------------------------


async def test_join_an_unknown_table(server: Server, connect: Connect) -> None:
    c = await connect()
    await c.send({"type": "join", "table": "nosuch"})
    err = await c.recv()
    assert err["type"] == "error" and err["code"] == "no_such_table"
    await c.send({"type": "spectate", "table": "nosuch"})
    err = await c.recv()
    assert err["type"] == "error" and err["code"] == "no_such_table"
    await c.send({"type": "list_tables"})  # still connected, still in the lobby
    assert (await c.recv())["type"] == "tables"


@pytest.mark.parametrize("create", [
    {"settings": {"players": 7}},
    {"settings": {"players": 4, "vp_target": 2}},
    {"settings": {"players": 4}, "bots": ["random"] * 4},
    {"settings": {"players": 4}, "bots": ["clever"]},
    {"settings": {"players": 4}, "turn_timer": 99999},
])
async def test_bad_settings(server: Server, connect: Connect, create: dict[str, Any]) -> None:
    c = await connect()
    await c.send({"type": "create_table", **create})
    err = await c.recv()
    assert err["type"] == "error" and err["code"] == "bad_settings"
    assert server.tables == {}
    await c.send({"type": "list_tables"})
    assert (await c.recv()) == {"type": "tables", "tables": []}


async def test_full_table_and_start_by_a_non_creator(server: Server, connect: Connect) -> None:
    creator = await connect("alice")
    await creator.send({"type": "create_table", "settings": {"players": 2}})
    tid = (await creator.recv_type("joined"))["table"]
    bob = await connect("bob")
    await bob.send({"type": "join", "table": tid, "seat": 0})
    assert (await bob.recv())["code"] == "seat_taken"
    await bob.send({"type": "join", "table": tid, "seat": 7})
    assert (await bob.recv())["code"] == "seat_taken"
    spectator = await connect("carol")
    await spectator.send({"type": "spectate", "table": tid})
    await spectator.recv_type("joined")
    await spectator.send({"type": "start"})
    err = await spectator.recv_type("error")
    assert err["code"] == "not_creator"
    await bob.send({"type": "join", "table": tid})
    assert (await bob.recv_type("joined"))["seat"] == 1
    late = await connect("dave")
    await late.send({"type": "join", "table": tid})
    assert (await late.recv())["code"] == "table_full"


async def test_bot_seats_need_their_keys(server: Server, connect: Connect) -> None:
    """Seats reserved for server-started bots take only a join with their key."""
    creator = await connect("alice")
    await creator.send({"type": "create_table", "settings": {"players": 3},
                        "bots": ["random", "greedy"]})
    tid = (await creator.recv_type("joined"))["table"]
    table = server.tables[tid]
    assert [(s.kind, s.bot_kind) for s in table.seats] == [
        ("human", None), ("bot", "greedy"), ("bot", "random")]
    key1, key2 = table.seats[1].bot_key, table.seats[2].bot_key
    assert key1 and key2 and key1 != key2

    intruder = await connect("mallory")
    await intruder.send({"type": "join", "table": tid})
    assert (await intruder.recv())["code"] == "table_full"
    await intruder.send({"type": "join", "table": tid, "seat": 2, "key": key1})
    assert (await intruder.recv())["code"] == "seat_taken"
    await intruder.send({"type": "join", "table": tid, "key": "guess"})
    assert (await intruder.recv())["code"] == "table_full"

    bot2 = await connect("bot2", role="bot")
    await bot2.send({"type": "join", "table": tid, "seat": 2, "key": key2})
    assert (await bot2.recv_type("joined"))["seat"] == 2
    bot1 = await connect("bot1", role="bot")
    await bot1.send({"type": "join", "table": tid, "key": key1})
    assert (await bot1.recv_type("joined"))["seat"] == 1
    for c in (creator, bot1, bot2):
        await c.recv_type("game_started")
    assert table.status == "playing"


# -- rejected actions ----------------------------------------------------------------


def _snapshot(table: RawTable) -> dict[str, Any]:
    return {"state": table.game().to_dict(), "version": table.version}


async def _assert_no_events(table: RawTable, after: int) -> None:
    for c in table.clients:
        late = [m for m in await c.quiet(0.05) if m["type"] == "events"]
        assert all(m["version"] <= after for m in late)
        assert all(m["version"] <= after for m in c.received if m["type"] == "events")


async def _act_and_check(table: RawTable, client: RawClient, action: dict[str, Any]) -> None:
    """``client`` acts legally: accepted, and every seat hears of it."""
    v = table.version
    result = await client.act(action)
    assert result["ok"] is True, result
    assert table.version == v + 1
    await table.wait_version(v + 1)


async def test_action_out_of_turn(server: Server, connect: Connect) -> None:
    table = await raw_table(server, connect, players=3)
    actor = table.actor()
    legal = await table.legal_for(actor)
    assert legal and legal[0]["type"] == "build_settlement"
    before = _snapshot(table)
    for other in table.others(actor):
        assert await table.legal_for(other) == []
        result = await other.act(legal[0])
        assert result == {"type": "result", "seq": other.seq, "ok": False,
                          "code": "not_your_turn", "message": result["message"],
                          "version": 0}
    assert _snapshot(table) == before
    await _assert_no_events(table, 0)
    # The seat to act still has the same choices, and the game goes on.
    assert await actor.legal_now(0) == legal
    await _act_and_check(table, actor, legal[0])


async def test_a_seat_field_in_the_message_is_ignored(server: Server,
                                                      connect: Connect) -> None:
    table = await raw_table(server, connect, players=3)
    actor = table.actor()
    assert actor.seat is not None
    legal = await table.legal_for(actor)
    other = table.others(actor)[0]
    before = _snapshot(table)
    # Another seat claims to be the actor, in the message and in the action.
    result = await other.act({**legal[0], "seat": actor.seat}, seat=actor.seat)
    assert result["ok"] is False and result["code"] == "not_your_turn"
    assert _snapshot(table) == before
    # The actor names another seat: it still acts as itself.
    node = legal[0]["node"]
    result = await actor.act({**legal[0], "seat": other.seat}, seat=other.seat)
    assert result["ok"] is True
    assert table.game().node_owner[node] == actor.seat
    events = await other.recv_type("events")
    assert {"type": "settlement_built", "seat": actor.seat, "node": node,
            "free": True} in events["events"]


async def test_illegal_actions_get_the_engine_codes(server: Server, connect: Connect) -> None:
    table = await raw_table(server, connect, players=3)
    first = table.actor()
    legal = await table.legal_for(first)
    await _act_and_check(table, first, legal[0])  # a set-up settlement
    road = (await table.legal_for(first))[0]
    assert road["type"] == "build_road"
    await _act_and_check(table, first, road)

    second = table.actor()
    assert second is not first
    await _act_and_check(table, second, (await table.legal_for(second))[0])
    before = _snapshot(table)
    cases = [
        ({"type": "build_road", "edge": road["edge"]}, "illegal_placement"),  # occupied
        ({"type": "build_road", "edge": 999}, "bad_location"),
        ({"type": "roll_dice"}, "wrong_phase"),
        ({"type": "fly_away"}, "malformed_action"),
        ({"type": "build_road"}, "malformed_action"),
        ({"type": "build_road", "edge": "nine"}, "malformed_action"),
    ]
    for action, code in cases:
        result = await second.act(action)
        assert result["ok"] is False and result["code"] == code, (action, result)
        assert result["message"]
    assert _snapshot(table) == before
    await _assert_no_events(table, before["version"])
    road2 = (await table.legal_for(second))[0]
    assert road2["type"] == "build_road" and road2["edge"] != road["edge"]
    await _act_and_check(table, second, road2)


async def test_a_repeated_seq_is_answered_again_not_applied_twice(server: Server,
                                                                  connect: Connect) -> None:
    table = await raw_table(server, connect, players=3)
    actor = table.actor()
    seat = actor.seat
    assert seat is not None
    settlement = (await table.legal_for(actor))[0]
    pieces = table.game().pieces[seat][:]

    first = await actor.act(settlement, seq=5)
    assert first == {"type": "result", "seq": 5, "ok": True, "version": 1}
    await table.wait_version(1)
    again = await actor.act(settlement, seq=5)
    assert again == first
    # The same seq with another action: the old answer, nothing applied.
    road = (await table.legal_for(actor))[0]
    other = await actor.act(road, seq=5)
    assert other == first
    assert table.version == 1
    assert table.game().pieces[seat][1] == pieces[1] - 1  # one settlement, not two
    assert table.game().pieces[seat][0] == pieces[0]  # and no road
    await _assert_no_events(table, 1)
    assert sum(1 for m in actor.received if m["type"] == "events") == 1
    # A lower seq that was never used is stale.
    stale = await actor.act(road, seq=3)
    assert stale["ok"] is False and stale["code"] == "stale_seq"
    assert "not above 5" in stale["message"] and stale["version"] == 1
    # A rejected action's seq keeps its rejection, even for a legal action.
    bad = await actor.act({"type": "build_road", "edge": 999}, seq=6)
    assert bad["ok"] is False and bad["code"] == "bad_location" and bad["version"] == 1
    assert await actor.act(road, seq=6) == bad
    assert table.version == 1
    # The next seq is applied, once.
    assert await actor.act(road, seq=7) == {"type": "result", "seq": 7, "ok": True,
                                            "version": 2}
    assert table.version == 2
    await table.wait_version(2)
    await _assert_no_events(table, 2)


async def test_a_spectators_action_is_not_seated(server: Server, connect: Connect) -> None:
    table = await raw_table(server, connect, players=3)
    spectator = await connect("viewer", role="spectator")
    await spectator.send({"type": "spectate", "table": table.id})
    await spectator.recv_type("view")
    actor = table.actor()
    legal = await table.legal_for(actor)
    before = _snapshot(table)
    result = await spectator.act(legal[0], seat=actor.seat)
    assert result["ok"] is False and result["code"] == "not_seated"
    assert _snapshot(table) == before
    # The spectator stays connected and keeps watching; the game goes on.
    await _act_and_check(table, actor, legal[0])
    events = await spectator.recv_type("events")
    assert events["version"] == 1


async def test_the_game_goes_on_while_others_misbehave(server: Server,
                                                       connect: Connect) -> None:
    """A bot game finishes untouched while a spectator sends actions and other
    connections break the protocol in every way."""
    spectator = await connect("pest", role="spectator")

    async def watch(tid: str) -> None:
        await spectator.send({"type": "spectate", "table": tid})
        await spectator.recv_type("joined")

    game = await start_bot_game(server, {"players": 3}, ["random", "greedy", "random"],
                                seed=12, before_join=watch)
    play = asyncio.ensure_future(play_bot_game(game))
    bad_frames = [struct.pack(">I", 1) + b"\xc1", struct.pack(">I", 2**32 - 1),
                  encode_frame({"type": "hello", "version": "2.0", "role": "bot", "name": "x"}),
                  encode_frame({"type": "action", "seq": 1, "action": {"type": "end_turn"}})]
    spectator_results = []
    try:
        while not play.done():
            for data in bad_frames:
                c = await connect(hello=False)
                await c.send_raw(data)
                rest = await c.closed()
                assert [m["type"] for m in rest] == ["error"]
            spectator_results.append(await spectator.act({"type": "end_turn"}))
    finally:
        await asyncio.wait_for(play, GAME_TIMEOUT)
    assert_finished(game, server)
    assert spectator_results
    assert all(r["ok"] is False and r["code"] == "not_seated" for r in spectator_results)


# -- resuming a seat ----------------------------------------------------------------


async def _resume(connect: Connect, token: str, name: str) -> tuple[RawClient, dict[str, Any]]:
    c = await connect(name, hello=False)
    await c.send({"type": "hello", "version": "1.0", "role": "player", "name": name,
                  "resume": token})
    welcome = await c.recv()
    assert welcome["type"] == "welcome"
    return c, welcome


def _token(client: RawClient) -> str:
    return str(next(m for m in client.received if m["type"] == "welcome")["resume_token"])


async def test_resume_reclaims_the_seat(server: Server, connect: Connect) -> None:
    table = await raw_table(server, connect, players=3)
    actor = table.actor()
    i = table.clients.index(actor)
    await actor.close()
    await seat_dropped(server, table.id, i)
    back, _ = await _resume(connect, _token(actor), f"seat{i}")
    joined = await back.recv_type("joined")
    assert joined["seat"] == i and joined["table"] == table.id
    await back.recv_type("game_started")
    view = (await back.recv_type("view"))["view"]
    assert view["seat"] == i and view["you"] is not None
    table.clients[i] = back
    legal = await table.legal_for(back)
    assert legal == actor.legals[0]
    await _act_and_check(table, back, legal[0])


async def test_bad_resume_token(server: Server, connect: Connect) -> None:
    c, _ = await _resume(connect, "not-a-token", "who")
    err = await c.recv()
    assert err["type"] == "error" and err["code"] == "bad_resume"
    await c.send({"type": "list_tables"})  # welcomed: in the lobby
    assert (await c.recv())["type"] == "tables"


async def test_seq_numbering_belongs_to_the_seat(server: Server, connect: Connect) -> None:
    """PROTOCOL.md 7.4: a new connection at a seat (here a bot rejoining with its
    key) must continue above the seat's highest seq: a repeated seq gets the old
    connection's answer verbatim and is not applied; the next seq is."""
    creator = await connect("alice")
    await creator.send({"type": "create_table", "settings": {"players": 2}, "bots": ["random"]})
    tid = (await creator.recv_type("joined"))["table"]
    key = server.tables[tid].seats[1].bot_key
    bot = await connect("bot", role="bot")
    await bot.send({"type": "join", "table": tid, "key": key})
    await bot.recv_type("game_started")
    table = RawTable(server, tid, [creator, bot])
    # Play the set-up until the bot seat has acted twice and must act again.
    while bot.seq < 2 or table.actor() is not bot:
        actor = table.actor()
        await _act_and_check(table, actor, (await table.legal_for(actor))[0])
    # The bot's connection drops and a new one joins the seat with the key.
    await bot.close()
    await seat_dropped(server, tid, 1)
    new = await connect("bot", role="bot")
    await new.send({"type": "join", "table": tid, "key": key})
    assert (await new.recv_type("joined"))["seat"] == 1
    await new.recv_type("game_started")
    table.clients[1] = new
    v = table.version
    legal = await table.legal_for(new)
    assert legal
    assert await new.act(legal[0], seq=1) == bot.results[1]  # the old answer, verbatim
    assert table.version == v  # ... and nothing applied
    assert (await new.act(legal[0], seq=bot.seq + 1))["ok"] is True
    assert table.version == v + 1


async def test_leaving_a_game_keeps_the_seat_for_a_resume(server: Server,
                                                          connect: Connect) -> None:
    """PROTOCOL.md: during a game a 1.0 server keeps a left seat (connected:
    false) for its resume token; it does not hand it to a bot (the catalogue's
    one-line description of ``leave`` says it does)."""
    table = await raw_table(server, connect, players=3)
    actor = table.actor()
    i = table.clients.index(actor)
    await actor.send({"type": "leave"})
    assert (await actor.recv_type("left"))["table"] == table.id
    summary = await table.others(actor)[0].recv_until(
        lambda m: m["type"] == "table" and m["seats"][i]["name"] == f"seat{i}"
        and not m["seats"][i]["connected"])
    assert summary["seats"][i] == {"name": f"seat{i}", "kind": "human", "connected": False,
                                   "auto": False}
    assert summary["status"] == "playing"
    await actor.send({"type": "list_tables"})  # back in the lobby
    assert (await actor.recv_type("tables"))["tables"][0]["id"] == table.id
    back, _ = await _resume(connect, _token(actor), f"seat{i}")
    assert (await back.recv_type("joined"))["seat"] == i
    table.clients[i] = back
    await _act_and_check(table, back, (await table.legal_for(back))[0])


# -- bugs ---------------------------------------------------------------------------


async def test_the_token_of_a_resumed_welcome_resumes(server: Server,
                                                      connect: Connect) -> None:
    table = await raw_table(server, connect, players=3)
    first = table.clients[1]
    await first.close()
    second, welcome = await _resume(connect, _token(first), "seat1")
    await second.recv_type("legal")
    await second.close()
    await seat_dropped(server, table.id, 1)
    third, _ = await _resume(connect, welcome["resume_token"], "seat1")
    reply = await third.recv()
    assert reply["type"] == "joined" and reply["seat"] == 1, reply


async def test_a_token_does_not_reclaim_a_seat_given_up_at_a_waiting_table(
        server: Server, connect: Connect) -> None:
    creator = await connect("alice")
    await creator.send({"type": "create_table", "settings": {"players": 3}})
    tid = (await creator.recv_type("joined"))["table"]
    bob = await connect("bob")
    await bob.send({"type": "join", "table": tid})
    assert (await bob.recv_type("joined"))["seat"] == 1
    await bob.send({"type": "leave"})
    await bob.recv_type("left")
    await bob.close()
    await seat_dropped(server, tid, 1)
    carol = await connect("carol")
    await carol.send({"type": "join", "table": tid})
    assert (await carol.recv_type("joined"))["seat"] == 1
    mallory, _ = await _resume(connect, _token(bob), "bob")
    reply = await mallory.recv()
    assert server.tables[tid].seats[1].session is not None
    assert server.tables[tid].seats[1].name == "carol", reply
    assert reply["type"] == "error" and reply["code"] == "bad_resume", reply


async def test_the_right_to_start_passes_on_when_the_creator_leaves(
        server: Server, connect: Connect) -> None:
    """Only one member may start a waiting table (``table.can_start``): its
    creator, and when the creator leaves, the next person at it."""
    creator = await connect("alice")
    await creator.send({"type": "create_table", "settings": {"players": 3}})
    tid = (await creator.recv_type("joined"))["table"]
    assert (await creator.recv_type("table"))["can_start"] is True
    bob = await connect("bob")
    await bob.send({"type": "join", "table": tid})
    await bob.recv_type("joined")
    assert (await bob.recv_type("table"))["can_start"] is False
    watcher = await connect("carol")
    await watcher.send({"type": "spectate", "table": tid})
    await watcher.recv_type("joined")
    assert (await watcher.recv_type("table"))["can_start"] is False
    await bob.send({"type": "start"})
    assert (await bob.recv_type("error"))["code"] == "not_creator"
    await creator.send({"type": "leave"})
    await creator.recv_type("left")
    update = await bob.recv_until(lambda m: m["type"] == "table" and m.get("can_start"))
    assert update["seats"][0]["kind"] == "empty" and update["status"] == "waiting"
    seen = await watcher.recv_until(lambda m: m["type"] == "table"
                                    and m["seats"][0]["kind"] == "empty")
    assert seen["can_start"] is False
    await bob.send({"type": "start"})  # bob may start it now: bots fill the seats
    await bob.recv_until(lambda m: m["type"] == "table" and m["seats"][0]["kind"] == "bot")
    assert tid in server.tables


async def test_a_waiting_table_closes_when_the_last_person_leaves(
        server: Server, connect: Connect) -> None:
    creator = await connect("alice")
    await creator.send({"type": "create_table", "settings": {"players": 3}, "seat": False})
    tid = (await creator.recv_type("joined"))["table"]
    await creator.send({"type": "leave"})
    await creator.recv_type("left")
    assert tid not in server.tables
    await creator.send({"type": "list_tables"})
    assert (await creator.recv_type("tables"))["tables"] == []


async def test_a_waiting_table_waits_for_a_dropped_creator(
        server: Server, connect: Connect, monkeypatch: pytest.MonkeyPatch) -> None:
    """A lone creator whose connection drops may come back (and may still start
    the table); if nobody comes back within the grace, the table closes."""
    import server.app as app_module

    monkeypatch.setattr(app_module, "WAITING_GRACE", 0.3)
    creator = await connect("alice")
    await creator.send({"type": "create_table", "settings": {"players": 2}})
    tid = (await creator.recv_type("joined"))["table"]
    await creator.close()
    await asyncio.sleep(0.1)
    assert tid in server.tables
    again = await connect("alice")
    await again.send({"type": "join", "table": tid})
    await again.recv_type("joined")
    assert (await again.recv_type("table"))["can_start"] is True
    await again.close()
    for _ in range(200):
        if tid not in server.tables:
            break
        await asyncio.sleep(0.01)
    assert tid not in server.tables
