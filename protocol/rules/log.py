"""The game's action log and exact replay.

A log is the game's header (settings, seed, board, starting seat) plus one
entry per accepted action: ``(seat, action, outcome)``, where ``outcome``
records what chance decided (dice, the development card drawn, the card
stolen; None for actions without chance). Replaying feeds the recorded
outcomes back, so a log replays to the same state on any Python version even
if the generator changed.

Plain form (msgpack-able), also documented in ``docs/ENGINE.md``::

    {"settings": {...}, "seed": int, "board": {...}, "first_seat": int,
     "steps": [[seat, {action}, [outcome...] or nil], ...],
     "chance": {"scheme": str, "commitment": hex, "salt": hex, "secret": hex}}

``chance`` is there only for a committed game (:mod:`protocol.rules.chance`):
its commitment, and once revealed its salt and secret.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from .board import Board
from .engine import apply, new_game
from .errors import InvalidLog, RulesError
from .state import GameState, LogEntry, Settings, entry_from_dict, entry_to_dict


@dataclass(frozen=True, slots=True)
class GameLog:
    settings: Settings
    seed: int
    board: Board
    first_seat: int
    steps: tuple[LogEntry, ...]
    chance: dict[str, str] | None = None
    """A committed game's commitment (and once revealed, salt and secret), as
    hex strings; None for a game of the engine's own generator."""

    @classmethod
    def of(cls, s: GameState) -> GameLog:
        """The log of a game (which must have been created with a log)."""
        if s.log is None:
            raise RulesError("this state keeps no log (a copy?)", "no_log")
        return cls(s.settings, s.seed, s.board, s.first_seat, tuple(s.log))

    def to_dict(self) -> dict[str, Any]:
        d: dict[str, Any] = {
            "settings": self.settings.to_dict(),
            "seed": self.seed,
            "board": self.board.to_dict(),
            "first_seat": self.first_seat,
            "steps": [entry_to_dict(e) for e in self.steps],
        }
        if self.chance is not None:
            d["chance"] = dict(self.chance)
        return d

    @classmethod
    def from_dict(cls, d: dict[str, Any]) -> GameLog:
        try:
            return cls(
                Settings.from_dict(d["settings"]),
                int(d["seed"]),
                Board.from_dict(d["board"]),
                int(d["first_seat"]),
                tuple(entry_from_dict(e) for e in d["steps"]),
                _chance(d.get("chance")),
            )
        except (KeyError, TypeError, ValueError) as exc:
            raise InvalidLog(f"bad game log: {exc}") from exc


def _chance(d: Any) -> dict[str, str] | None:
    if d is None:
        return None
    if not isinstance(d, dict) or len(d) > 8:
        raise ValueError("chance is a map")
    out = {}
    for k in ("scheme", "commitment", "salt", "secret"):
        v = d.get(k)
        if v is None:
            continue
        if not isinstance(v, str) or len(v) > 200:
            raise ValueError(f"chance.{k} is a short string")
        out[k] = v
    return out


def replay(log: GameLog, upto: int | None = None) -> GameState:
    """Rebuild the game from its log (the first ``upto`` steps, or all)."""
    s = new_game(log.settings, log.seed, board=log.board, first_seat=log.first_seat)
    steps = log.steps if upto is None else log.steps[:upto]
    for i, (seat, action, outcome) in enumerate(steps):
        try:
            apply(s, action, seat, outcome)
        except RulesError as exc:
            raise InvalidLog(f"step {i} ({action.name} by seat {seat}) does not replay: "
                             f"{exc}") from exc
    return s
