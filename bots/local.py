"""Run bots in-process against the engine (fast local games, the engine benchmark).

Bots see exactly what they would see over the network: their seat's view and
their legal actions. The view is built lazily, on first use, because many
bots (the random bot) never read it.
"""

from __future__ import annotations

import asyncio
import inspect
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from protocol.rules import (
    Action,
    Event,
    GameState,
    Phase,
    RulesError,
    Settings,
    apply,
    legal_actions,
    may_propose,
    new_game,
    observe,
    redact,
    to_act,
)

from .base import Bot

_GAME_OVER = Phase.GAME_OVER.value
_TRADE = Phase.TRADE.value
_MAIN = Phase.MAIN.value


class LazyView(Mapping[str, Any]):
    """A seat's view, computed on first access. Valid during ``act()`` only."""

    __slots__ = ("_state", "_seat", "_data")

    def __init__(self, state: GameState, seat: int) -> None:
        self._state = state
        self._seat = seat
        self._data: dict[str, Any] | None = None

    def _load(self) -> dict[str, Any]:
        if self._data is None:
            self._data = observe(self._state, self._seat)
        return self._data

    def __getitem__(self, key: str) -> Any:
        return self._load()[key]

    def __iter__(self) -> Iterator[str]:
        return iter(self._load())

    def __len__(self) -> int:
        return len(self._load())


def _ask_early(s: GameState, bots: Sequence[Bot], early: list[int],
               loop: asyncio.AbstractEventLoop | None) -> tuple[int, Action] | None:
    """During a trade offer, once some seat accepted or countered, the offerer
    may confirm before everyone answered (as the server offers it ``legal``):
    its action, to be applied next, or None (it waits)."""
    t = s.trade
    if s.phase != _TRADE or t is None or s.current not in early:
        return None
    if not any(st in (1, 3) for st in t.status) or s.current in to_act(s):
        return None
    q = s.current
    action = bots[q].act_early(LazyView(s, q), legal_actions(s, q))
    if loop is not None and inspect.isawaitable(action):
        action = loop.run_until_complete(action)
    return None if action is None else (q, action)


def _ask_proposers(s: GameState, bots: Sequence[Bot], proposers: list[int], able: set[int],
                   loop: asyncio.AbstractEventLoop | None) -> tuple[int, Action] | None:
    """Ask the seats that have just become able to propose (``able``: those that
    could before, updated); the first proposal made, to be applied next."""
    now = {q for q in proposers if may_propose(s, q)} if s.phase == _MAIN else set()
    able.intersection_update(now)  # a seat that could not propose is asked again later
    for q in sorted(now - able):
        able.add(q)
        action = bots[q].propose(LazyView(s, q))
        if loop is not None and inspect.isawaitable(action):
            action = loop.run_until_complete(action)
        if action is not None:
            return q, action  # applied next; the seats not asked yet are asked after it
    return None


@dataclass(frozen=True, slots=True)
class GameResult:
    winner: int | None
    turns: int
    decisions: int
    scores: tuple[int, ...]
    state: GameState


StepHook = Callable[[GameState, int, Action, list[Event]], None]
ChanceSource = Callable[[GameState, int, Action], "tuple[int, ...] | None"]
"""Gives the chance outcome of an action before it is applied (``apply``'s
``chance``), e.g. a duplicate match's decision-independent streams."""


class IllegalBotAction(RuntimeError):
    """A bot chose an action the engine refused."""


IllegalHook = Callable[[int, Action, Sequence[Action], RulesError], "Action | None"]
"""Called with (seat, the refused action, the seat's legal actions, the error):
the action to play instead, or None to stop the game with :class:`IllegalBotAction`."""


def play_game(
    bots: Sequence[Bot],
    settings: Settings | None = None,
    seed: int = 0,
    *,
    on_step: StepHook | None = None,
    keep_log: bool = True,
    chance: ChanceSource | None = None,
    on_illegal: IllegalHook | None = None,
) -> GameResult:
    """Play one game to the end; ``bots[i]`` plays seat ``i``. ``chance`` gives
    the outcome of each action that draws chance (default: the game's RNG).
    A bot's illegal decision stops the game with :class:`IllegalBotAction`
    unless ``on_illegal`` gives an action to play instead (a refused proposal
    is then simply dropped, as a server drops it)."""
    settings = settings or Settings(players=len(bots))
    if len(bots) != settings.players:
        raise ValueError(f"{settings.players} seats need {settings.players} bots")
    s = new_game(settings, seed)
    if not keep_log:
        s.log = None
    listeners = [
        (q, b) for q, b in enumerate(bots) if type(b).on_events is not Bot.on_events
    ]
    # Bots that may propose trades to the current player (R-TRADE-2) are asked
    # when their seat becomes able to, as a network bot is (legal.propose).
    proposers = [q for q, b in enumerate(bots) if type(b).propose is not Bot.propose]
    # An offerer may confirm the first acceptable answer before all have answered.
    early = [q for q, b in enumerate(bots) if type(b).act_early is not Bot.act_early]
    able: set[int] = set()
    decisions = 0
    acts = [b.act for b in bots]
    loop: asyncio.AbstractEventLoop | None = None
    if any(inspect.iscoroutinefunction(a) for a in (*acts, *(bots[q].propose
                                                             for q in proposers))):
        loop = asyncio.new_event_loop()  # async bots run in-process too

    unprompted: tuple[int, Action] | None = None  # a proposal or an early confirm
    while s.phase != _GAME_OVER:
        proposed = unprompted is not None
        if unprompted is not None:
            seat, action = unprompted
            unprompted = None
        else:
            seat = to_act(s)[0]
            legal = legal_actions(s, seat)
            action = acts[seat](LazyView(s, seat), legal)
            if loop is not None and inspect.isawaitable(action):
                action = loop.run_until_complete(action)
        try:
            events = apply(s, action, seat,
                           None if chance is None else chance(s, seat, action))
        except RulesError as exc:
            instead = None
            if on_illegal is not None:
                if proposed:
                    continue  # a refused proposal (or early confirm): nothing happens
                instead = on_illegal(seat, action, legal, exc)
            if instead is None:
                raise IllegalBotAction(
                    f"bot {bots[seat].name} (seat {seat}) chose {action!r}: {exc}"
                ) from exc
            action = instead
            events = apply(s, action, seat,
                           None if chance is None else chance(s, seat, action))
        decisions += 1
        if on_step is not None:
            on_step(s, seat, action, events)
        if listeners:
            for q, b in listeners:
                b.on_events(q, redact(events, q))
        if early:
            unprompted = _ask_early(s, bots, early, loop)
        if proposers and unprompted is None:
            unprompted = _ask_proposers(s, bots, proposers, able, loop)
    for q, b in enumerate(bots):
        b.on_game_over(observe(s, q))
    return GameResult(
        s.winner,
        s.turn,
        decisions,
        tuple(s.total_vp(q) for q in range(settings.players)),
        s,
    )
