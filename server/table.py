"""A table: its seats, its game, and the one task that changes them.

Everything that touches a table's state goes through :meth:`Table.submit`
into the table's queue and is handled by :meth:`Table.run`, one command at a
time, so a game is only ever changed by one task. After every accepted
action the table fans the events out: each recipient gets them redacted for
its seat (spectators: public only), human clients and spectators also get
their fresh view, and every seat that owes a decision gets its view and
legal actions.
"""

from __future__ import annotations

import asyncio
import logging
import secrets
from collections import OrderedDict
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from protocol.rules import (
    GameState,
    Phase,
    RulesError,
    Settings,
    action_from_dict,
    apply,
    legal_actions,
    new_game,
    observe,
    to_act,
)

if TYPE_CHECKING:
    from .session import Session

log = logging.getLogger("kaitaku.table")

SEQ_MEMORY = 64
"""How many recent action results per seat are kept to answer repeats."""
MAX_LEGAL = 1000
"""Most actions listed in one ``legal`` message (only huge discards have more)."""


def legal_message(game: GameState, seat: int, version: int) -> dict[str, Any]:
    """The ``legal`` message for ``seat``. A discard (or give-back) from a huge
    hand has more choices than fit: then an even spread of them is listed,
    with ``truncated`` and the number of cards owed."""
    actions = legal_actions(game, seat)
    msg: dict[str, Any] = {"type": "legal", "version": version}
    if len(actions) > MAX_LEGAL:
        step = len(actions) / MAX_LEGAL
        actions = [actions[int(i * step)] for i in range(MAX_LEGAL)]
        msg["truncated"] = True
        msg["discard"] = (game.discard_owed[seat] if game.phase == Phase.DISCARD
                          else game.give_back)
    msg["actions"] = [a.to_dict() for a in actions]
    return msg


@dataclass
class Seat:
    kind: str = "empty"  # empty, human, bot
    name: str = ""
    session: Session | None = None
    bot_kind: str | None = None
    bot_key: str | None = None  # a bot seat is joined with this key only
    last_seq: int = -1
    results: OrderedDict[int, dict[str, Any]] = field(default_factory=OrderedDict)

    def summary(self) -> dict[str, Any]:
        return {
            "name": self.name or None,
            "kind": self.kind,
            "connected": self.session is not None,
        }


class Table:
    """One game table. Create with :meth:`Server.create_table`."""

    def __init__(self, table_id: str, name: str, settings: Settings, creator: str,
                 turn_timer: int = 0, seed: int | None = None) -> None:
        self.id = table_id
        self.name = name
        self.settings = settings
        self.creator = creator
        self.turn_timer = turn_timer
        self.seed = seed if seed is not None else secrets.randbits(63)
        self.seats = [Seat() for _ in range(settings.players)]
        self.spectators: set[Session] = set()
        self.game: GameState | None = None
        self.version = 0
        self.status = "waiting"
        self.queue: asyncio.Queue[tuple[str, Any]] = asyncio.Queue()
        self.task: asyncio.Task[None] | None = None
        self.on_bots_needed: Any = None  # set by the server: callback(table, seats)

    # -- summaries ----------------------------------------------------------------

    def summary(self) -> dict[str, Any]:
        return {
            "id": self.id,
            "name": self.name,
            "settings": self.settings.to_dict(),
            "seats": [s.summary() for s in self.seats],
            "status": self.status,
            "spectators": len(self.spectators),
        }

    def members(self) -> list[tuple[Session, int | None]]:
        out: list[tuple[Session, int | None]] = [
            (s.session, i) for i, s in enumerate(self.seats) if s.session is not None
        ]
        out.extend((sp, None) for sp in self.spectators)
        return out

    def broadcast_table(self) -> None:
        msg = {"type": "table", "table": self.id,
               "seats": [s.summary() for s in self.seats], "status": self.status}
        for sess, _ in self.members():
            sess.send(msg)

    # -- the table task -------------------------------------------------------------

    def submit(self, kind: str, payload: Any) -> None:
        self.queue.put_nowait((kind, payload))

    async def run(self) -> None:
        while True:
            kind, payload = await self.queue.get()
            if kind == "stop":
                return
            try:
                self._handle(kind, payload)
            except Exception:  # one bad command must not kill the table
                log.exception("table %s: %s failed", self.id, kind)
                if kind == "action":
                    seat, msg = payload
                    self._reply(seat, self.seats[seat].session, {
                        "type": "result", "seq": msg["seq"], "ok": False,
                        "code": "internal_error",
                        "message": "the server failed; the action was not applied"})

    def _handle(self, kind: str, payload: Any) -> None:
        if kind == "action":
            seat, msg = payload
            self._action(seat, msg)
        elif kind == "start":
            self._maybe_start(force=True)
        elif kind == "seated":
            self._maybe_start(force=False)
        elif kind == "resync":
            sess, seat = payload
            self._send_state(sess, seat)

    # -- seats ----------------------------------------------------------------------

    def free_seat(self, wanted: int | None, session: Session, key: str | None) -> int | None:
        """Seat ``session`` (at ``wanted`` or the first free human seat)."""
        if wanted is not None:
            if not 0 <= wanted < len(self.seats):
                return None
            candidates = [wanted]
        else:
            candidates = list(range(len(self.seats)))
        for i in candidates:
            seat = self.seats[i]
            if seat.session is not None:
                continue
            if seat.kind == "bot" and seat.bot_key is not None and key != seat.bot_key:
                continue
            if seat.kind == "human" and self.status != "waiting":
                continue  # a human seat in a game is reclaimed by its resume token
            if seat.kind == "empty" and key is not None:
                continue
            if seat.kind == "empty" and self.status != "waiting":
                continue
            return i
        return None

    def take_seat(self, i: int, session: Session) -> None:
        seat = self.seats[i]
        seat.session = session
        seat.name = session.name
        if seat.kind == "empty":
            seat.kind = "bot" if session.role == "bot" else "human"
        log.info("table %s: seat %d taken by %s (%s)", self.id, i, session.name, seat.kind)

    def reserve_bots(self, kinds: list[str]) -> list[tuple[int, str, str]]:
        """Mark empty seats (from the last) as bot seats; return (seat, kind, key)."""
        out = []
        empties = [i for i, s in enumerate(self.seats) if s.kind == "empty"]
        for i, kind in zip(reversed(empties), kinds, strict=False):
            seat = self.seats[i]
            seat.kind = "bot"
            seat.bot_kind = kind
            seat.bot_key = secrets.token_urlsafe(16)
            seat.name = f"{kind}-bot"
            out.append((i, kind, seat.bot_key))
        return out

    def vacate(self, session: Session) -> int | None:
        """``session`` left or dropped; return its seat (kept for a resume)."""
        self.spectators.discard(session)
        for i, seat in enumerate(self.seats):
            if seat.session is session:
                seat.session = None
                if self.status == "waiting" and seat.kind == "human":
                    seat.kind = "empty"
                    seat.name = ""
                return i
        return None

    # -- the game -------------------------------------------------------------------

    def _maybe_start(self, force: bool) -> None:
        if self.status != "waiting":
            return
        if force:
            empties = [i for i, s in enumerate(self.seats) if s.kind == "empty"]
            if empties and self.on_bots_needed is not None:
                spawn = self.reserve_bots(["random"] * len(empties))
                self.on_bots_needed(self, spawn)
                self.broadcast_table()
                return  # the game starts once they are seated
        if not all(s.session is not None for s in self.seats):
            self.broadcast_table()
            return
        self.game = new_game(self.settings, self.seed)
        self.status = "playing"
        self.version = 0
        log.info("table %s: game started (%s)", self.id, self.settings.to_dict())
        self.broadcast_table()
        for sess, seat in self.members():
            sess.send({"type": "game_started", "table": self.id})
            self._send_state(sess, seat)

    def _send_state(self, sess: Session, seat: int | None) -> None:
        """Full view, then the legal actions if this seat owes a decision."""
        if self.game is None:
            return
        sess.send({"type": "view", "version": self.version, "view": observe(self.game, seat)})
        if seat is not None:
            sess.send(legal_message(self.game, seat, self.version))

    def _reply(self, seat: int, sess: Session | None, result: dict[str, Any]) -> None:
        s = self.seats[seat]
        s.results[result["seq"]] = result
        while len(s.results) > SEQ_MEMORY:
            s.results.popitem(last=False)
        if sess is not None:
            sess.send(result)

    def _action(self, seat: int, msg: dict[str, Any]) -> None:
        s = self.seats[seat]
        sess = s.session
        seq = msg["seq"]
        if seq <= s.last_seq:
            cached = s.results.get(seq)
            if sess is not None:
                sess.send(cached if cached is not None else {
                    "type": "result", "seq": seq, "ok": False, "code": "stale_seq",
                    "message": f"sequence number {seq} was already used"})
            return
        s.last_seq = seq
        game = self.game
        if game is None or self.status != "playing":
            if self.status == "finished":
                self._reply(seat, sess, {"type": "result", "seq": seq, "ok": False,
                                         "code": "game_over", "message": "the game is over"})
            else:
                self._reply(seat, sess, {"type": "result", "seq": seq, "ok": False,
                                         "code": "game_not_started",
                                         "message": "the game has not started"})
            return
        try:
            action = action_from_dict(msg["action"])
            events = apply(game, action, seat)
        except RulesError as exc:
            self._reply(seat, sess, {"type": "result", "seq": seq, "ok": False,
                                     "code": exc.code, "message": str(exc)})
            return
        self.version += 1
        if log.isEnabledFor(logging.INFO):
            log.info("table %s v%d: seat %d %s", self.id, self.version, seat, action.to_dict())
        self._reply(seat, sess, {"type": "result", "seq": seq, "ok": True})
        self._fan_out(events)

    def _fan_out(self, events: list[Any]) -> None:
        game = self.game
        assert game is not None
        deciding = set(to_act(game))
        if game.phase == Phase.TRADE and game.current not in deciding:
            deciding.add(game.current)  # the offerer may confirm or cancel at any time
        over = game.phase == Phase.GAME_OVER
        for sess, seat in self.members():
            sess.send({"type": "events", "version": self.version,
                       "events": [e.for_seat(seat).to_dict() for e in events]})
            if sess.role != "bot" or (seat is not None and seat in deciding):
                sess.send({"type": "view", "version": self.version,
                           "view": observe(game, seat)})
            if seat is not None and (seat in deciding or over):
                sess.send(legal_message(game, seat, self.version))
        if over:
            self.status = "finished"
            scores = [game.total_vp(q) for q in range(game.settings.players)]
            winner = None if game.winner < 0 else game.winner
            log.info("table %s: game over, winner %s, scores %s", self.id, winner, scores)
            for sess, _ in self.members():
                sess.send({"type": "game_over", "winner": winner, "scores": scores})
            self.broadcast_table()
