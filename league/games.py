"""Playing one scheduled game: in-process bots, or external ``cmd:`` programs over
the protocol on a private server; every decision timed, a deadline per game,
any failure returned as a failed outcome (a failing bot never stops a league).
"""

from __future__ import annotations

import json
import math
import signal
import sys
import threading
import time
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from bots import Bot, make_bot, play_game
from protocol.rules import Action, Event, GameLog, GameState, Settings

from .duplicate import DuplicateChance

ENGINE_TURN_CAP = 1000
"""Turn cap of automated games (leagues, benchmarks): a game that would never
end stops there with no winner."""

DEFAULT_TIMEOUT = 300.0
"""Seconds a game may take before it is stopped and recorded as failed."""


@dataclass(frozen=True, slots=True)
class GameTask:
    index: int
    seed: int
    specs: tuple[str, ...]
    settings: dict[str, Any]
    timeout: float
    duplicate: bool = False
    """Chance from the block's decision-independent streams (``seed`` is then
    the block's seed, shared by its rotations)."""


@dataclass(slots=True)
class GameOutcome:
    index: int
    seed: int
    status: str
    error: str | None
    winner: int | None
    vp: list[int]
    ranks: list[int]
    turns: int
    decisions: int
    duration: float
    times: list[list[float]]
    log: str | None
    """The action log, ``GameLog.to_dict()`` as JSON (made in the worker)."""


class GameTimeout(RuntimeError):
    """A game ran past its time limit."""


class TimedBot(Bot):
    """Records each decision's time (microseconds) and enforces the game deadline.

    Use :func:`timed`, which keeps a bot that does not listen to events a
    non-listener (the runner then skips redacting events for it)."""

    def __init__(self, bot: Bot, times: list[float], deadline: float = math.inf) -> None:
        self.bot = bot
        self.times = times
        self.deadline = deadline
        self.name = bot.name

    def act(self, view: Any, legal: Any) -> Any:
        t = time.perf_counter()
        action = self.bot.act(view, legal)
        now = time.perf_counter()
        self.times.append(round((now - t) * 1e6, 2))
        if now > self.deadline:
            raise GameTimeout("the game ran past its time limit")
        return action

    def on_game_over(self, view: Any) -> None:
        self.bot.on_game_over(view)


def _timed_call(self: TimedBot, method: str, *args: Any) -> Any:
    t = time.perf_counter()
    action = getattr(self.bot, method)(*args)
    now = time.perf_counter()
    self.times.append(round((now - t) * 1e6, 2))
    if now > self.deadline:
        raise GameTimeout("the game ran past its time limit")
    return action


def _on_events(self: TimedBot, seat: int, events: Any) -> None:
    self.bot.on_events(seat, events)


def _propose(self: TimedBot, view: Any) -> Any:
    return _timed_call(self, "propose", view)


def _act_early(self: TimedBot, view: Any, legal: Any) -> Any:
    return _timed_call(self, "act_early", view, legal)


_HOOKS = {"on_events": _on_events, "propose": _propose, "act_early": _act_early}
_TIMED_CLASSES: dict[frozenset[str], type[TimedBot]] = {}


def timed(bot: Bot, times: list[float], deadline: float = math.inf) -> TimedBot:
    """``bot``, timed (microseconds into ``times``), with a game deadline. The
    wrapper has exactly the optional hooks the bot has (``on_events``,
    ``propose``, ``act_early``), so a bot that does not listen to events (or
    never proposes, or never acts early) stays so for the runner, which then
    skips that work for it."""
    hooks = frozenset(name for name in _HOOKS
                      if getattr(type(bot), name) is not getattr(Bot, name))
    cls = _TIMED_CLASSES.get(hooks)
    if cls is None:
        cls = type("TimedBot_" + "_".join(sorted(hooks)), (TimedBot,),
                   {name: _HOOKS[name] for name in hooks})
        _TIMED_CLASSES[hooks] = cls
    return cls(bot, times, deadline)


def rank_seats(vp: Sequence[int], winner: int | None) -> list[int]:
    """Ranks (0 = best) from final VP, the winner first; equal VP share a rank."""
    key = [(0 if q == winner else 1, -v) for q, v in enumerate(vp)]
    return [sum(1 for k2 in key if k2 < k) for k in key]


def _alarm(signum: int, frame: Any) -> None:
    raise GameTimeout("the game ran past its time limit")


def play_task(task: GameTask) -> GameOutcome:
    """Play one scheduled game; any failure is returned as a failed outcome."""
    settings = Settings.from_dict(task.settings)
    times: list[list[float]] = [[] for _ in task.specs]
    state: list[GameState] = []

    def hook(s: GameState, seat: int, action: Action, events: list[Event]) -> None:
        if not state:
            state.append(s)

    t0 = time.perf_counter()
    networked = any(is_command(spec) for spec in task.specs)
    use_alarm = (task.timeout > 0 and not networked and hasattr(signal, "setitimer")
                 and threading.current_thread() is threading.main_thread())
    old_handler: Any = None
    try:
        if use_alarm:
            old_handler = signal.signal(signal.SIGALRM, _alarm)
            signal.setitimer(signal.ITIMER_REAL, task.timeout)
        deadline = t0 + task.timeout if task.timeout > 0 else math.inf
        if networked:
            s = _play_networked(task, settings, times, state)
            winner: int | None = s.winner
            turns, decisions, final = s.turn, len(s.log or ()), s
            vp = [s.total_vp(q) for q in range(settings.players)]
        else:
            lineup: list[Bot] = []
            for q, spec in enumerate(task.specs):
                bot = make_bot(spec, task.seed * 8 + q)
                lineup.append(timed(bot, times[q], deadline))
            chance = DuplicateChance(task.seed).outcome if task.duplicate else None
            result = play_game(lineup, settings, task.seed, on_step=hook, chance=chance)
            winner, turns, decisions, final = (result.winner, result.turns, result.decisions,
                                               result.state)
            vp = list(result.scores)
        return GameOutcome(task.index, task.seed, "ok", None, winner, vp,
                           rank_seats(vp, winner), turns, decisions,
                           time.perf_counter() - t0, times,
                           json.dumps(GameLog.of(final).to_dict()))
    except Exception as exc:  # a failing bot must not stop the league
        partial = GameLog.of(state[0]) if state and state[0].log is not None else None
        turns = state[0].turn if state else 0
        decisions = len(partial.steps) if partial else 0
        return GameOutcome(task.index, task.seed, "failed", f"{type(exc).__name__}: {exc}",
                           None, [], [], turns, decisions, time.perf_counter() - t0, times,
                           json.dumps(partial.to_dict()) if partial else None)
    finally:
        if use_alarm:
            signal.setitimer(signal.ITIMER_REAL, 0)
            signal.signal(signal.SIGALRM, old_handler)


# --- external commands: the game runs on a private server --------------------------------


COMMAND_PREFIX = "cmd:"
"""An entry ``cmd:COMMAND`` is a program that plays over the network protocol."""


def is_command(spec: str) -> bool:
    return spec.startswith(COMMAND_PREFIX)


class _Watched(TimedBot):
    """An in-process bot in a networked game: timed, every hook passed on, and
    its first error kept (the bot SDK would otherwise play a fallback action
    and carry on)."""

    on_events = _on_events
    propose = _propose
    act_early = _act_early

    def __init__(self, bot: Bot, times: list[float], errors: list[BaseException]) -> None:
        super().__init__(bot, times, math.inf)
        self.errors = errors

    def act(self, view: Any, legal: Any) -> Any:
        try:
            return super().act(view, legal)
        except Exception as exc:
            self.errors.append(exc)
            raise


def _play_networked(task: GameTask, settings: Settings, times: list[list[float]],
                    state: list[GameState]) -> GameState:
    """Play a game with external-command entries: start a private server on a
    loopback port, seat the in-process entries through the bot SDK and start
    each command with ``{host}``, ``{port}``, ``{table}``, ``{seat}``, ``{key}``,
    ``{python}`` (this interpreter) and ``{bot_seed}`` (the seed an in-process bot
    in that seat would get) filled in, e.g. ``cmd:kaitaku bot --connect
    {host}:{port} --table {table} --seat {seat} --key={key}``."""
    import asyncio

    coro = _networked(task, settings, times, state)
    if task.timeout > 0:
        async def bounded() -> GameState:
            try:
                return await asyncio.wait_for(coro, task.timeout)
            except TimeoutError:
                raise GameTimeout("the game ran past its time limit") from None
        return asyncio.run(bounded())
    return asyncio.run(coro)


async def _networked(task: GameTask, settings: Settings, times: list[list[float]],
                     state: list[GameState]) -> GameState:
    import asyncio
    import contextlib
    import shlex

    from bots.client import run_bot
    from protocol.rules import Phase
    from server.app import Server
    from server.session import Session
    from server.table import Table

    srv = Server("127.0.0.1", 0, name="kaitaku-league", spawn_bots=False)
    await srv.start()
    serving = asyncio.ensure_future(srv.serve_forever())
    table: Table[Session] = Table(f"league-{task.index}", f"league game {task.index}",
                                  settings, "league", 0, seed=task.seed)
    srv.attach_table(table)  # a table with the league's seed (the protocol cannot choose one)
    keys = {i: key for i, _, key in table.reserve_bots(["league"] * settings.players)}
    errors: list[BaseException] = []
    clients: list[asyncio.Task[Any]] = []
    procs: list[tuple[int, asyncio.subprocess.Process]] = []
    try:
        for q, spec in enumerate(task.specs):
            if is_command(spec):
                fields = {"host": "127.0.0.1", "port": srv.port, "table": table.id,
                          "python": sys.executable, "bot_seed": task.seed * 8 + q,
                          "seat": q, "key": keys[q]}
                argv = [a.format(**fields) for a in shlex.split(spec[len(COMMAND_PREFIX):])]
                procs.append((q, await asyncio.create_subprocess_exec(
                    *argv, stdin=asyncio.subprocess.DEVNULL,
                    stdout=asyncio.subprocess.DEVNULL, stderr=asyncio.subprocess.PIPE)))
            else:
                bot = _Watched(make_bot(spec, task.seed * 8 + q), times[q], errors)
                clients.append(asyncio.ensure_future(run_bot(
                    bot, "127.0.0.1", srv.port, name=f"seat{q}", table=table.id, seat=q,
                    key=keys[q], reconnect=False)))
        while table.game is None or table.game.phase != Phase.GAME_OVER.value:
            if table.game is not None and not state:
                state.append(table.game)
            if errors:
                raise errors[0]
            for q, p in procs:
                if p.returncode is not None:
                    err = (await p.stderr.read()).decode(errors="replace") if p.stderr else ""
                    raise RuntimeError(f"the command for seat {q} exited with {p.returncode} "
                                       f"before the game ended: {err.strip()[-300:]}")
            for c in clients:
                if c.done() and c.exception() is not None:
                    raise c.exception()  # type: ignore[misc]
            await asyncio.sleep(0.005)
        game = table.game
        rejected = 0
        for c in clients:
            with contextlib.suppress(Exception):
                rejected += (await asyncio.wait_for(asyncio.shield(c), 5)).rejected
        if rejected:
            from bots import IllegalBotAction

            raise IllegalBotAction(f"the server rejected {rejected} action(s) of an "
                                   "in-process entry")
        return game
    finally:
        for c in clients:
            c.cancel()
        for _, p in procs:
            if p.returncode is None:
                with contextlib.suppress(ProcessLookupError):
                    p.terminate()
                with contextlib.suppress(Exception):
                    await asyncio.wait_for(p.wait(), 5)
                if p.returncode is None:
                    with contextlib.suppress(ProcessLookupError):
                        p.kill()
                    await p.wait()
        await srv.close()
        serving.cancel()
        with contextlib.suppress(BaseException):
            await serving


def play_tasks(tasks: list[GameTask]) -> list[GameOutcome]:
    """A chunk of games (one executor job: cheap games are batched)."""
    return [play_task(t) for t in tasks]
