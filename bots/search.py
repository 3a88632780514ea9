"""A search bot: the heuristic bot, bargaining harder, improved by determinized rollouts.

:class:`SearchBot` plays its prior's move at once wherever there is nothing
real to choose (rolling, road-building steps, discards, …). The prior is
:class:`bots.search_policy.TraderBot`, the heuristic bot with a harder
bargaining domestic trade; its offers, counter-offers and answers to the
other players' offers are played as they are, never searched (asking costs
nothing, and the trade is where the prior's edge is). At the decisions that
shape a game — set-up settlements, what to build, buy or trade with the bank
in the main phase, playing a development card, placing the robber — it takes
the prior's move and a few alternatives (pruned by the heuristic's own
ranking) and compares them by simulation. When the prior builds a settlement
or a city, only other such builds are compared with it.

1. **Determinization.** Hidden facts are never read: each simulation starts
   from :func:`protocol.rules.sample_state` of the bot's *view*, other hands
   drawn from a :class:`protocol.rules.CardTracker` that follows the events the
   bot sees (so a sample never contradicts what was paid, traded, proposed or
   revealed by a Monopoly), development cards and the deck sampled from the
   public counts.
2. **Rollouts.** Every candidate is applied to the sample, then all seats play
   on (heuristic bots for the others, the prior's policy for our own seat)
   for the rest of the turn and one more round (up to the start of the turn
   after the bot's next one, :meth:`SearchBot.horizon`), on the engine's fast path
   (:func:`protocol.rules.fast.step`: no events, no checks of listed actions)
   with the bots deciding from the sampled state
   (:meth:`bots.heuristic.HeuristicBot.act_state`, the decisions they take on
   the seat's view). By default no domestic offer is made in a rollout (the
   bots trade with the bank only), which makes a rollout about 1.7 times
   cheaper; with ``rollout_trade`` they offer and answer as in a game (their
   offers and counter-offers still checked). Candidates share
   the sample and the dice sequence (common random numbers), so their
   differences are measured with much less noise than their values.
3. **Evaluation.** The position at the horizon is scored by
   :func:`bots.search_eval.win_probabilities` (a win model fitted on heuristic
   self-play), or 1/0 if the game ended.
4. **Choice.** Candidates clearly behind are dropped as the samples come in
   (successive rejection); the prior's move is kept unless another
   candidate beats it by ``margin`` *and* by ``z`` standard errors of the
   paired difference after at least ``min_samples`` samples, so noise rarely
   overrides the prior. From a budget of ``VERIFY_FROM`` seconds this first
   look gets the time of a ``FIRST_LOOK`` decision, and an override it finds
   stands only if a second look, over ``VERIFY_ROUNDS`` rounds in the rest of
   the time, compares the prior's move with the alternative again and also
   finds the alternative better.

Set-up is searched differently: nothing that matters is hidden and there are
no dice, so each candidate settlement (the heuristic's best ``setup_k``) or
road is simulated once, heuristic bots finishing the set-up for every seat,
and the openings are compared by :func:`bots.search_eval.setup_win_probabilities`
(a model of openings fitted the same way). It overrides the heuristic only
beyond ``setup_margin``: measured, the fitted opening model is no better
than the heuristic's own placement, so it is only trusted when it disagrees
strongly.

The per-decision ``budget`` (default 0.5 s) is wall-clock: the search stops
at ``SAFETY`` of it and abandons a rollout that would cross it, so the whole
decision stays within the budget. With ``iterations`` (and ``budget=None``) it
runs a fixed number of samples per candidate and is deterministic given its
seed (tests).
"""

from __future__ import annotations

import gc
import math
import random
import time
from collections.abc import Mapping, Sequence
from typing import Any

from protocol.rules import (
    AcceptProposal,
    Action,
    BuildCity,
    BuildSettlement,
    BuyDevCard,
    CardTracker,
    CounterOffer,
    EndTurn,
    Event,
    GameState,
    MaritimeTrade,
    MoveRobber,
    OfferTrade,
    Phase,
    PlayKnight,
    PlayMonopoly,
    PlayRoadBuilding,
    PlayYearOfPlenty,
    RejectProposal,
    RollDice,
    RulesError,
    Settings,
    apply,
    legal_actions,
    sample_state,
    to_act,
)
from protocol.rules.fast import forced, step

from .base import Bot
from .heuristic import CITY, DEV, SETTLEMENT, HeuristicBot, _Ctx
from .search_eval import setup_win_probabilities, win_probabilities
from .search_policy import TraderBot

SAFETY = 0.8
"""Fraction of the budget the search may use (the rest covers the last rollout's
overrun check, the heuristic's own move and the caller's overhead)."""
VERIFY_FROM = 1.0
"""From this budget (seconds) an override is verified by a longer look."""
VERIFY_ROUNDS = 2
"""Rounds of horizon of the verifying look."""
FIRST_LOOK = 0.5
"""Budget (seconds) whose time the first look gets when the rest verifies."""
_GAME_OVER = Phase.GAME_OVER.value
_SETUP = (Phase.SETUP_SETTLEMENT.value, Phase.SETUP_ROAD.value)
_MAX_STEPS = 600
_UNLISTED = (OfferTrade, CounterOffer)
"""What a rollout bot may answer that ``legal_actions`` does not list."""


class SearchBot(Bot):
    """Heuristic bot plus determinized rollouts at the decisions that matter.

    ``budget``: seconds per decision (None: no clock, ``iterations`` samples).
    ``iterations``: the most samples per candidate (None: as many as fit).
    ``top_k``: candidates per decision, the heuristic's move included.
    ``margin``: how much better (win probability) another candidate must look
    than the heuristic's move to be chosen; ``z`` and ``min_samples``: how sure.
    ``rounds``: rollout horizon in rounds after the current turn (None: by the
    budget, :meth:`horizon`).
    ``setup_k``, ``setup_margin``: set-up candidates and override threshold.
    ``phases``: search only in these phases (None: all that have choices).
    ``rollout_trade``: the rollout bots make domestic offers (and answer them)
    as in a game; False: none is made in a rollout (they still trade with the
    bank), which makes a rollout much cheaper.
    ``verify``: rounds of horizon of a second look that must confirm an
    override (0: none; None: by the budget, :meth:`verification`).
    ``searched``, ``overridden``, ``vetoed``, ``samples`` count what the bot did.
    """

    name = "search"
    raise_errors = False
    """Tests set this to see internal errors instead of the heuristic's move."""

    def __init__(self, budget: float | None = 0.5, seed: int | None = None, *,
                 iterations: int | None = None, top_k: int = 5, margin: float = 0.01,
                 rounds: int | None = None, setup_k: int = 16, z: float = 2.0,
                 setup_margin: float = 0.025, min_samples: int = 6,
                 phases: Sequence[str] | None = None, rollout_trade: bool = False,
                 verify: int | None = None) -> None:
        if budget is None and iterations is None:
            raise ValueError("a search bot needs a time budget or an iteration count")
        self.budget = budget
        self.iterations = iterations
        self.top_k = top_k
        self.margin = margin
        self.rounds = rounds
        self.verify = verify
        self.setup_k = setup_k
        self.z = z
        self.setup_margin = setup_margin
        self.min_samples = min_samples
        self.phases = None if phases is None else frozenset(phases)
        self._rng = random.Random(seed)
        self.prior: HeuristicBot = TraderBot(seed)
        self._pool: list[HeuristicBot] = []
        self.rollout_trade = rollout_trade
        self._own = TraderBot(0)  # plays our seat in rollouts, as the prior would
        self._own.offers = rollout_trade
        self.searched = 0
        self.overridden = 0
        self.vetoed = 0
        self.samples = 0
        self.overrides: dict[str, int] = {}
        self._tracker: CardTracker | None = None

    def horizon(self) -> int:
        """Rounds of rollout after the current turn: ``rounds`` if set, else
        one at every budget. A larger budget buys more samples of the same
        one-round comparison: a sample of two rounds costs about twice one of
        one round and is noisier (twice the dice)."""
        return 1 if self.rounds is None else self.rounds

    def verification(self) -> int | None:
        """Rounds of horizon of the look that verifies an override, or None for
        no verification: ``verify`` if set (0: none), else ``VERIFY_ROUNDS`` from
        a budget of ``VERIFY_FROM`` seconds."""
        if self.verify is not None:
            return self.verify or None
        if self.budget is not None and self.budget >= VERIFY_FROM:
            return VERIFY_ROUNDS
        return None

    # -- interface ----------------------------------------------------------------

    @property
    def offers(self) -> bool:
        """Domestic trade, as :attr:`bots.heuristic.HeuristicBot.offers`: the
        prior's switch. Switched off, the bot makes no offers, counter-offers or
        proposals, and neither do the bots of its rollouts."""
        return self.prior.offers

    @offers.setter
    def offers(self, on: bool) -> None:
        self.prior.offers = on
        if not on:
            self.rollout_trade = False
            for b in (*self._pool, self._own):
                b.offers = False

    @property
    def humans(self) -> frozenset[int]:
        """The seats people play: the prior's (it makes the offers and answers)."""
        return self.prior.humans

    @humans.setter
    def humans(self, seats: frozenset[int]) -> None:
        self.prior.humans = seats

    @property
    def reason(self) -> str | None:
        """The reason for the prior's last trade answer (the bot plays its answers)."""
        return self.prior.reason

    @reason.setter
    def reason(self, why: str | None) -> None:
        self.prior.reason = why

    def on_events(self, seat: int, events: Sequence[Event]) -> None:
        self.prior.on_events(seat, events)
        if self._tracker is not None:
            self._tracker.update(events)

    def on_game_over(self, view: Mapping[str, Any]) -> None:
        self.prior.on_game_over(view)
        self._tracker = None
        for b in (*self._pool, self._own):
            b.on_game_over(view)

    def propose(self, view: Mapping[str, Any]) -> Action | None:
        return self.prior.propose(view)  # proposals are the prior's, like its offers

    def tracker(self, view: Mapping[str, Any]) -> CardTracker:
        """The card tracker at ``view``'s point (started from the view when the
        bot joined mid-game or missed events)."""
        t = self._tracker
        if t is None or not t.matches(view):
            t = self._tracker = CardTracker.from_view(view)
        return t

    def act(self, view: Mapping[str, Any], legal: Sequence[Action]) -> Action:
        start = time.perf_counter()
        default = self.prior.act(view, legal)
        if len(legal) <= 1 and view["phase"] != "main":
            return default
        if self.phases is not None and view["phase"] not in self.phases:
            return default
        if isinstance(default, OfferTrade | CounterOffer | AcceptProposal | RejectProposal):
            return default  # asking costs nothing: the bank (or a plain answer) stays open
        try:
            cands = self._candidates(view, legal, default)
        except Exception:  # a bug in candidate generation must not lose a game
            if self.raise_errors:
                raise
            return default
        if len(cands) < 2:
            return default
        stop = math.inf if self.budget is None else start + SAFETY * self.budget
        collecting = gc.isenabled()
        gc.disable()  # no collection pause in the middle of a timed search
        try:
            if view["phase"] in ("setup_settlement", "setup_road"):
                return self._search_setup(view, cands, stop)
            return self._search(view, cands, start, stop)
        except Exception:
            if self.raise_errors:
                raise
            return default
        finally:
            if collecting:
                gc.enable()

    # -- candidates ---------------------------------------------------------------

    def _candidates(self, view: Mapping[str, Any], legal: Sequence[Action],
                    default: Action) -> list[Action]:
        """The prior's move first, then the alternatives worth simulating."""
        phase = view["phase"]
        legal_set = set(legal)
        out: list[Action] = [default]

        def add(a: Action) -> None:
            if a in legal_set and a not in out:
                out.append(a)

        if phase == "setup_settlement":
            st = self.prior._static_for(view)
            ctx = _Ctx.of_view(view, st)
            w = ctx.weights(ctx.me, (0.85, 0.85, 0.95, 1.15, 1.25))
            spots = [a for a in legal if isinstance(a, BuildSettlement)]
            spots.sort(key=lambda a: -ctx.spot_value(a.node, ctx.me, w))
            for spot in spots[: self.setup_k]:
                add(spot)
        elif phase == "setup_road":
            for a in legal:
                add(a)
        elif phase == "main":
            hand = list(view["you"]["hand"])
            # A point now (the prior builds a settlement or city) competes only
            # with another point: measured, the one-round rollouts sometimes
            # preferred ending the turn or a card to it.
            point = isinstance(default, BuildSettlement | BuildCity)
            for a in legal:
                if isinstance(a, BuildSettlement | BuildCity) or (
                        not point and isinstance(a, BuyDevCard | EndTurn)):
                    add(a)
            cities = [a for a in out if isinstance(a, BuildCity)]
            if len(cities) > 1:  # one city is enough: the best-producing one
                st = self.prior._static_for(view)
                keep = max(cities, key=lambda a: st.node_pips[a.node])
                out = [a for a in out if not isinstance(a, BuildCity) or a is keep
                       or a == default]
            for a in legal:
                if not point and (isinstance(a, PlayKnight | PlayRoadBuilding) or (
                        isinstance(a, MaritimeTrade) and _enables_build(hand, a, view))):
                    add(a)
            monos = [a for a in legal if isinstance(a, PlayMonopoly)]
            if monos and not point:
                add(max(monos, key=lambda a: _monopoly_guess(view, a.resource)))
        elif phase == "pre_roll":
            for a in legal:
                if isinstance(a, RollDice | PlayKnight):
                    add(a)
        elif phase == "move_robber":
            st = self.prior._static_for(view)
            ctx = _Ctx.of_view(view, st)
            scores = self.prior._robber_scores(ctx)
            hexes = sorted((a for a in legal if isinstance(a, MoveRobber)),
                           key=lambda a: -scores.get(a.hex, -1e6))
            for a in hexes[: self.top_k]:
                add(a)
        if len(out) > 1 and phase == "main" and not any(
                isinstance(a, BuildSettlement | BuildCity | BuyDevCard | MaritimeTrade
                           | PlayKnight | PlayRoadBuilding | PlayMonopoly | PlayYearOfPlenty)
                for a in out):
            return [default]  # only roads and ending the turn: trust the heuristic
        return out if phase in ("setup_settlement", "setup_road") else out[: self.top_k]

    # -- search -------------------------------------------------------------------

    def _search_setup(self, view: Mapping[str, Any], cands: list[Action],
                      stop: float) -> Action:
        """Set-up: play each candidate, let heuristic bots finish the set-up for
        every seat (no dice, nothing hidden that matters: one simulation per
        candidate), and judge the openings with the fitted set-up model."""
        me = int(view["seat"])
        plain = dict(view) if not isinstance(view, dict) else view
        seed = self._rng.getrandbits(62)
        base = sample_state(plain, self.tracker(plain), seed)
        self.searched += 1
        values: list[float] = []
        for a in cands:
            if time.perf_counter() >= stop:
                break
            v = self._simulate(base, a, me, 0, [], seed, stop, setup=True)
            if v is None:
                break
            values.append(v)
            self.samples += 1
        if len(values) < 2:
            return cands[0]
        best = max(range(len(values)), key=lambda i: (values[i], -i))
        if best != 0 and values[best] > values[0] + self.setup_margin:
            self.overridden += 1
            key = f"{view['phase']}:{cands[0].name}->{cands[best].name}"
            self.overrides[key] = self.overrides.get(key, 0) + 1
            return cands[best]
        return cands[0]

    def _search(self, view: Mapping[str, Any], cands: list[Action], start: float,
                stop: float) -> Action:
        """Compare the candidates over :meth:`horizon`; with :meth:`verification`,
        the first look gets the time of a ``FIRST_LOOK`` decision and an override
        it finds stands only if a look over more rounds, in the rest of the time,
        also finds the alternative better."""
        n = int(view["players"])
        rounds = self.verification()
        first = stop
        if rounds is not None and self.budget is not None:
            first = min(stop, start + SAFETY * FIRST_LOOK)
        self.searched += 1
        best, mean_d, se, count = self._compare(view, cands, self._turns(n), first)
        enough = min(self.min_samples, self._limit())
        if best == 0 or not (count >= enough and mean_d > self.margin
                             and mean_d > self.z * se):
            return cands[0]
        if rounds is not None:
            _, long_d, _, long_count = self._compare(
                view, [cands[0], cands[best]], n * rounds + 1, stop)
            if long_count >= enough and long_d <= 0.0:
                self.vetoed += 1
                return cands[0]
        self.overridden += 1
        key = f"{view['phase']}:{cands[0].name}->{cands[best].name}"
        self.overrides[key] = self.overrides.get(key, 0) + 1
        return cands[best]

    def _turns(self, n: int) -> int:
        """Turn changes a rollout plays: the rest of this turn and :meth:`horizon`
        rounds."""
        return n * self.horizon() + 1

    def _dice(self, seed: int, sample: int) -> list[int]:
        """The dice (ids 0–35) of one sample's rollouts, shared by its candidates."""
        return random.Random(seed).choices(range(36), k=64)

    def _value(self, s: GameState, me: int) -> float:
        """Seat ``me``'s chance to win the (sampled) state at a rollout's horizon."""
        return win_probabilities(s)[me]

    def _limit(self) -> int:
        """Samples a comparison may take: ``iterations``, or no cap but the clock."""
        return self.iterations if self.iterations is not None else 10**9

    def _compare(self, view: Mapping[str, Any], cands: list[Action], turns: int,
                 stop: float) -> tuple[int, float, float, int]:
        """Sample until ``stop`` (or ``iterations``): the best candidate still in
        the race, its mean paired difference to ``cands[0]``, the standard error
        of that mean, and the number of samples."""
        me = int(view["seat"])
        plain = dict(view) if not isinstance(view, dict) else view
        k = len(cands)
        sums = [0.0] * k
        sq = [0.0] * k  # squared differences to the heuristic's move (index 0)
        dsum = [0.0] * k
        count = 0
        alive = list(range(k))
        limit = self._limit()
        tracker = self.tracker(plain)
        while count < limit and len(alive) > 1:
            if time.perf_counter() >= stop:
                break
            seed = self._rng.getrandbits(62)
            base = sample_state(plain, tracker, seed)
            dice = self._dice(seed, count)
            values: dict[int, float] = {}
            aborted = False
            for i in alive:
                v = self._simulate(base, cands[i], me, turns, dice, seed, stop)
                if v is None:
                    aborted = True
                    break
                values[i] = v
            if aborted:
                break
            count += 1
            self.samples += 1
            v0 = values.get(0, 0.0)
            for i in alive:
                sums[i] += values[i]
                d = values[i] - v0
                dsum[i] += d
                sq[i] += d * d
            if count >= 4 and len(alive) > 2:
                best = max(alive, key=lambda i: sums[i])
                alive = [i for i in alive if i == 0 or i == best
                         or sums[i] / count > sums[best] / count - 0.08]
        if count == 0:
            return 0, 0.0, 1.0, 0
        best = max(range(k), key=lambda i: (sums[i] if i in alive else -1e9, -i))
        mean_d = dsum[best] / count
        var = max(0.0, sq[best] / count - mean_d * mean_d)
        se = math.sqrt(var / count) if count > 1 else 1.0
        return best, mean_d, se, count

    def _rollout_bots(self, n: int, seed: int, me: int) -> list[HeuristicBot]:
        """Heuristic bots for the other seats, the prior's policy for ours."""
        while len(self._pool) < n:
            bot = HeuristicBot(len(self._pool))
            bot.offers = self.rollout_trade
            self._pool.append(bot)
        bots = self._pool[:n]
        bots[me] = self._own
        for q, b in enumerate(bots):
            b.reseed(seed + q)
        return bots

    def _simulate(self, base: GameState, first: Action, me: int, turns: int,
                  dice: list[int], seed: int, stop: float, setup: bool = False,
                  ) -> float | None:
        """Value for ``me`` of playing ``first`` in a copy of ``base`` and rolling out
        ``turns`` turn changes with heuristic bots; None if the clock ran out."""
        hard = stop + (1.0 - SAFETY) * 0.5 * (self.budget or 0.0)
        s = base.copy()
        try:
            apply(s, first, me)
        except RulesError:
            return -1.0  # never chosen
        n = s.settings.players
        bots = self._rollout_bots(n, seed, me)
        end_turn = s.turn + turns
        in_setup = s.phase in _SETUP
        roll = 0
        steps = 0
        while s.phase != _GAME_OVER:
            if setup and s.phase not in _SETUP:
                return setup_win_probabilities(s)[me]
            if in_setup:
                if s.phase not in _SETUP:
                    in_setup = False
                    end_turn = s.turn + turns
            elif s.turn >= end_turn:
                break
            steps += 1
            if steps > _MAX_STEPS:
                break
            if steps % 4 == 0 and time.perf_counter() >= hard:
                return None
            roll = rollout_step(s, bots, dice, roll)
        return self._value(s, me)


def rollout_step(s: GameState, bots: Sequence[HeuristicBot], dice: Sequence[int],
                 roll: int) -> int:
    """One decision of a rollout, on the engine's fast path: the seat to act
    plays its bot's choice (offers and counter-offers, which the bot may make
    unlisted, through ``apply``, which checks them; a refused one becomes the
    first legal action). A roll takes the next of ``dice`` (ids 0–35, ``roll``
    of them used so far; in the 2-player game a second roll that must differ
    from the first is left to the game's generator). Returns how many dice
    are used now."""
    seat = to_act(s)[0]
    a = forced(s, seat)  # the roll needs no list
    if a is None:
        legal = legal_actions(s, seat)
        if len(legal) == 1:
            a = legal[0]  # as every heuristic bot takes it (HeuristicBot.act_state)
        else:
            a = bots[seat].act_state(s, seat, legal)
            if type(a) in _UNLISTED:  # offers and counter-offers: checked
                try:
                    apply(s, a, seat)
                except RulesError:
                    step(s, legal[0], seat)
                return roll
    chance: tuple[int, int] | None = None
    if type(a) is RollDice:
        x = dice[roll % len(dice)]
        roll += 1
        d1, d2 = x // 6 + 1, x % 6 + 1
        if not (s.settings.players == 2 and s.rolls_done and d1 + d2 == s.first_sum):
            chance = (d1, d2)
    step(s, a, seat, chance)  # a listed action: the fast path
    return roll


def _enables_build(hand: list[int], a: MaritimeTrade, view: Mapping[str, Any]) -> bool:
    """Does this maritime trade make a settlement, city or development card affordable?"""
    ratio = int(view["you"]["ratios"][a.give])
    after = hand[:]
    after[a.give] -= ratio
    after[a.get] += 1
    for cost in (SETTLEMENT, CITY, DEV):
        if all(after[r] >= cost[r] for r in range(5)) and not all(
                hand[r] >= cost[r] for r in range(5)):
            return True
    return False


def _monopoly_guess(view: Mapping[str, Any], resource: int) -> float:
    """Cards of ``resource`` outside the bank and our hand (held by the others)."""
    full = Settings.from_dict(view["settings"]).bank_per_resource
    return float(full - view["bank"][resource] - view["you"]["hand"][resource])


__all__ = ["SearchBot"]
