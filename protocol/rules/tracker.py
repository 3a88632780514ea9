"""Card tracking: what the public record says about every hand.

Almost every resource card is public when it moves: production, set-up
income, builds, development cards bought, maritime and domestic trades,
discards, Monopoly, Year of Plenty. Only a card a robber takes is hidden
(from everyone but the thief and the victim), and in the two-player game the
cards of a forced trade (from spectators). A :class:`CardTracker` follows one
seat's redacted events — exactly what a network client receives — and keeps
the set of *joint hand assignments* (one hand per seat) that agree with
everything that seat has seen, each with its probability given that robbers
take a card uniformly at random:

- an unseen steal splits every assignment into one per resource the victim
  may hold (weighted by how many of it they hold);
- every later public fact prunes: a seat that pays for a build, discards,
  gives in a trade or loses cards to a Monopoly (which also reveals how many
  it held), accepts an offer, counter-offers or proposes a trade holds those
  cards, so assignments where it does not are dropped.

The set is capped at :data:`MAX_WORLDS` assignments. Past the cap the tracker
falls back, soundly, to per-seat bounds ("seat 2 holds at least 1 ore and 3
cards of unknown kinds, and no grain") and goes back to exact assignments as
soon as the bounds leave few enough. The upper bounds keep what the record
proves: after a Monopoly (R-DEV-7) the other seats hold none of its resource
and the thief holds every card of it outside the bank, until they gain some
again. Either way the real hands are always possible (the tracker is
*sound*), and no hand it holds possible contradicts the record, which the
tests check on random games.

A tracker can start at the beginning of a game (:meth:`CardTracker.new`), or
from a view alone (:meth:`CardTracker.from_view`: a client that joins or
resumes mid-game), where the other hands are only counts.
:func:`protocol.rules.sample_state` draws hidden hands from a tracker.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from math import comb
from typing import Any

from .events import (
    CityBuilt,
    DevCardBought,
    Discarded,
    Event,
    ForcedTradeDrawn,
    GaveBack,
    MaritimeTraded,
    MonopolyTaken,
    Produced,
    RoadBuilt,
    SettlementBuilt,
    SetupIncome,
    SpecialBuildStarted,
    Stolen,
    TradeAnswered,
    TradeCancelled,
    TradeCompleted,
    TradeCountered,
    TradeOffered,
    TradeProposed,
    TurnStarted,
    YearOfPlentyTaken,
    event_from_dict,
)
from .rng import Rng
from .state import COST_CITY, COST_DEV, COST_ROAD, COST_SETTLEMENT, Settings

Generator = Any
"""A random source :meth:`CardTracker.sample` accepts (see :func:`as_rng`)."""

MAX_WORLDS = 4096
"""Most joint hand assignments a tracker keeps before it falls back to bounds."""
_REENUMERATE = 16
"""In the fallback, try to go back to exact assignments when at most this many
cards are of unknown kind."""

Hand = tuple[int, int, int, int, int]
World = tuple[Hand, ...]
Cards = Sequence[int]

_ZERO: Hand = (0, 0, 0, 0, 0)
_NO_CAP = 10**6
"""An upper bound the record does not give (the card count still bounds it)."""
_DEAL_TRIES = 8
"""Plain shuffles a fallback sample tries before dealing card by card within
the upper bounds."""


def _covers(hand: Sequence[int], cards: Sequence[int]) -> bool:
    return (hand[0] >= cards[0] and hand[1] >= cards[1] and hand[2] >= cards[2]
            and hand[3] >= cards[3] and hand[4] >= cards[4])


def _add(hand: Hand, cards: Sequence[int], sign: int = 1) -> Hand:
    return (hand[0] + sign * cards[0], hand[1] + sign * cards[1], hand[2] + sign * cards[2],
            hand[3] + sign * cards[3], hand[4] + sign * cards[4])


def _one(r: int, k: int = 1) -> Hand:
    h = [0, 0, 0, 0, 0]
    h[r] = k
    return (h[0], h[1], h[2], h[3], h[4])


def _draws(hand: Hand, k: int, cap: Hand | None = None) -> list[tuple[Hand, int]]:
    """Every multiset of ``k`` cards from ``hand`` (at most ``cap`` of each
    kind), with the number of ways to draw it (for draws at random without
    replacement)."""
    out: list[tuple[Hand, int]] = []

    def rec(r: int, left: int, picked: list[int], ways: int) -> None:
        if r == 5:
            if left == 0:
                out.append(((picked[0], picked[1], picked[2], picked[3], picked[4]), ways))
            return
        top = min(left, hand[r]) if cap is None else min(left, hand[r], cap[r])
        for c in range(top + 1):
            picked.append(c)
            rec(r + 1, left - c, picked, ways * comb(hand[r], c))
            picked.pop()

    rec(0, k, [], 1)
    return out


class CardTracker:
    """What one seat (or a spectator, ``seat`` None) can know about every hand.

    Feed it that seat's redacted events in order with :meth:`update` (Event
    objects or their plain dicts). Ask :meth:`certain`, :meth:`uncertain`,
    :meth:`possible`, :meth:`probable`; draw hands with :meth:`sample`.
    """

    __slots__ = ("players", "seat", "full", "bank", "counts", "bought", "lost", "_worlds",
                 "_floor", "_ceil", "_offer", "_cum", "_certain")

    def __init__(self, players: int, seat: int | None) -> None:
        """A tracker at the start of a game: every hand empty, the bank full."""
        if not 2 <= players <= 6:
            raise ValueError("a game is for 2 to 6 players")
        if seat is not None and not 0 <= seat < players:
            raise ValueError(f"no seat {seat} in a {players}-player game")
        self.players = players
        self.seat = seat
        self.full = Settings(players=players).bank_per_resource
        """Cards of each resource in the game (R-COMP-3, R-56-5)."""
        self.bank = [self.full] * 5
        """The bank's counts (public; followed from the events)."""
        self.counts = [0] * players
        """Every seat's card count (public)."""
        self.bought = [0] * players
        """Development cards each seat bought this turn (public)."""
        self.lost = False
        """True when the events contradicted each other (events were missed or
        came from another game): then nothing is known; start again from a view."""
        self._worlds: dict[World, float] | None = {tuple([_ZERO] * players): 1.0}
        self._floor: list[list[int]] = [[0] * 5 for _ in range(players)]
        self._ceil: list[list[int]] = [[_NO_CAP] * 5 for _ in range(players)]
        """In the fallback: the most of each resource a seat may hold (as far as
        the record shows; the card count bounds it too)."""
        self._offer: tuple[int, Hand] | None = None  # open offer: (offerer, what it asks)
        self._cum: tuple[list[World], list[float]] | None = None
        self._certain: dict[int, Hand] = {}  # cached answers of certain(), per seat

    @classmethod
    def from_view(cls, view: Mapping[str, Any], exact: bool = True) -> CardTracker:
        """A tracker that knows only what ``view`` shows: the viewer's own hand,
        every card count, the bank, and the facts of an open offer and of open
        proposals (a seat that accepted, counter-offered or proposed holds the
        cards it would give). ``exact``: list every assignment when there are at
        most :data:`MAX_WORLDS` (more exact later, as events prune them);
        False: bounds only (cheaper to make; the same hands to sample from)."""
        n = int(view["players"])
        seat = view.get("seat")
        t = cls(n, seat)
        t.bank = [int(x) for x in view["bank"]]
        t.counts = [int(x["cards"]) for x in view["seats"]]
        t._worlds = None
        t._floor = [[0] * 5 for _ in range(n)]
        t._ceil = [[_NO_CAP] * 5 for _ in range(n)]
        you = view.get("you")
        if seat is not None and you is not None:
            t._floor[seat] = [int(x) for x in you["hand"]]
            t._ceil[seat] = [int(x) for x in you["hand"]]
        trade = view.get("trade")
        if trade is not None:
            offerer = int(trade["offerer"])
            t._raise_floor(offerer, trade["give"])
            t._offer = (offerer, _hand(trade["get"]))
            for q, st in enumerate(trade["status"]):
                if st == 1:
                    t._raise_floor(q, trade["get"])
                elif st == 3 and trade["counters"][q] is not None:
                    t._raise_floor(q, trade["counters"][q][0])
        for q, p in enumerate(view.get("proposals") or ()):
            if p is not None:
                t._raise_floor(q, p[0])
        if view.get("current") is not None and view.get("you") is not None:
            cur = int(view["current"])
            if cur == seat:
                t.bought[cur] = sum(view["you"]["dev_new"])
        if exact:
            t._reenumerate(force=True)
        return t

    # -- queries -----------------------------------------------------------------

    @property
    def exact(self) -> bool:
        """True while the tracker keeps every possible joint assignment (not bounds)."""
        return self._worlds is not None

    def worlds(self) -> int | None:
        """How many joint hand assignments are possible (None in the fallback)."""
        return None if self._worlds is None else len(self._worlds)

    def certain(self, q: int) -> Hand:
        """Cards seat ``q`` surely holds (in every possible assignment)."""
        if self._worlds is None:
            f = self._floor[q]
            return (f[0], f[1], f[2], f[3], f[4])
        if not self._worlds:
            return _ZERO
        got = self._certain.get(q)
        if got is not None:
            return got
        lo = [99] * 5
        for w in self._worlds:
            h = w[q]
            for r in range(5):
                if h[r] < lo[r]:
                    lo[r] = h[r]
        got = self._certain[q] = (lo[0], lo[1], lo[2], lo[3], lo[4])
        return got

    def uncertain(self, q: int) -> int:
        """How many of seat ``q``'s cards are of a kind not known for sure."""
        return self.counts[q] - sum(self.certain(q))

    def possible(self, q: int) -> Hand:
        """The most of each resource seat ``q`` may hold."""
        if self._worlds is None:
            f = self._floor[q]
            spare = self.counts[q] - sum(f)
            pool = self._pool()
            c = self._ceil[q]
            return _hand([min(c[r], f[r] + min(spare, pool[r])) for r in range(5)])
        hi = [0] * 5
        for w in self._worlds:
            h = w[q]
            for r in range(5):
                if h[r] > hi[r]:
                    hi[r] = h[r]
        return (hi[0], hi[1], hi[2], hi[3], hi[4])

    def probable(self, q: int) -> list[float]:
        """Expected number of each resource in seat ``q``'s hand."""
        if self._worlds is None:
            f = self._floor[q]
            spare = self.counts[q] - sum(f)
            pool = [p if self._ceil[q][r] > f[r] else 0 for r, p in enumerate(self._pool())]
            total = sum(pool)
            return [f[r] + (spare * pool[r] / total if total else 0.0) for r in range(5)]
        out = [0.0] * 5
        weight = 0.0
        for w, p in self._worlds.items():
            weight += p
            h = w[q]
            for r in range(5):
                out[r] += p * h[r]
        return [x / weight for x in out] if weight else out

    def is_possible(self, hands: Sequence[Sequence[int]]) -> bool:
        """Whether these hands (one per seat) agree with everything seen."""
        if self.lost or [sum(h) for h in hands] != self.counts:
            return False
        if self._worlds is not None:
            return tuple(_hand(h) for h in hands) in self._worlds
        if any(not _covers(h, f) or not _covers(c, h)
               for h, f, c in zip(hands, self._floor, self._ceil, strict=True)):
            return False
        return all(sum(h[r] for h in hands) + self.bank[r] == self.full
                   for r in range(5))

    def matches(self, view: Mapping[str, Any]) -> bool:
        """Whether the tracker is at the same point of the game as ``view``
        (card counts, bank and the viewer's own hand agree)."""
        if self.lost or int(view["players"]) != self.players or view.get("seat") != self.seat:
            return False
        if [int(x["cards"]) for x in view["seats"]] != self.counts:
            return False
        if [int(x) for x in view["bank"]] != self.bank:
            return False
        you = view.get("you")
        return not (you is not None and self.seat is not None
                    and _hand(you["hand"]) != self.certain(self.seat))

    def sample(self, rng: Generator) -> list[list[int]]:
        """One joint assignment of hands, drawn by its probability (exact
        tracking) or uniformly among the cards not pinned down, within what
        the record allows each seat (fallback). ``rng``: the game's
        :class:`Rng`, a :class:`random.Random`, a ``numpy.random.Generator``,
        or an int seed (see :func:`as_rng`)."""
        if self.lost:
            raise ValueError("the tracker lost track (contradicting events)")
        rng = as_rng(rng)
        if self._worlds is not None:
            if self._cum is None:
                worlds = list(self._worlds)
                cum: list[float] = []
                total = 0.0
                for w in worlds:
                    total += self._worlds[w]
                    cum.append(total)
                self._cum = (worlds, cum)
            worlds, cum = self._cum
            x = rng.next64() / float(1 << 64) * cum[-1]
            lo, hi = 0, len(cum) - 1
            while lo < hi:
                mid = (lo + hi) // 2
                if cum[mid] > x:
                    hi = mid
                else:
                    lo = mid + 1
            return [list(h) for h in worlds[lo]]
        pool = self._pool()
        spare = [self.counts[q] - sum(self._floor[q]) for q in range(self.players)]
        room = self._room(spare)
        cards = [r for r in range(5) for _ in range(pool[r])]
        for _ in range(_DEAL_TRIES if room is not None else 1):
            rng.shuffle(cards)
            out = []
            pos = 0
            for q in range(self.players):
                hand = list(self._floor[q])
                k = spare[q]
                for r in cards[pos:pos + k]:
                    hand[r] += 1
                pos += k
                out.append(hand)
            if room is None or all(_covers(c, h) for c, h in zip(self._ceil, out, strict=True)):
                return out
        assert room is not None
        return self._deal_within(pool, spare, room, rng)

    def _room(self, spare: Sequence[int]) -> list[list[int]] | None:
        """In the fallback: how many more of each resource each seat may take
        (its upper bound less its lower bound), or None if no upper bound is
        tighter than the seat's card count."""
        room = [[min(self._ceil[q][r] - self._floor[q][r], spare[q]) for r in range(5)]
                for q in range(self.players)]
        if all(room[q][r] >= spare[q] for q in range(self.players) for r in range(5)):
            return None
        return room

    def _deal_within(self, pool: list[int], spare: list[int], room: list[list[int]],
                     rng: Rng) -> list[list[int]]:
        """Deal the pool's cards, in random order, each to a random seat that
        still has room for it and for which the rest can still be dealt."""
        pool = list(pool)
        spare = list(spare)
        room = [list(x) for x in room]
        hands = [list(f) for f in self._floor]
        cards = [r for r in range(5) for _ in range(pool[r])]
        rng.shuffle(cards)
        for r in cards:
            seats = [q for q in range(self.players) if spare[q] and room[q][r]]
            rng.shuffle(seats)
            for q in seats:
                pool[r] -= 1
                spare[q] -= 1
                room[q][r] -= 1
                if _dealable(pool, spare, room):
                    hands[q][r] += 1
                    break
                pool[r] += 1
                spare[q] += 1
                room[q][r] += 1
            else:
                raise ValueError("the tracker lost track (no hands fit the record)")
        return hands

    # -- following events -----------------------------------------------------------

    def update(self, events: Iterable[Event | Mapping[str, Any]]) -> None:
        """Follow a batch of events (as this tracker's seat received them)."""
        changed = False
        for e in events:
            if not isinstance(e, Event):
                parsed = event_from_dict(e)
                if parsed is None:
                    continue  # an event this version does not know: nothing about cards
                e = parsed
            changed |= self._event(e)
        if changed:
            self._cum = None
            if self._worlds is None and not self.lost:
                self._reenumerate()

    def _event(self, e: Event) -> bool:
        """Apply one event; True if it may have changed what is known."""
        n = self.players
        if isinstance(e, Produced):
            for q, g in enumerate(e.gains):
                if q < n and any(g):
                    self._gain(q, g)
            return True
        if isinstance(e, SetupIncome):
            self._gain(e.seat, e.cards)
        elif isinstance(e, Discarded):
            self._pay(e.seat, e.cards)
        elif isinstance(e, RoadBuilt):
            if e.free or e.seat >= n:
                return False
            self._pay(e.seat, COST_ROAD)
        elif isinstance(e, SettlementBuilt):
            if e.free or e.seat >= n:
                return False
            self._pay(e.seat, COST_SETTLEMENT)
        elif isinstance(e, CityBuilt):
            self._pay(e.seat, COST_CITY)
        elif isinstance(e, DevCardBought):
            self._pay(e.seat, COST_DEV)
            self.bought[e.seat] += 1
        elif isinstance(e, YearOfPlentyTaken):
            self._gain(e.seat, e.cards)
        elif isinstance(e, MaritimeTraded):
            self._pay(e.seat, _one(e.give, e.count))
            self._gain(e.seat, _one(e.get))
        elif isinstance(e, Stolen):
            if not e.count:
                return False
            if e.resource is not None:
                self._move(e.victim, e.thief, _one(e.resource))
            else:
                self._steal_unseen(e.thief, e.victim, e.count, random=True)
        elif isinstance(e, MonopolyTaken):
            self._monopoly(e.seat, e.resource, e.taken)
        elif isinstance(e, TradeOffered):
            self._holds(e.seat, e.give)
            self._offer = (e.seat, _hand(e.get))
        elif isinstance(e, TradeAnswered):
            if e.accepted and self._offer is not None:
                self._holds(e.seat, self._offer[1])
            else:
                return False
        elif isinstance(e, TradeCountered | TradeProposed):
            self._holds(e.seat, e.give)
        elif isinstance(e, TradeCompleted):
            self._offer = None
            self._move(e.seat, e.partner, e.gave)
            self._move(e.partner, e.seat, e.got)
        elif isinstance(e, TradeCancelled):
            self._offer = None
            return False
        elif isinstance(e, ForcedTradeDrawn):
            if e.cards is not None:
                self._move(e.victim, e.seat, e.cards)
            else:
                self._steal_unseen(e.seat, e.victim, e.count, random=True)
        elif isinstance(e, GaveBack):
            if e.cards is not None:
                self._move(e.seat, e.partner, e.cards)
            else:
                self._steal_unseen(e.partner, e.seat, e.count, random=False)
        elif isinstance(e, TurnStarted | SpecialBuildStarted):
            self.bought = [0] * n
            self._offer = None
            return False
        else:
            return False
        return True

    # -- the transformations, in both representations -----------------------------

    def _map(self, q: int, change: Hand, sign: int) -> None:
        """Seat ``q`` gains (sign 1) or loses (-1) ``change``; assignments where
        it cannot lose them are dropped."""
        if self._worlds is not None:
            out: dict[World, float] = {}
            for w, p in self._worlds.items():
                h = _add(w[q], change, sign)
                if min(h) < 0:
                    continue
                nw = w[:q] + (h,) + w[q + 1:]
                out[nw] = out.get(nw, 0.0) + p
            self._set(out)
        else:
            f = self._floor[q]
            c = self._ceil[q]
            if sign > 0:
                for r in range(5):
                    f[r] += change[r]
                    c[r] = min(_NO_CAP, c[r] + change[r])
            else:
                for r in range(5):
                    f[r] = max(0, f[r] - change[r])
                    c[r] -= change[r]
                    if c[r] < 0:
                        self.lost = True  # it paid cards it cannot hold
        self.counts[q] += sign * sum(change)
        if self.counts[q] < 0:
            self.lost = True

    def _gain(self, q: int, cards: Cards) -> None:
        c = _hand(cards)
        self._map(q, c, 1)
        for r in range(5):
            self.bank[r] -= c[r]

    def _pay(self, q: int, cards: Cards) -> None:
        c = _hand(cards)
        self._map(q, c, -1)
        for r in range(5):
            self.bank[r] += c[r]

    def _move(self, src: int, dst: int, cards: Cards) -> None:
        c = _hand(cards)
        if any(c):
            self._map(src, c, -1)
            self._map(dst, c, 1)

    def _holds(self, q: int, cards: Cards) -> None:
        """Seat ``q`` holds at least ``cards`` (it offered, accepted or proposed them)."""
        c = _hand(cards)
        if self._worlds is not None:
            self._set({w: p for w, p in self._worlds.items() if _covers(w[q], c)})
        else:
            self._raise_floor(q, c)

    def _raise_floor(self, q: int, cards: Cards) -> None:
        f = self._floor[q]
        for r in range(5):
            f[r] = max(f[r], int(cards[r]))
        if sum(f) > self.counts[q] or not _covers(self._ceil[q], f):
            self.lost = True

    def _monopoly(self, thief: int, r: int, taken: Sequence[int]) -> None:
        if self._worlds is not None:
            out: dict[World, float] = {}
            for w, p in self._worlds.items():
                if any(w[q][r] != taken[q] for q in range(self.players) if q != thief):
                    continue  # R-DEV-7: everyone handed over exactly what they held
                hands = list(w)
                for q in range(self.players):
                    if q != thief and taken[q]:
                        hands[q] = _add(hands[q], _one(r, taken[q]), -1)
                hands[thief] = _add(hands[thief], _one(r, sum(taken)))
                nw = tuple(hands)
                out[nw] = out.get(nw, 0.0) + p
            self._set(out)
        else:
            # R-DEV-7: every other seat handed over exactly what it held, so it
            # holds none now, and every card of it outside the bank is the thief's.
            for q in range(self.players):
                if q != thief:
                    if not self._floor[q][r] <= taken[q] <= self._ceil[q][r]:
                        self.lost = True
                    self._floor[q][r] = 0
                    self._ceil[q][r] = 0
            held = self.full - self.bank[r]
            if held < self._floor[thief][r] + sum(taken):
                self.lost = True
            self._floor[thief][r] = held
            self._ceil[thief][r] = held
        for q in range(self.players):
            if q != thief:
                self.counts[q] -= taken[q]
        self.counts[thief] += sum(taken)

    def _steal_unseen(self, thief: int, victim: int, k: int, *, random: bool) -> None:
        """``k`` cards of unseen kinds go from ``victim`` to ``thief``: drawn at
        random (a robber, a forced trade) or chosen (a give-back)."""
        if self._worlds is not None:
            out: dict[World, float] = {}
            for w, p in self._worlds.items():
                hv = w[victim]
                options = _draws(hv, k)
                if not options:
                    continue
                total = sum(ways for _, ways in options) if random else len(options)
                for taken, ways in options:
                    hands = list(w)
                    hands[victim] = _add(hv, taken, -1)
                    hands[thief] = _add(hands[thief], taken)
                    nw = tuple(hands)
                    out[nw] = out.get(nw, 0.0) + p * ((ways if random else 1) / total)
                if len(out) > MAX_WORLDS:
                    break
            if len(out) <= MAX_WORLDS:
                self._set(out)
                self.counts[victim] -= k
                self.counts[thief] += k
                return
            self._fall_back()
        f = self._floor[victim]
        kinds = [r for r in range(5) if f[r]] if sum(f) == self.counts[victim] else None
        may = self.possible(victim)  # the most of each kind the thief may get
        cv, ct = self._ceil[victim], self._ceil[thief]
        for r in range(5):
            f[r] = max(0, f[r] - k)
            ct[r] = min(_NO_CAP, ct[r] + min(k, may[r]))
            cv[r] = min(cv[r], may[r])
        if kinds is not None and len(kinds) == 1:  # the victim held one kind only
            self._floor[thief][kinds[0]] += k
        self.counts[victim] -= k
        self.counts[thief] += k
        if self.counts[victim] < 0:
            self.lost = True

    def _set(self, worlds: dict[World, float]) -> None:
        if not worlds:
            self.lost = True
        self._worlds = worlds
        self._certain = {}
        self._cum = None

    def _fall_back(self) -> None:
        """Replace the assignments by per-seat bounds (sound, less exact)."""
        assert self._worlds is not None
        floor = [list(self.certain(q)) for q in range(self.players)]
        ceil = [list(self.possible(q)) for q in range(self.players)]
        self._worlds = None
        self._floor = floor
        self._ceil = ceil
        self._certain = {}

    def _pool(self) -> list[int]:
        """Cards outside the bank whose holder is not pinned down (fallback)."""
        return [self.full - self.bank[r] - sum(f[r] for f in self._floor)
                for r in range(5)]

    def _reenumerate(self, force: bool = False) -> None:
        """In the fallback: list every assignment the bounds allow, if few enough."""
        if self._worlds is not None:
            return
        pool = self._pool()
        spare = [self.counts[q] - sum(self._floor[q]) for q in range(self.players)]
        if min(pool) < 0 or min(spare) < 0 or sum(pool) != sum(spare):
            self.lost = True
            return
        if not force and sum(spare) > _REENUMERATE:
            return
        open_seats = [q for q in range(self.players) if spare[q]]
        room = [_hand([max(0, self._ceil[q][r] - self._floor[q][r]) for r in range(5)])
                for q in range(self.players)]
        found: list[tuple[list[Hand], float]] = []

        def rec(i: int, left: list[int], extra: list[Hand], weight: float) -> bool:
            if i == len(open_seats):
                found.append((list(extra), weight))
                return len(found) <= MAX_WORLDS
            q = open_seats[i]
            if i == len(open_seats) - 1:
                h = _hand(left)
                if sum(h) != spare[q] or not _covers(room[q], h):
                    return True
                extra.append(h)
                ok = rec(i + 1, [0] * 5, extra, weight)
                extra.pop()
                return ok
            for h, ways in _draws(_hand(left), spare[q], room[q]):
                extra.append(h)
                ok = rec(i + 1, [left[r] - h[r] for r in range(5)], extra, weight * ways)
                extra.pop()
                if not ok:
                    return False
            return True

        if not rec(0, pool, [], 1.0):
            return  # too many: stay with the bounds
        worlds: dict[World, float] = {}
        for extra, weight in found:
            hands = [_hand(f) for f in self._floor]
            for q, h in zip(open_seats, extra, strict=True):
                hands[q] = _add(hands[q], h)
            w = tuple(hands)
            worlds[w] = worlds.get(w, 0.0) + weight
        self._set(worlds)
        self._cum = None


def _dealable(pool: Sequence[int], spare: Sequence[int], room: Sequence[Sequence[int]]) -> bool:
    """Whether the ``pool`` of cards (per resource) can be dealt so that every
    seat gets ``spare[q]`` cards and at most ``room[q][r]`` of each resource: a
    transport problem, feasible exactly when for every set S of resources the
    cards of S fit where they may go (max-flow, min-cut)."""
    if sum(pool) != sum(spare):
        return False
    for mask in range(1, 32):
        need = 0
        fit = 0
        for r in range(5):
            if mask >> r & 1:
                need += pool[r]
        for q, s in enumerate(spare):
            cap = 0
            for r in range(5):
                if mask >> r & 1:
                    cap += room[q][r]
            fit += min(s, cap)
        if need > fit:
            return False
    return True


def as_rng(rng: Generator) -> Rng:
    """The game's generator for a random source a caller may pass: an
    :class:`Rng` as it is; an int as a seed; a :class:`random.Random` (or
    anything with ``getrandbits``) or a ``numpy.random.Generator`` (anything
    with ``integers``) seeds a new :class:`Rng` with one draw of its own."""
    if isinstance(rng, Rng):
        return rng
    if isinstance(rng, int):
        return Rng(rng)
    bits = getattr(rng, "getrandbits", None)
    if callable(bits):
        return Rng(int(bits(64)))
    integers = getattr(rng, "integers", None)
    if callable(integers):
        return Rng(int(integers(0, 1 << 62)))
    raise TypeError(f"not a random generator: {type(rng).__name__} (an Rng, an int seed, "
                    "a random.Random or a numpy.random.Generator)")


def _hand(v: Sequence[Any]) -> Hand:
    return (int(v[0]), int(v[1]), int(v[2]), int(v[3]), int(v[4]))


__all__ = ["MAX_WORLDS", "CardTracker", "as_rng"]
