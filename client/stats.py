"""A game's statistics, folded from the events the client received.

:class:`GameStats` is fed every ``events`` batch (``feed(version, events)``)
as it arrives (:class:`client.model.ClientModel` does that), so it needs
nothing but what the server sent, and works the same for a whole game
replayed from its start (the replay viewer feeds it full-information events;
a server that sends a resuming client the table's history feeds it too).
It keeps, per seat:

- victory points over time: public points (buildings, Longest Road, Largest
  Army) plus the victory point cards the events show (this seat's own
  purchases; every seat's in a replay), one sample at the start of every
  turn, and the final scores (every card revealed) at the end;
- cards produced by the dice (and the second settlement's income), per
  resource;
- robber steals: cards taken and lost (the counts are public; which
  resource only where the events say, i.e. where this seat was thief or
  victim), and cards taken with Monopoly;
- trades: cards given and received with other players and with the bank;
- the dice: how often each total was rolled.

Batches carry the table's event version, 1, 2, 3, … with no gap. Stats that
did not see version 1, or saw a gap (a client that joined or came back
mid-game without the table's history), say so (:attr:`GameStats.complete`
is False, :attr:`GameStats.missing` tells what is missing) instead of
showing numbers that look whole. A batch with version 1 starts afresh.

No pygame here.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from typing import Any

MAX_SEATS = 6  # five and six players
VICTORY_POINT_CARD = 4


def _zeros() -> list[int]:
    return [0] * 5


@dataclass
class SeatStats:
    """One seat's totals (cards are per resource: lumber, brick, wool, grain, ore)."""

    produced: list[int] = field(default_factory=_zeros)
    stole: int = 0  # cards taken with the robber (or a knight)
    stole_cards: list[int] = field(default_factory=_zeros)  # of which the resource is known
    robbed: int = 0  # cards lost to the robber
    robbed_cards: list[int] = field(default_factory=_zeros)
    monopoly: int = 0  # cards taken with Monopoly
    lost_to_monopoly: int = 0
    discarded: int = 0  # cards discarded on a 7
    traded_gave: int = 0  # domestic trades
    traded_got: int = 0
    bank_gave: int = 0  # maritime trades
    bank_got: int = 0
    knights: int = 0
    dev_bought: int = 0
    vp_cards: int = 0  # victory point cards the events showed

    @property
    def produced_total(self) -> int:
        return sum(self.produced)


class GameStats:
    """See the module docstring."""

    def __init__(self) -> None:
        self.reset()

    def reset(self) -> None:
        self.version = 0  # the last batch's version
        self.first_version: int | None = None  # the first batch seen
        self.gaps = 0  # batches missing between two seen
        self.players = 0  # seats seen or told (see feed)
        self.seats = [SeatStats() for _ in range(MAX_SEATS)]
        self.dice = [0] * 13  # index: the total, 2..12
        self.public_vp = [0] * MAX_SEATS
        self.vp_series: list[tuple[int, list[int]]] = []  # (turn, points per seat)
        self.final: list[int] | None = None  # the final scores (game over)
        self.winner: int | None = None
        self.turn = 0
        self._lr: int | None = None
        self._la: int | None = None

    # -- what is known ---------------------------------------------------------------

    @property
    def started(self) -> bool:
        return self.first_version is not None

    @property
    def complete(self) -> bool:
        """Every batch from the game's first on was seen."""
        return self.first_version == 1 and self.gaps == 0

    @property
    def missing(self) -> str | None:
        """What is missing: ``"start"`` (the first batches), ``"gap"`` (some in
        between), or None."""
        if self.first_version is None:
            return "start"
        if self.first_version != 1:
            return "start"
        return "gap" if self.gaps else None

    def vp_known(self, seat: int) -> int:
        return self.public_vp[seat] + self.seats[seat].vp_cards

    # -- feeding ---------------------------------------------------------------------

    def feed(self, version: int, events: Iterable[dict[str, Any]],
             players: int | None = None) -> None:
        """One ``events`` batch (plain dicts, as sent) with its event version;
        ``players``: the table's seat count when known."""
        if version == 1 and self.first_version is not None:
            self.reset()  # the game's history from its start (or a new game)
        if players:
            self.players = max(self.players, min(MAX_SEATS, int(players)))
        if self.first_version is None:
            self.first_version = version
        elif version <= self.version:
            return  # seen already
        elif version != self.version + 1:
            self.gaps += version - self.version - 1
        self.version = version
        for event in events:
            if isinstance(event, dict):
                self._event(event)

    def _seat(self, value: object) -> SeatStats | None:
        if isinstance(value, int) and not isinstance(value, bool) and 0 <= value < MAX_SEATS:
            if self.players and value >= self.players:
                return None  # a neutral player of the 2-player game
            return self.seats[value]
        return None

    def _event(self, e: dict[str, Any]) -> None:
        kind = e.get("type")
        seat = e.get("seat")
        s = self._seat(seat)
        if kind == "turn_started":
            turn = e.get("turn")
            if isinstance(turn, int):
                self.turn = turn
                self.vp_series.append((turn, [self.vp_known(q) for q in range(MAX_SEATS)]))
        elif kind == "dice_rolled":
            dice = e.get("dice")
            if isinstance(dice, list | tuple) and all(isinstance(d, int) for d in dice):
                total = sum(dice)
                if 2 <= total <= 12:
                    self.dice[total] += 1
        elif kind == "produced":
            gains = e.get("gains")
            if isinstance(gains, list | tuple):
                if not self.players:
                    self.players = min(MAX_SEATS, len(gains))
                for q, cards in enumerate(gains[:MAX_SEATS]):
                    self._add(self.seats[q].produced, cards)
        elif kind == "setup_income" and s is not None:
            self._add(s.produced, e.get("cards"))
        elif kind in ("settlement_built", "city_built") and s is not None \
                and isinstance(seat, int):
            self.public_vp[seat] += 1
        elif kind == "longest_road_changed":
            self._lr = self._award(self._lr, e.get("holder"))
        elif kind == "largest_army_changed":
            self._la = self._award(self._la, e.get("holder"))
        elif kind == "stolen":
            thief, victim = self._seat(e.get("thief")), self._seat(e.get("victim"))
            count = _count(e.get("count"))
            res = e.get("resource")
            if thief is not None:
                thief.stole += count
            if victim is not None:
                victim.robbed += count
            if isinstance(res, int) and 0 <= res < 5 and count:
                if thief is not None:
                    thief.stole_cards[res] += count
                if victim is not None:
                    victim.robbed_cards[res] += count
        elif kind == "monopoly_taken" and s is not None:
            taken = e.get("taken")
            if isinstance(taken, list | tuple):
                for q, n in enumerate(taken[:MAX_SEATS]):
                    victim = self._seat(q)
                    if victim is not None and q != seat:
                        victim.lost_to_monopoly += _count(n)
                        s.monopoly += _count(n)
        elif kind == "discarded" and s is not None:
            s.discarded += _total(e.get("cards"))
        elif kind == "trade_completed" and s is not None:
            partner = self._seat(e.get("partner"))
            gave, got = _total(e.get("gave")), _total(e.get("got"))
            s.traded_gave += gave
            s.traded_got += got
            if partner is not None:
                partner.traded_gave += got
                partner.traded_got += gave
        elif kind == "maritime_traded" and s is not None:
            s.bank_gave += _count(e.get("count"))
            s.bank_got += 1
        elif kind == "dev_card_played" and s is not None and e.get("card") == 0:
            s.knights += 1
        elif kind == "dev_card_bought" and s is not None:
            s.dev_bought += 1
            if e.get("card") == VICTORY_POINT_CARD:
                s.vp_cards += 1
        elif kind == "game_over":
            scores = e.get("scores")
            if isinstance(scores, list | tuple) and all(isinstance(v, int) for v in scores):
                self.final = [int(v) for v in scores[:MAX_SEATS]]
                winner = e.get("winner")
                self.winner = winner if isinstance(winner, int) else None
                padded = self.final + [0] * (MAX_SEATS - len(self.final))
                self.vp_series.append((self.turn + 1, padded))

    def _award(self, old: int | None, new: object) -> int | None:
        holder = new if isinstance(new, int) and self._seat(new) is not None else None
        if old is not None:
            self.public_vp[old] -= 2
        if holder is not None:
            self.public_vp[holder] += 2
        return holder

    @staticmethod
    def _add(into: list[int], cards: object) -> None:
        if isinstance(cards, list | tuple):
            for r, n in enumerate(cards[:5]):
                into[r] += _count(n)


def _count(n: object) -> int:
    return n if isinstance(n, int) and not isinstance(n, bool) and 0 <= n < 1000 else 0


def _total(cards: object) -> int:
    if not isinstance(cards, list | tuple):
        return 0
    return sum(_count(n) for n in cards[:5])


def expected_rolls(total: int, rolls: int) -> float:
    """How often ``total`` (2..12) is expected in ``rolls`` rolls of two dice."""
    return (6 - abs(7 - total)) / 36 * rolls


def series_for(stats: GameStats, seats: Sequence[int]) -> list[list[tuple[int, int]]]:
    """The victory point series of ``seats``: (turn, points) pairs each."""
    return [[(turn, vps[q]) for turn, vps in stats.vp_series] for q in seats]
