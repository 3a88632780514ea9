"""The Hard bot: search over a learned win model (:mod:`bots.hard_model`).

:class:`HardBot` is the search bot's machinery (:class:`bots.search.SearchBot`:
the trader's bargaining as its prior, candidates pruned by the heuristic,
determinization by :func:`protocol.rules.sample_state` from its card
tracker, common random numbers, successive rejection, an override only when
clearly better) with another evaluation and another horizon:

- **Evaluation.** A position is scored by the learned model
  (:class:`bots.hard_model.WinModel`: a network over the features of the
  bot's own view, trained from self-play by :mod:`bots.hard_train`), which
  judges the position at the start of the next player's turn well enough
  that the search need not play a round of opponents first.
- **Expectimax over chance, by depth.** Each sample plays a candidate, the
  rest of the bot's turn (its own policy) and the next ``depth`` turns
  (heuristic bots for the others), and is scored by the model when the
  next turn starts; by default (:meth:`HardBot.depth_for`) a full round, the
  other players' turns and the bot's next one. Hidden cards, steals and
  development card draws are chance nodes sampled per determinization; the
  dice are *stratified*: over every 36 samples of a decision the first two
  rolls of the look-ahead take each of the 36 outcomes once (their exact
  distribution), the later rolls at random, shared by the candidates. A
  larger budget buys more samples.
- **Trading.** The trader's offers, counter-offers and proposals, with the
  model as the judge of two things: the bot never trades with the *leader*
  (the seat the model gives the best chance to win, when it is clearly
  ahead of the bot, or a seat two points from the win) — it rejects the
  leader's offers and proposals it would otherwise take, and does not make
  offers to it — and it never offers or accepts a trade after which the
  model thinks its own position worse.

The model is trained on 2–4 player games of the base board. At five and six
players (the large board) the bot is the search bot: its fitted evaluation,
its horizon and the trader's trades as they are.
"""

from __future__ import annotations

import random
from collections.abc import Mapping, Sequence
from typing import Any

from protocol.rules import (
    AcceptProposal,
    AcceptTrade,
    Action,
    BuildRoad,
    CounterOffer,
    EndTurn,
    GameState,
    OfferTrade,
    ProposeTrade,
    RejectProposal,
    RejectTrade,
    RulesError,
    apply,
    sample_state,
)

from .hard_model import MODEL_PLAYERS, WinModel, load_model
from .search import SearchBot

LEADER_MARGIN = 0.10
"""How far (win probability) a seat must be ahead of the bot, and of 1/n, to
count as the leader the bot does not trade with."""


class HardBot(SearchBot):
    """Search over the learned win model (see the module's description).

    ``depth``: turns after the bot's own the look-ahead plays before scoring
    (None: a full round, :meth:`depth_for`). ``roads``: when the prior's
    move is a road or ending the turn, also compare ending the turn and this
    many other roads (0: trust the prior there). ``judge_trades``: refuse
    trades with the leader and trades the model rates worse (below).
    ``model``: the win model (default: the shipped one,
    :func:`bots.hard_model.load_model`). The other arguments are
    :class:`bots.search.SearchBot`'s.
    """

    name = "hard"

    def __init__(self, budget: float | None = 0.5, seed: int | None = None, *,
                 depth: int | None = None, model: WinModel | None = None,
                 verify: int | None = 0, roads: int = 0, judge_trades: bool = True,
                 **kw: Any) -> None:
        super().__init__(budget, seed, verify=verify, **kw)
        self.depth = depth
        self.roads = roads
        self.judge_trades = judge_trades
        self.model = model if model is not None else load_model()
        self._strata: list[int] = []
        self._trade_rng = random.Random(seed)

    def learned(self, n: int) -> bool:
        """Whether the learned model judges a game of ``n`` players (2–4);
        otherwise the bot plays as :class:`bots.search.SearchBot`."""
        return n <= MODEL_PLAYERS

    def depth_for(self, n: int) -> int:
        """Turns after the bot's own in the look-ahead: ``depth`` if set, else
        a full round (the other players' turns and the bot's next one), as the
        search bot looks; a larger budget buys more samples of it."""
        if self.depth is not None:
            return self.depth
        return n

    # -- the search's hooks ----------------------------------------------------------

    def _turns(self, n: int) -> int:
        if not self.learned(n):
            return super()._turns(n)
        return 1 + self.depth_for(n)

    def _candidates(self, view: Mapping[str, Any], legal: Sequence[Action],
                    default: Action) -> list[Action]:
        out = super()._candidates(view, legal, default)
        if (self.roads and self.learned(int(view["players"])) and view["phase"] == "main"
                and len(out) == 1
                and isinstance(default, BuildRoad | EndTurn)):
            # Roads and ending the turn: the prior's move, ending the turn, and
            # the roads the model likes best one step ahead.
            roads = [a for a in legal if isinstance(a, BuildRoad) and a != default]
            if roads:
                out += [a for a in legal if isinstance(a, EndTurn) and a != default]
                out += self._best_steps(view, roads, self.roads)
        return out

    def _best_steps(self, view: Mapping[str, Any], actions: Sequence[Action],
                    k: int) -> list[Action]:
        """The ``k`` of ``actions`` whose position right after the model rates
        best for the bot (one sample)."""
        me = int(view["seat"])
        plain = dict(view) if not isinstance(view, dict) else view
        base = sample_state(plain, self.tracker(plain), self._rng.getrandbits(62))
        states = []
        kept = []
        for a in actions:
            st = base.copy()
            try:
                apply(st, a, me)
            except RulesError:
                continue
            states.append(st)
            kept.append(a)
        values = self.model.values(states, me)
        order = sorted(range(len(kept)), key=lambda i: -values[i])
        return [kept[i] for i in order[:k]]

    def _dice(self, seed: int, sample: int) -> list[int]:
        if sample % 36 == 0:
            self._strata = random.Random(seed).sample(range(36), 36)
        dice = random.Random(seed).choices(range(36), k=64)
        # The first roll of the look-ahead is the candidate's own (before the
        # roll) or the next player's: stratify both.
        dice[0] = self._strata[sample % 36]
        dice[1] = self._strata[(sample * 7 + 3) % 36]
        return dice

    def _value(self, s: GameState, me: int) -> float:
        if not self.learned(s.settings.players):
            return super()._value(s, me)
        return self.model.value(s, me)

    # -- trading ---------------------------------------------------------------------

    def act(self, view: Mapping[str, Any], legal: Sequence[Action]) -> Action:
        choice = super().act(view, legal)
        if self.judge_trades and self.learned(int(view["players"])) and isinstance(
                choice, AcceptTrade | CounterOffer | AcceptProposal | OfferTrade):
            return self._judge_trade(view, legal, choice)
        return choice

    def propose(self, view: Mapping[str, Any]) -> Action | None:
        p = super().propose(view)
        if (self.judge_trades and self.learned(int(view["players"]))
                and isinstance(p, ProposeTrade)):
            cur = int(view["current"])
            if self._leader(view) == cur:
                return None
            if not self._better_off(view, p.give, p.get):
                return None
        return p

    def _judge_trade(self, view: Mapping[str, Any], legal: Sequence[Action],
                     choice: Action) -> Action:
        """``choice`` (a trade the prior would make), or a refusal when it would
        help the leader or leave the bot worse off by the model."""
        me = int(view["seat"])
        leader = self._leader(view)
        if isinstance(choice, OfferTrade):
            if choice.to is not None and choice.to == leader:
                return self._no_trade(view, legal)
            if not self._better_off(view, choice.give, choice.get):
                return self._no_trade(view, legal)
            return choice
        if isinstance(choice, AcceptProposal):
            if choice.seat == leader:
                return RejectProposal(choice.seat)
            prop = (view.get("proposals") or [None] * 8)[choice.seat]
            if prop is not None and not self._better_off(view, prop[1], prop[0]):
                return RejectProposal(choice.seat)
            return choice
        trade = view.get("trade")
        if trade is None:
            return choice
        offerer = int(trade["offerer"])
        if offerer == leader and offerer != me:
            return RejectTrade() if RejectTrade() in legal else choice
        if isinstance(choice, AcceptTrade) and offerer != me and not self._better_off(
                view, trade["get"], trade["give"]):
            return RejectTrade() if RejectTrade() in legal else choice
        return choice

    def _no_trade(self, view: Mapping[str, Any], legal: Sequence[Action]) -> Action:
        """The prior's move with domestic offers switched off for this decision."""
        on = self.prior.offers
        self.prior.offers = False
        try:
            return self.prior.act(view, legal)
        finally:
            self.prior.offers = on

    def _leader(self, view: Mapping[str, Any]) -> int:
        """The seat the bot does not trade with, or -1: a seat two points from
        the win, or the one the model clearly favours (on one sample)."""
        me = int(view["seat"])
        n = int(view["players"])
        target = int(view["settings"]["vp_target"])
        seats = view["seats"]
        close = [q for q in range(n) if q != me and int(seats[q]["vp"]) >= target - 2]
        if close:
            return max(close, key=lambda q: int(seats[q]["vp"]))
        try:
            plain = dict(view) if not isinstance(view, dict) else view
            s = sample_state(plain, self.tracker(plain), self._trade_rng.getrandbits(62))
            p = self.model.win_probabilities(s, me)
        except (KeyError, ValueError):
            return -1
        best = max((q for q in range(n) if q != me), key=lambda q: p[q])
        if p[best] > max(p[me], 1.0 / n) + LEADER_MARGIN:
            return best
        return -1

    def _better_off(self, view: Mapping[str, Any], give: Sequence[int],
                    get: Sequence[int]) -> bool:
        """Whether the model rates the bot's position after giving ``give`` for
        ``get`` (its own side) at least as good as before (one sample; only the
        bot's own hand changes)."""
        me = int(view["seat"])
        hand = [int(x) for x in view["you"]["hand"]]
        if any(hand[r] < int(give[r]) for r in range(5)):
            return False
        try:
            plain = dict(view) if not isinstance(view, dict) else view
            s = sample_state(plain, self.tracker(plain), self._trade_rng.getrandbits(62))
        except (KeyError, ValueError):
            return True
        before = self.model.value(s, me)
        s.hands[me] = [hand[r] - int(give[r]) + int(get[r]) for r in range(5)]
        return self.model.value(s, me) >= before - 1e-9


__all__ = ["HardBot", "LEADER_MARGIN"]
