"""Playing one scheduled game: in-process bots, or external ``cmd:`` programs over
the protocol on a private server (sandboxed by default, :mod:`league.sandbox`);
every decision timed, a chess clock per seat when the league has one
(:mod:`server.clock`), a deadline per game, any failure returned as a failed
outcome (a failing bot never stops a league).

With a clock an entry that runs out of time gets the default action, and one
that times out ``clock.timeouts`` times, raises, or (a ``cmd:`` program) exits
before the end *forfeits*: a built-in bot plays its seat to the end and the
seat ranks last in the game. Without a clock such a failure stops the game,
which is recorded as failed.
"""

from __future__ import annotations

import dataclasses
import json
import math
import random
import signal
import sys
import threading
import time
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from bots import Bot, make_bot, play_game
from bots.base import safe_action
from protocol.rules import Action, Event, GameLog, GameState, RulesError, Settings
from protocol.rules.chance import CommittedChance, Reveal
from protocol.wire import clean_text
from server.clock import Clock, SeatClock

from .sandbox import Limits

ENGINE_TURN_CAP = 1000
"""Turn cap of automated games (leagues, benchmarks): a game that would never
end stops there with no winner."""

DEFAULT_TIMEOUT = 300.0
"""Seconds a game may take before it is stopped and recorded as failed."""

STDERR_TAIL = 2000
"""Characters of a ``cmd:`` entry's standard error kept per game (its end)."""


def clean_stderr(text: str) -> str:
    """The end of a program's standard error, safe to print and store: at
    most :data:`STDERR_TAIL` characters, each line cleaned
    (:func:`protocol.wire.clean_text`: no control, escape or bidi characters)."""
    return "\n".join(clean_text(line) for line in text[-STDERR_TAIL:].splitlines())


@dataclass(frozen=True, slots=True)
class GameTask:
    index: int
    seed: int
    specs: tuple[str, ...]
    settings: dict[str, Any]
    timeout: float
    duplicate: bool = False
    """A game of a duplicate set (its rotations share ``reveal``'s deal, and its play
    too when ``reveal_at_end`` is False)."""
    clock: Clock | None = None
    """Every seat's chess clock (None: no clock)."""
    sandbox: bool = True
    """Run ``cmd:`` entries in a sandbox (:mod:`league.sandbox`)."""
    limits: Limits | None = None
    """The sandbox's limits (None: :class:`~league.sandbox.Limits`' defaults)."""
    reveal: Reveal | None = None
    """The game's committed chance (``seed`` is then its deal's seed); None:
    the engine's generator from ``seed``."""
    reveal_at_end: bool = True
    """Whether the game's ``game_over`` may reveal its secret (False: other
    games of its duplicate set still use it)."""
    reveal_set: tuple[int, ...] = ()
    """The indices of the games that use ``reveal``'s secret (its reveal waits for all)."""
    bot_seeds: tuple[int, ...] = ()
    """Each seat's bot seed (``{bot_seed}``); empty: ``seed * 8 + seat``."""

    def bot_seed(self, seat: int) -> int:
        return self.bot_seeds[seat] if self.bot_seeds else self.seed * 8 + seat

    def chance(self, settings: Settings) -> CommittedChance | None:
        return None if self.reveal is None else CommittedChance(self.reveal.secret, settings)


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
    timeouts: list[int] = field(default_factory=list)
    """Chess-clock timeouts per seat (empty without a clock)."""
    forfeits: list[int] = field(default_factory=list)
    """The seats that forfeited (ranked last)."""
    seat_logs: list[dict[str, Any]] = field(default_factory=list)
    """Per seat ``{"why": why it lost its seat or None, "stderr": the end of its
    standard error, cleaned}`` (:class:`league.store.SeatLog`)."""
    chance: str | None = None
    """The committed chance revealed (``Reveal.to_dict()`` as JSON): kept by the
    organiser, published when no game of its set can still be played."""


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


def rank_seats(vp: Sequence[int], winner: int | None,
               forfeits: Sequence[int] = ()) -> list[int]:
    """Ranks (0 = best) from final VP, the winner first; equal VP share a rank.
    Seats that forfeited rank last (together), whatever their stand-in scored."""
    key = [(True, 0, 0) if q in forfeits else (False, 0 if q == winner else 1, -v)
           for q, v in enumerate(vp)]
    return [sum(1 for k2 in key if k2 < k) for k in key]


def _alarm(signum: int, frame: Any) -> None:
    raise GameTimeout("the game ran past its time limit")


# --- chess clocks for in-process entries ----------------------------------------------------


class Clocked(Bot):
    """An in-process entry under a chess clock, kept exactly as the server keeps
    a connection's (:class:`server.clock.SeatClock`): each ``act`` is timed;
    one that runs past the bank gets the default action instead
    (:func:`bots.base.safe_action`, the server's :func:`server.table.default_action`);
    an illegal decision gets it too and counts as a timeout. After
    ``clock.timeouts`` timeouts, or when the bot raises, the seat forfeits and
    the server's stand-in (the heuristic bot, seeing only the seat's view,
    never proposing) plays it to the end. Proposals are not decisions the seat
    owes: they are not charged (the server does not charge them either).

    Use :func:`clocked`, which keeps a non-listener a non-listener."""

    def __init__(self, bot: Bot, clock: Clock, seed: int) -> None:
        self.bot = bot
        self.name = bot.name
        self.clock = SeatClock(clock)
        self.seed = seed
        self.rng = random.Random(seed ^ 0x5EED)
        self.stand_in: Bot | None = None
        self.why: str | None = None
        """Why the seat forfeited (None: it did not)."""

    @property
    def forfeited(self) -> bool:
        return self.why is not None

    def forfeit(self, why: str) -> None:
        if self.why is None:
            self.why = why
            from bots import HeuristicBot

            self.stand_in = HeuristicBot(self.seed)

    def act(self, view: Any, legal: Any) -> Any:
        if self.stand_in is not None:
            return self.stand_in.act(view, legal)
        bank = self.clock.start()
        t = time.perf_counter()
        try:
            action = self.bot.act(view, legal)
        except GameTimeout:
            raise
        except Exception as exc:  # a crashing entry forfeits; the game goes on
            self.forfeit(f"{type(exc).__name__}: {exc}")
            assert self.stand_in is not None
            return self.stand_in.act(view, legal)
        used = time.perf_counter() - t
        if self.clock.spend(used):
            return action
        if self.clock.forfeited:
            self.forfeit(f"{self.clock.timeouts} timeouts (the last: {used:.3f} s of a "
                         f"{bank:.3f} s bank)")
        return safe_action(legal, self.rng)

    def illegal(self, legal: Sequence[Action]) -> Action:
        """The bot's decision was refused: a timeout, and the default action."""
        self.clock.timeouts += 1
        if self.clock.forfeited:
            self.forfeit(f"{self.clock.timeouts} timeouts or illegal actions")
        return safe_action(legal, self.rng)

    def on_game_over(self, view: Any) -> None:
        self.bot.on_game_over(view)


def _clocked_events(self: Clocked, seat: int, events: Any) -> None:
    if self.stand_in is None:
        self.bot.on_events(seat, events)


def _clocked_optional(method: str) -> Any:
    """A hook the seat does not owe (a proposal, an early confirm): not charged
    to the clock (the server does not charge it either); none once forfeited."""
    def hook(self: Clocked, *args: Any) -> Any:
        if self.stand_in is not None:
            return None  # a stand-in never proposes, never confirms early
        try:
            return getattr(self.bot, method)(*args)
        except GameTimeout:
            raise
        except Exception as exc:
            self.forfeit(f"{type(exc).__name__}: {exc}")
            return None
    return hook


_CLOCKED_HOOKS = {"on_events": _clocked_events, "propose": _clocked_optional("propose"),
                  "act_early": _clocked_optional("act_early")}
_CLOCKED_CLASSES: dict[frozenset[str], type[Clocked]] = {}


def clocked(bot: Bot, clock: Clock, seed: int) -> Clocked:
    """``bot`` under ``clock`` (see :class:`Clocked`), with exactly the optional
    hooks the bot has (as :func:`timed`)."""
    hooks = frozenset(name for name in _CLOCKED_HOOKS
                      if getattr(type(bot), name) is not getattr(Bot, name))
    cls = _CLOCKED_CLASSES.get(hooks)
    if cls is None:
        cls = type("Clocked_" + "_".join(sorted(hooks)), (Clocked,),
                   {name: _CLOCKED_HOOKS[name] for name in hooks})
        _CLOCKED_CLASSES[hooks] = cls
    return cls(bot, clock, seed)


# --- one game --------------------------------------------------------------------------------


def play_task(task: GameTask) -> GameOutcome:
    """Play one scheduled game; any failure is returned as a failed outcome."""
    settings = Settings.from_dict(task.settings)
    times: list[list[float]] = [[] for _ in task.specs]
    state: list[GameState] = []

    def hook(s: GameState, seat: int, action: Action, events: list[Event]) -> None:
        if not state:
            state.append(s)

    t0 = time.perf_counter()
    logs: list[dict[str, Any]] = [{"why": None, "stderr": ""} for _ in task.specs]
    networked = any(is_command(spec) for spec in task.specs)
    use_alarm = (task.timeout > 0 and not networked and hasattr(signal, "setitimer")
                 and threading.current_thread() is threading.main_thread())
    old_handler: Any = None
    try:
        if use_alarm:
            old_handler = signal.signal(signal.SIGALRM, _alarm)
            signal.setitimer(signal.ITIMER_REAL, task.timeout)
        deadline = t0 + task.timeout if task.timeout > 0 else math.inf
        timeouts: list[int] = []
        forfeits: list[int] = []
        if networked:
            s, timeouts, forfeits = _play_networked(task, settings, times, state, logs)
            winner: int | None = s.winner
            turns, decisions, final = s.turn, len(s.log or ()), s
            vp = [s.total_vp(q) for q in range(settings.players)]
        else:
            lineup: list[Bot] = []
            clocks: list[Clocked] = []
            for q, spec in enumerate(task.specs):
                bot: Bot = timed(make_bot(spec, task.bot_seed(q)), times[q], deadline)
                if task.clock is not None:
                    bot = clocked(bot, task.clock, task.bot_seed(q))
                    clocks.append(bot)
                lineup.append(bot)
            chance = task.chance(settings)

            def illegal(seat: int, action: Action, legal: Sequence[Action],
                        exc: RulesError) -> Action | None:
                return clocks[seat].illegal(legal)

            result = play_game(lineup, settings, task.seed, on_step=hook, chance=chance,
                               on_illegal=illegal if clocks else None)
            winner, turns, decisions, final = (result.winner, result.turns, result.decisions,
                                               result.state)
            vp = list(result.scores)
            timeouts = [c.clock.timeouts for c in clocks]
            forfeits = [q for q, c in enumerate(clocks) if c.forfeited]
            for q, c in enumerate(clocks):
                logs[q]["why"] = clean_text(c.why, 500) if c.why else None
        return GameOutcome(task.index, task.seed, "ok", None, winner, vp,
                           rank_seats(vp, winner, forfeits), turns, decisions,
                           time.perf_counter() - t0, times,
                           json.dumps(_log(task, final).to_dict()), timeouts, forfeits, logs,
                           _reveal_json(task))
    except Exception as exc:  # a failing bot must not stop the league
        partial = _log(task, state[0]) if state and state[0].log is not None else None
        turns = state[0].turn if state else 0
        decisions = len(partial.steps) if partial else 0
        return GameOutcome(task.index, task.seed, "failed", f"{type(exc).__name__}: {exc}",
                           None, [], [], turns, decisions, time.perf_counter() - t0, times,
                           json.dumps(partial.to_dict()) if partial else None,
                           seat_logs=logs, chance=_reveal_json(task))
    finally:
        if use_alarm:
            signal.setitimer(signal.ITIMER_REAL, 0)
            signal.signal(signal.SIGALRM, old_handler)


def _log(task: GameTask, s: GameState) -> GameLog:
    """The game's log, with its commitment (the secret is kept apart)."""
    log = GameLog.of(s)
    if task.reveal is None:
        return log
    return dataclasses.replace(log, chance=task.reveal.announced())


def _reveal_json(task: GameTask) -> str | None:
    if task.reveal is None:
        return None
    return json.dumps({**task.reveal.to_dict(), "set": list(task.reveal_set or (task.index,))})


# --- external commands: the game runs on a private server --------------------------------


COMMAND_PREFIX = "cmd:"
"""An entry ``cmd:COMMAND`` is a program that plays over the network protocol."""

PLACEHOLDERS = ("table", "seat", "key", "python", "bot_seed")
"""What every ``cmd:`` command line may contain; unsandboxed also ``host``, ``port``."""
NETWORK_PLACEHOLDERS = ("host", "port")


def is_command(spec: str) -> bool:
    return spec.startswith(COMMAND_PREFIX)


def check_command(spec: str, sandbox: bool) -> None:
    """Raise ValueError (a clear message) if a ``cmd:`` entry's command line
    cannot be run: no command, an unknown placeholder, or ``{host}``/``{port}``
    in a sandboxed one (it has no network: it plays on its standard input and
    output)."""
    import shlex
    import string

    try:
        argv = shlex.split(spec[len(COMMAND_PREFIX):])
    except ValueError as exc:
        raise ValueError(f"cannot split the command line: {exc}") from None
    if not argv:
        raise ValueError("cmd: needs a command")
    names: set[str] = set()
    for arg in argv:
        try:
            names.update(f for _, f, _, _ in string.Formatter().parse(arg) if f is not None)
        except ValueError as exc:
            raise ValueError(f"bad placeholder in {arg!r}: {exc}") from None
    network = names & set(NETWORK_PLACEHOLDERS)
    if sandbox and network:
        raise ValueError(
            "a sandboxed entry has no network, so no {host} or {port}: its connection is "
            "its standard input and output (e.g. {python} -m kaitaku bot --stdio --table "
            "{table} --seat {seat} --key={key} ...); give --no-sandbox to run a trusted "
            "program that connects to {host}:{port}")
    unknown = names - set(PLACEHOLDERS) - set(NETWORK_PLACEHOLDERS)
    if unknown:
        raise ValueError(f"unknown placeholder(s) {', '.join(sorted(unknown))}: a command "
                         f"may use {{{'}, {'.join(PLACEHOLDERS + NETWORK_PLACEHOLDERS)}}}")


class _Watched(TimedBot):
    """An in-process bot in a networked game: timed, every hook passed on, and
    its first error kept (the bot SDK would otherwise play a fallback action
    and carry on)."""

    on_events = _on_events
    propose = _propose
    act_early = _act_early

    def __init__(self, bot: Bot, times: list[float], errors: list[tuple[int, BaseException]],
                 seat: int) -> None:
        super().__init__(bot, times, math.inf)
        self.errors = errors
        self.seat = seat

    def act(self, view: Any, legal: Any) -> Any:
        try:
            return super().act(view, legal)
        except Exception as exc:
            self.errors.append((self.seat, exc))
            raise


def _play_networked(task: GameTask, settings: Settings, times: list[list[float]],
                    state: list[GameState], logs: list[dict[str, Any]]
                    ) -> tuple[GameState, list[int], list[int]]:
    """Play a game with external-command entries on a private server; return
    the final state, the clock timeouts per seat and the seats that forfeited.

    The server seats a table with the game's seed; every entry gets its own
    connection, one end of a socket pair: the in-process entries play through
    the bot SDK, and each command is started with ``{table}``, ``{seat}``,
    ``{key}``, ``{python}`` (this interpreter) and ``{bot_seed}`` (the seed an
    in-process bot in that seat would get) filled in. A sandboxed command has
    its connection on its standard input and output (``kaitaku bot --stdio``);
    an unsandboxed one (``--no-sandbox``) also gets ``{host}`` and ``{port}``
    of the private server's loopback port, e.g. ``cmd:kaitaku bot --connect
    {host}:{port} --table {table} --seat {seat} --key={key}``."""
    import asyncio

    coro = _networked(task, settings, times, state, logs)
    if task.timeout > 0:
        async def bounded() -> tuple[GameState, list[int], list[int]]:
            try:
                return await asyncio.wait_for(coro, task.timeout)
            except TimeoutError:
                raise GameTimeout("the game ran past its time limit") from None
        return asyncio.run(bounded())
    return asyncio.run(coro)


async def _pair() -> tuple[Any, Any, Any]:
    """A socket pair: (our reader, our writer, their socket)."""
    import asyncio
    import socket

    ours, theirs = socket.socketpair()
    reader, writer = await asyncio.open_connection(sock=ours)
    return reader, writer, theirs


async def _networked(task: GameTask, settings: Settings, times: list[list[float]],
                     state: list[GameState], logs: list[dict[str, Any]]
                     ) -> tuple[GameState, list[int], list[int]]:
    """See :func:`_play_networked`; ``logs`` gets each seat's reason for losing
    it and the end of its standard error, whatever happens."""
    import asyncio
    import contextlib
    import shlex

    from bots.client import run_bot_stream
    from protocol.rules import Phase
    from server.app import Server
    from server.session import Session
    from server.table import Table

    from .sandbox import Sandbox

    srv = Server("127.0.0.1", 0, name="kaitaku-league", spawn_bots=False)
    serving: asyncio.Future[Any] | None = None
    if not task.sandbox:  # only unsandboxed commands connect to a port
        await srv.start()
        serving = asyncio.ensure_future(srv.serve_forever())
    table: Table[Session] = Table(f"league-{task.index}", f"league game {task.index}",
                                  settings, "league", 0, seed=task.seed, clock=task.clock,
                                  reveal=task.reveal, reveal_at_end=task.reveal_at_end)
    table.record_decisions = True  # the cmd: entries' decision times, measured here
    table.stand_in_pace = 0.0
    srv.attach_table(table)  # a table with the league's seed (the protocol cannot choose one)
    keys = {i: key for i, _, key in table.reserve_bots(["league"] * settings.players)}
    errors: list[tuple[int, BaseException]] = []
    clients: dict[int, asyncio.Task[Any]] = {}
    procs: dict[int, Any] = {}
    boxes: dict[int, Sandbox] = {}
    gone: set[int] = set()  # seats whose program or bot failed (under a clock: forfeited)
    try:
        for q, spec in enumerate(task.specs):
            if is_command(spec):
                fields: dict[str, Any] = {"table": table.id, "python": sys.executable,
                                          "bot_seed": task.bot_seed(q), "seat": q,
                                          "key": keys[q]}
                if not task.sandbox:
                    fields.update(host="127.0.0.1", port=srv.port)
                argv = [a.format(**fields) for a in shlex.split(spec[len(COMMAND_PREFIX):])]
                if task.sandbox:
                    reader, writer, theirs = await _pair()
                    box = Sandbox(task.limits)
                    boxes[q] = box
                    try:
                        procs[q] = await box.start(argv, theirs.fileno())
                    finally:
                        theirs.close()
                    srv.adopt(reader, writer)
                else:
                    procs[q] = await asyncio.create_subprocess_exec(
                        *argv, stdin=asyncio.subprocess.DEVNULL,
                        stdout=asyncio.subprocess.DEVNULL, stderr=asyncio.subprocess.PIPE)
            else:
                bot = _Watched(make_bot(spec, task.bot_seed(q)), times[q], errors, q)
                reader, writer, theirs = await _pair()
                srv.adopt(*await asyncio.open_connection(sock=theirs))
                clients[q] = asyncio.ensure_future(run_bot_stream(
                    bot, reader, writer, name=f"seat{q}", table=table.id, seat=q,
                    key=keys[q]))

        async def failed(q: int, why: str) -> None:
            """Seat ``q``'s entry failed: under a clock it forfeits, else (or before
            the game has started: a seat that never joined cannot be played on)
            the game fails."""
            if task.clock is None or table.status == "waiting":
                raise RuntimeError(why)
            if q not in gone:
                gone.add(q)
                logs[q]["why"] = clean_text(why, 500)
                table.submit("forfeit", (q, why[:300]))

        while table.game is None or table.game.phase != Phase.GAME_OVER.value:
            if table.game is not None and not state:
                state.append(table.game)
            for q, exc in errors:
                await failed(q, f"{type(exc).__name__}: {exc}")
            for q, p in procs.items():
                if p.returncode is not None and q not in gone:
                    owner = boxes.get(q)
                    if owner is not None:
                        err = owner.stderr_tail()
                    elif p.stderr is not None:
                        err = (await p.stderr.read()).decode(errors="replace")
                    else:
                        err = ""
                    await failed(q, f"the command for seat {q} exited with {p.returncode} "
                                    f"before the game ended: {clean_text(err[-300:])}")
            for q, c in clients.items():
                crash = c.exception() if c.done() else None
                if crash is not None and q not in gone:
                    if task.clock is None:
                        raise crash
                    await failed(q, f"{type(crash).__name__}: {crash}")
            await asyncio.sleep(0.005)
        game = table.game
        rejected = 0
        for q, c in clients.items():
            with contextlib.suppress(Exception):
                outcome = await asyncio.wait_for(asyncio.shield(c), 5)
                if not table.seats[q].forfeited:
                    rejected += outcome.rejected
        if rejected and task.clock is None:
            from bots import IllegalBotAction

            raise IllegalBotAction(f"the server rejected {rejected} action(s) of an "
                                   "in-process entry")
        for q, spec in enumerate(task.specs):
            if is_command(spec):
                times[q][:] = table.seats[q].decisions  # measured by the server
        timeouts = ([seat.clock.timeouts if seat.clock is not None else 0
                     for seat in table.seats] if task.clock is not None else [])
        forfeits = [q for q, seat in enumerate(table.seats) if seat.forfeited]
        for q in forfeits:
            if logs[q]["why"] is None:  # the server's clock took the seat
                logs[q]["why"] = (f"{timeouts[q]} timeouts or illegal actions" if timeouts
                                  else "disconnected")
        return game, timeouts, forfeits
    finally:
        for c in clients.values():
            c.cancel()
        for q, box in boxes.items():
            logs[q]["stderr"] = clean_stderr(box.stderr_tail(STDERR_TAIL))
            await box.stop()
        for p in procs.values():
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
        if serving is not None:
            serving.cancel()
            with contextlib.suppress(BaseException):
                await serving


def play_tasks(tasks: list[GameTask]) -> list[GameOutcome]:
    """A chunk of games (one executor job: cheap games are batched)."""
    return [play_task(t) for t in tasks]
