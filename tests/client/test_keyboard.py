"""Full keyboard play: the real App plays whole games against bots on a real
server with key presses only (Tab / Shift+Tab to the choice, Enter to take it;
no mouse event is posted), and the focus ring's arrows, Space and Esc.

The keyboard "player" decides like the scripted mouse (:mod:`tests.client.
test_full_game`) and then, for each step of the decision, looks where the
focus is and presses Tab or Shift+Tab the number of times that brings it to
the stop it wants (as a person watching the ring would), then Enter.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Callable, Hashable
from typing import Any

import pygame

from bots import GreedyBot, HeuristicBot
from bots.client import BotClient
from client import dialogs
from client.app import App
from client.focus import Stop
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
from tests.client.test_evening import key, table_app
from tests.client.test_full_game import PLAN_TIMEOUT, ScriptedMouse

Press = list[tuple[int, int]]  # (key, modifiers)
TAB, SHIFT_TAB, ENTER = (pygame.K_TAB, 0), (pygame.K_TAB, pygame.KMOD_SHIFT), (pygame.K_RETURN, 0)


class Done:
    """A step's answer: press these keys, and the step is done."""

    def __init__(self, keys: Press) -> None:
        self.keys = keys


class Again(Done):
    """Press these keys and look again next frame (the focus is on its way)."""


KeyStep = Callable[[], "Done | None"]


class ScriptedKeys(ScriptedMouse):
    """Plays the client's seat with the keyboard only."""

    def __init__(self, app: App, seed: int) -> None:
        super().__init__(app, seed)
        self.keys_pressed = 0
        self.key_plan: list[KeyStep] = []
        self.mouse_events = 0

    def post(self, keys: Press) -> None:
        for k, mod in keys:
            self.keys_pressed += 1
            pygame.event.post(pygame.event.Event(pygame.KEYDOWN, key=k, mod=mod, unicode=""))

    def click(self, pos: tuple[int, int]) -> None:
        raise AssertionError("the keyboard player never clicks")

    def tick(self) -> None:
        scene = self.scene()
        m = self.model
        if scene is None or m.view is None or m.game_over is not None:
            return
        if self.key_plan and m.version != self.plan_version:
            self.key_plan = []  # the game moved on (a new offer, ...): decide again
            self.aborted += 1
        if self.key_plan:
            if time.monotonic() - self.plan_started > PLAN_TIMEOUT:
                top = self.top()
                stops = top.stops() if isinstance(top, dialogs.Dialog) else scene.focus_stops()
                raise AssertionError(
                    f"stuck doing {self.done[-1]!r}: top {top!r}, stops "
                    f"{[s.key for s in stops]}, legal {m.legal!r}, errors {list(m.errors)}")
            step = self.key_plan[0]()
            if step is None:
                return
            if not isinstance(step, Again):
                self.key_plan.pop(0)
            self.post(step.keys)
            if not self.key_plan:
                self.waiting_for = (m.version, m.legal_version)
            return
        if self.waiting_for is not None:
            if (m.version, m.legal_version) == self.waiting_for and scene.ui.pending():
                return
            self.waiting_for = None
        if not m.legal or m.legal_version != m.version or scene.ui.pending():
            return
        top = self.top()
        if isinstance(top, dialogs.Dialog) and top.kind in (
                "bank", "compose", "counter", "propose", "cards", "tokens", "leave",
                "monopoly", "year_of_plenty"):  # a plan cut short (news): start again
            self.post([(pygame.K_ESCAPE, 0)])
            return
        action = self.decide()
        self.done.append(action)
        self.key_plan = self.keys_for(action, scene)
        self.plan_started = time.monotonic()
        self.plan_version = m.version

    # -- plans ------------------------------------------------------------------------------

    def choose(self, target: Hashable | Callable[[], Hashable | None],
               where: type | None = None) -> KeyStep:
        """Tab (or Shift+Tab, whichever is shorter) to ``target``, then Enter."""

        def step() -> Done | None:
            top = self.top()
            scene = self.scene()
            if where is None:
                if top is not scene or scene is None:
                    return None
                stops: list[Stop] = scene.focus_stops()
                ring = scene.focus
            else:
                if not isinstance(top, where):
                    return None
                stops = top.stops()
                ring = top.focus
            want = target() if callable(target) else target
            keys = [s.key for s in stops]
            if want is None or want not in keys:
                return None
            t, n = keys.index(want), len(keys)
            here = ring.index(stops)
            if ring.visible and here == t:
                return Done([ENTER])
            forward = t + 1 if here is None else (t - here) % n
            backward = n - t if here is None else (here - t) % n
            return Again([TAB] * forward if forward <= backward else [SHIFT_TAB] * backward)

        return step

    def keys_for(self, a: Action, scene: TableScene) -> list[KeyStep]:
        phase = self.model.view["phase"]
        c = self.choose
        if isinstance(a, RollDice):
            return [c(("button", "roll"))]
        if isinstance(a, EndTurn):
            return [c(("button", "end"))]
        if isinstance(a, BuyDevCard):
            return [c(("button", "buy"))]
        if isinstance(a, BuildRoad):
            spot = [c(("spot", ("edge", a.edge)))]
            return ([c(("button", "road"))] + spot) if phase == "main" else spot
        if isinstance(a, BuildSettlement):
            spot = [c(("spot", ("node", a.node)))]
            return ([c(("button", "settlement"))] + spot) if phase == "main" else spot
        if isinstance(a, BuildCity):
            return [c(("button", "city")), c(("spot", ("node", a.node)))]
        if isinstance(a, MoveRobber):
            return [c(("spot", ("hex", a.hex)))]
        if isinstance(a, BuildNeutralRoad | BuildNeutralSettlement):
            spot = ("edge", a.edge) if isinstance(a, BuildNeutralRoad) else ("node", a.node)
            steps = [] if scene.neutral == a.neutral else [c(("neutral", a.neutral))]
            return steps + [c(lambda: ("spot", spot) if scene.neutral == a.neutral else None)]
        if isinstance(a, Steal):
            return [c(("button", f"victim{a.victim}"), dialogs.StealDialog)]
        if isinstance(a, Discard | GiveBack):
            steps = [c(("button", "clear"), dialogs.DiscardDialog)]
            for res, n in enumerate(a.cards):
                steps += [c(("plus", res), dialogs.DiscardDialog)] * n
            return steps + [c(("button", "ok"), dialogs.DiscardDialog)]
        if isinstance(a, PlayKnight):
            return [c(("dev", 0))]
        if isinstance(a, PlayRoadBuilding):
            return [c(("dev", 1))]
        if isinstance(a, PlayYearOfPlenty):
            picks = [a.first] + ([] if a.second is None else [a.second])
            return ([c(("dev", 2))] + [c(("tile", r), dialogs.ResourcePickDialog) for r in picks]
                    + [c(("button", "ok"), dialogs.ResourcePickDialog)])
        if isinstance(a, PlayMonopoly):
            return [c(("dev", 3)), c(("tile", a.resource), dialogs.ResourcePickDialog),
                    c(("button", "ok"), dialogs.ResourcePickDialog)]
        if isinstance(a, MaritimeTrade):
            return [c(("button", "bank")), c(("give", a.give), dialogs.MaritimeDialog),
                    c(("get", a.get), dialogs.MaritimeDialog),
                    c(("button", "ok"), dialogs.MaritimeDialog)]
        if isinstance(a, OfferTrade):
            steps = [c(("button", "trade"))]
            for res, n in enumerate(a.give):
                steps += [c(("plus", res), dialogs.TradeComposeDialog)] * n
            for res, n in enumerate(a.get):
                steps += [c(("plus", 5 + res), dialogs.TradeComposeDialog)] * n
            return steps + [c(("button", "ok"), dialogs.TradeComposeDialog)]
        if isinstance(a, CounterOffer):
            def adjust() -> Hashable | None:
                d = self.top()
                if not isinstance(d, dialogs.TradeComposeDialog):
                    return None
                give, get = d.terms()
                for r in range(5):
                    if get[r] < a.get[r]:
                        return ("plus", 5 + r)
                    if give[r] < a.give[r]:
                        return ("plus", r)
                return ("button", "ok")

            steps = [c(("trade", "counter"))]
            total = sum(a.give) + sum(a.get) + 1  # at most one Enter per card, then send
            return steps + [c(adjust, dialogs.TradeComposeDialog)] * total
        if isinstance(a, AcceptTrade | RejectTrade):
            return [c(("trade", "accept" if isinstance(a, AcceptTrade) else "reject"))]
        if isinstance(a, ConfirmTrade):
            return [c(("trade", f"confirm{a.seat}"))]
        if isinstance(a, AcceptProposal | RejectProposal):  # answered in the panel
            kind = "accept" if isinstance(a, AcceptProposal) else "reject"
            return [c(("trade", f"p_{kind}{a.seat}"))]
        if isinstance(a, CancelTrade):
            return [c(("trade", "withdraw"))]
        if isinstance(a, TokenForcedTrade | TokenRobberHome | DiscardKnight):
            name = {TokenForcedTrade: "forced", TokenRobberHome: "robber_home",
                    DiscardKnight: "discard_knight"}[type(a)]
            return [c(("button", "tokens")), c(("button", name), dialogs.TokenDialog)]
        raise AssertionError(f"no keys for {a!r}")


async def play_by_keys(server: Server, players: int, vp_target: int, seed: int,
                       timeout: float) -> tuple[App, ScriptedKeys]:
    app = App(connect=f"127.0.0.1:{server.port}", name="Keys", lang="en", discover=False,
              create={"settings": {"players": players, "vp_target": vp_target}})
    player = ScriptedKeys(app, seed)
    bots: list[BotClient] = []
    tasks: list[asyncio.Task[Any]] = []
    mouse_types = (pygame.MOUSEBUTTONDOWN, pygame.MOUSEBUTTONUP, pygame.MOUSEMOTION,
                   pygame.MOUSEWHEEL)
    real_get = pygame.event.get

    def get_and_check(*args: Any, **kw: Any) -> list[pygame.event.Event]:
        events = real_get(*args, **kw)
        player.mouse_events += sum(1 for e in events if e.type in mouse_types)
        return events

    try:
        pygame.event.get = get_and_check  # type: ignore[assignment]
        end = time.monotonic() + 10
        while app.model.table is None:
            assert time.monotonic() < end
            app.step(1 / 60)
            await asyncio.sleep(0.005)
        table_id = app.model.table
        server.tables[table_id].use_seed(seed)
        for i in range(players - 1):
            reader, writer = await asyncio.open_connection("127.0.0.1", server.port)
            kind = HeuristicBot if i % 2 == 0 else GreedyBot
            bot = BotClient(kind(seed * 10 + i), reader, writer, f"bot{i}")
            await asyncio.wait_for(bot.handshake(), 5)
            bot.send({"type": "join", "table": table_id})
            bots.append(bot)
            tasks.append(asyncio.create_task(bot.play()))
        end = time.monotonic() + timeout
        while app.model.game_over is None:
            assert time.monotonic() < end, f"no game over after {timeout} s"
            for t in tasks:
                if t.done() and t.exception() is not None:
                    raise t.exception()  # type: ignore[misc]
            app.step(1 / 60)
            player.tick()
            await asyncio.sleep(0)
        await asyncio.wait_for(asyncio.gather(*tasks), 10)
        return app, player
    finally:
        pygame.event.get = real_get  # type: ignore[assignment]
        for t in tasks:
            t.cancel()
        for b in bots:
            b.writer.close()


async def check_keys(server: Server, players: int, seed: int) -> None:
    app, player = await play_by_keys(server, players, vp_target=10, seed=seed, timeout=90)
    try:
        over = app.model.game_over
        assert over is not None and over["winner"] is not None
        assert player.mouse_events == 0  # keys only
        for code, message in app.model.errors:
            assert code in ("not_your_turn", "wrong_phase") and "trade offer" in message, \
                (code, message)
        kinds = {type(a).__name__ for a in player.done}
        assert {"BuildSettlement", "BuildRoad", "RollDice", "EndTurn"} <= kinds
        assert player.keys_pressed > len(player.done)
        print(f"\n{players}-player game by keyboard: {len(player.done)} decisions, "
              f"{player.keys_pressed} keys, {sorted(kinds)}")
        # the end screen by keyboard too: Tab to "View board", Enter
        end = time.monotonic() + 8
        while not isinstance(app.ctx.stack.top, dialogs.GameOverDialog):
            assert time.monotonic() < end
            app.step(0.05)
        dlg = app.ctx.stack.top
        assert isinstance(dlg, dialogs.GameOverDialog)
        keys = [s.key for s in dlg.stops()]
        player.post([TAB] * (keys.index(("button", "board")) + 1) + [ENTER])
        app.step(1 / 60)
        assert isinstance(app.ctx.stack.top, TableScene)
    finally:
        app.close()


async def test_a_whole_game_by_keyboard(server: Server) -> None:
    await check_keys(server, players=4, seed=8)


async def test_a_six_player_game_by_keyboard(server: Server) -> None:
    """The 30-hex board's spots are stops too; Pass in the special building phase."""
    await check_keys(server, players=6, seed=12)


async def test_the_two_player_game_by_keyboard(server: Server) -> None:
    """Neutral pieces (the neutral chips are stops too), tokens and two rolls a turn."""
    await check_keys(server, players=2, seed=9)


def test_arrows_space_and_the_ring() -> None:
    app, net = table_app()
    try:
        scene = app.ctx.stack.scenes[0]
        assert isinstance(scene, TableScene)
        key(pygame.K_1)  # road mode: the lit edges are the first stops
        app.step(1 / 60)
        stops = scene.focus_stops()
        assert stops[0].key[0] == "spot" and not scene.focus.visible
        key(pygame.K_TAB)
        app.step(1 / 60)
        first = scene.focus.current(scene.focus_stops())
        assert first is not None and scene.focus.visible and first.key == stops[0].key
        assert scene.hover == first.rect.center  # the road shows there, as under the mouse
        # Right goes to a lit edge to the right
        key(pygame.K_RIGHT)
        app.step(1 / 60)
        right = scene.focus.current(scene.focus_stops())
        assert right is not None and right.rect.centerx > first.rect.centerx
        # Shift+Tab from the first stop wraps to the last (Leave)
        scene.focus.key = stops[0].key
        pygame.event.post(pygame.event.Event(pygame.KEYDOWN, key=pygame.K_TAB,
                                             mod=pygame.KMOD_SHIFT, unicode=""))
        app.step(1 / 60)
        assert scene.focus.key == ("button", "leave")
        # Space chooses: the Leave question opens; its own ring: Tab, Space = Cancel
        key(pygame.K_SPACE)
        app.step(1 / 60)
        dlg = app.ctx.stack.top
        assert isinstance(dlg, dialogs.ConfirmLeaveDialog)
        key(pygame.K_TAB)
        app.step(1 / 60)
        assert dlg.focus.key == ("button", "stay")
        key(pygame.K_SPACE)
        app.step(1 / 60)
        assert app.ctx.stack.top is scene
        # a click hides the ring; Enter then opens the chat as before
        pygame.event.post(pygame.event.Event(pygame.MOUSEBUTTONDOWN, pos=(5, 790), button=1))
        app.step(1 / 60)
        assert not scene.focus.visible
        key(pygame.K_RETURN)
        app.step(1 / 60)
        assert scene.chat.focused
    finally:
        app.close()


async def test_the_lobby_by_keyboard(server: Server) -> None:
    """Two windows, keys only: one makes a 2-player table (Tab to *New table*, the
    players with ← in the dialog, Tab to *Create*), the other finds it in the list
    (F5, Tab to the list, ↓, Enter) and joins; the game starts in both."""
    from client.lobby import CreateTableDialog

    host = App(connect=f"127.0.0.1:{server.port}", name="Host", discover=False)
    guest = App(connect=f"127.0.0.1:{server.port}", name="Guest", discover=False)

    async def run(app: App, until: Callable[[], bool], timeout: float = 10.0) -> None:
        end = time.monotonic() + timeout
        while not until():
            assert time.monotonic() < end, (app.ctx.stack.scenes, app.model.table_status)
            app.step(1 / 60)
            await asyncio.sleep(0.005)

    def press(app: App, *keys: tuple[int, int]) -> None:
        for k, mod in keys:
            pygame.event.post(pygame.event.Event(pygame.KEYDOWN, key=k, mod=mod, unicode=""))
        app.step(1 / 60)  # this window takes them

    async def tab_to(app: App, ring: Any, stops: Callable[[], list[Stop]],
                     rect: pygame.Rect) -> None:
        for _ in range(40):
            here = ring.current(stops()) if ring.visible else None
            if here is not None and here.rect == rect:
                return
            press(app, TAB)
            await asyncio.sleep(0)
        raise AssertionError(f"Tab never reached {rect}")

    try:
        await run(host, lambda: host.lobby.mode == "lobby")
        await run(guest, lambda: guest.lobby.mode == "lobby")
        lobby = host.lobby
        await tab_to(host, lobby.focus, lobby.focus_stops, lobby.new_button.rect)
        press(host, ENTER)
        dlg = host.ctx.stack.top
        assert isinstance(dlg, CreateTableDialog)

        def dialog_stops() -> list[Stop]:
            from client.focus import reading_order, widget_stops

            return reading_order(widget_stops(dlg._widgets()))

        await tab_to(host, dlg.focus, dialog_stops, dlg.players_stepper.rect)
        press(host, (pygame.K_LEFT, 0), (pygame.K_LEFT, 0))
        assert dlg.players_stepper.value == 2
        await tab_to(host, dlg.focus, dialog_stops, dlg.create_button.rect)
        press(host, ENTER)
        await run(host, lambda: host.lobby.mode == "waiting")
        assert host.model.settings is not None and host.model.settings["players"] == 2
        # the guest: refresh, Tab to the list, the first row, Enter
        g = guest.lobby
        press(guest, (pygame.K_F5, 0))
        await run(guest, lambda: bool(guest.model.tables))
        guest.step(1 / 60)
        await tab_to(guest, g.focus, g.focus_stops, g.table_list.rect)
        press(guest, (pygame.K_DOWN, 0))
        assert g.table_list.selected == 0
        press(guest, ENTER)
        end = time.monotonic() + 10
        while not (isinstance(guest.ctx.stack.scenes[0], TableScene)
                   and isinstance(host.ctx.stack.scenes[0], TableScene)):
            assert time.monotonic() < end, (guest.model.table_status, host.model.table_status)
            host.step(1 / 60)
            guest.step(1 / 60)
            await asyncio.sleep(0.005)
        assert guest.model.table == host.model.table and guest.model.seat == 1
    finally:
        guest.close()
        host.close()
