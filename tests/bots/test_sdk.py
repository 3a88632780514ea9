"""The bot SDK: any Bot over the network, async bots, budgets, reconnection."""

from __future__ import annotations

import asyncio
import time
from collections.abc import Mapping, Sequence
from typing import Any

import pytest

from bots import Bot, RandomBot, make_bot, play_game
from bots.client import run_bot
from protocol.rules import Action, Settings
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
