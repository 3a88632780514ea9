"""What the client knows: exactly what the server sent, nothing more.

:class:`ClientModel` is plain data updated by :meth:`ClientModel.apply` from
server messages (and from the network layer's ``_status`` notices). It has
no pygame and no sockets, so it is tested directly. Scenes only read it.
"""

from __future__ import annotations

import time
from collections import deque
from dataclasses import dataclass, field, fields
from typing import Any

from protocol.rules import Action, RulesError, action_from_dict
from protocol.rules.chance import Verdict
from protocol.wire import TRADE_REASONS
from protocol.wire.witness import ChanceWitness

from .stats import GameStats

Message = dict[str, Any]

_ANSWERS = ("trade_answered", "trade_countered", "proposal_rejected", "trade_completed")
"""The events of a trade answer (an accepted proposal completes the trade at once)."""

#: connection states shown to the user
CONNECTING, ONLINE, RECONNECTING, OFFLINE = "connecting", "online", "reconnecting", "offline"


@dataclass
class ClientModel:
    # connection
    connection: str = CONNECTING
    connection_detail: str = ""  # e.g. the last error, or "attempt 3: connection refused"
    connection_why: str = ""  # the kind of the last failure (client.net.error_kind)
    attempt: int = 0  # reconnection attempt (with RECONNECTING)
    server_name: str | None = None
    session: str | None = None
    # lobby
    tables: list[dict[str, Any]] = field(default_factory=list)
    # the table we are at
    table: str | None = None
    seat: int | None = None  # None: spectating (or not at a table)
    settings: dict[str, Any] | None = None
    table_seats: list[dict[str, Any]] = field(default_factory=list)  # name, kind, connected, auto
    table_status: str | None = None  # waiting, playing, finished
    can_start: bool | None = None  # may we start our waiting table (None: not said)
    paused: str | None = None  # why the table refuses actions now (the server says)
    # the game
    view: dict[str, Any] | None = None
    version: int = 0
    legal: list[Action] = field(default_factory=list)
    legal_version: int = -1
    legal_truncated: bool = False
    discard_count: int | None = None  # with legal_truncated: cards to discard/give back
    legal_at: float = 0.0  # time.monotonic() when the legal list arrived
    timer_ms: int | None = None  # the decision's time limit, when the table has a timer
    events: deque[Message] = field(default_factory=lambda: deque(maxlen=500))
    dice: list[int] = field(default_factory=lambda: [0] * 13)  # histogram of rolls 2..12
    stats: GameStats = field(default_factory=GameStats)  # folded from every events batch
    chat: deque[Message] = field(default_factory=lambda: deque(maxlen=200))
    _past_chat: bool = False  # joined: the table's past lines (chat.past) come next
    game_over: Message | None = None
    on_turn: int | None = None  # the seat on turn, as the events tell it
    trade_reasons: dict[int, str] = field(default_factory=dict)  # the open offer's answers
    # committed chance: what this window can check itself (protocol.wire.witness)
    chance: ChanceWitness = field(default_factory=ChanceWitness)
    errors: deque[tuple[str, str]] = field(default_factory=lambda: deque(maxlen=20))
    error_count: int = 0  # errors ever added (the deque is bounded): new ones are the last
    #                       ``error_count - seen`` entries
    rejected: Message | None = None  # the last rejected action's result
    results: int = 0  # result messages received so far (answers come in sending order)
    changes: int = 0  # bumped on every apply (for caches)

    def apply(self, msg: Message) -> None:
        """Take one message from the server (or a ``_status`` from the network layer)."""
        self.changes += 1
        kind = msg.get("type")
        if kind == "_status":
            self.connection = msg["state"]
            self.connection_detail = msg.get("detail", "")
            self.connection_why = msg.get("why", "")
            self.attempt = msg.get("attempt", 0)
            if self.connection == OFFLINE:
                self._leave()  # the session is gone (the network layer gave up)
        elif kind == "welcome":
            self.connection = ONLINE
            self.connection_detail = ""
            self.server_name = msg.get("server")
            self.session = msg.get("session")
        elif kind == "tables":
            self.tables = list(msg["tables"])
        elif kind == "joined":
            if msg["table"] != self.table:
                self._reset_game()
            self.table = msg["table"]
            self.seat = msg.get("seat")
            self.settings = msg.get("settings")
            self._past_chat = True  # the table's past lines replace ours
        elif kind == "table":
            if msg["table"] == self.table:
                self.table_seats = list(msg["seats"])
                self.table_status = msg["status"]
                self.can_start = msg.get("can_start")
                paused = msg.get("paused")
                self.paused = paused if isinstance(paused, str) else None
        elif kind == "left":
            self._leave()
        elif kind == "announce":  # 1.4: the server's host speaks (shown as a notice)
            self._error("announce", msg["text"])
        elif kind == "table_closed":  # 1.4: the host closed the table; left follows
            self._error("table_closed_by_host", msg.get("reason") or "")
        elif kind == "game_started":
            self.table_status = "playing"
            if self.game_over is not None:  # a new game at this table
                self.chance = ChanceWitness()
            self.game_over = None
            self.chance.game_started(msg)
        elif kind == "view":
            self.chance.view(msg["view"])
            self.view = msg["view"]
            self.version = msg["version"]
            if self.legal_version < self.version:
                self.legal = []
        elif kind == "events":
            self.version = max(self.version, msg["version"])
            self.stats.feed(msg["version"], msg["events"], players=self.players())
            reason = msg.get("reason")
            self.chance.events(msg["events"])
            for event in msg["events"]:
                event = self._annotate(event, reason if reason in TRADE_REASONS else None)
                self.events.append(event)
                if event.get("type") == "dice_rolled":
                    total = sum(event["dice"])
                    if 2 <= total <= 12:
                        self.dice[total] += 1
        elif kind == "legal":
            try:
                self.legal = [action_from_dict(a) for a in msg["actions"]]
            except RulesError as exc:
                self.legal = []
                self._error("bad_message", str(exc))
            self.legal_version = msg["version"]
            self.legal_truncated = bool(msg.get("truncated", False))
            self.discard_count = msg.get("discard")
            self.timer_ms = msg.get("timer_ms")
            self.legal_at = time.monotonic()
        elif kind == "result":
            self.results += 1
            if not msg["ok"]:
                self.rejected = msg
                self._error(msg.get("code", "rejected"), msg.get("message", ""))
            else:
                # The server answers before it sends what the action changed: the
                # legal list we hold is now stale (a fresh one follows if we still
                # owe a decision). Without this, a dialog could reopen for a moment.
                self.legal = []
        elif kind == "game_over":
            self.game_over = msg
            self.legal = []
            self.table_status = "finished"
            self.chance.game_over(msg, (self.view or {}).get("settings") or self.settings)
        elif kind == "chat":
            if msg.get("past") is True and self._past_chat:
                self.chat.clear()  # after a rejoin: the server's lines, not ours twice
            self._past_chat = False
            self.chat.append(msg)
        elif kind == "error":
            self._error(msg["code"], msg.get("message", ""))
            if msg["code"] in ("bad_resume", "no_such_table") and self.table is not None:
                self._leave()  # a resume (or re-spectate) after a reconnect failed

    def _annotate(self, event: Message, reason: str | None) -> Message:
        """The event as the log tells it: a proposal (or its refusal) with
        ``on_turn``, the seat on turn when it was made (the proposals go to
        it), and a trade answer with the ``reason`` its seat gave (1.4). The
        open trade's answers' reasons are kept in :attr:`trade_reasons`."""
        t = event.get("type")
        seat = event.get("seat")
        if t == "turn_started" and isinstance(seat, int):
            self.on_turn = seat
        elif t == "trade_offered":
            self.trade_reasons = {}
        if t in ("trade_proposed", "proposal_rejected"):
            on_turn = self.on_turn
            if on_turn is None and self.view is not None:
                current = self.view.get("current")
                on_turn = current if isinstance(current, int) else None
            if on_turn is not None:
                event = {**event, "on_turn": on_turn}
        if reason is not None and t in _ANSWERS and isinstance(seat, int):
            if t in ("trade_answered", "trade_countered"):
                self.trade_reasons[seat] = reason
            event = {**event, "reason": reason}
        return event

    @property
    def chance_verdict(self) -> Verdict | None:
        """At game over: the check of the revealed secret (None: nothing committed,
        or revealed later)."""
        return self.chance.verdict

    @property
    def chance_pending(self) -> bool:
        return self.chance.pending

    @property
    def announced(self) -> str | None:
        return self.chance.announced

    def _error(self, code: str, message: str) -> None:
        self.errors.append((code, message))
        self.error_count += 1

    def new_errors(self, seen: int) -> list[tuple[str, str]]:
        """The errors added after the first ``seen`` (as counted by ``error_count``)."""
        fresh = min(self.error_count - seen, len(self.errors))
        return list(self.errors)[len(self.errors) - fresh:] if fresh > 0 else []

    def reset(self) -> None:
        """Forget everything (a new connection)."""
        changes = self.changes
        fresh = ClientModel()
        for f in fields(self):
            setattr(self, f.name, getattr(fresh, f.name))
        self.changes = changes + 1  # stays increasing, for caches

    def _leave(self) -> None:
        self.table = None
        self.seat = None
        self.settings = None
        self.table_seats = []
        self.table_status = None
        self.can_start = None
        self.paused = None
        self._reset_game()

    def _reset_game(self) -> None:
        self.view = None
        self.version = 0
        self.legal = []
        self.legal_version = -1
        self.legal_truncated = False
        self.discard_count = None
        self.timer_ms = None
        self.events.clear()
        self.on_turn = None
        self.trade_reasons = {}
        self.dice = [0] * 13
        self.stats = GameStats()
        self.chat.clear()
        self.game_over = None
        self.rejected = None
        self.chance = ChanceWitness()

    # --- convenience for scenes ---------------------------------------------------
    def players(self) -> int | None:
        """The table's number of seats, when known."""
        for source in (self.view, self.settings):
            n = source.get("players") if isinstance(source, dict) else None
            if isinstance(n, int) and 2 <= n <= 4:
                return n
        return None

    def my_turn(self) -> bool:
        return bool(self.legal)

    def legal_of(self, kind: type[Action]) -> list[Action]:
        """The legal actions of one class (e.g. all BuildRoad choices)."""
        return [a for a in self.legal if type(a) is kind]

    def time_left(self, now: float | None = None) -> float | None:
        """Seconds left for the pending decision (None: no timer)."""
        if self.timer_ms is None or not self.legal:
            return None
        now = time.monotonic() if now is None else now
        return max(0.0, self.timer_ms / 1000 - (now - self.legal_at))
