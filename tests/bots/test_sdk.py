"""The bot SDK: any Bot over the network, async bots, budgets, reconnection."""

from __future__ import annotations

import asyncio
import contextlib
import time
from collections.abc import Mapping, Sequence
from typing import Any

import pytest

from bots import Bot, RandomBot, make_bot, play_game
from bots.client import run_bot
from protocol.rules import Action, Settings
from protocol.wire import ProtocolError
from server.app import Server


class AsyncRandom(Bot):
    """An async bot: ``act`` is a coroutine."""

    def __init__(self, seed: int | None = None) -> None:
        self.inner = RandomBot(seed)

    async def act(self, view: Mapping[str, Any], legal: Sequence[Action]) -> Action:  # type: ignore[override]
        await asyncio.sleep(0)
        return self.inner.act(view, legal)


class Sleepy(Bot):
    """Thinks too long on every tenth decision."""

    def __init__(self, seed: int | None = None) -> None:
        self.inner = RandomBot(seed)
        self.calls = 0

    def act(self, view: Mapping[str, Any], legal: Sequence[Action]) -> Action:
        self.calls += 1
        if self.calls % 10 == 0:
            time.sleep(0.3)
        return self.inner.act(view, legal)


class Crashy(Bot):
    """Raises on every fifth decision."""

    def __init__(self, seed: int | None = None) -> None:
        self.inner = RandomBot(seed)
        self.calls = 0

    def act(self, view: Mapping[str, Any], legal: Sequence[Action]) -> Action:
        self.calls += 1
        if self.calls % 5 == 0:
            raise RuntimeError("bug in the bot")
        return self.inner.act(view, legal)


async def _game(bots: list[Bot], budget: float | None = None) -> list[Any]:
    srv = Server("127.0.0.1", 0, spawn_bots=False)
    await srv.start()
    try:
        creator = asyncio.ensure_future(run_bot(
            bots[0], "127.0.0.1", srv.port, name="b0", create={"settings": {"players": 3}},
            budget=budget))
        while not srv.tables:
            await asyncio.sleep(0.01)
        (tid,) = srv.tables
        others = [asyncio.ensure_future(run_bot(b, "127.0.0.1", srv.port, name=f"b{i + 1}",
                                                table=tid, budget=budget))
                  for i, b in enumerate(bots[1:])]
        return list(await asyncio.wait_for(asyncio.gather(creator, *others), 120))
    finally:
        await srv.close()


async def test_async_bots_play_over_the_network() -> None:
    outcomes = await _game([AsyncRandom(1), AsyncRandom(2), RandomBot(3)])
    assert all(o.finished for o in outcomes)
    assert len({o.winner for o in outcomes}) == 1


def test_async_bots_play_in_process() -> None:
    result = play_game([AsyncRandom(1), RandomBot(2), AsyncRandom(3)], Settings(players=3), 4)
    assert result.winner is not None


async def test_a_slow_or_crashing_bot_gets_a_fallback_and_the_game_goes_on() -> None:
    outcomes = await _game([Sleepy(1), Crashy(2), RandomBot(3)], budget=0.1)
    assert all(o.finished for o in outcomes)
    assert outcomes[0].fallbacks >= 1  # the slow decisions
    assert outcomes[1].fallbacks >= 1  # the crashes
    assert all(o.rejected == 0 for o in outcomes)


async def test_the_sdk_reconnects_after_a_dropped_connection() -> None:
    srv = Server("127.0.0.1", 0, spawn_bots=False)
    await srv.start()
    try:
        tasks = [asyncio.ensure_future(run_bot(
            RandomBot(0), "127.0.0.1", srv.port, name="b0",
            create={"settings": {"players": 3}}))]
        while not srv.tables:
            await asyncio.sleep(0.01)
        (tid,) = srv.tables
        tasks += [asyncio.ensure_future(run_bot(RandomBot(i), "127.0.0.1", srv.port,
                                                name=f"b{i}", table=tid)) for i in (1, 2)]
        table = srv.tables[tid]
        while table.version < 30:
            await asyncio.sleep(0.005)
        # Cut seat 1's connection from the server side, twice (the second time
        # once it is back at its seat, however long the reconnect took).
        for _ in range(2):
            for _ in range(1000):
                live = [s for s in srv.sessions
                        if s.name == "b1" and not s.closed and s.seat is not None]
                if len(live) == 1:
                    break
                await asyncio.sleep(0.01)
            (sess,) = live
            sess.abort()
        outcomes = await asyncio.wait_for(asyncio.gather(*tasks), 120)
        assert all(o.finished for o in outcomes)
        assert outcomes[1].reconnects >= 2
        assert outcomes[1].rejected == 0
    finally:
        await srv.close()


async def test_the_sdk_stops_when_its_seat_is_gone_after_a_restart() -> None:
    """The server came back without the table (no database): the resume is
    refused with bad_resume and the bot ends with that error, not idle in the lobby."""
    srv = Server("127.0.0.1", 0, spawn_bots=False)
    await srv.start()
    port = srv.port
    task = asyncio.ensure_future(run_bot(RandomBot(0), "127.0.0.1", port, name="b0",
                                         create={"settings": {"players": 3}}))
    try:
        while not any(s.seat is not None for s in srv.sessions):
            await asyncio.sleep(0.01)
    finally:
        await srv.close()
    again = Server("127.0.0.1", port, spawn_bots=False)
    await again.start()
    try:
        with pytest.raises(ProtocolError) as info:
            await asyncio.wait_for(task, 30)
        assert info.value.code == "bad_resume"
    finally:
        await again.close()


def test_make_bot_loads_builtins_and_module_class() -> None:
    assert make_bot("heuristic", 1).name == "heuristic"
    bot = make_bot("tests.bots.test_sdk:Crashy", 3)
    assert isinstance(bot, Crashy)
    with pytest.raises(ValueError):
        make_bot("nonsense")
    with pytest.raises(AttributeError):
        make_bot("tests.bots.test_sdk:Missing")


async def test_every_builtin_bot_plays_over_tcp_without_an_illegal_action() -> None:
    for players, specs in ((4, ["heuristic", "greedy", "random", "heuristic"]),
                           (2, ["heuristic", "greedy"])):
        srv = Server("127.0.0.1", 0, spawn_bots=False)
        await srv.start()
        try:
            bots = [make_bot(spec, i) for i, spec in enumerate(specs)]
            creator = asyncio.ensure_future(run_bot(
                bots[0], "127.0.0.1", srv.port, name="b0",
                create={"settings": {"players": players}}))
            while not srv.tables:
                await asyncio.sleep(0.01)
            (tid,) = srv.tables
            others = [asyncio.ensure_future(run_bot(b, "127.0.0.1", srv.port, name=f"b{i}",
                                                    table=tid))
                      for i, b in enumerate(bots[1:], 1)]
            outcomes = await asyncio.wait_for(asyncio.gather(creator, *others), 120)
            assert all(o.finished and o.rejected == 0 and o.fallbacks == 0 for o in outcomes)
        finally:
            await srv.close()


# -- a server that is not to be trusted ---------------------------------------------------


class Tracking(RandomBot):
    """A bot that follows the events (the SDK then decodes them)."""

    def __init__(self, seed: int | None = None) -> None:
        super().__init__(seed)
        self.seen: list[Any] = []

    def on_events(self, seat: int, events: Sequence[Any]) -> None:
        self.seen.extend(events)


async def _hostile(script: list[dict[str, Any]], stay: bool = True
                   ) -> tuple[asyncio.base_events.Server, list[dict[str, Any]]]:
    """A fake server: welcome, then ``script``, then silence; it records what
    the client sends."""
    from protocol.wire import FrameDecoder, encode_frame

    got: list[dict[str, Any]] = []

    async def handle(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        conn = FrameDecoder()
        with contextlib.suppress(Exception):
            while not got:
                got.extend(conn.feed(await reader.read(65536)))
            writer.write(encode_frame({"type": "welcome", "version": "1.2", "session": "s",
                                       "resume_token": "t", "server": "evil"}))
            while len(got) < 2:  # the join
                got.extend(conn.feed(await reader.read(65536)))
            for msg in script:
                writer.write(encode_frame(msg))
            await writer.drain()
            while data := await reader.read(65536):
                got.extend(conn.feed(data))

    return await asyncio.start_server(handle, "127.0.0.1", 0), got


JOINED = {"type": "joined", "table": "t1", "seat": 0,
          "settings": Settings(players=3).to_dict()}


@pytest.mark.parametrize("bad", [
    {"type": "events", "version": 1, "events": [1, "two"]},
    {"type": "events", "version": 1, "events": [{"no": "type"}]},
    {"type": "legal", "version": 0, "actions": [{"type": "fly_to_the_moon"}]},
    {"type": "legal", "version": 0, "actions": [{"type": "end_turn"}]},  # before any view
], ids=["events-not-maps", "events-no-type", "unreadable-action", "legal-before-view"])
async def test_item11_a_malformed_server_message_ends_with_a_clear_error(
        bad: dict[str, Any]) -> None:
    from protocol.wire import RemoteProtocolError

    script = [JOINED, {"type": "game_started", "table": "t1"}, bad]
    if bad["type"] == "legal" and bad["actions"][0]["type"] != "end_turn":
        script.insert(2, {"type": "view", "version": 0, "view": {"seat": 0, "phase": "main"}})
    srv, _ = await _hostile(script)
    try:
        with pytest.raises(RemoteProtocolError, match="malformed") as info:
            await asyncio.wait_for(run_bot(Tracking(1), "127.0.0.1",
                                           srv.sockets[0].getsockname()[1], table="t1",
                                           read_timeout=5), 10)
        assert info.value.code == "bad_message"
    finally:
        srv.close()


async def test_item11_a_silent_server_is_pinged_then_given_up() -> None:
    srv, got = await _hostile([JOINED])
    try:
        loop = asyncio.get_running_loop()
        t0 = loop.time()
        with pytest.raises(ConnectionError, match="no answer"):
            await asyncio.wait_for(run_bot(RandomBot(1), "127.0.0.1",
                                           srv.sockets[0].getsockname()[1], table="t1",
                                           reconnect=False, keepalive=0.1,
                                           read_timeout=0.4), 10)
        assert loop.time() - t0 < 2
        assert any(m["type"] == "ping" for m in got)
    finally:
        srv.close()


async def test_a_refusal_after_the_game_moved_on_is_stale_not_a_mistake() -> None:
    """result.version tells a refused action chosen on a list that others'
    moves had made stale (counted as ``stale``) from one refused at the
    version it was chosen at (``rejected``: the bot's mistake)."""
    from protocol.wire import FrameDecoder, encode_frame

    view = {"type": "view", "version": 0, "view": {"seat": 0, "phase": "main"}}
    legal = {"type": "legal", "version": 0, "actions": [{"type": "end_turn"}]}

    async def handle(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        decoder = FrameDecoder()
        inbox: list[dict[str, Any]] = []

        async def next_of(kind: str) -> dict[str, Any]:
            while True:
                while inbox:
                    msg = inbox.pop(0)
                    if msg["type"] == kind:
                        return msg
                inbox.extend(decoder.feed(await reader.read(65536)))

        def send(*msgs: dict[str, Any]) -> None:
            for msg in msgs:
                writer.write(encode_frame(msg))

        await next_of("hello")
        send({"type": "welcome", "version": "1.3", "session": "s", "resume_token": "t",
              "server": "script"})
        await next_of("join")
        send(JOINED, {"type": "game_started", "table": "t1"}, view, legal)
        first = await next_of("action")  # chosen at version 0; others moved to 2 meanwhile
        send({"type": "result", "seq": first["seq"], "ok": False, "code": "not_your_turn",
              "message": "not your turn", "version": 2})
        await next_of("resync")
        send({**view, "version": 2}, {**legal, "version": 2})
        second = await next_of("action")  # chosen at version 2, refused at 2
        send({"type": "result", "seq": second["seq"], "ok": False, "code": "wrong_phase",
              "message": "no", "version": 2})
        await next_of("resync")
        send({"type": "game_over", "winner": 1, "scores": [2, 10, 3]})
        await writer.drain()

    srv = await asyncio.start_server(handle, "127.0.0.1", 0)
    try:
        outcome = await asyncio.wait_for(run_bot(
            RandomBot(1), "127.0.0.1", srv.sockets[0].getsockname()[1], table="t1"), 10)
        assert (outcome.stale, outcome.rejected, outcome.finished) == (1, 1, True)
    finally:
        srv.close()
