"""A canned mid-game table for the screenshot, the frame benchmark and tests.

Seeded heuristic bots play a real game with the engine until seat 0's turn
in the main phase of a chosen turn; every message the server would have
sent to seat 0 (events redacted for it, its view, its legal actions) is fed
to a :class:`ClientModel`, so the model holds exactly what a client at that
seat would know. The engine and the bots are deterministic: the same seed
gives the same table every time.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from bots.heuristic import HeuristicBot
from bots.local import LazyView
from protocol.rules import (
    Event,
    GameState,
    Phase,
    Settings,
    apply,
    legal_actions,
    new_game,
    observe,
    to_act,
)
from protocol.rules.chance import CommittedChance, new_committed_game

from .model import ClientModel

NAMES = ("Aiko", "Ben", "Chie", "Dan", "Emi", "Finn")
CHAT = {
    "en": [(1, "anyone have ore? I can give wool"), (0, "maybe next turn :)"),
           (3, "gg so far"), (1, "that robber again...")],
    "ja": [(1, "鉱石ある人いる？羊毛出せます"), (0, "次のターンならいいよ"),
           (3, "いい勝負だね"), (1, "また盗賊かぁ…")],
}


def canned_model(seat: int | None = 0, *, players: int = 4, seed: int = 11, turn: int = 40,
                 lang: str = "en", settings: dict[str, Any] | None = None) -> ClientModel:
    """A model at ``seat`` (None: a spectator) in the main phase of seat 0's turn
    at or after ``turn`` (with 5 or 6 players: seat 0 building in a special
    building phase); the log, dice histogram and a little chat included."""

    def mid_game(s: GameState) -> bool:
        if s.phase == Phase.GAME_OVER:
            return True
        if players >= 5:  # seat 0 may build in the special building phase (R-56-8)
            if s.current == 0 and s.phase == Phase.SPECIAL_BUILD and s.turn >= turn:
                names = {a.name for a in legal_actions(s, 0)}
                return "build_road" in names or s.turn >= turn + 40
            return False
        if s.current == 0 and s.phase == Phase.MAIN and s.turn >= turn:
            names = {a.name for a in legal_actions(s, 0)}
            return "build_settlement" in names or "build_road" in names or s.turn >= turn + 40
        return False

    s, history = play_until(mid_game, players=players, seed=seed, settings=settings,
                            max_steps=1 << 30)
    m = model_from_state(s, seat, history, table="canned", session="canned",
                         kinds=["bot" if q >= 2 else "human" for q in range(players)])
    for q, text in CHAT.get(lang, CHAT["en"]):
        if q < players:
            m.apply({"type": "chat", "table": "canned", "seat": q, "name": NAMES[q], "text": text})
    return m


def play_until(pred: Callable[[GameState], bool], *, players: int = 4, seed: int = 1,
               settings: dict[str, Any] | None = None, max_steps: int = 20000,
               secret: bytes | None = None) -> tuple[GameState, list[list[Event]]]:
    """Heuristic bots play a game until ``pred(state)`` holds (checked before every
    decision); returns the state and the event batches so far. ``secret``: the
    game's chance is committed (:mod:`protocol.rules.chance`)."""
    st = Settings.from_dict({"players": players, **(settings or {})})
    chance = None
    if secret is not None:
        s = new_committed_game(st, secret)
        chance = CommittedChance(secret, st)
    else:
        s = new_game(st, seed)
    bots = [HeuristicBot(seed * 10 + q) for q in range(players)]
    history: list[list[Event]] = []
    for _ in range(max_steps):
        if pred(s):
            return s, history
        if s.phase == Phase.GAME_OVER:
            break
        q = to_act(s)[0]
        action = bots[q].act(LazyView(s, q), legal_actions(s, q))
        history.append(apply(s, action, q, chance(s, q, action) if chance else None))
    raise RuntimeError("the condition never held")


def model_from_state(s: GameState, seat: int | None,
                     history: list[list[Event]] | None = None, *, table: str = "t",
                     session: str = "test", kinds: list[str] | None = None,
                     chance: dict[str, Any] | None = None,
                     start: GameState | None = None) -> ClientModel:
    """The model of a client at ``seat`` that received ``history`` and the state's
    current view and legal actions (what the server would have sent it);
    ``kinds``: human or bot per seat (default: all human); ``chance``: the
    commitment the game started with; ``start``: the game as it began (its view
    was sent first)."""
    players = s.settings.players
    kinds = kinds or ["human"] * players
    m = ClientModel()
    m.apply({"type": "welcome", "server": "kaitaku", "session": session})
    m.apply({"type": "joined", "table": table, "seat": seat, "settings": s.settings.to_dict()})
    m.apply({"type": "table", "table": table, "status": "playing", "seats": [
        {"name": NAMES[q], "kind": kinds[q], "connected": True, "auto": False}
        for q in range(players)]})
    m.apply({"type": "game_started", "table": table,
             **({"chance": chance} if chance is not None else {})})
    if start is not None:
        m.apply({"type": "view", "version": 0, "view": observe(start, seat)})
    version = 0
    for batch in history or []:
        version += 1
        m.apply({"type": "events", "version": version,
                 "events": [e.for_seat(seat).to_dict() for e in batch]})
    m.apply({"type": "view", "version": version, "view": observe(s, seat)})
    if seat is not None and seat in to_act(s):
        m.apply({"type": "legal", "version": version,
                 "actions": [a.to_dict() for a in legal_actions(s, seat)]})
    return m
