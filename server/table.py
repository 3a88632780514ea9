"""A table: its seats, its game, and the one task that changes them.

Turn timers and stand-ins: with a turn timer, a seat that does not decide in
time gets the default action (:func:`default_action`); after
``MAX_TIMEOUTS`` timeouts in a row, or when a player stays disconnected for
``GRACE`` seconds, a built-in bot plays the seat inside the table until the
player comes back (resume token) or acts again. A stand-in only makes the
decisions the seat owes: it never proposes a trade with an absent player's
cards. When a player drops during a trade negotiation, their part is settled
at once (an open offer of theirs is cancelled; an offer to them is rejected;
an open proposal of theirs is withdrawn).

Everything that touches a table's state goes through :meth:`Table.submit`
into the table's queue and is handled by :meth:`Table.run`, one command at a
time, so a game is only ever changed by one task. After every accepted
action the table fans the events out: each recipient gets them redacted for
its seat (spectators: public only), human clients and spectators also get
their fresh view, and every seat that owes a decision gets its view and
legal actions; so does a seat that has just become able to propose a trade to
the current player (``legal.propose``, protocol 1.3), so that bots, which get
views only when asked, can propose.

Every applied action is durable before anybody hears of it: the table applies
it, hands its row to the server's log (``on_applied``) and waits for the
commit (``durable``); only then does it count the version and send the
result and the events. If the commit fails the table takes the action back
(the state it had before), answers ``storage_unavailable`` (not applied), and
the server pauses every table (``pause``) until its storage works again; a
paused table refuses actions, runs no timers, and on ``resume`` sends the
deciding seats their legal actions again.
"""

from __future__ import annotations

import asyncio
import logging
import random
import secrets
from collections import OrderedDict, deque
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from typing import Any, Generic, Protocol, TypeVar

from bots.levels import bot_name
from protocol.rules import (
    Action,
    CancelTrade,
    Discard,
    GameState,
    GiveBack,
    Phase,
    RejectTrade,
    RulesError,
    Settings,
    WithdrawProposal,
    action_from_dict,
    apply,
    legal_actions,
    may_propose,
    new_game,
    observe,
    to_act,
)
from protocol.rules.chance import (
    SALT_BYTES,
    SECRET_BYTES,
    CommittedChance,
    Reveal,
    deal_seed,
)
from protocol.wire import (
    PROTOCOL_VERSION,
    SERVER,
    TRADE_ANSWERS,
    TRADE_REASONS,
    clip,
    encode_message,
    unknown_actions,
)
from protocol.wire.messages import MAX_TEXT

from .clock import Clock, SeatClock

log = logging.getLogger("kaitaku.table")


class Member(Protocol):
    """What a table needs from a member's connection (``server.session.Session`` is one)."""

    id: str
    name: str
    role: str
    minor: int
    """The minor protocol version the member said hello with."""

    def send(self, msg: dict[str, Any]) -> None:
        """Queue ``msg`` for the member."""

    def send_encoded(self, msg: dict[str, Any], data: bytes) -> None:
        """Queue ``msg``, already validated and encoded as ``data``."""


M = TypeVar("M", bound=Member)

ChanceSource = Callable[[GameState, int, Action], "tuple[int, ...] | None"]
"""Gives an action's chance outcome before it is applied (``apply``'s ``chance``)."""

MAX_TIMEOUTS = 3
"""Timeouts in a row after which a bot stands in for the seat."""
GRACE = 60.0
"""Seconds a disconnected player's seat waits before a bot stands in."""
STAND_IN_PACE = 0.5
"""Seconds a stand-in waits before each decision, so that people can follow."""
EVENT_MEMORY = 4000
"""Event batches a table keeps: the whole history of a game of up to this many
actions (longer games: the last this many), sent to every client that joins,
watches or resumes, so that its log, dice counts and statistics are complete."""
CHAT_MEMORY = 100
"""Chat lines a table keeps for the clients that arrive later."""
SEQ_MEMORY = 64
"""How many recent action results per seat are kept to answer repeats."""
MAX_LEGAL = 1000
"""Most actions listed in one ``legal`` message (only huge discards have more)."""
SEAT_EVENTS = 50
"""Events kept per seat (``Seat.events``); later ones are counted as one line."""


def _compositions(hand: tuple[int, ...], k: int) -> list[list[int]]:
    """``ways[i][r]``: the ways to give ``r`` cards from resources ``i``… of ``hand``."""
    ways = [[0] * (k + 1) for _ in range(len(hand) + 1)]
    ways[len(hand)][0] = 1
    for i in range(len(hand) - 1, -1, -1):
        row, below = ways[i], ways[i + 1]
        for r in range(k + 1):
            row[r] = sum(below[r - x] for x in range(min(hand[i], r) + 1))
    return ways


def _nth_composition(hand: tuple[int, ...], k: int, ways: list[list[int]],
                     n: int) -> tuple[int, int, int, int, int]:
    """The ``n``-th way (from 0, lexicographic, as the engine lists them) to give
    ``k`` cards of ``hand`` (five resources)."""
    out: list[int] = []
    for i, held in enumerate(hand):
        for x in range(min(held, k) + 1):
            c = ways[i + 1][k - x]
            if n < c:
                out.append(x)
                k -= x
                break
            n -= c
    a, b, c_, d, e = out
    return a, b, c_, d, e


def bounded_legal(game: GameState, seat: int) -> tuple[list[Action], bool]:
    """The legal actions of ``seat``, at most :data:`MAX_LEGAL` of them, and
    whether the list is cut. Only a discard (or a two-player give-back) from a
    huge hand has more choices: then they are counted, not listed, and an even
    spread of them is built (the engine's order), so that a 95-card hand costs
    no more than a small one."""
    owed = 0
    if game.phase == Phase.DISCARD:
        owed = game.discard_owed[seat] if 0 <= seat < len(game.discard_owed) else 0
    elif game.phase == Phase.GIVE_BACK and seat == game.current:
        owed = game.give_back
    if owed <= 0:
        return legal_actions(game, seat), False
    hand = tuple(game.hands[seat])
    ways = _compositions(hand, owed)
    count = ways[0][owed]
    if count <= MAX_LEGAL:
        return legal_actions(game, seat), False
    make = Discard if game.phase == Phase.DISCARD else GiveBack
    step = count / MAX_LEGAL
    return [make(_nth_composition(hand, owed, ways, int(i * step)))
            for i in range(MAX_LEGAL)], True


def legal_message(game: GameState, seat: int, version: int, timer_ms: int | None = None,
                  actions: list[Action] | None = None,
                  truncated: bool = False, minor: int = PROTOCOL_VERSION[1]
                  ) -> dict[str, Any]:
    """The ``legal`` message for ``seat``. A discard (or give-back) from a huge
    hand has more choices than fit: then an even spread of them is listed,
    with ``truncated`` and the number of cards owed. ``timer_ms``: the time
    left for the decision when the table has a turn timer; ``actions`` (and
    ``truncated``): what :func:`bounded_legal` gave, if the caller has it;
    ``minor``: the client's protocol version (1.``minor``): action types it
    does not know are left out, and from 1.3 on ``propose`` says that it may
    propose a trade now."""
    if actions is None:
        actions, truncated = bounded_legal(game, seat)
    unknown = unknown_actions(minor)
    if unknown is not None:
        actions = [a for a in actions if a.name not in unknown]
    msg: dict[str, Any] = {"type": "legal", "version": version}
    if timer_ms is not None and actions:
        msg["timer_ms"] = timer_ms
    if minor >= 3 and may_propose(game, seat):
        msg["propose"] = True
    if truncated:
        msg["truncated"] = True
        msg["discard"] = (game.discard_owed[seat] if game.phase == Phase.DISCARD
                          else game.give_back)
    msg["actions"] = [a.to_dict() for a in actions]
    return msg


def result(seq: int, code: str, message: str) -> dict[str, Any]:
    """A rejected action's ``result``, its message clipped to the field's limit
    (it may quote what the client sent)."""
    return {"type": "result", "seq": seq, "ok": False, "code": code,
            "message": clip(message, MAX_TEXT)}


@dataclass
class Seat(Generic[M]):
    kind: str = "empty"  # empty, human, bot
    name: str = ""
    session: M | None = None
    bot_kind: str | None = None
    bot_key: str | None = None  # a bot seat is joined with this key only
    last_seq: int = -1
    results: OrderedDict[int, dict[str, Any]] = field(default_factory=OrderedDict)
    auto: bool = False  # a built-in bot plays this seat for now
    timeouts: int = 0  # timeouts in a row
    deadline: float | None = None  # when the pending decision times out
    epoch: int = 0  # bumped on every (re)connection, to match grace timers
    asked: float | None = None  # when the pending decision was asked (clocks, timing)
    clock: SeatClock | None = None  # the seat's chess-clock bank (tables with a clock)
    decisions: list[float] = field(default_factory=list)  # µs (Table.record_decisions)
    forfeited: bool = False  # a stand-in plays the seat to the end; the game is a forfeit
    events: list[str] = field(default_factory=list)  # what befell it (record_decisions)

    def summary(self) -> dict[str, Any]:
        out: dict[str, Any] = {
            "name": self.name or None,
            "kind": self.kind,
            "connected": self.session is not None,
            "auto": self.auto,
        }
        if self.clock is not None:
            out["clock_ms"] = round(self.clock.bank * 1000)
            out["timeouts"] = self.clock.timeouts
        if self.forfeited:
            out["forfeited"] = True
        return out


def default_action(game: GameState, seat: int, rng: random.Random) -> Action:
    """What a seat does when its time runs out (:func:`bots.base.safe_action`):
    roll, end the turn, place no more free roads (after the first one), reject
    or cancel a trade; any other decision (a set-up settlement or road, a
    discard, the robber, ...) is the Easy bot's choice from the seat's view (a
    settlement where the numbers are good, not a random corner on the coast)."""
    from bots import GreedyBot
    from bots.base import SAFE_NAMES, safe_action

    legal = bounded_legal(game, seat)[0]
    safe = safe_action(legal, rng)
    if safe.name in SAFE_NAMES or len(legal) == 1:
        return safe
    try:
        choice = GreedyBot(rng.randrange(1 << 30)).act(observe(game, seat, legal), legal)
    except Exception:  # a bot's bug must not stop a timer: the random choice then
        log.exception("table: the default action's bot failed")
        return safe
    return choice if choice in legal else safe


def deciding_seats(game: GameState) -> set[int]:
    """Seats that owe a decision (they get ``legal`` lists and turn timers).

    During a trade offer these are the addressed seats that have not answered;
    the offerer owes the decision once they all have. (It may confirm or cancel
    earlier, whenever those actions are legal; a 1.3 client is sent its legal
    list early, see :func:`offerer_may_confirm`.)"""
    return set(to_act(game))


def offerer_may_confirm(game: GameState, deciding: set[int]) -> int | None:
    """The offerer of an open trade, once some seat accepted or countered and
    before every addressed seat has answered (then it owes the decision and is
    in ``deciding``): it is sent its view and legal actions early, after each
    answer, so that it may confirm the first acceptable one. None otherwise."""
    trade = game.trade
    if game.phase != Phase.TRADE or trade is None or game.current in deciding:
        return None
    return game.current if any(st in (1, 3) for st in trade.status) else None


class Table(Generic[M]):
    """One game table. Create with :meth:`Server.create_table`."""

    def __init__(self, table_id: str, name: str, settings: Settings, creator: str | None,
                 turn_timer: float = 0, seed: int | None = None, *,
                 clock: Clock | None = None, reveal: Reveal | None = None,
                 reveal_at_end: bool = True) -> None:
        self.id = table_id
        self.name = name
        self.settings = settings
        self.creator = creator
        """The session that may start the table while it waits (None: the first
        person to join may)."""
        self.creator_address: str | None = None
        """The address the table was created from (the server counts open tables
        per address)."""
        self.turn_timer = turn_timer
        self.clock = clock
        """The chess clock (:mod:`server.clock`), or None. With a clock a seat
        that runs out of time ``clock.timeouts`` times forfeits: a stand-in
        plays it to the end, whatever happens."""
        self.record_decisions = False
        """Keep each seat's decision times (``Seat.decisions``, µs: from the
        ``legal`` that asked to the action's arrival), e.g. for a league, and
        what befell each seat (``Seat.events``: timeouts, refused actions,
        disconnections, its forfeit and why; at most SEAT_EVENTS each)."""
        self.grace: float | None = None
        """Seconds a dropped seat waits before a stand-in plays it (None: GRACE)."""
        self.stand_in_pace: float | None = None
        """Seconds a stand-in waits before each decision (None: STAND_IN_PACE)."""
        if reveal is None and seed is None:
            reveal = Reveal.new(secrets.token_bytes(SECRET_BYTES), secrets.token_bytes(SALT_BYTES))
        self.reveal = reveal
        """The committed chance (:mod:`protocol.rules.chance`): its secret is
        never sent before :meth:`revealed`; the commitment goes with the game's
        start. None: a game of the engine's own generator from ``seed`` (a
        chosen seed: tests, benchmarks)."""
        self.reveal_at_end = reveal_at_end
        """Reveal the secret with ``game_over`` (False: another game still uses
        it, e.g. the rest of a duplicate set; its owner publishes it later)."""
        chance: ChanceSource | None = None
        if reveal is not None:
            self.seed = deal_seed(reveal.secret)
            chance = CommittedChance(reveal.secret, settings)
        else:
            assert seed is not None
            self.seed = seed
        self.chance = chance
        """Gives the chance outcome of each action before it is applied (the
        committed chance; None: the engine's generator from ``seed``)."""
        self.seats: list[Seat[M]] = [Seat() for _ in range(settings.players)]
        if clock is not None:
            for seat in self.seats:
                seat.clock = SeatClock(clock)
        self.spectators: set[M] = set()
        self.game: GameState | None = None
        self.version = 0
        self.status = "waiting"
        self.paused: str | None = None
        """Why the table refuses actions now (``storage``), or None."""
        self.queue: asyncio.Queue[tuple[str, Any]] = asyncio.Queue()
        self.task: asyncio.Task[None] | None = None
        self.on_bots_needed: Any = None  # set by the server: callback(table, seats, by) -> bool
        # set by the server: callback(table, version, seat, action, outcome, seq) that
        # queues the action's row, and ``durable()``: whether every queued row is saved
        self.on_applied: Any = None
        self.durable: Callable[[], Awaitable[bool]] | None = None
        self.on_changed: Any = None  # set by the server: callback(table) on seats/status
        self.on_finished: Any = None  # set by the server: callback(table) at game over
        # set by the server's metrics: callback(via, seconds from taking a player's
        # action to its result, None for the server's own) after each saved action
        self.on_action: Callable[[str, float | None], None] | None = None
        # default actions (not the game's chance, and not derived from it)
        self.rng = random.Random(self.seed ^ 0x5EED if reveal is None else secrets.randbits(64))
        self.history: deque[tuple[int, list[Any]]] = deque(maxlen=EVENT_MEMORY)
        self.chat: deque[dict[str, Any]] = deque(maxlen=CHAT_MEMORY)
        self.chat_lines = 0  # chat lines said at this table (numbers the stored ones)
        self._public_frames: dict[int, tuple[dict[str, Any], bytes]] = {}
        """The history's batches as spectators get them, encoded once (by version)."""
        """The table's last chat lines (as relayed), for members who arrive later."""
        self._stand_in: Any = None
        self._public: tuple[int, dict[str, Any], bytes] | None = None  # spectators' view
        self._saved = False  # the command being handled applied (and saved) an action

    def use_seed(self, seed: int) -> None:
        """Draw the game's chance from the engine's generator seeded with
        ``seed``, uncommitted (before the game starts): a game a person chose
        by its seed (``kaitaku play --seed``), positions tests reach by known dice."""
        if self.game is not None:
            raise RuntimeError("the game has started")
        self.reveal = None
        self.chance = None
        self.seed = seed

    def commit(self, reveal: Reveal) -> None:
        """Draw the game's chance from ``reveal``'s secret (before the game starts)."""
        if self.game is not None:
            raise RuntimeError("the game has started")
        self.reveal = reveal
        self.seed = deal_seed(reveal.secret)
        self.chance = CommittedChance(reveal.secret, self.settings)

    # -- summaries ----------------------------------------------------------------

    def settings_map(self) -> dict[str, Any]:
        """The table's settings as the wire shows them: the game's, and the
        chess clock's when it has one."""
        out = self.settings.to_dict()
        if self.clock is not None:
            out.update(self.clock.to_settings())
        return out

    def summary(self) -> dict[str, Any]:
        return {
            "id": self.id,
            "name": self.name,
            "settings": self.settings_map(),
            "seats": [s.summary() for s in self.seats],
            "status": self.status,
            "spectators": len(self.spectators),
        }

    def members(self) -> list[tuple[M, int | None]]:
        out: list[tuple[M, int | None]] = [
            (s.session, i) for i, s in enumerate(self.seats) if s.session is not None
        ]
        out.extend((sp, None) for sp in self.spectators)
        return out

    def broadcast_table(self) -> None:
        """Tell the members about the seats and status (and persist them)."""
        if self.on_changed is not None:
            self.on_changed(self)
        msg: dict[str, Any] = {"type": "table", "table": self.id,
                               "seats": [s.summary() for s in self.seats],
                               "status": self.status}
        if self.paused is not None:
            msg["paused"] = self.paused
        for sess, _ in self.members():
            if self.status == "waiting":  # who may start it (1.2)
                sess.send({**msg, "can_start": sess.id == self.creator})
            else:
                sess.send(msg)

    def pause(self, why: str, message: str) -> None:
        """Refuse actions from now on (``why``: ``storage``); every member is told
        with ``error {code: "storage_unavailable"}`` and a ``table`` message.
        Called by the server (outside the table task) when its storage fails."""
        if self.paused is not None or self.status not in ("waiting", "playing"):
            return
        self.paused = why
        now = asyncio.get_running_loop().time()
        for seat in self.seats:
            self._decided(seat, now, made=False)  # the clocks stop too
            seat.deadline = None  # no timers while paused: they restart on resume
        for sess, _ in self.members():
            sess.send({"type": "error", "code": "storage_unavailable", "message": message})
        self.broadcast_table()

    # -- the table task -------------------------------------------------------------

    def submit(self, kind: str, payload: Any) -> None:
        self.queue.put_nowait((kind, payload))

    async def run(self) -> None:
        loop = asyncio.get_running_loop()
        while True:
            deadlines = [s.deadline for s in self.seats if s.deadline is not None]
            try:
                if deadlines:
                    wait = max(0.0, min(deadlines) - loop.time())
                    kind, payload = await asyncio.wait_for(self.queue.get(), wait)
                else:
                    kind, payload = await self.queue.get()
            except TimeoutError:
                kind, payload = "timeout", loop.time()
            if kind == "stop":
                return
            if not self.queue.empty():
                await asyncio.sleep(0)  # let the writers flush between back-to-back commands
            self._saved = False
            try:
                await self._handle(kind, payload)
            except Exception:  # one bad command must not kill the table
                log.exception("table %s: %s failed", self.id, kind)
                if kind == "action" and not self._saved:  # "not applied" only if true
                    seat, msg = payload
                    self._reply(seat, self.seats[seat].session, result(
                        msg["seq"], "internal_error",
                        "the server failed; the action was not applied"))

    async def _handle(self, kind: str, payload: Any) -> None:
        if kind == "action":
            seat, msg = payload
            await self._action(seat, msg)
        elif kind == "start":
            self._maybe_start(force=True, by=payload)
        elif kind == "seated":
            self._maybe_start(force=False)
        elif kind == "resync":
            sess, seat = payload
            self._send_state(sess, seat)
        elif kind == "arrived":
            sess, seat, since = payload
            self._arrived(sess, seat, since)
        elif kind == "timeout":
            await self._expire(payload)
        elif kind == "stand_in":
            await self._stand_in_step(payload)
        elif kind == "dropped":
            await self._dropped(*payload)
        elif kind == "resume":
            await self._resume()
        elif kind == "forfeit":  # (seat, why): e.g. a league's program exited
            self._forfeit(*payload)
        elif kind == "grace":
            seat_no, epoch = payload
            seat = self.seats[seat_no]
            if seat.session is None and seat.epoch == epoch and self.status == "playing":
                if self.clock is not None:  # a clocked game is a competition: final
                    self._forfeit(seat_no, "disconnected")
                else:
                    self._set_auto(seat_no, True, "disconnected")
                    self._schedule()

    # -- seats ----------------------------------------------------------------------

    def free_seat(self, wanted: int | None, session: M, key: str | None) -> int | None:
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
            if seat.kind == "bot" and seat.bot_key is not None:
                if key != seat.bot_key:
                    continue
                return i
            if key is not None:
                continue  # a key is for a reserved bot seat only
            if seat.kind != "empty" or self.status != "waiting":
                # a seat someone took (a person, or a bot client that came without a
                # key) is reclaimed only with its resume token; empty seats of a
                # running game stay empty
                continue
            return i
        return None

    def take_seat(self, i: int, session: M) -> None:
        seat = self.seats[i]
        seat.session = session
        seat.name = session.name
        seat.epoch += 1
        seat.timeouts = 0
        if self.status == "playing":
            self.note(i, "reconnected")
        if seat.auto and not seat.forfeited:
            self._set_auto(i, False, "player back")
        if seat.kind == "empty":
            seat.kind = "bot" if session.role == "bot" else "human"
        log.debug("table %s: seat %d taken by %r (%s)", self.id, i, session.name, seat.kind)

    def reserve_bots(self, kinds: list[str]) -> list[tuple[int, str, str]]:
        """Mark empty seats (from the last) as bot seats; return (seat, kind, key)."""
        out = []
        empties = [i for i, s in enumerate(self.seats) if s.kind == "empty"]
        for i, kind in zip(reversed(empties), kinds, strict=False):
            seat = self.seats[i]
            seat.kind = "bot"
            seat.bot_kind = kind
            seat.bot_key = secrets.token_urlsafe(16)
            seat.name = bot_name(kind, i + 1)
            out.append((i, kind, seat.bot_key))
        return out

    def empty_seats(self) -> int:
        return sum(1 for s in self.seats if s.kind == "empty")

    def vacate(self, session: M) -> int | None:
        """``session`` left or dropped; return its seat (kept for a resume)."""
        self.spectators.discard(session)
        for i, seat in enumerate(self.seats):
            if seat.session is session:
                seat.session = None
                if self.status == "waiting" and seat.bot_key is None:
                    seat.kind = "empty"  # a person's (or a keyless bot's) seat is free again
                    seat.name = ""
                elif self.status == "playing":
                    seat.epoch += 1
                    self.note(i, "disconnected")
                    self.submit("dropped", (i, seat.epoch))
                    asyncio.get_running_loop().call_later(
                        GRACE if self.grace is None else self.grace,
                        self.submit, "grace", (i, seat.epoch))
                return i
        return None

    # -- the game -------------------------------------------------------------------

    def _maybe_start(self, force: bool, by: Any = None) -> None:
        """Start the game if every seat is held; ``force`` (a ``start`` by
        ``by``): first fill the empty seats with bots."""
        if self.status != "waiting" or self.paused is not None:
            return
        if force:
            empties = [i for i, s in enumerate(self.seats) if s.kind == "empty"]
            if empties and self.on_bots_needed is not None:
                if not self.on_bots_needed(self, empties, by):
                    return  # refused (the bot caps); the creator was told
                self.broadcast_table()
                return  # the game starts once they are seated
        if not all(s.session is not None for s in self.seats):
            return  # the seat that changed was announced when it changed
        self.game = new_game(self.settings, self.seed)
        self.status = "playing"
        self.version = 0
        log.info("table %s: game started (%s)", self.id, self.settings.to_dict())
        self.broadcast_table()
        self._schedule()
        start = self.game_started_message()
        for sess, seat in self.members():
            sess.send(start)
            self._send_state(sess, seat)

    def _catch_up(self, sess: M, seat: int | None, since: int) -> None:
        """Send the event batches after version ``since`` (redacted for ``seat``),
        then the view and legal actions. ``since`` 0 (a client that arrives
        with nothing) gets every batch the table holds; a resuming client whose
        ``since`` is older than the batches held gets the view alone."""
        first = self.history[0][0] if self.history else self.version + 1
        if self.game is not None and (since == 0 or first <= since + 1 <= self.version + 1):
            if seat is None:  # any client may watch: each batch is encoded once for all
                frames = self._public_frames
                for old in [v for v in frames if v < first]:
                    del frames[old]
            for version, events in self.history:
                if version <= since:
                    continue
                if seat is not None:
                    sess.send({"type": "events", "version": version,
                               "events": [e.for_seat(seat).to_dict() for e in events]})
                    continue
                frame = frames.get(version)
                if frame is None:
                    msg = {"type": "events", "version": version,
                           "events": [e.for_seat(None).to_dict() for e in events]}
                    frame = frames[version] = (msg, encode_message(msg, SERVER))
                sess.send_encoded(*frame)
        self._send_state(sess, seat)

    def _arrived(self, sess: M, seat: int | None, since: int | None) -> None:
        """A member came to a table whose game runs or ended (a join, a resume,
        a spectator): the events after ``since`` (None: every batch the table
        holds), the view and the legal actions; at a finished table also
        ``game_over``, so that a client that resumes into (or watches) a game
        that ended hears the end."""
        self._catch_up(sess, seat, since or 0)
        if self.status == "finished" and self.game is not None:
            sess.send(self.game_over_message())

    def game_started_message(self) -> dict[str, Any]:
        """``game_started``, with the commitment to the game's chance."""
        msg: dict[str, Any] = {"type": "game_started", "table": self.id}
        if self.reveal is not None:
            msg["chance"] = self.reveal.announced()
        return msg

    def revealed(self) -> bool:
        """Whether the secret may be shown: the game is over and no other game
        uses it (``reveal_at_end``)."""
        return self.reveal is not None and self.reveal_at_end and self.status == "finished"

    def game_over_message(self) -> dict[str, Any]:
        """The ``game_over`` message of the finished game (with the revealed
        secret when no other game uses it)."""
        game = self.game
        assert game is not None
        msg: dict[str, Any] = {"type": "game_over", "winner": game.winner,
                               "scores": [game.total_vp(q) for q in range(game.settings.players)]}
        if self.reveal is not None:
            msg["chance"] = (self.reveal.to_dict() if self.revealed()
                             else self.reveal.announced())
        return msg

    def _public_view(self) -> tuple[dict[str, Any], bytes]:
        """The spectators' view at this version, built and encoded once."""
        assert self.game is not None
        cached = self._public
        if cached is None or cached[0] != self.version:
            msg = self._view(None, None)
            cached = self._public = (self.version, msg, encode_message(msg, SERVER))
        return cached[1], cached[2]

    def _send_state(self, sess: M, seat: int | None) -> None:
        """Full view, then the legal actions if this seat owes a decision."""
        if self.game is None:
            return
        if seat is None:
            sess.send_encoded(*self._public_view())
            return
        legal, cut = bounded_legal(self.game, seat)
        sess.send(self._view(seat, legal))
        if self.seats[seat].forfeited:
            legal, cut = [], False  # a stand-in decides for it
        sess.send(legal_message(self.game, seat, self.version, self._timer_ms(seat), legal,
                                cut, sess.minor))

    def _reply(self, seat: int, sess: M | None, result: dict[str, Any]) -> None:
        """Answer the seat's action (to the connection holding the seat now, and
        remembered for a repeat), with the event version after it."""
        result.setdefault("version", self.version)
        s = self.seats[seat]
        s.results[result["seq"]] = result
        while len(s.results) > SEQ_MEMORY:
            s.results.popitem(last=False)
        if sess is not None:
            sess.send(result)

    def restore_seqs(self, seat: int, seqs: list[int],
                     versions: list[int] | None = None) -> None:
        """After a restart: the sequence numbers of the seat's last accepted
        actions (oldest first), and the event version each made, so that a
        resent action is not applied twice and is answered as it was."""
        s = self.seats[seat]
        made = versions if versions is not None and len(versions) == len(seqs) else None
        for k, q in enumerate(seqs):
            if k < len(seqs) - SEQ_MEMORY:
                continue
            answer: dict[str, Any] = {"type": "result", "seq": q, "ok": True}
            if made is not None:
                answer["version"] = made[k]
            s.results[q] = answer
        if seqs:
            s.last_seq = max(s.last_seq, max(seqs))

    async def _action(self, seat: int, msg: dict[str, Any]) -> None:
        s = self.seats[seat]
        sess = s.session
        seq = msg["seq"]
        if seq <= s.last_seq:
            cached = s.results.get(seq)
            if sess is not None:
                why = (f"sequence number {seq} is negative; a seat's numbers start at 0"
                       if s.last_seq < 0 else
                       f"sequence number {seq} is not above {s.last_seq}, the highest this "
                       "seat used, and no result of it is kept")
                sess.send(cached if cached is not None else {
                    **result(seq, "stale_seq", why), "version": self.version})
            return
        game = self.game
        if self.paused is not None:  # the seq stays unused: send it again later
            if sess is not None:
                sess.send({"type": "result", "seq": seq, "ok": False,
                           "code": "storage_unavailable",
                           "message": "the server cannot save actions now; not applied",
                           "version": self.version})
            return
        previous, s.last_seq = s.last_seq, seq
        if game is None or self.status != "playing":
            if self.status == "finished":
                self._reply(seat, sess, {"type": "result", "seq": seq, "ok": False,
                                         "code": "game_over", "message": "the game is over"})
            else:
                self._reply(seat, sess, {"type": "result", "seq": seq, "ok": False,
                                         "code": "game_not_started",
                                         "message": "the game has not started"})
            return
        if s.forfeited:
            self._reply(seat, sess, result(seq, "forfeited", "your seat forfeited this "
                                           "game; a built-in bot plays it"))
            return
        now = asyncio.get_running_loop().time()
        if s.clock is not None and s.deadline is not None and now >= s.deadline:
            await self._expire(now)  # it came after the bank ran out: the timeout first
            if self.status != "playing" or s.forfeited:
                code, why = (("forfeited", "your seat forfeited this game") if s.forfeited
                             else ("game_over", "the game is over"))
                self._reply(seat, sess, result(seq, code, why))
                return
        able = self._proposers()
        try:
            action = action_from_dict(msg["action"])
            events = await self._apply(seat, action, seq)
        except RulesError as exc:
            self.note(seat, f"action refused: {exc.code}: {exc}"[:200])
            self._reply(seat, sess, result(seq, exc.code, str(exc)))
            return
        sess = s.session  # it may have changed while the row was committed
        if events is None:  # not saved: taken back; the seq may be sent again
            s.last_seq = previous
            if sess is not None:
                sess.send({"type": "result", "seq": seq, "ok": False,
                           "code": "storage_unavailable",
                           "message": "the server cannot save actions now; not applied",
                           "version": self.version})
            return
        s.timeouts = 0
        if s.auto and not s.forfeited:
            self._set_auto(seat, False, "player acted")
        self._decided(s, now, made=True)
        self._applied(seat, action, "player", now)
        self._reply(seat, sess, {"type": "result", "seq": seq, "ok": True})
        said = msg.get("reason")
        self._fan_out(events, able, said if action.name in TRADE_ANSWERS
                      and said in TRADE_REASONS else None)

    async def _apply(self, seat: int, action: Action, seq: int | None) -> list[Any] | None:
        """Apply ``action`` and make its row durable: the events, or None when the
        row could not be saved (then the state is as it was before). Raises
        :class:`RulesError` (nothing changed) for an illegal action."""
        game = self.game
        assert game is not None
        durable = self.durable if self.on_applied is not None else None
        backup = game.copy(keep_log=True) if durable is not None else None
        chance = self.chance(game, seat, action) if self.chance is not None else None
        events = apply(game, action, seat, chance)
        entries = game.log
        if entries and self.on_applied is not None:
            # The engine's in-memory log is handed to the durable log and
            # emptied: the database keeps the game's record, and a table's
            # memory stays flat however long it runs. Without a database the
            # game keeps its log.
            self.on_applied(self, self.version + 1, *entries[-1], seq)
            entries.clear()
        if durable is not None and not await durable():
            assert backup is not None
            self.game = backup
            log.info("table %s: seat %d %s taken back (not saved)", self.id, seat,
                     action.name)
            return None
        self._saved = True
        return events

    def _applied(self, seat: int, action: Action, via: str, since: float | None = None
                 ) -> None:
        """Book-keeping after an action was applied and saved: version, log line,
        metrics (``since``: when the table took a player's action)."""
        self.version += 1
        if self.on_action is not None:
            self.on_action(via, None if since is None
                           else asyncio.get_running_loop().time() - since)
        if log.isEnabledFor(logging.DEBUG):
            log.debug("table %s v%d: seat %d %s%s", self.id, self.version, seat,
                      action.to_dict(), "" if via == "player" else f" ({via})")

    async def _server_act(self, seat: int, action: Action, via: str) -> bool:
        """Apply an action the server chose for ``seat`` (timeout, stand-in, drop);
        False if it could not be saved (nothing changed)."""
        if self.paused is not None:
            return False
        able = self._proposers()
        events = await self._apply(seat, action, None)
        if events is None:
            return False
        self._applied(seat, action, via)
        sess = self.seats[seat].session
        if sess is not None:
            sess.send({"type": "error", "code": "acted_for_you",
                       "message": f"the server played {action.name} for you ({via})"})
        self._fan_out(events, able)
        return True

    async def _resume(self) -> None:
        """Storage works again: accept actions, restart the timers, settle what a
        drop left open, and send every deciding seat its legal actions again."""
        if self.paused is None:
            return
        self.paused = None
        self.broadcast_table()
        game = self.game
        if self.status == "waiting":
            self._maybe_start(force=False)
            return
        if game is None or self.status != "playing":
            return
        self._schedule()
        for i, seat in enumerate(self.seats):
            if seat.session is None:
                await self._dropped(i, seat.epoch)
        if self.game is not game or self.paused is not None:
            return
        deciding = deciding_seats(game)
        for sess, seat_no in self.members():
            if seat_no is not None and seat_no in deciding:
                self._send_state(sess, seat_no)

    def _proposers(self) -> frozenset[int]:
        """The seats that may propose a trade to the current player now."""
        game = self.game
        assert game is not None
        if game.phase != Phase.MAIN:
            return frozenset()
        return frozenset(q for q in range(len(self.seats)) if may_propose(game, q))

    # -- timers and stand-ins ---------------------------------------------------------

    def _schedule(self) -> None:
        """Set the deciding seats' deadlines; let stand-ins act."""
        game = self.game
        if game is None or self.status != "playing" or self.paused is not None:
            for seat in self.seats:
                seat.deadline = None
            return
        deciding = deciding_seats(game)
        now = asyncio.get_running_loop().time()
        timing = self.clock is not None or self.record_decisions
        for i, seat in enumerate(self.seats):
            if (i not in deciding or seat.auto) and seat.asked is not None:
                self._decided(seat, now, made=False)  # the decision went away
            if i not in deciding:
                seat.deadline = None
            elif seat.auto:
                seat.deadline = None
                asyncio.get_running_loop().call_later(
                    STAND_IN_PACE if self.stand_in_pace is None else self.stand_in_pace,
                    self.submit, "stand_in", (i, self.version))
            elif timing and seat.asked is None:
                seat.asked = now  # a decision starts: its legal goes out now
                if seat.clock is not None:
                    seat.deadline = now + seat.clock.start()
                elif self.turn_timer:
                    seat.deadline = now + self.turn_timer
            elif self.turn_timer and seat.deadline is None and seat.clock is None:
                seat.deadline = now + self.turn_timer

    def _decided(self, seat: Seat[M], now: float, made: bool) -> None:
        """The seat's pending decision ends: ``made`` (its action arrived in
        time: timed, and charged to its clock) or went away (charged only)."""
        if seat.asked is None:
            return
        used = now - seat.asked
        seat.asked = None
        if seat.clock is not None:
            seat.clock.spend(min(used, seat.clock.bank) if not made else used)
        if made and self.record_decisions:
            seat.decisions.append(round(used * 1e6, 2))

    def clocks_ms(self) -> list[int] | None:
        """Each seat's bank now (ms; a pending decision's time taken), or None
        without a clock."""
        if self.clock is None:
            return None
        now = asyncio.get_running_loop().time()
        return [round(max(0.0, s.clock.bank - (now - s.asked if s.asked is not None else 0.0))
                      * 1000) if s.clock is not None else 0 for s in self.seats]

    def _view(self, seat: int | None, legal: list[Action] | None) -> dict[str, Any]:
        """A seat's ``view`` message (with every seat's bank on a clocked table)."""
        assert self.game is not None
        msg: dict[str, Any] = {"type": "view", "version": self.version,
                               "view": observe(self.game, seat, legal)}
        clocks = self.clocks_ms()
        if clocks is not None:
            msg["clocks"] = clocks
        return msg

    def _forfeit(self, i: int, why: str) -> None:
        """Seat ``i`` forfeits the game: a stand-in plays it to the end (a
        resume or an action does not take it back), its legal lists are empty
        from now on, and its connection is told with ``error forfeited``."""
        seat = self.seats[i]
        if seat.forfeited or self.status != "playing":
            return
        seat.forfeited = True
        seat.deadline = None
        seat.asked = None
        log.info("table %s: seat %d forfeits (%s)", self.id, i, why)
        self.note(i, f"forfeited ({why})")
        if seat.session is not None:
            seat.session.send({"type": "error", "code": "forfeited",
                               "message": f"your seat forfeited this game ({why}); a "
                                          "built-in bot plays it to the end"})
        if seat.auto:
            self.broadcast_table()
        else:
            self._set_auto(i, True, why)
        self._schedule()

    def note(self, i: int, what: str) -> None:
        """Add ``what`` to seat ``i``'s events (tables that record decisions)."""
        seat = self.seats[i]
        if not self.record_decisions or len(seat.events) > SEAT_EVENTS:
            return
        turn = self.game.turn if self.game is not None else 0
        seat.events.append(f"turn {turn}: {what}" if len(seat.events) < SEAT_EVENTS
                           else "(more events not kept)")

    def _timer_ms(self, i: int) -> int | None:
        """Milliseconds left for seat ``i``'s pending decision (None: no timer)."""
        deadline = self.seats[i].deadline
        if deadline is None:
            return None
        return max(0, round((deadline - asyncio.get_running_loop().time()) * 1000))

    async def _expire(self, now: float) -> None:
        game = self.game
        if game is None or self.status != "playing" or self.paused is not None:
            return
        for i, seat in enumerate(self.seats):
            if seat.deadline is None or seat.deadline > now + 1e-3:
                continue
            seat.deadline = None
            if i not in deciding_seats(game):
                continue
            clock = seat.clock
            if clock is not None and seat.asked is not None:  # the bank ran out
                if self.record_decisions:
                    seat.decisions.append(round((now - seat.asked) * 1e6, 2))
                seat.asked = None
                clock.expire()
            if not await self._server_act(i, default_action(game, i, self.rng), "timeout"):
                return  # not saved: the table is paused; the timer restarts on resume
            seat.timeouts += 1
            self.note(i, "timed out: the default action was played")
            if clock is not None:
                if clock.forfeited:
                    self._forfeit(i, f"{clock.timeouts} timeouts")
            elif seat.timeouts >= MAX_TIMEOUTS and not seat.auto:
                self._set_auto(i, True, f"{seat.timeouts} timeouts")
                self._schedule()
            return  # one at a time: the state changed

    def _set_auto(self, i: int, on: bool, why: str) -> None:
        seat = self.seats[i]
        if seat.auto == on:
            return
        seat.auto = on
        log.info("table %s: a bot %s seat %d (%s)", self.id,
                 "stands in for" if on else "hands back", i, why)
        self.broadcast_table()

    async def _stand_in_step(self, payload: tuple[int, int]) -> None:
        i, version = payload
        game = self.game
        if (game is None or self.status != "playing" or version != self.version
                or self.paused is not None):
            return  # stale: the state changed since it was queued (or paused)
        seat = self.seats[i]
        if not seat.auto or i not in deciding_seats(game):
            return
        if self._stand_in is None:
            from bots import HeuristicBot  # the stand-in sees only the seat's view

            self._stand_in = HeuristicBot(self.seed)
            self._stand_in.offers = False  # it plays a person's cards: answers, never asks
        legal, _ = bounded_legal(game, i)
        await self._server_act(i, self._stand_in.act(observe(game, i, legal), legal),
                               "stand-in")

    async def _dropped(self, i: int, epoch: int) -> None:
        """Settle a dropped player's part in a trade negotiation at once."""
        game = self.game
        seat = self.seats[i]
        if game is None or self.status != "playing" or seat.session is not None:
            return
        if game.phase == Phase.TRADE and game.trade is not None:
            if game.current == i:
                await self._server_act(i, CancelTrade(), "disconnected")
            elif game.trade.status[i] == 0:
                await self._server_act(i, RejectTrade(), "disconnected")
        game = self.game  # the action above may have been taken back
        if (game is not None and i in game.proposals and game.phase != Phase.GAME_OVER
                and self.paused is None):
            await self._server_act(i, WithdrawProposal(), "disconnected")

    def _fan_out(self, events: list[Any], able: frozenset[int] = frozenset(),
                 reason: str | None = None) -> None:
        """Send the events (with the ``reason`` a seat gave for its trade answer);
        views and legal lists to those who must decide, and to the seats that
        may now propose a trade and could not before."""
        game = self.game
        assert game is not None
        deciding = deciding_seats(game)
        over = game.phase == Phase.GAME_OVER
        opened = self._proposers() - able
        early = offerer_may_confirm(game, deciding)
        self.history.append((self.version, events))
        self._schedule()
        # One encoded frame per distinct redaction: every spectator (and every seat
        # that may see all of it) shares the same bytes.
        plain = [e.to_dict() for e in events]
        by_seat: dict[int | None, tuple[dict[str, Any], bytes]] = {}
        shared: dict[tuple[Any, ...], tuple[dict[str, Any], bytes]] = {}

        def frame_for(seat: int | None) -> tuple[dict[str, Any], bytes]:
            entry = by_seat.get(seat)
            if entry is None:
                seen = [e.for_seat(seat) for e in events]
                key = tuple(i if r is e else r
                            for i, (e, r) in enumerate(zip(events, seen, strict=True)))
                entry = shared.get(key)
                if entry is None:
                    msg = {"type": "events", "version": self.version,
                           "events": [p if r is e else r.to_dict()
                                      for e, r, p in zip(events, seen, plain, strict=True)]}
                    if reason is not None:
                        msg["reason"] = reason
                    entry = shared[key] = (msg, encode_message(msg, SERVER))
                by_seat[seat] = entry
            return entry

        for sess, seat in self.members():
            sess.send_encoded(*frame_for(seat))
            if seat is None:
                sess.send_encoded(*self._public_view())
                continue
            ask = (seat in opened or seat == early) and sess.minor >= 3
            if seat in deciding or over or ask:
                legal, cut = bounded_legal(game, seat)
            else:
                legal, cut = None, False
            if sess.role != "bot" or seat in deciding or ask:
                sess.send(self._view(seat, legal))
            if legal is not None and self.seats[seat].forfeited and not over:
                legal, cut = [], False  # a stand-in decides for it
            if legal is not None:
                sess.send(legal_message(game, seat, self.version, self._timer_ms(seat), legal,
                                        cut, sess.minor))
        if over:
            self.status = "finished"
            end = self.game_over_message()
            log.info("table %s: game over, winner %s, scores %s", self.id, end["winner"],
                     end["scores"])
            for sess, _ in self.members():
                sess.send(end)
            self.broadcast_table()
            if self.on_finished is not None:
                self.on_finished(self)
