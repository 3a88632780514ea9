"""A finished game, replayed for the replay viewer: every step's events and the
full-information view at any step.

:class:`Replay` replays a :class:`protocol.rules.GameLog` once with the rules
engine (so a log that does not replay is refused with
:class:`protocol.rules.InvalidLog` before anything is shown), keeping each
step's events (unredacted: the game is over, every seat's cards may be
shown) and a copy of the state every :data:`SNAPSHOT_EVERY` steps, so any
step is reached by a few applies. :meth:`Replay.messages` gives the
messages a client would have received up to a step, which is how the viewer
fills its :class:`client.model.ClientModel` (so the table, the log, the dice
and the statistics show exactly as they did in the game).

No pygame here.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from typing import Any

from protocol.rules import (
    GameLog,
    GameState,
    InvalidLog,
    Phase,
    RulesError,
    apply,
    new_game,
    observe,
)
from protocol.rules.chance import Verdict, verify

SNAPSHOT_EVERY = 50
MAX_STEPS = 100_000
"""A log longer than this is refused (a real game has about a thousand)."""

Message = dict[str, Any]


@dataclass(frozen=True)
class ReplayInfo:
    """What the viewer shows about the game besides its log."""

    title: str  # e.g. "league game 12" or the table's name
    names: tuple[str, ...]  # per seat
    kinds: tuple[str, ...] = ()  # "human" / "bot" per seat (default: human)


class Replay:
    """See the module docstring."""

    def __init__(self, log: GameLog, info: ReplayInfo) -> None:
        if len(log.steps) > MAX_STEPS:
            raise InvalidLog(f"the log has {len(log.steps)} steps (at most {MAX_STEPS})")
        self.log = log
        self.info = info
        self.players = log.settings.players
        s = self._start()
        self.snapshots: list[GameState] = [s.copy()]
        self.events: list[list[dict[str, Any]]] = []
        self.turns: list[int] = []  # the turn after each step
        for i, (seat, action, outcome) in enumerate(log.steps):
            try:
                batch = apply(s, action, seat, outcome)
            except RulesError as exc:
                raise InvalidLog(f"step {i} ({action.name} by seat {seat}) does not replay: "
                                 f"{exc}") from exc
            self.events.append([e.to_dict() for e in batch])
            self.turns.append(s.turn)
            if (i + 1) % SNAPSHOT_EVERY == 0:
                self.snapshots.append(s.copy())
        self.final = s
        self._verdict: Verdict | None = None

    @property
    def verdict(self) -> Verdict | None:
        """The game's chance checked against its revealed secret, every step
        (None: a game of the engine's own generator, or not revealed yet)."""
        chance = self.log.chance
        if chance is None or "secret" not in chance:
            return None
        if self._verdict is None:
            self._verdict = verify(self.log)
        return self._verdict

    def _start(self) -> GameState:
        log = self.log
        return new_game(log.settings, log.seed, board=log.board, first_seat=log.first_seat)

    @property
    def steps(self) -> int:
        return len(self.log.steps)

    def state_at(self, step: int) -> GameState:
        """The state after the first ``step`` steps."""
        step = max(0, min(self.steps, step))
        if step == self.steps:
            return self.final.copy()
        base = step // SNAPSHOT_EVERY
        s = self.snapshots[base].copy()
        for seat, action, outcome in self.log.steps[base * SNAPSHOT_EVERY:step]:
            apply(s, action, seat, outcome)
        return s

    def turn_at(self, step: int) -> int:
        return self.turns[step - 1] if 0 < step <= self.steps else 0

    def turn_starts(self) -> list[int]:
        """The step at which each turn starts (for seeking by turn)."""
        out = []
        last = None
        for i, turn in enumerate([0, *self.turns]):
            if turn != last:
                out.append(i)
                last = turn
        return out

    def hands(self, s: GameState) -> list[dict[str, Any]]:
        """Every seat's own view of its cards (``you`` of its view): the game is over."""
        out = []
        for q in range(self.players):
            you = observe(s, q).get("you") or {}
            out.append(you)
        return out

    def names(self) -> Sequence[str]:
        return self.info.names

    def messages(self, step: int, state: GameState | None = None) -> Iterator[Message]:
        """What a spectator's client would have received by ``step`` (the events in
        full): joined, table, game_started, the events batches, the view, and
        game_over at the end."""
        settings = self.log.settings.to_dict()
        kinds = self.info.kinds or ("human",) * self.players
        yield {"type": "welcome", "server": "replay", "session": "replay"}
        yield {"type": "joined", "table": "replay", "seat": None, "settings": settings}
        yield {"type": "table", "table": "replay", "status": "playing", "seats": [
            {"name": self.info.names[q] if q < len(self.info.names) else f"{q + 1}",
             "kind": kinds[q] if q < len(kinds) else "human", "connected": True, "auto": False}
            for q in range(self.players)]}
        started: Message = {"type": "game_started", "table": "replay"}
        if self.log.chance is not None:
            started["chance"] = {k: v for k, v in self.log.chance.items()
                                 if k in ("scheme", "commitment")}
        yield started
        for i in range(step):
            yield self.batch(i)
        yield from self.after(step, state)

    def batch(self, i: int) -> Message:
        """The events message of step ``i`` (its version is ``i + 1``)."""
        return {"type": "events", "version": i + 1, "events": self.events[i]}

    def after(self, step: int, state: GameState | None = None) -> Iterator[Message]:
        """The view at ``step`` (and game_over when the game ended there)."""
        s = state if state is not None else self.state_at(step)
        yield {"type": "view", "version": step, "view": observe(s, None)}
        if s.phase == Phase.GAME_OVER and step == self.steps:
            over = self.events[-1][-1] if self.events and self.events[-1] else {}
            scores = over.get("scores") if over.get("type") == "game_over" else None
            end: Message = {"type": "game_over", "winner": s.winner,
                            "scores": list(scores) if scores is not None else []}
            if self.log.chance is not None:
                end["chance"] = dict(self.log.chance)
            yield end
