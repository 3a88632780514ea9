"""A whole game: the real client (App, NetClient, TableScene, dialogs), driven by a
scripted mouse, plays with three bots against a real server until game over.

The mouse chooses what to do with a bot policy (:class:`bots.GreedyBot` on the
client's own view and legal list) and then does it the way a player would:
posted mouse clicks on the build buttons, the lit board spots, the hand's
cards and the dialogs' buttons, one click per frame, frames run by
:meth:`client.app.App.step`. Nothing is sent behind the UI's back: every
action the server sees went out through a click.
"""

from __future__ import annotations

import asyncio
import random
import time
from collections.abc import Awaitable, Callable
from typing import Any

import pygame
import pytest

from bots import GreedyBot, HeuristicBot
from bots.client import BotClient
from client import dialogs
from client.app import App
from client.intents import may_offer
from client.table_scene import TableScene
from protocol.rules import (
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
    RejectProposal,
    RejectTrade,
    RollDice,
    Steal,
    TokenForcedTrade,
    TokenRobberHome,
)
from server.app import Server
from tests.server.conftest import seeded_reveal

Pos = tuple[int, int]


class Again:
    """A step's answer: click ``pos`` and run the same step again next frame."""

    def __init__(self, pos: Pos) -> None:
        self.pos = pos


Step = Callable[[], "Pos | Again | None"]  # where to click now (None: not ready, wait)
PLAN_TIMEOUT = 5.0


def _five(c: Any) -> Cards:
    return (c[0], c[1], c[2], c[3], c[4])


class ScriptedMouse:
    """Plays the client's seat with clicks: a plan of clicks per decision."""

    def __init__(self, app: App, seed: int) -> None:
        self.app = app
        self.policy = GreedyBot(seed)
        self.plan: list[Step] = []
        self.plan_started = 0.0
        self.waiting_for: tuple[int, int] | None = None  # (version, legal_version) when done
        self.done: list[Action] = []
        self.clicks = 0
        self.rng = random.Random(seed)
        self.offered = -1  # the turn of this seat's last offer
        self.plan_version = -1
        self.aborted = 0
        self.phases: list[str] = []  # the phase of each decision in done

    @property
    def model(self) -> Any:
        return self.app.model

    def scene(self) -> TableScene | None:
        scenes = self.app.ctx.stack.scenes
        return scenes[0] if scenes and isinstance(scenes[0], TableScene) else None

    def top(self) -> Any:
        return self.app.ctx.stack.top

    # -- one frame ---------------------------------------------------------------------------

    def tick(self) -> None:
        scene = self.scene()
        m = self.model
        if scene is None or m.view is None or m.game_over is not None:
            return
        if self.plan and m.version != self.plan_version:
            self.plan = []  # the game moved on before the last click (e.g. a new offer)
            self.aborted += 1
        if self.plan:
            if time.monotonic() - self.plan_started > PLAN_TIMEOUT:
                raise AssertionError(
                    f"stuck doing {self.done[-1]!r} ({len(self.plan)} clicks to go): top "
                    f"{self.top()!r}, legal {m.legal!r}, buttons "
                    f"{[n for n, b in scene.buttons.items() if b.enabled and b.visible]}, "
                    f"errors {list(m.errors)}, toasts {[t.text for t in self.app.toasts]}")
            pos = self.plan[0]()
            if pos is None:
                return
            target = pos.pos if isinstance(pos, Again) else pos
            toast = self.app._toast_at(target)
            if toast is not None:  # an error notice covers the target: click it away first
                self.click(self.app._toast_rects(self.app.screen.get_size())[toast].center)
                return
            if not isinstance(pos, Again):
                self.plan.pop(0)
            self.click(target)
            if not self.plan:
                self.waiting_for = (m.version, m.legal_version)
            return
        if self.waiting_for is not None:
            if (m.version, m.legal_version) == self.waiting_for and scene.ui.pending():
                return
            self.waiting_for = None
        if not m.legal or m.legal_version != m.version or scene.ui.pending():
            return
        # a dialog this seat opened earlier (the bank stays open after a trade): close it
        top = self.top()
        if isinstance(top, dialogs.Dialog) and top.kind in ("bank", "compose", "counter",
                                                            "cards", "tokens", "leave"):
            self.key(pygame.K_ESCAPE)
            return
        action = self.decide()
        self.done.append(action)
        self.phases.append(m.view["phase"])
        self.plan = self.plan_for(action, scene)
        self.plan_started = time.monotonic()
        self.plan_version = m.version

    def decide(self) -> Action:
        """The bot policy, plus some negotiation it does not do: an offer once per
        turn, and answers (accept, counter or reject) to the bots' offers."""
        m = self.model
        view, legal = m.view, list(m.legal)
        me = m.seat
        if view["phase"] == "trade":
            trade = view["trade"]
            if trade["offerer"] == me:
                confirm = [a for a in legal if isinstance(a, ConfirmTrade)]
                return confirm[0] if confirm else CancelTrade()
            if AcceptTrade() in legal and self.rng.random() < 0.5:
                return AcceptTrade()
            hand = view["you"]["hand"]
            if all(h >= n for h, n in zip(hand, trade["get"], strict=True)) and \
                    self.rng.random() < 0.5:
                more = [n + (1 if trade["give"][r] and r == trade["give"].index(max(
                    trade["give"])) else 0) for r, n in enumerate(trade["give"])]
                return CounterOffer(_five(trade["get"]), _five(more))
            return RejectTrade()
        if (view["phase"] == "main" and may_offer(m) and self.offered != view["turn"]
                and EndTurn() in legal):
            hand = view["you"]["hand"]
            surplus = max(range(5), key=lambda r: hand[r])
            missing = [r for r in range(5) if hand[r] == 0 and r != surplus]
            if hand[surplus] >= 2 and missing:
                self.offered = view["turn"]
                give = [1 if r == surplus else 0 for r in range(5)]
                get = [1 if r == missing[0] else 0 for r in range(5)]
                return OfferTrade(_five(give), _five(get), None)
        return self.policy.act(view, legal)

    def click(self, pos: Pos) -> None:
        self.clicks += 1
        pygame.event.post(pygame.event.Event(pygame.MOUSEMOTION, pos=pos, rel=(0, 0),
                                             buttons=(0, 0, 0)))
        pygame.event.post(pygame.event.Event(pygame.MOUSEBUTTONDOWN, pos=pos, button=1))
        pygame.event.post(pygame.event.Event(pygame.MOUSEBUTTONUP, pos=pos, button=1))

    def key(self, key: int) -> None:
        pygame.event.post(pygame.event.Event(pygame.KEYDOWN, key=key, mod=0, unicode=""))

    # -- plans ---------------------------------------------------------------------------------

    def plan_for(self, a: Action, scene: TableScene) -> list[Step]:
        lay = scene.board.layout
        assert lay is not None
        phase = self.model.view["phase"]

        def at(p: tuple[float, float]) -> Step:
            return lambda: (round(p[0]), round(p[1]))

        def button(name: str) -> Step:
            def step() -> Pos | None:
                btn = scene.buttons[name]
                return btn.rect.center if btn.enabled and btn.visible and \
                    self.top() is scene else None
            return step

        def in_dialog(kind: type, pick: Callable[[Any], Any]) -> Step:
            def step() -> Pos | None:
                top = self.top()
                if not isinstance(top, kind):
                    return None
                target = pick(top)
                if target is None:
                    return None
                if isinstance(target, pygame.Rect):
                    return target.center
                return (round(target[0]), round(target[1]))
            return step

        def dialog_button(kind: type, name: str) -> Step:
            def pick(d: Any) -> Any:
                btn = d.buttons[name]
                return btn.rect if btn.enabled and btn.visible else None
            return in_dialog(kind, pick)

        def mode_then(mode: str, spot: tuple[float, float]) -> list[Step]:
            def spot_when_lit() -> Pos | None:
                return (round(spot[0]), round(spot[1])) if scene.mode == mode else None
            return [button(mode), spot_when_lit]

        if isinstance(a, RollDice):
            return [button("roll")]
        if isinstance(a, EndTurn):
            return [button("end")]
        if isinstance(a, BuyDevCard):
            return [button("buy")]
        building = phase in ("main", "special_build")  # R-56-8: the build buttons, then the spot
        if isinstance(a, BuildRoad):
            return mode_then("road", lay.edge_xy[a.edge]) if building else \
                [at(lay.edge_xy[a.edge])]
        if isinstance(a, BuildSettlement):
            return mode_then("settlement", lay.node_xy[a.node]) if building else \
                [at(lay.node_xy[a.node])]
        if isinstance(a, BuildCity):
            return mode_then("city", lay.node_xy[a.node])
        if isinstance(a, MoveRobber):
            return [at(lay.hex_xy[a.hex])]
        if isinstance(a, BuildNeutralRoad | BuildNeutralSettlement):
            spot = lay.edge_xy[a.edge] if isinstance(a, BuildNeutralRoad) else \
                lay.node_xy[a.node]
            steps: list[Step] = []
            if scene.neutral != a.neutral:
                steps.append(lambda: scene.neutral_rects[a.neutral].center
                             if a.neutral in scene.neutral_rects else None)
            steps.append(lambda: (round(spot[0]), round(spot[1]))
                         if scene.neutral == a.neutral else None)
            return steps
        if isinstance(a, Steal):
            return [dialog_button(dialogs.StealDialog, f"victim{a.victim}")]
        if isinstance(a, Discard | GiveBack):
            # from a clean slate (an earlier, given-up plan may have left counts behind)
            steps = [dialog_button(dialogs.DiscardDialog, "clear")]
            for res, n in enumerate(a.cards):
                for _ in range(n):
                    steps.append(in_dialog(dialogs.DiscardDialog,
                                           lambda d, r=res: d.steppers[r].plus))
            steps.append(dialog_button(dialogs.DiscardDialog, "ok"))
            return steps
        if isinstance(a, PlayKnight | PlayRoadBuilding):
            card = 0 if isinstance(a, PlayKnight) else 1
            return [at(scene.dev_rects[card].center)]
        if isinstance(a, PlayYearOfPlenty):
            picks = [a.first] + ([] if a.second is None else [a.second])
            steps = [at(scene.dev_rects[2].center)]
            steps += [in_dialog(dialogs.ResourcePickDialog, lambda d, r=r: d.tiles[r])
                      for r in picks]
            return steps + [dialog_button(dialogs.ResourcePickDialog, "ok")]
        if isinstance(a, PlayMonopoly):
            return [at(scene.dev_rects[3].center),
                    in_dialog(dialogs.ResourcePickDialog, lambda d: d.tiles[a.resource]),
                    dialog_button(dialogs.ResourcePickDialog, "ok")]
        if isinstance(a, MaritimeTrade):
            return [button("bank"),
                    in_dialog(dialogs.MaritimeDialog, lambda d: d.give_tiles[a.give]),
                    in_dialog(dialogs.MaritimeDialog, lambda d: d.get_tiles[a.get]
                              if d.give == a.give else None),
                    dialog_button(dialogs.MaritimeDialog, "ok")]
        if isinstance(a, OfferTrade):
            steps = [button("trade")]
            for side, cards in (("give", a.give), ("get", a.get)):
                for res, n in enumerate(cards):
                    for _ in range(n):
                        steps.append(in_dialog(dialogs.TradeComposeDialog,
                                               lambda d, r=res, side=side:
                                               getattr(d, side)[r].plus))
            return steps + [dialog_button(dialogs.TradeComposeDialog, "ok")]
        def panel_button(name: str) -> Step:
            def step() -> Pos | None:
                btn = scene.trade_panel.buttons[name]
                return btn.rect.center if btn.enabled and btn.visible and \
                    self.top() is scene else None
            return step

        if isinstance(a, CounterOffer):
            steps = [panel_button("counter")]

            def adjust() -> Pos | Again | None:
                # the dialog starts from the offer seen from this side: add what differs,
                # then send
                d = self.top()
                if not isinstance(d, dialogs.TradeComposeDialog):
                    return None
                give, get = d.terms()
                for r in range(5):
                    if get[r] < a.get[r]:
                        return Again(d.get[r].plus.center)
                    if give[r] < a.give[r]:
                        return Again(d.give[r].plus.center)
                return d.buttons["ok"].rect.center if d.buttons["ok"].enabled else None

            return steps + [adjust]
        if isinstance(a, AcceptTrade | RejectTrade):
            return [panel_button("accept" if isinstance(a, AcceptTrade) else "reject")]
        if isinstance(a, ConfirmTrade):
            return [panel_button(f"confirm{a.seat}")]
        if isinstance(a, AcceptProposal | RejectProposal):  # answered in the panel
            kind = "accept" if isinstance(a, AcceptProposal) else "reject"
            return [panel_button(f"p_{kind}{a.seat}")]
        if isinstance(a, CancelTrade):
            return [panel_button("withdraw")]
        if isinstance(a, TokenForcedTrade | TokenRobberHome | DiscardKnight):
            name = {TokenForcedTrade: "forced", TokenRobberHome: "robber_home",
                    DiscardKnight: "discard_knight"}[type(a)]
            return [button("tokens"), dialog_button(dialogs.TokenDialog, name)]
        raise AssertionError(f"no clicks for {a!r}")


AfterGame = Callable[[App, ScriptedMouse], Awaitable[None]]


async def play_client_game(server: Server, players: int, vp_target: int, seed: int,
                           timeout: float, after: AfterGame | None = None,
                           lang: str = "en") -> tuple[App, ScriptedMouse, list[Any]]:
    """Play a whole game with the scripted mouse; ``after`` runs once it is over,
    while the window is still open."""
    app = App(connect=f"127.0.0.1:{server.port}", name="Tester", lang=lang, discover=False,
              create={"settings": {"players": players, "vp_target": vp_target}})
    mouse = ScriptedMouse(app, seed)
    bots: list[BotClient] = []
    tasks: list[asyncio.Task[Any]] = []
    try:
        end = time.monotonic() + 10
        while app.model.table is None:
            assert time.monotonic() < end, "the table was not created"
            app.step(1 / 60)
            await asyncio.sleep(0.005)
        table_id = app.model.table
        server.tables[table_id].commit(seeded_reveal(seed))  # read when the game starts
        for i in range(players - 1):
            reader, writer = await asyncio.open_connection("127.0.0.1", server.port)
            # heuristic bots negotiate (they offer trades to the client), greedy ones do not
            kind = HeuristicBot if i % 2 == 0 else GreedyBot
            bot = BotClient(kind(seed * 10 + i), reader, writer, f"bot{i}")
            await asyncio.wait_for(bot.handshake(), 5)
            bot.send({"type": "join", "table": table_id})
            bots.append(bot)
            tasks.append(asyncio.create_task(bot.play()))
        end = time.monotonic() + timeout
        while app.model.game_over is None:
            assert time.monotonic() < end, f"no game over after {timeout} s " \
                                           f"(turn {app.model.view and app.model.view['turn']})"
            for t in tasks:
                if t.done() and t.exception() is not None:
                    raise t.exception()  # type: ignore[misc]
            app.step(1 / 60)
            mouse.tick()
            await asyncio.sleep(0)
        outcomes = await asyncio.wait_for(asyncio.gather(*tasks), 10)
        if after is not None:
            await after(app, mouse)
        return app, mouse, outcomes
    finally:
        for t in tasks:
            t.cancel()
        for b in bots:
            b.writer.close()
        app.close()


async def check_game(server: Server, players: int, vp_target: int, seed: int,
                     timeout: float) -> ScriptedMouse:
    started = time.monotonic()
    app, mouse, outcomes = await play_client_game(server, players, vp_target, seed, timeout)
    over = app.model.game_over
    assert over is not None and over["winner"] is not None
    assert all(o.finished and o.winner == over["winner"] for o in outcomes)
    assert all(o.rejected == 0 for o in outcomes)
    # no click sent an illegal action; the one race a client cannot avoid: answering an
    # offer that its offerer withdrew (or replaced) while the answer was on its way
    for code, message in app.model.errors:
        assert code in ("not_your_turn", "wrong_phase") and "trade offer" in message, \
            (code, message)
    table = server.tables.get(app.model.table or "")
    if table is not None and table.game is not None:
        assert table.game.winner == over["winner"]
    kinds = {type(a).__name__ for a in mouse.done}
    assert {"BuildSettlement", "BuildRoad", "RollDice", "EndTurn"} <= kinds
    assert mouse.clicks >= len(mouse.done)
    print(f"\n{players}-player game to {vp_target}: {len(mouse.done)} decisions by mouse "
          f"({mouse.clicks} clicks, {mouse.aborted} given up, {sorted(kinds)}), "
          f"winner seat {over['winner']}, {time.monotonic() - started:.1f} s")
    return mouse


async def test_client_plays_a_whole_game_with_three_bots(server: Server) -> None:
    """The base game to 10 points: the client's seat against two heuristic bots (they
    negotiate) and a greedy one."""
    await check_game(server, players=4, vp_target=10, seed=8, timeout=60)


async def test_client_plays_the_two_player_game(server: Server) -> None:
    """The two-player variant: neutral pieces, trade tokens and two rolls a turn."""
    await check_game(server, players=2, vp_target=8, seed=9, timeout=60)


async def test_client_plays_six_players_through_special_building(server: Server) -> None:
    """The 5–6 player extension (R-56) in the window: the 30-hex board, six
    seats, and the special building phase after every turn, where the mouse
    builds (the Road, Settlement, City and Dev card buttons and the lit board)
    or passes (the Pass button) by clicks."""
    mouse = await check_game(server, players=6, vp_target=8, seed=13, timeout=120)
    special = [a for a, ph in zip(mouse.done, mouse.phases, strict=True)
               if ph == "special_build"]
    assert any(isinstance(a, EndTurn) for a in special)  # passed with the Pass button
    assert any(isinstance(a, BuildRoad | BuildSettlement | BuildCity | BuyDevCard)
               for a in special), special  # and built or bought in the phase


@pytest.mark.slow
@pytest.mark.parametrize("seed", [1, 2, 3, 4, 5])
async def test_client_games_more_seeds(server: Server, seed: int) -> None:
    await check_game(server, players=4 if seed % 2 else 3, vp_target=10, seed=seed,
                     timeout=120)
