"""Kaitaku's rules engine: the base game of Catan, pure and deterministic.

The core API::

    s = new_game(Settings(players=4), seed=7)
    while s.phase != Phase.GAME_OVER:
        seat = to_act(s)[0]
        action = legal_actions(s, seat)[0]
        events = apply(s, action, seat)
    view = observe(s, seat)            # what one seat may know
    s2 = replay(GameLog.of(s))         # exact replay from the log

This package imports nothing else of Kaitaku's and does no I/O.
"""

from .actions import (
    ACTION_TYPES,
    AcceptProposal,
    AcceptTrade,
    Action,
    BuildCity,
    BuildNeutralRoad,
    BuildNeutralSettlement,
    BuildRoad,
    BuildSettlement,
    BuyDevCard,
    CancelTrade,
    Cards,
    ConfirmTrade,
    CounterOffer,
    Discard,
    DiscardKnight,
    EndTurn,
    GiveBack,
    MaritimeTrade,
    MoveRobber,
    OfferTrade,
    PlayKnight,
    PlayMonopoly,
    PlayRoadBuilding,
    PlayYearOfPlenty,
    ProposeTrade,
    RejectProposal,
    RejectTrade,
    RollDice,
    Steal,
    StopRoadBuilding,
    TokenForcedTrade,
    TokenRobberHome,
    WithdrawProposal,
    action_from_dict,
)
from .board import RESOURCES, Board, generate_board
from .check import load_state
from .engine import (
    apply,
    legal_actions,
    longest_road,
    may_propose,
    new_game,
    setup_seat,
    to_act,
    token_cost,
    validate,
)
from .errors import IllegalAction, InvalidLog, MalformedAction, NotYourTurn, RulesError
from .events import EVENT_TYPES, Event, event_from_dict, redact
from .log import GameLog, replay
from .sample import sample_state
from .state import DEV_CARDS, MAX_OFFERS, MAX_PROPOSALS, GameState, Phase, Settings, Trade
from .tracker import CardTracker
from .view import observe

__all__ = [
    "ACTION_TYPES", "load_state", "AcceptProposal", "CardTracker", "MAX_OFFERS",
    "MAX_PROPOSALS", "ProposeTrade",
    "RejectProposal", "StopRoadBuilding", "WithdrawProposal", "event_from_dict",
    "may_propose", "AcceptTrade", "Action", "BuildCity", "BuildRoad", "BuildSettlement",
    "BuildNeutralRoad", "BuildNeutralSettlement", "DiscardKnight", "GiveBack",
    "TokenForcedTrade", "TokenRobberHome", "token_cost",
    "BuyDevCard", "CancelTrade", "Cards", "ConfirmTrade", "CounterOffer", "DEV_CARDS",
    "Discard", "EVENT_TYPES", "EndTurn", "Event", "GameLog", "GameState", "IllegalAction",
    "InvalidLog", "MalformedAction", "MaritimeTrade", "MoveRobber", "NotYourTurn",
    "OfferTrade", "Phase", "PlayKnight", "PlayMonopoly", "PlayRoadBuilding", "PlayYearOfPlenty",
    "RESOURCES", "RejectTrade", "RollDice", "RulesError", "Settings", "Steal", "Board",
    "Trade", "action_from_dict", "apply", "generate_board", "legal_actions", "longest_road",
    "new_game", "observe", "sample_state", "redact", "replay", "setup_seat", "to_act", "validate",
]
