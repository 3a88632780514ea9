"""Events: what an applied action caused, as frozen dataclasses.

``apply`` returns the full (unredacted) events; before an event leaves the
authority it goes through :func:`redact` for each recipient, which hides what
that seat may not know: the type of a bought development card (known to the
buyer only) and which card a robber took (known to thief and victim only).
A spectator is ``seat = None``.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import Any, ClassVar

from .plain import field_names

Cards = tuple[int, int, int, int, int]


def _plain(v: object) -> object:
    if isinstance(v, tuple):
        return [_plain(x) for x in v]
    return v


@dataclass(frozen=True, slots=True)
class Event:
    name: ClassVar[str] = "event"

    def to_dict(self) -> dict[str, Any]:
        d: dict[str, Any] = {"type": self.name}
        for name in field_names(type(self)):
            d[name] = _plain(getattr(self, name))
        return d

    def for_seat(self, seat: int | None) -> Event:
        """This event as ``seat`` may see it (public events are returned as is)."""
        return self


@dataclass(frozen=True, slots=True)
class TurnStarted(Event):
    seat: int
    turn: int
    name: ClassVar[str] = "turn_started"


@dataclass(frozen=True, slots=True)
class TurnEnded(Event):
    seat: int
    name: ClassVar[str] = "turn_ended"


@dataclass(frozen=True, slots=True)
class SpecialBuildStarted(Event):
    """R-56-8: ``seat`` may now build or buy, or pass (``end_turn``), in the
    Special Building Phase after another seat's turn."""

    seat: int
    name: ClassVar[str] = "special_build_started"


@dataclass(frozen=True, slots=True)
class DiceRolled(Event):
    seat: int
    dice: tuple[int, int]
    name: ClassVar[str] = "dice_rolled"


@dataclass(frozen=True, slots=True)
class Produced(Event):
    """Cards each seat received on a roll; ``withheld`` lists resources nobody
    received because the bank ran short (R-PROD-3)."""

    gains: tuple[Cards, ...]
    withheld: tuple[int, ...]
    name: ClassVar[str] = "produced"


@dataclass(frozen=True, slots=True)
class SetupIncome(Event):
    seat: int
    cards: Cards
    name: ClassVar[str] = "setup_income"


@dataclass(frozen=True, slots=True)
class DiscardsOwed(Event):
    owed: tuple[int, ...]
    name: ClassVar[str] = "discards_owed"


@dataclass(frozen=True, slots=True)
class Discarded(Event):
    seat: int
    cards: Cards
    name: ClassVar[str] = "discarded"


@dataclass(frozen=True, slots=True)
class RobberMoved(Event):
    seat: int
    hex: int
    name: ClassVar[str] = "robber_moved"


@dataclass(frozen=True, slots=True)
class Stolen(Event):
    """``count`` is 0 when the victim had no card. ``resource`` is None when
    nothing moved, and in every copy but the thief's and the victim's."""

    thief: int
    victim: int
    count: int
    resource: int | None
    name: ClassVar[str] = "stolen"

    def for_seat(self, seat: int | None) -> Event:
        if seat == self.thief or seat == self.victim or self.resource is None:
            return self
        return replace(self, resource=None)


@dataclass(frozen=True, slots=True)
class RoadBuilt(Event):
    seat: int
    edge: int
    free: bool
    name: ClassVar[str] = "road_built"


@dataclass(frozen=True, slots=True)
class SettlementBuilt(Event):
    seat: int
    node: int
    free: bool
    name: ClassVar[str] = "settlement_built"


@dataclass(frozen=True, slots=True)
class CityBuilt(Event):
    seat: int
    node: int
    name: ClassVar[str] = "city_built"


@dataclass(frozen=True, slots=True)
class DevCardBought(Event):
    """``card`` is known to the buyer only (None in every other copy)."""

    seat: int
    card: int | None
    name: ClassVar[str] = "dev_card_bought"

    def for_seat(self, seat: int | None) -> Event:
        if seat == self.seat or self.card is None:
            return self
        return replace(self, card=None)


@dataclass(frozen=True, slots=True)
class DevCardPlayed(Event):
    seat: int
    card: int
    name: ClassVar[str] = "dev_card_played"


@dataclass(frozen=True, slots=True)
class YearOfPlentyTaken(Event):
    seat: int
    cards: Cards
    name: ClassVar[str] = "year_of_plenty_taken"


@dataclass(frozen=True, slots=True)
class MonopolyTaken(Event):
    seat: int
    resource: int
    taken: tuple[int, ...]
    name: ClassVar[str] = "monopoly_taken"


@dataclass(frozen=True, slots=True)
class MaritimeTraded(Event):
    seat: int
    give: int
    count: int
    get: int
    name: ClassVar[str] = "maritime_traded"


@dataclass(frozen=True, slots=True)
class TradeOffered(Event):
    seat: int
    give: Cards
    get: Cards
    to: tuple[int, ...]
    name: ClassVar[str] = "trade_offered"


@dataclass(frozen=True, slots=True)
class TradeAnswered(Event):
    seat: int
    accepted: bool
    name: ClassVar[str] = "trade_answered"


@dataclass(frozen=True, slots=True)
class TradeCountered(Event):
    seat: int
    give: Cards
    get: Cards
    name: ClassVar[str] = "trade_countered"


@dataclass(frozen=True, slots=True)
class TradeCompleted(Event):
    """``seat`` (the current player) gave ``gave`` to ``partner`` and got ``got``."""

    seat: int
    partner: int
    gave: Cards
    got: Cards
    name: ClassVar[str] = "trade_completed"


@dataclass(frozen=True, slots=True)
class TradeCancelled(Event):
    seat: int
    name: ClassVar[str] = "trade_cancelled"


@dataclass(frozen=True, slots=True)
class TradeProposed(Event):
    """Seat ``seat`` (not on turn) proposes a trade to the current player;
    ``give``/``get`` are from the proposing seat's side (R-TRADE-2)."""

    seat: int
    give: Cards
    get: Cards
    name: ClassVar[str] = "trade_proposed"


@dataclass(frozen=True, slots=True)
class ProposalRejected(Event):
    """The current player declined ``seat``'s proposal."""

    seat: int
    name: ClassVar[str] = "proposal_rejected"


@dataclass(frozen=True, slots=True)
class ProposalWithdrawn(Event):
    """Seat ``seat`` took its proposal back."""

    seat: int
    name: ClassVar[str] = "proposal_withdrawn"


@dataclass(frozen=True, slots=True)
class RoadBuildingStopped(Event):
    """``seat`` placed no more free roads of its Road Building card (R-DEV-5)."""

    seat: int
    name: ClassVar[str] = "road_building_stopped"


@dataclass(frozen=True, slots=True)
class LongestRoadChanged(Event):
    holder: int | None
    length: int
    name: ClassVar[str] = "longest_road_changed"


@dataclass(frozen=True, slots=True)
class LargestArmyChanged(Event):
    holder: int | None
    knights: int
    name: ClassVar[str] = "largest_army_changed"


@dataclass(frozen=True, slots=True)
class GameOver(Event):
    """The game ended: ``scores`` are total VP with victory point cards revealed.
    ``winner`` is None when an automated run's turn cap stopped the game."""

    winner: int | None
    scores: tuple[int, ...]
    vp_cards: tuple[int, ...]
    name: ClassVar[str] = "game_over"


@dataclass(frozen=True, slots=True)
class TokensGained(Event):
    """2-player game: trade tokens from the stock; ``reason`` is "settlement" or "knight"."""

    seat: int
    count: int
    reason: str
    name: ClassVar[str] = "tokens_gained"


@dataclass(frozen=True, slots=True)
class TokensSpent(Event):
    """2-player game: trade tokens back to the stock for ``action``."""

    seat: int
    count: int
    action: str
    name: ClassVar[str] = "tokens_spent"


@dataclass(frozen=True, slots=True)
class ForcedTradeDrawn(Event):
    """``seat`` drew ``count`` random cards from ``victim``; ``cards`` is known
    to the two of them only."""

    seat: int
    victim: int
    count: int
    cards: Cards | None
    name: ClassVar[str] = "forced_trade_drawn"

    def for_seat(self, seat: int | None) -> Event:
        if seat == self.seat or seat == self.victim:
            return self
        return replace(self, cards=None)


@dataclass(frozen=True, slots=True)
class GaveBack(Event):
    """The cards given back after a forced trade, known to the two of them only."""

    seat: int
    partner: int
    count: int
    cards: Cards | None
    name: ClassVar[str] = "gave_back"

    def for_seat(self, seat: int | None) -> Event:
        if seat == self.seat or seat == self.partner:
            return self
        return replace(self, cards=None)


@dataclass(frozen=True, slots=True)
class KnightDiscarded(Event):
    seat: int
    knights: int
    name: ClassVar[str] = "knight_discarded"


EVENT_TYPES: dict[str, type[Event]] = {
    cls.name: cls
    for cls in (
        TurnStarted, TurnEnded, DiceRolled, Produced, SetupIncome, DiscardsOwed, Discarded,
        RobberMoved, Stolen, RoadBuilt, SettlementBuilt, CityBuilt, DevCardBought,
        DevCardPlayed, YearOfPlentyTaken, MonopolyTaken, MaritimeTraded, TradeOffered,
        TradeAnswered, TradeCountered, TradeCompleted, TradeCancelled, LongestRoadChanged,
        LargestArmyChanged, GameOver, TokensGained, TokensSpent, ForcedTradeDrawn, GaveBack,
        KnightDiscarded, TradeProposed, ProposalRejected, ProposalWithdrawn,
        RoadBuildingStopped, SpecialBuildStarted,
    )
}


def event_from_dict(d: object) -> Event | None:
    """An event from its plain form (``to_dict``, as received over the wire), or
    None when it is not a known event with the fields of its type (a newer
    server's event: clients skip those)."""
    if not isinstance(d, dict):
        return None
    kind = d.get("type")
    cls = EVENT_TYPES.get(kind) if isinstance(kind, str) else None
    if cls is None:
        return None
    names = field_names(cls)
    try:
        return cls(**{k: _frozen(d[k]) for k in names})
    except (KeyError, TypeError):
        return None


def _frozen(v: object) -> object:
    if isinstance(v, list | tuple):
        return tuple(_frozen(x) for x in v)
    return v


def redact(events: list[Event], seat: int | None) -> list[Event]:
    """The events as ``seat`` (None: a spectator) may see them."""
    return [e.for_seat(seat) for e in events]
