"""What the player may send now, from what the client knows.

The server's ``legal`` list is the authority for every finite choice. A few
choices are never listed and follow the rules instead (docs/PROTOCOL.md
§7.6): domestic offers and counter-offers, and the offerer's confirm/cancel
before every addressed seat has answered; a proposal to the current player
and its withdrawal (a seat off turn, from its view's ``you.may_propose`` and
``proposals``); and a discard from a huge hand when the list was truncated.
Everything else is allowed only if listed.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from protocol.rules import (
    Action,
    CancelTrade,
    ConfirmTrade,
    CounterOffer,
    Discard,
    EndTurn,
    GiveBack,
    OfferTrade,
    ProposeTrade,
    WithdrawProposal,
)


def covers(hand: Sequence[int], cards: Sequence[int]) -> bool:
    return all(h >= c for h, c in zip(hand, cards, strict=True))


def terms_ok(give: Sequence[int], get: Sequence[int]) -> bool:
    """R-TRADE-2: both sides give at least one card, no resource on both sides."""
    return (len(give) == 5 and len(get) == 5 and min(give) >= 0 and min(get) >= 0
            and sum(give) > 0 and sum(get) > 0
            and all(not (give[r] and get[r]) for r in range(5)))


def my_hand(model: Any) -> list[int] | None:
    view = model.view
    if view is None or view.get("you") is None:
        return None
    return list(view["you"]["hand"])


def may_offer(model: Any) -> bool:
    """The current player may open a domestic offer now (main phase, after the
    roll; not after a build under strict phases)."""
    view = model.view
    if view is None or model.seat is None or view.get("phase") != "main":
        return False
    if view.get("current") != model.seat or not any(type(a) is EndTurn for a in model.legal):
        return False
    strict = bool((view.get("settings") or {}).get("strict_phases"))
    if strict and view.get("built"):
        return False
    hand = my_hand(model)
    return hand is not None and sum(hand) > 0


def may_propose(model: Any) -> bool:
    """This seat (not on turn) may propose a trade to the current player now."""
    view = model.view
    if view is None or model.seat is None or model.game_over is not None:
        return False
    you = view.get("you") or {}
    hand = my_hand(model)
    return bool(you.get("may_propose")) and hand is not None and sum(hand) > 0


def proposals(model: Any) -> dict[int, tuple[list[int], list[int]]]:
    """The open proposals to the current player: proposer -> (what it gives, what
    it gets), from the proposer's side."""
    view = model.view
    out: dict[int, tuple[list[int], list[int]]] = {}
    if view is None:
        return out
    for q, p in enumerate(view.get("proposals") or []):
        if isinstance(p, list | tuple) and len(p) == 2:
            out[q] = (list(p[0]), list(p[1]))
    return out


def open_trade(model: Any) -> dict[str, Any] | None:
    view = model.view
    if view is None or view.get("phase") != "trade":
        return None
    trade = view.get("trade")
    return trade if isinstance(trade, dict) else None


def confirmable(model: Any) -> list[int]:
    """Seats the offerer may confirm with now (accepted or countered, and the
    offerer still holds its side)."""
    trade = open_trade(model)
    hand = my_hand(model)
    if trade is None or hand is None or trade["offerer"] != model.seat:
        return []
    out = []
    for q, st in enumerate(trade["status"]):
        if st == 1:
            gives = trade["give"]
        elif st == 3 and trade["counters"][q] is not None:
            gives = trade["counters"][q][1]  # the counter's "get" is what the offerer gives
        else:
            continue
        if covers(hand, gives):
            out.append(q)
    return out


def is_allowed(model: Any, action: Action) -> bool:
    """True when sending ``action`` now follows the rules as far as the client knows."""
    if model.seat is None or model.view is None or model.game_over is not None:
        return False
    if action in model.legal:
        return True
    if isinstance(action, Discard | GiveBack):
        if not model.legal_truncated or model.discard_count is None:
            return False
        if not any(type(a) is type(action) for a in model.legal):
            return False
        hand = my_hand(model)
        return (hand is not None and sum(action.cards) == model.discard_count
                and covers(hand, action.cards))
    if isinstance(action, OfferTrade):
        hand = my_hand(model)
        players = int(model.view.get("players", 0))
        if action.to is not None and not (0 <= action.to < players and action.to != model.seat):
            return False
        return (may_offer(model) and hand is not None and terms_ok(action.give, action.get)
                and covers(hand, action.give))
    if isinstance(action, CounterOffer):
        trade = open_trade(model)
        hand = my_hand(model)
        return (trade is not None and hand is not None and trade["offerer"] != model.seat
                and trade["status"][model.seat] == 0 and terms_ok(action.give, action.get)
                and covers(hand, action.give))
    if isinstance(action, CancelTrade):
        trade = open_trade(model)
        return trade is not None and trade["offerer"] == model.seat
    if isinstance(action, ConfirmTrade):
        return action.seat in confirmable(model)
    if isinstance(action, ProposeTrade):
        hand = my_hand(model)
        return (may_propose(model) and hand is not None and terms_ok(action.give, action.get)
                and covers(hand, action.give))
    if isinstance(action, WithdrawProposal):
        return model.seat in proposals(model)
    return False
