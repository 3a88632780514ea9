"""Actions: small typed frozen dataclasses, and their plain-data form.

An action never names the acting seat: the engine is told who acts (the
server takes it from the authenticated connection). The plain-data form is
``{"type": <name>, <field>: <value>, ...}`` with ints, lists of 5 ints
(resource counts in the order lumber, brick, wool, grain, ore) or nil; see
``docs/ENGINE.md``.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, ClassVar

from .errors import MalformedAction
from .plain import field_names

Cards = tuple[int, int, int, int, int]
"""Resource counts: lumber, brick, wool, grain, ore."""


@dataclass(frozen=True, slots=True)
class Action:
    """Base class of all actions."""

    name: ClassVar[str] = "action"

    def to_dict(self) -> dict[str, Any]:
        d: dict[str, Any] = {"type": self.name}
        for name in field_names(type(self)):
            v = getattr(self, name)
            d[name] = list(v) if isinstance(v, tuple) else v
        return d


@dataclass(frozen=True, slots=True)
class BuildRoad(Action):
    """Build a road on ``edge`` (also the free set-up and Road Building roads)."""

    edge: int
    name: ClassVar[str] = "build_road"


@dataclass(frozen=True, slots=True)
class BuildSettlement(Action):
    """Build a settlement on ``node`` (also the free set-up settlements)."""

    node: int
    name: ClassVar[str] = "build_settlement"


@dataclass(frozen=True, slots=True)
class BuildCity(Action):
    """Upgrade the own settlement on ``node`` to a city."""

    node: int
    name: ClassVar[str] = "build_city"


@dataclass(frozen=True, slots=True)
class BuyDevCard(Action):
    name: ClassVar[str] = "buy_dev_card"


@dataclass(frozen=True, slots=True)
class PlayKnight(Action):
    name: ClassVar[str] = "play_knight"


@dataclass(frozen=True, slots=True)
class PlayRoadBuilding(Action):
    name: ClassVar[str] = "play_road_building"


@dataclass(frozen=True, slots=True)
class PlayYearOfPlenty(Action):
    """Take ``first`` and ``second`` from the bank; ``second`` is None only when
    the bank holds a single card in all."""

    first: int
    second: int | None
    name: ClassVar[str] = "play_year_of_plenty"


@dataclass(frozen=True, slots=True)
class PlayMonopoly(Action):
    resource: int
    name: ClassVar[str] = "play_monopoly"


@dataclass(frozen=True, slots=True)
class RollDice(Action):
    name: ClassVar[str] = "roll_dice"


@dataclass(frozen=True, slots=True)
class Discard(Action):
    """Discard exactly the owed number of cards (R-ROBBER-2)."""

    cards: Cards
    name: ClassVar[str] = "discard"


@dataclass(frozen=True, slots=True)
class MoveRobber(Action):
    hex: int
    name: ClassVar[str] = "move_robber"


@dataclass(frozen=True, slots=True)
class Steal(Action):
    victim: int
    name: ClassVar[str] = "steal"


@dataclass(frozen=True, slots=True)
class MaritimeTrade(Action):
    """Give the seat's best ratio (4, 3 or 2) of ``give`` for one ``get``."""

    give: int
    get: int
    name: ClassVar[str] = "maritime_trade"


@dataclass(frozen=True, slots=True)
class OfferTrade(Action):
    """The current player offers ``give`` for ``get`` to every opponent
    (``to`` None) or to one seat."""

    give: Cards
    get: Cards
    to: int | None = None
    name: ClassVar[str] = "offer_trade"


@dataclass(frozen=True, slots=True)
class AcceptTrade(Action):
    name: ClassVar[str] = "accept_trade"


@dataclass(frozen=True, slots=True)
class RejectTrade(Action):
    name: ClassVar[str] = "reject_trade"


@dataclass(frozen=True, slots=True)
class CounterOffer(Action):
    """An addressed seat proposes other terms; ``give``/``get`` are from the
    counter-offering seat's side."""

    give: Cards
    get: Cards
    name: ClassVar[str] = "counter_offer"


@dataclass(frozen=True, slots=True)
class ConfirmTrade(Action):
    """The current player completes the trade with ``seat`` (who accepted, or
    whose counter-offer is taken)."""

    seat: int
    name: ClassVar[str] = "confirm_trade"


@dataclass(frozen=True, slots=True)
class CancelTrade(Action):
    name: ClassVar[str] = "cancel_trade"


@dataclass(frozen=True, slots=True)
class StopRoadBuilding(Action):
    """Place no more free roads of a Road Building card (R-DEV-5: "up to" two);
    allowed once the first free road is placed."""

    name: ClassVar[str] = "stop_road_building"


@dataclass(frozen=True, slots=True)
class ProposeTrade(Action):
    """A seat that is not on turn proposes a trade to the current player
    (R-TRADE-2); ``give``/``get`` are from the proposing seat's side."""

    give: Cards
    get: Cards
    name: ClassVar[str] = "propose_trade"


@dataclass(frozen=True, slots=True)
class AcceptProposal(Action):
    """The current player takes ``seat``'s proposal: the cards change hands at once."""

    seat: int
    name: ClassVar[str] = "accept_proposal"


@dataclass(frozen=True, slots=True)
class RejectProposal(Action):
    """The current player declines ``seat``'s proposal."""

    seat: int
    name: ClassVar[str] = "reject_proposal"


@dataclass(frozen=True, slots=True)
class WithdrawProposal(Action):
    """The proposing seat takes its open proposal back."""

    name: ClassVar[str] = "withdraw_proposal"


@dataclass(frozen=True, slots=True)
class EndTurn(Action):
    name: ClassVar[str] = "end_turn"


@dataclass(frozen=True, slots=True)
class BuildNeutralRoad(Action):
    """2-player game: the free road for neutral player ``neutral`` (2 or 3) (R-2P-4)."""

    neutral: int
    edge: int
    name: ClassVar[str] = "build_neutral_road"


@dataclass(frozen=True, slots=True)
class BuildNeutralSettlement(Action):
    """2-player game: the free settlement for neutral player ``neutral`` (R-2P-4)."""

    neutral: int
    node: int
    name: ClassVar[str] = "build_neutral_settlement"


@dataclass(frozen=True, slots=True)
class TokenForcedTrade(Action):
    """2-player game: spend trade tokens to draw 2 random cards from the
    opponent; then :class:`GiveBack` as many (R-2P-5a)."""

    name: ClassVar[str] = "token_forced_trade"


@dataclass(frozen=True, slots=True)
class GiveBack(Action):
    """The cards given back after a forced trade."""

    cards: Cards
    name: ClassVar[str] = "give_back"


@dataclass(frozen=True, slots=True)
class TokenRobberHome(Action):
    """2-player game: spend trade tokens to put the robber back in the desert (R-2P-5b)."""

    name: ClassVar[str] = "token_robber_home"


@dataclass(frozen=True, slots=True)
class DiscardKnight(Action):
    """2-player game: discard one played knight for 2 trade tokens (R-2P-6)."""

    name: ClassVar[str] = "discard_knight"


ACTION_TYPES: dict[str, type[Action]] = {
    cls.name: cls
    for cls in (
        BuildRoad, BuildSettlement, BuildCity, BuyDevCard, PlayKnight, PlayRoadBuilding,
        PlayYearOfPlenty, PlayMonopoly, RollDice, Discard, MoveRobber, Steal, MaritimeTrade,
        OfferTrade, AcceptTrade, RejectTrade, CounterOffer, ConfirmTrade, CancelTrade, EndTurn,
        BuildNeutralRoad, BuildNeutralSettlement, TokenForcedTrade, GiveBack, TokenRobberHome,
        DiscardKnight, StopRoadBuilding, ProposeTrade, AcceptProposal, RejectProposal,
        WithdrawProposal,
    )
}

_MAX_INT = 1 << 16
_CARD_TERMS = (OfferTrade, CounterOffer, ProposeTrade)


def _int(v: object, what: str) -> int:
    if type(v) is not int or not 0 <= v < _MAX_INT:
        raise MalformedAction(f"{what} must be a small non-negative integer, got {v!r}")
    return v


def _cards(v: object, what: str) -> Cards:
    if not isinstance(v, list | tuple) or len(v) != 5:
        raise MalformedAction(f"{what} must be a list of 5 resource counts")
    a, b, c, d, e = (_int(x, what) for x in v)
    return (a, b, c, d, e)


def action_from_dict(d: object) -> Action:
    """Parse and type-check the plain-data form of an action.

    Raises :class:`MalformedAction` for anything that is not exactly one known
    action with fields of the right types. Whether the action is *legal* is
    the engine's business, not this function's.
    """
    if not isinstance(d, dict):
        raise MalformedAction("an action is a map")
    name = d.get("type")
    cls = ACTION_TYPES.get(name) if isinstance(name, str) else None
    if cls is None:
        raise MalformedAction(f"unknown action type {name!r}")
    kwargs: dict[str, Any] = {}
    for f in field_names(cls):
        if f not in d:
            if f == "to":
                kwargs["to"] = None
                continue
            raise MalformedAction(f"{cls.name}: missing field {f!r}")
        v = d[f]
        if f in ("give", "get") and cls in _CARD_TERMS or f == "cards":
            kwargs[f] = _cards(v, f)
        elif f in ("to", "second") and v is None:
            kwargs[f] = None
        else:
            kwargs[f] = _int(v, f)
    # Unknown extra fields are ignored (the wire protocol's compatibility rule).
    return cls(**kwargs)
