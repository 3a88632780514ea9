"""The table's dialogs: one modal scene per decision that is not a board click.

Each dialog is a :class:`Dialog` (``opaque = False``: the table stays
visible under it) pushed on ``ctx.stack`` by the table scene, and closes
itself when it no longer applies (:meth:`Dialog.relevant`): after its
action went through, or when the game moved on. Dialogs send only what
:func:`client.intents.is_allowed` allows, through :meth:`TableUI.send`.
"""

from __future__ import annotations

from collections.abc import Sequence
from functools import partial
from typing import Any

import pygame

from protocol.rules import (
    Action,
    CounterOffer,
    Discard,
    DiscardKnight,
    EndTurn,
    GiveBack,
    MaritimeTrade,
    OfferTrade,
    PlayKnight,
    PlayMonopoly,
    PlayRoadBuilding,
    PlayYearOfPlenty,
    ProposeTrade,
    Steal,
    TokenForcedTrade,
    TokenRobberHome,
)

from . import charts, palette
from .board_view import owner_color, piece_edge
from .describe import DEV_NAMES
from .focus import FocusRing, Stop, reading_order
from .intents import may_offer, may_propose, my_hand, open_trade, terms_ok
from .scene import Context, Scene
from .table_gfx import (
    BAD,
    CARD,
    CARD_EDGE,
    GOLD,
    GOOD,
    INK,
    INK_SOFT,
    PANEL_BG,
    RESOURCE_COLORS,
    Color,
    dev_icon,
    draw_mark,
    mark_on,
    panel,
    resource_chip,
    shade,
    text_on,
)
from .table_widgets import Stepper, TableUI, TButton

RES_KEYS = ("lumber", "brick", "wool", "grain", "ore")
_STATUS_KEYS = {0: "waiting", 1: "accepted", 2: "rejected", 3: "countered"}


class Dialog(Scene):
    """A modal panel over the table. Subclasses fill :meth:`build` and :meth:`draw_body`."""

    opaque = False
    kind = "dialog"
    cancellable = True
    after_game_over = False  # stays open once the game is over (else it closes itself)
    over_window = False  # centred over the whole window (else over the island)
    width, height = 520, 300  # unscaled panel size

    def __init__(self, ctx: Context, ui: TableUI) -> None:
        super().__init__(ctx)
        self.ui = ui
        self.buttons: dict[str, TButton] = {}
        self.steppers: list[Stepper] = []
        self.rect = pygame.Rect(0, 0, 0, 0)
        self.area = pygame.Rect(0, 0, 1280, 800)
        self._dim: pygame.Surface | None = None
        self.hover: tuple[int, int] | None = None
        self.focus = FocusRing()  # Tab / arrows / Enter (client.focus)
        self._said: dict[str, tuple[str, dict[str, Any]]] | None = {}  # text -> key, fields
        self.build()
        said, self._said = self._said, None
        # the key each button label came from, to relabel after a language switch
        self._label_keys = {name: said[btn.label] for name, btn in self.buttons.items()
                            if btn.label in said}
        self._tr = ctx.tr
        self.layout()

    # -- to override -------------------------------------------------------------------------

    def title(self) -> str:
        return ""

    def build(self) -> None:
        """Create buttons and steppers (called once)."""

    def place(self, body: pygame.Rect) -> None:
        """Position widgets inside ``body`` (called on every layout)."""

    def draw_body(self, surface: pygame.Surface, body: pygame.Rect) -> None:
        """Draw the content (buttons and steppers are drawn by the base class)."""

    def relevant(self) -> bool:
        return True

    def click(self, pos: tuple[int, int]) -> bool:
        """A left click on the panel that no button took."""
        return False

    def extra_stops(self) -> list[Stop]:
        """Keyboard stops besides the buttons and steppers (tiles, seat chips, ...)."""
        return []

    # -- keyboard ----------------------------------------------------------------------------

    def stops(self) -> list[Stop]:
        """Every choice of the dialog, in reading order: choosing one is a click on it."""
        out = [Stop(("button", name), btn.rect, partial(self._left_click, btn.rect.center))
               for name, btn in self.buttons.items()
               if btn.visible and btn.enabled and btn.rect.w > 0]
        for i, st in enumerate(self.steppers):
            if st.enabled:
                out.append(Stop(("minus", i), st.minus, partial(self._left_click, st.minus.center)))
                out.append(Stop(("plus", i), st.plus, partial(self._left_click, st.plus.center)))
        out += self.extra_stops()
        return reading_order(out)

    def _stop(self, key: Any, rect: pygame.Rect) -> Stop:
        return Stop(key, rect, partial(self._left_click, rect.center))

    # -- common -----------------------------------------------------------------------------

    @property
    def model(self) -> Any:
        return self.ctx.model

    def tr(self, key: str, **fields: Any) -> str:
        text = self.ctx.tr(key, **fields)
        said = getattr(self, "_said", None)
        if said is not None:  # building: remember where the texts came from
            said.setdefault(text, (key, fields))
        return text

    def relabel(self) -> None:
        """After a language switch (F2): the buttons' labels in the new language
        (titles and bodies ask the translator on every frame)."""
        if self.ctx.tr is self._tr:
            return
        self._tr = self.ctx.tr
        for name, (key, fields) in self._label_keys.items():
            btn = self.buttons.get(name)
            if btn is not None:
                btn.label = self.ctx.tr(key, **fields)
        self.layout()  # the footer fits the new labels

    def close(self) -> None:
        self.ctx.stack.pop(self)

    def replace_with(self, dialog: Dialog) -> None:
        self.ctx.stack.pop(self)
        self.ctx.stack.push(dialog)

    def send(self, action: Action) -> bool:
        return self.ui.send(action)

    def layout(self) -> None:
        area = None if self.over_window else getattr(self.ui, "dialog_area", None)
        if area is None:
            surf = pygame.display.get_surface() if pygame.display.get_init() else None
            size = surf.get_size() if surf is not None else self.ctx.options.get("size",
                                                                                 (1280, 800))
            area = pygame.Rect((0, 0), size)
        self.area = pygame.Rect(area)
        px = self.ui.px
        w = min(px(self.width), self.area.w - px(16))
        h = min(px(self.height), self.area.h - px(16))
        self.rect = pygame.Rect(0, 0, w, h)
        self.rect.center = self.area.center
        self.place(self.body())
        self._dim = None

    def body(self) -> pygame.Rect:
        px = self.ui.px
        return pygame.Rect(self.rect.x + px(16), self.rect.y + px(44), self.rect.w - px(32),
                           self.rect.h - px(56))

    def footer(self, names: list[str], height: int = 38) -> None:
        """Put buttons ``names`` in a row at the bottom right of the panel."""
        px = self.ui.px
        x = self.rect.right - px(16)
        y = self.rect.bottom - px(14) - px(height)
        for name in reversed(names):
            btn = self.buttons[name]
            w = max(px(110), self.ui.text.font(14, True).size(btn.label)[0] + px(28))
            btn.rect = pygame.Rect(x - w, y, w, px(height))
            x -= w + px(10)

    def resized(self, size: tuple[int, int]) -> None:
        self.layout()

    def update(self, dt: float) -> None:
        if self not in self.ctx.stack.scenes:
            return
        self.relabel()
        if self.model.game_over is not None and not self.after_game_over:
            self.close()
            return
        if not self.relevant():
            self.close()

    def handle(self, event: pygame.event.Event) -> bool:
        if event.type == pygame.VIDEORESIZE:
            return False
        if event.type == pygame.MOUSEMOTION:
            self.hover = event.pos
            for btn in self.buttons.values():
                btn.handle(event)
            return True
        if event.type == pygame.KEYDOWN:
            if self.focus.handle(event, self.stops()):
                return True
            if event.key == pygame.K_ESCAPE and self.cancellable:
                self.close()
            return True
        if event.type == pygame.MOUSEBUTTONDOWN:
            self.focus.visible = False
            if event.button == 1:
                self._left_click(event.pos)
                return True
            for st in self.steppers:  # the wheel over a stepper
                if st.handle(event):
                    return True
            if event.button == 3 and self.cancellable:
                self.close()
            return True
        return event.type in (pygame.MOUSEBUTTONUP, pygame.TEXTINPUT, pygame.KEYUP,
                              pygame.MOUSEWHEEL)

    def _left_click(self, pos: tuple[int, int]) -> None:
        """A left click (or Enter on the focused stop) at ``pos``."""
        event = pygame.event.Event(pygame.MOUSEBUTTONDOWN, pos=pos, button=1)
        for btn in list(self.buttons.values()):
            if btn.handle(event):
                return
        for st in self.steppers:
            if st.handle(event):
                return
        if self.rect.collidepoint(pos):
            self.click(pos)

    def draw(self, surface: pygame.Surface) -> None:
        self.relabel()
        area = getattr(self.ui, "dialog_area", None)
        if area is not None and pygame.Rect(area) != self.area:
            self.layout()
        if self._dim is None or self._dim.get_size() != self.area.size:
            self._dim = pygame.Surface(self.area.size, pygame.SRCALPHA)
            self._dim.fill((10, 16, 24, 110))
        surface.blit(self._dim, self.area.topleft)
        px = self.ui.px
        panel(surface, self.rect, PANEL_BG, CARD_EDGE, px(14), width=2)
        title = self.title()
        if title:
            self.ui.text.draw(surface, self.ui.text.fit(title, 18, self.rect.w - px(32), True),
                              (self.rect.x + px(16), self.rect.y + px(12)), 18, INK, True)
            pygame.draw.line(surface, CARD_EDGE, (self.rect.x + px(16), self.rect.y + px(38)),
                             (self.rect.right - px(16), self.rect.y + px(38)))
        self.draw_body(surface, self.body())
        for btn in self.buttons.values():
            btn.draw(surface, self.ui, 14)
        if self.focus.visible:
            self.focus.draw(surface, self.stops(), self.ui.scale)

    # -- helpers for subclasses ----------------------------------------------------------------

    def chips(self, surface: pygame.Surface, cards: list[int] | tuple[int, ...], x: int, y: int,
              chip: int = 22) -> int:
        """Draw one chip per card; return the x after the last one."""
        px = self.ui.px
        size = px(chip)
        if not any(cards):
            img = self.ui.text.render(self.tr("table.nothing"), 13, INK_SOFT)
            surface.blit(img, (x, y + (size - img.get_height()) // 2))
            return x + img.get_width()
        for res, n in enumerate(cards):
            for _ in range(n):
                surface.blit(resource_chip(res, size), (x, y))
                x += size + px(2)
        return x

    def resource_tile(self, surface: pygame.Surface, rect: pygame.Rect, res: int,
                      top: str, bottom: str, enabled: bool, selected: bool) -> None:
        px = self.ui.px
        col = RESOURCE_COLORS[res]
        fill = shade(col, 0.6) if enabled else (200, 200, 200)
        if selected:
            pygame.draw.rect(surface, GOLD, rect.inflate(px(8), px(8)), border_radius=px(10))
        pygame.draw.rect(surface, shade(col, -0.3) if enabled else (150, 150, 150), rect,
                         border_radius=px(8))
        pygame.draw.rect(surface, fill, rect.inflate(-px(4), -px(4)), border_radius=px(7))
        chip = resource_chip(res, px(30))
        if not enabled:
            chip = chip.copy()
            chip.set_alpha(100)
        surface.blit(chip, (rect.centerx - chip.get_width() // 2, rect.y + px(6)))
        t = self.ui.text
        if top:
            t.draw(surface, top, (rect.centerx, rect.y + px(40)), 14, INK if enabled else INK_SOFT,
                   True, "midtop")
        if bottom:
            t.draw(surface, bottom, (rect.centerx, rect.bottom - px(4)), 11, INK_SOFT, False,
                   "midbottom")


def _legal(model: Any, kind: type[Action]) -> list[Action]:
    return [a for a in model.legal if type(a) is kind]


# --- discard / give back -------------------------------------------------------------------


class DiscardDialog(Dialog):
    """Choose exactly the owed number of cards to discard (or give back, 2-player)."""

    cancellable = False
    width, height = 560, 260

    def __init__(self, ctx: Context, ui: TableUI, give_back: bool = False) -> None:
        self.give_back = give_back
        self.kind = "give_back" if give_back else "discard"
        self.action_type: type[Discard] | type[GiveBack] = GiveBack if give_back else Discard
        super().__init__(ctx, ui)

    def count(self) -> int:
        m = self.model
        if m.legal_truncated and m.discard_count is not None:
            return int(m.discard_count)
        for a in _legal(m, self.action_type):
            return sum(a.cards)  # type: ignore[attr-defined]
        view = m.view or {}
        if self.give_back:
            return int(view.get("give_back") or 0)
        if m.seat is not None and view.get("seats"):
            return int(view["seats"][m.seat]["discard_owed"])
        return 0

    def hand(self) -> list[int]:
        return my_hand(self.model) or [0] * 5

    def title(self) -> str:
        key = "table.dlg.give_back" if self.give_back else "table.dlg.discard"
        return self.tr(key, n=self.count())

    def build(self) -> None:
        hand = self.hand()
        self.steppers = [Stepper(r, hand[r], self._changed) for r in range(5)]
        self.buttons["clear"] = TButton("clear", self.tr("table.dlg.clear"), self._clear)
        self.buttons["ok"] = TButton("ok", self.tr("table.dlg.discard_ok"), self._ok,
                                     primary=True)
        self._changed()

    def place(self, body: pygame.Rect) -> None:
        px = self.ui.px
        w = (body.w - 4 * px(12)) // 5
        for i, st in enumerate(self.steppers):
            st.layout(pygame.Rect(body.x + i * (w + px(12)), body.y + px(24), w, px(92)), self.ui)
        self.footer(["clear", "ok"])

    def cards(self) -> tuple[int, int, int, int, int]:
        a, b, c, d, e = (st.value for st in self.steppers)
        return (a, b, c, d, e)

    def _changed(self) -> None:
        hand = self.hand()
        need = self.count()
        for st in self.steppers:
            st.maximum = hand[st.res]
            st.set(st.value)
        # no more cards than owed: a + stops once the count is reached
        left = max(0, need - sum(self.cards()))
        for st in self.steppers:
            st.maximum = min(hand[st.res], st.value + left)
            st.set(st.value)
        if "ok" in self.buttons:
            chosen = sum(self.cards())
            ok = self.buttons["ok"]
            ok.enabled = chosen == need and self.ui.may(self.action_type(self.cards()))
            ok.reason = ("" if ok.enabled else
                         self.tr("table.dlg.choose_more", n=need - chosen) if chosen < need
                         else self.tr("table.dlg.choose_fewer", n=chosen - need))

    def _clear(self) -> None:
        for st in self.steppers:
            st.value = 0
        self._changed()

    def _ok(self) -> None:
        self.send(self.action_type(self.cards()))

    def relevant(self) -> bool:
        return bool(_legal(self.model, self.action_type)) or self.ui.pending()

    def update(self, dt: float) -> None:
        super().update(dt)
        self._changed()

    def draw_body(self, surface: pygame.Surface, body: pygame.Rect) -> None:
        t = self.ui.text
        chosen, need = sum(self.cards()), self.count()
        col = GOOD if chosen == need else INK_SOFT
        r = t.draw(surface, self.tr("table.dlg.chosen", n=chosen, total=need), (body.x, body.y),
                   14, col, True)
        ok = self.buttons.get("ok")
        if ok is not None and ok.reason:  # what is still to do, said in words
            t.draw(surface, t.fit(ok.reason, 13, body.right - r.right - self.ui.px(16)),
                   (r.right + self.ui.px(12), body.y + self.ui.px(1)), 13, INK_SOFT)
        hand = self.hand()
        for st in self.steppers:
            st.draw(surface, self.ui, self.tr("table.dlg.have", n=hand[st.res]))


# --- year of plenty / monopoly ---------------------------------------------------------------


class ResourcePickDialog(Dialog):
    """Year of Plenty (two resources from the bank) or Monopoly (one resource)."""

    width, height = 560, 270

    def __init__(self, ctx: Context, ui: TableUI, mode: str) -> None:
        self.mode = mode
        self.kind = mode
        self.picks: list[int] = []
        self.tiles: dict[int, pygame.Rect] = {}
        super().__init__(ctx, ui)

    def title(self) -> str:
        return self.tr(f"table.dlg.{self.mode}")

    def build(self) -> None:
        self.buttons["cancel"] = TButton("cancel", self.tr("common.cancel"), self.close)
        self.buttons["ok"] = TButton("ok", self.tr("table.dlg.play"), self._ok, primary=True)

    def place(self, body: pygame.Rect) -> None:
        px = self.ui.px
        w = (body.w - 4 * px(12)) // 5
        self.tiles = {r: pygame.Rect(body.x + r * (w + px(12)), body.y + px(28), w, px(86))
                      for r in range(5)}
        self.footer(["cancel", "ok"])

    def _options(self) -> list[Action]:
        kind = PlayYearOfPlenty if self.mode == "year_of_plenty" else PlayMonopoly
        return _legal(self.model, kind)

    def action(self) -> Action | None:
        opts = self._options()
        if self.mode == "monopoly":
            if len(self.picks) != 1:
                return None
            want: Action = PlayMonopoly(self.picks[0])
            return want if want in opts else None
        picks = sorted(self.picks)
        for a in opts:
            assert isinstance(a, PlayYearOfPlenty)
            pair = sorted([a.first] + ([] if a.second is None else [a.second]))
            if pair == picks:
                return a
        return None

    def max_picks(self) -> int:
        if self.mode == "monopoly":
            return 1
        if any(isinstance(a, PlayYearOfPlenty) and a.second is None for a in self._options()):
            return 1
        return 2

    def available(self, res: int) -> bool:
        if self.mode == "monopoly":
            return True
        bank = (self.model.view or {}).get("bank", [0] * 5)
        return bool(bank[res] > self.picks.count(res))

    def click(self, pos: tuple[int, int]) -> bool:
        for res, rect in self.tiles.items():
            if rect.collidepoint(pos):
                if self.mode == "monopoly":
                    self.picks = [res]
                elif len(self.picks) < self.max_picks() and self.available(res):
                    self.picks.append(res)
                elif res in self.picks:
                    self.picks.remove(res)
                return True
        return False

    def extra_stops(self) -> list[Stop]:
        return [self._stop(("tile", r), rect) for r, rect in self.tiles.items()]

    def _ok(self) -> None:
        a = self.action()
        if a is not None and self.send(a):
            self.close()

    def relevant(self) -> bool:
        return bool(self._options())

    def draw_body(self, surface: pygame.Surface, body: pygame.Rect) -> None:
        t = self.ui.text
        px = self.ui.px
        self.buttons["ok"].enabled = self.action() is not None and not self.ui.pending()
        hint = self.tr(f"table.dlg.{self.mode}_hint", n=self.max_picks())
        t.draw(surface, hint, (body.x, body.y), 13, INK_SOFT)
        bank = (self.model.view or {}).get("bank", [0] * 5)
        for res, rect in self.tiles.items():
            n = self.picks.count(res)
            top = self.tr(f"table.res.{RES_KEYS[res]}")
            bottom = self.tr("table.dlg.bank_has", n=bank[res]) if self.mode != "monopoly" else ""
            self.resource_tile(surface, rect, res, top, bottom, self.available(res) or n > 0,
                               n > 0)
            if n > 1:
                t.draw(surface, f"×{n}", (rect.right - px(4), rect.y + px(2)), 14, INK, True,
                       "topright")


# --- maritime trade ------------------------------------------------------------------------------


class MaritimeDialog(Dialog):
    """Trade with the bank at the seat's best ratio per resource."""

    kind = "bank"
    width, height = 580, 364

    def __init__(self, ctx: Context, ui: TableUI) -> None:
        self.give: int | None = None
        self.get: int | None = None
        self.lots = 1  # trades of the same kind in a row
        self.queued = 0  # lots still to send (one action each, after the last is answered)
        self.give_tiles: dict[int, pygame.Rect] = {}
        self.get_tiles: dict[int, pygame.Rect] = {}
        self.minus = pygame.Rect(0, 0, 0, 0)
        self.plus = pygame.Rect(0, 0, 0, 0)
        super().__init__(ctx, ui)

    def title(self) -> str:
        return self.tr("table.dlg.bank")

    def build(self) -> None:
        self.buttons["close"] = TButton("close", self.tr("common.close"), self.close)
        self.buttons["ok"] = TButton("ok", self.tr("table.dlg.trade_ok"), self._ok, primary=True)

    def place(self, body: pygame.Rect) -> None:
        px = self.ui.px
        w = (body.w - 4 * px(12)) // 5
        self.give_tiles = {r: pygame.Rect(body.x + r * (w + px(12)), body.y + px(22), w, px(76))
                           for r in range(5)}
        self.get_tiles = {r: pygame.Rect(body.x + r * (w + px(12)), body.y + px(128), w, px(76))
                          for r in range(5)}
        self.footer(["close", "ok"])
        close = self.buttons["close"].rect  # the lot count, left of the footer's buttons
        self.plus = pygame.Rect(close.x - px(40), close.y + px(5), px(28), px(28))
        self.minus = self.plus.move(-px(72), 0)

    def ratios(self) -> list[int]:
        you = (self.model.view or {}).get("you") or {}
        return list(you.get("ratios", [4] * 5))

    def options(self) -> list[MaritimeTrade]:
        return [a for a in self.model.legal if isinstance(a, MaritimeTrade)]

    def most_lots(self) -> int:
        """How many trades of the chosen kind the hand and the bank allow in a row."""
        if self.give is None or self.get is None:
            return 1
        hand = my_hand(self.model) or [0] * 5
        bank = (self.model.view or {}).get("bank", [0] * 5)
        return max(1, min(int(hand[self.give]) // max(1, self.ratios()[self.give]),
                          int(bank[self.get])))

    def click(self, pos: tuple[int, int]) -> bool:
        opts = self.options()
        if self.minus.collidepoint(pos):
            self.lots = max(1, self.lots - 1)
            return True
        if self.plus.collidepoint(pos):
            self.lots = min(self.most_lots(), self.lots + 1)
            return True
        for res, rect in self.give_tiles.items():
            if rect.collidepoint(pos) and any(a.give == res for a in opts):
                self.give = res
                if self.get == res:
                    self.get = None
                return True
        for res, rect in self.get_tiles.items():
            if rect.collidepoint(pos) and any(a.get == res for a in opts) and res != self.give:
                self.get = res
                return True
        return False

    def extra_stops(self) -> list[Stop]:
        out = [self._stop(("give", r), rect) for r, rect in self.give_tiles.items()]
        out += [self._stop(("get", r), rect) for r, rect in self.get_tiles.items()]
        return out + [self._stop(("lots", -1), self.minus), self._stop(("lots", 1), self.plus)]

    def _ok(self) -> None:
        if self.give is None or self.get is None:
            return
        if self.send(MaritimeTrade(self.give, self.get)):
            self.queued = self.lots - 1

    def relevant(self) -> bool:
        return (any(type(a) is EndTurn for a in self.model.legal) or self.ui.pending()
                or self.queued > 0)

    def update(self, dt: float) -> None:
        super().update(dt)
        m = self.model
        if (self.queued > 0 and not self.ui.pending() and self.give is not None
                and self.get is not None and m.legal_version == m.version and m.legal):
            trade = MaritimeTrade(self.give, self.get)
            if self.ui.may(trade) and self.send(trade):
                self.queued -= 1
            else:
                self.queued = 0  # the hand or the bank ran short: stop
        if self.queued == 0:
            self.lots = min(self.lots, self.most_lots())
        opts = self.options()
        if self.give is not None and not any(a.give == self.give for a in opts):
            self.give = None
        if self.get is not None and not any(a.get == self.get for a in opts):
            self.get = None

    def draw_body(self, surface: pygame.Surface, body: pygame.Rect) -> None:
        t = self.ui.text
        px = self.ui.px
        opts = self.options()
        ratios = self.ratios()
        hand = my_hand(self.model) or [0] * 5
        bank = (self.model.view or {}).get("bank", [0] * 5)
        t.draw(surface, self.tr("table.dlg.you_give"), (body.x, body.y), 13, INK_SOFT, True)
        for res, rect in self.give_tiles.items():
            ok = any(a.give == res for a in opts)
            self.resource_tile(surface, rect, res, f"{ratios[res]}:1",
                               self.tr("table.dlg.have", n=hand[res]), ok, self.give == res)
        t.draw(surface, self.tr("table.dlg.you_get"), (body.x, body.y + px(106)), 13, INK_SOFT,
               True)
        for res, rect in self.get_tiles.items():
            ok = any(a.get == res and (self.give is None or a.give == self.give) for a in opts)
            self.resource_tile(surface, rect, res, "", self.tr("table.dlg.bank_has", n=bank[res]),
                               ok and res != self.give, self.get == res)
        ready = (self.give is not None and self.get is not None and self.queued == 0
                 and self.ui.may(MaritimeTrade(self.give, self.get)))
        self.buttons["ok"].enabled = ready
        y = self.get_tiles[0].bottom + px(16)
        if self.give is None:
            hint = self.tr("table.dlg.bank_pick_give")
        elif self.get is None:
            hint = self.tr("table.dlg.bank_pick_get")
        else:
            hint = self.tr("table.dlg.bank_summary", n=ratios[self.give] * self.lots,
                           give=self.tr(f"table.res.{RES_KEYS[self.give]}"), m=self.lots,
                           get=self.tr(f"table.res.{RES_KEYS[self.get]}"))
        t.draw(surface, t.fit(hint, 13, body.w, True), (body.x, y), 13,
               INK if self.give is not None and self.get is not None else BAD, True, "midleft")
        most = self.most_lots()
        for rect, sign, on in ((self.minus, "−", self.lots > 1),
                               (self.plus, "+", self.lots < most)):
            pygame.draw.rect(surface, (90, 110, 140) if on else (170, 170, 170), rect,
                             border_radius=px(6))
            t.draw(surface, sign, rect.center, 16, (255, 255, 255), True, "center")
        t.draw(surface, f"×{self.lots}", ((self.minus.right + self.plus.x) // 2,
                                          self.plus.centery), 15, INK, True, "center")


# --- domestic trade ------------------------------------------------------------------------------


class TradeComposeDialog(Dialog):
    """Compose an offer (the current player) or a counter-offer (an addressed seat)."""

    width, height = 600, 345

    def __init__(self, ctx: Context, ui: TableUI, counter: bool = False,
                 propose: bool = False, to: int | None = None,
                 terms: tuple[Sequence[int], Sequence[int]] | None = None) -> None:
        """``counter``: answer the open offer with other terms; ``propose``: a
        seat off turn proposes a trade to the current player; otherwise the
        current player offers (to everyone, or ``to`` one seat). ``terms``
        (give, get, from this seat's side) fill the counts in."""
        self.counter = counter
        self.propose = propose and not counter
        self.kind = "counter" if counter else "propose" if self.propose else "compose"
        self.to: int | None = to
        self.target_rects: dict[int | None, pygame.Rect] = {}
        super().__init__(ctx, ui)
        self.answering: tuple[Any, ...] | None = None  # the offer a counter answers
        if counter:
            trade = open_trade(self.model)
            if trade is not None:  # start from the offer, seen from this side
                self.answering = (trade["offerer"], tuple(trade["give"]), tuple(trade["get"]))
                terms = (trade["get"], trade["give"])
        if terms is not None:
            for r in range(5):
                self.give[r].set(terms[0][r])
                self.get[r].set(terms[1][r])

    def title(self) -> str:
        if self.propose:
            return self.tr("table.dlg.propose",
                           name=self.ui.seat_name((self.model.view or {}).get("current")))
        return self.tr("table.dlg.counter" if self.counter else "table.dlg.offer")

    def build(self) -> None:
        hand = my_hand(self.model) or [0] * 5
        self.give = [Stepper(r, hand[r], partial(self._changed, "give", r)) for r in range(5)]
        self.get = [Stepper(r, 19, partial(self._changed, "get", r)) for r in range(5)]
        self.steppers = self.give + self.get
        self.buttons["cancel"] = TButton("cancel", self.tr("common.cancel"), self.close)
        label = ("table.dlg.send_counter" if self.counter
                 else "table.dlg.send_proposal" if self.propose else "table.dlg.send_offer")
        self.buttons["ok"] = TButton("ok", self.tr(label), self._ok, primary=True)

    def place(self, body: pygame.Rect) -> None:
        px = self.ui.px
        w = (body.w - 4 * px(12)) // 5
        for i in range(5):
            x = body.x + i * (w + px(12))
            self.give[i].layout(pygame.Rect(x, body.y + px(20), w, px(64)), self.ui)
            self.get[i].layout(pygame.Rect(x, body.y + px(112), w, px(64)), self.ui)
        self.target_rects = {}
        if not self.counter and not self.propose:
            y = body.y + px(196)
            x = body.x + px(90)
            opponents: list[int | None] = [None]
            seat = self.model.seat
            for other in range(int((self.model.view or {}).get("players", 0))):
                if other != seat:
                    opponents.append(other)
            # as wide as their labels, all inside the panel: when they do not fit,
            # only the widest give up room (a bot's name stays whole if it can)
            room = body.right - x - px(8) * (len(opponents) - 1)
            widths = []
            for q in opponents:
                label = (self.tr("table.dlg.everyone") if q is None else self.ui.seat_name(q))
                widths.append(self.ui.text.font(13, True).size(label)[0] + px(36))
            if sum(widths) > room:
                cap = max(widths)
                while cap > px(48) and sum(min(w2, cap) for w2 in widths) > room:
                    cap -= 1
                widths = [min(w2, cap) for w2 in widths]
            for q, w2 in zip(opponents, widths, strict=True):
                self.target_rects[q] = pygame.Rect(x, y, w2, px(28))
                x += w2 + px(8)
        self.footer(["cancel", "ok"])

    def terms(self) -> tuple[tuple[int, int, int, int, int], tuple[int, int, int, int, int]]:
        g = tuple(st.value for st in self.give)
        w = tuple(st.value for st in self.get)
        return (g[0], g[1], g[2], g[3], g[4]), (w[0], w[1], w[2], w[3], w[4])

    def _changed(self, side: str, res: int) -> None:
        # a resource is on one side only (R-TRADE-2)
        if side == "give" and self.give[res].value:
            self.get[res].value = 0
        elif side == "get" and self.get[res].value:
            self.give[res].value = 0

    def action(self) -> Action:
        give, get = self.terms()
        if self.counter:
            return CounterOffer(give, get)
        if self.propose:
            return ProposeTrade(give, get)
        return OfferTrade(give, get, self.to)

    def _ok(self) -> None:
        self.send(self.action())

    def click(self, pos: tuple[int, int]) -> bool:
        for q, rect in self.target_rects.items():
            if rect.collidepoint(pos):
                self.to = q
                return True
        return False

    def extra_stops(self) -> list[Stop]:
        return [self._stop(("to", q), rect) for q, rect in self.target_rects.items()]

    def relevant(self) -> bool:
        if self.ui.pending():
            return True
        if self.counter:
            trade = open_trade(self.model)
            return (trade is not None and self.model.seat is not None
                    and trade["status"][self.model.seat] == 0
                    and self.answering == (trade["offerer"], tuple(trade["give"]),
                                           tuple(trade["get"])))
        if self.propose:
            return may_propose(self.model)
        return may_offer(self.model)

    def update(self, dt: float) -> None:
        super().update(dt)
        hand = my_hand(self.model) or [0] * 5
        for st in self.give:
            st.maximum = hand[st.res]
            st.set(st.value)

    def draw_body(self, surface: pygame.Surface, body: pygame.Rect) -> None:
        t = self.ui.text
        px = self.ui.px
        give, get = self.terms()
        t.draw(surface, self.tr("table.dlg.you_give"), (body.x, body.y), 13, INK_SOFT, True)
        t.draw(surface, self.tr("table.dlg.you_get"), (body.x, body.y + px(92)), 13, INK_SOFT,
               True)
        for st in self.give + self.get:
            st.draw(surface, self.ui, None)
        if self.target_rects:
            y = next(iter(self.target_rects.values())).centery
            t.draw(surface, self.tr("table.dlg.offer_to"), (body.x, y), 13, INK_SOFT, True,
                   "midleft")
            for q, rect in self.target_rects.items():
                sel = q == self.to
                col: Color = (90, 110, 140) if q is None else owner_color(
                    q, int((self.model.view or {}).get("players", 4)))
                pygame.draw.rect(surface, GOLD if sel else CARD_EDGE, rect.inflate(px(4), px(4)),
                                 border_radius=px(8))
                pygame.draw.rect(surface, CARD, rect, border_radius=px(7))
                pygame.draw.circle(surface, col, (rect.x + px(13), rect.centery), px(7))
                pygame.draw.circle(surface, INK, (rect.x + px(13), rect.centery), px(7), 1)
                label = self.tr("table.dlg.everyone") if q is None else self.ui.seat_name(q)
                t.draw(surface, t.fit(label, 13, rect.w - px(30), True),
                       (rect.x + px(25), rect.centery), 13, INK, True, "midleft")
        ok = terms_ok(give, get) and self.ui.may(self.action())
        self.buttons["ok"].enabled = ok
        if not terms_ok(give, get):
            msg = self.tr("table.dlg.trade_hint")
            t.draw(surface, t.fit(msg, 12, body.w - px(260), False),
                   (body.x, self.buttons["ok"].rect.centery), 12, INK_SOFT, False, "midleft")


# --- robbing -------------------------------------------------------------------------------------


class StealDialog(Dialog):
    """Choose whom to rob among the seats touching the robber's hex."""

    kind = "steal"
    cancellable = False
    width, height = 480, 220

    def title(self) -> str:
        return self.tr("table.dlg.steal")

    def build(self) -> None:
        for a in _legal(self.model, Steal):
            assert isinstance(a, Steal)
            self.buttons[f"victim{a.victim}"] = TButton(
                f"victim{a.victim}", self.ui.seat_name(a.victim),
                partial(self.send, a))

    def place(self, body: pygame.Rect) -> None:
        px = self.ui.px
        btns = list(self.buttons.values())
        if not btns:
            return
        w = min(px(140), (body.w - (len(btns) - 1) * px(12)) // len(btns))
        x = body.centerx - (len(btns) * (w + px(12)) - px(12)) // 2
        for btn in btns:
            btn.rect = pygame.Rect(x, body.y + px(40), w, px(70))
            x += w + px(12)

    def relevant(self) -> bool:
        return bool(_legal(self.model, Steal)) or self.ui.pending()

    def draw(self, surface: pygame.Surface) -> None:
        super().draw(surface)
        t = self.ui.text
        px = self.ui.px
        view = self.model.view or {}
        players = int(view.get("players", 4))
        for name, btn in self.buttons.items():
            q = int(name[len("victim"):])
            btn.enabled = not self.ui.pending()
            col = owner_color(q, players)
            pygame.draw.rect(surface, col, (btn.rect.x + px(6), btn.rect.y + px(6), px(10),
                                            btn.rect.h - px(12)), border_radius=px(3))
            n = view["seats"][q]["cards"] if view.get("seats") else 0
            t.draw(surface, self.tr("table.dlg.cards_n", n=n),
                   (btn.rect.centerx, btn.rect.bottom - px(6)), 12, (235, 235, 235), True,
                   "midbottom")

    def draw_body(self, surface: pygame.Surface, body: pygame.Rect) -> None:
        self.ui.text.draw(surface, self.tr("table.dlg.steal_hint"), (body.x, body.y), 13, INK_SOFT)


# --- development cards ---------------------------------------------------------------------------

_PLAY = {0: PlayKnight, 1: PlayRoadBuilding, 2: PlayYearOfPlenty, 3: PlayMonopoly}


class DevCardDialog(Dialog):
    """The seat's development cards, with a Play button for each playable one."""

    kind = "cards"
    width, height = 600, 420

    def title(self) -> str:
        return self.tr("table.dlg.cards")

    def build(self) -> None:
        for card in range(4):
            self.buttons[f"play{card}"] = TButton(f"play{card}", self.tr("table.dlg.play"),
                                                  partial(self._play, card),
                                                  primary=True)
        self.buttons["close"] = TButton("close", self.tr("common.close"), self.close)

    def place(self, body: pygame.Rect) -> None:
        px = self.ui.px
        for card in range(4):
            self.buttons[f"play{card}"].rect = pygame.Rect(body.right - px(96),
                                                           body.y + card * px(62) + px(12),
                                                           px(96), px(34))
        self.footer(["close"])

    def _play(self, card: int) -> None:
        kind = _PLAY[card]
        legal = _legal(self.model, kind)
        if not legal or self.ui.pending():
            return
        if kind is PlayYearOfPlenty:
            self.replace_with(ResourcePickDialog(self.ctx, self.ui, "year_of_plenty"))
        elif kind is PlayMonopoly:
            self.replace_with(ResourcePickDialog(self.ctx, self.ui, "monopoly"))
        elif self.send(legal[0]):
            self.close()

    def relevant(self) -> bool:
        return self.model.seat is not None and (self.model.view or {}).get("you") is not None

    def draw_body(self, surface: pygame.Surface, body: pygame.Rect) -> None:
        t = self.ui.text
        px = self.ui.px
        you = (self.model.view or {}).get("you") or {}
        cards = you.get("dev_cards", [0] * 5)
        new = you.get("dev_new", [0] * 5)
        for card in range(5):
            y = body.y + card * px(62)
            surface.blit(dev_icon(card, px(44)), (body.x, y + px(4)))
            name = self.tr(f"table.dev.{DEV_NAMES[card]}")
            count = self.tr("table.dlg.owned", n=cards[card])
            if new[card]:
                count += " " + self.tr("table.dlg.new_n", n=new[card])
            nr = t.draw(surface, name, (body.x + px(54), y + px(4)), 15, INK, True)
            t.draw(surface, count, (nr.right + px(8), y + px(6)), 13, INK_SOFT, True)
            desc = self.tr(f"table.dev_desc.{DEV_NAMES[card]}")
            for i, line in enumerate(t.wrap(desc, 12, body.w - px(170))[:2]):
                t.draw(surface, line, (body.x + px(54), y + px(26) + i * px(15)), 12, INK_SOFT)
            if card < 4:
                self.buttons[f"play{card}"].enabled = (bool(_legal(self.model, _PLAY[card]))
                                                       and not self.ui.pending())
            if card < 4:
                pygame.draw.line(surface, (226, 214, 190), (body.x, y + px(58)),
                                 (body.right, y + px(58)))


# --- two-player token actions --------------------------------------------------------------------


class TokenDialog(Dialog):
    """2-player trade-token actions: forced trade, robber home, discard a knight."""

    kind = "tokens"
    width, height = 580, 330
    ROWS = (("forced", TokenForcedTrade), ("robber_home", TokenRobberHome),
            ("discard_knight", DiscardKnight))

    def title(self) -> str:
        return self.tr("table.dlg.tokens")

    def build(self) -> None:
        for name, kind in self.ROWS:
            self.buttons[name] = TButton(name, self.tr(f"table.dlg.token_{name}"),
                                         partial(self._do, kind))
        self.buttons["close"] = TButton("close", self.tr("common.close"), self.close)

    def place(self, body: pygame.Rect) -> None:
        px = self.ui.px
        for i, (name, _) in enumerate(self.ROWS):
            self.buttons[name].rect = pygame.Rect(body.right - px(150),
                                                  body.y + px(30) + i * px(62), px(150), px(36))
        self.footer(["close"])

    def _do(self, kind: type[Action]) -> None:
        legal = _legal(self.model, kind)
        if legal and self.send(legal[0]):
            self.close()

    def cost(self) -> int:
        view = self.model.view or {}
        me = self.model.seat
        if me is None or not view.get("seats"):
            return 1
        mine = view["seats"][me]["vp"]
        other = view["seats"][1 - me]["vp"] if len(view["seats"]) > 1 else 0
        return 1 if mine <= other else 2

    def relevant(self) -> bool:
        return any(type(a) is EndTurn for a in self.model.legal) or self.ui.pending()

    def draw_body(self, surface: pygame.Surface, body: pygame.Rect) -> None:
        t = self.ui.text
        px = self.ui.px
        view = self.model.view or {}
        me = self.model.seat
        tokens = view["seats"][me].get("tokens", 0) if me is not None and view.get("seats") else 0
        have = self.tr("table.dlg.tokens_have", n=tokens, stock=view.get("token_stock", 0))
        t.draw(surface, have, (body.x, body.y), 13, INK_SOFT, True)
        cost = self.cost()
        for i, (name, kind) in enumerate(self.ROWS):
            y = body.y + px(30) + i * px(62)
            t.draw(surface, self.tr(f"table.dlg.token_{name}"), (body.x, y), 14, INK, True)
            if name == "discard_knight":
                note = self.tr("table.dlg.token_gain", n=2)
            else:
                note = self.tr("table.dlg.token_cost", n=cost)
            desc = self.tr(f"table.dlg.token_{name}_desc")
            t.draw(surface, t.fit(f"{note} · {desc}", 12, body.w - px(170)), (body.x, y + px(20)),
                   12, INK_SOFT)
            self.buttons[name].enabled = bool(_legal(self.model, kind)) and not self.ui.pending()


# --- end of the game and leaving -----------------------------------------------------------------


class GameOverDialog(Dialog):
    """The end of the game: the final scores and the game's statistics (points
    over time, cards produced, stolen and traded, the dice against the odds),
    all from what this window was sent (:mod:`client.stats`); *View board*,
    *Back to lobby*, and *Play again* / *Rematch* where it can be offered."""

    kind = "game_over"
    over_window = True  # the results cover the whole window, not only the island
    after_game_over = True
    width, height = 1180, 740

    def title(self) -> str:
        over = self.model.game_over or {}
        winner = over.get("winner")
        if winner is None:
            return self.tr("table.dlg.game_stopped")
        if winner == self.model.seat:
            return self.tr("table.dlg.you_won")
        return self.tr("table.dlg.winner", name=self.ui.seat_name(winner))

    def build(self) -> None:
        self.buttons["board"] = TButton("board", self.tr("table.dlg.view_board"), self.close)
        app = self.ctx.options.get("app")
        offer = app.rematch_kind() if app is not None else None
        self._again = offer is not None
        if offer is not None:  # the same seats on a new board
            label = "table.dlg.play_again" if offer == "again" else "table.dlg.rematch"
            self.buttons["again"] = TButton("again", self.tr(label), self._play_again,
                                            primary=True)
        self._lobby = getattr(app, "replay", None) is None  # the replay viewer has none
        if self._lobby:
            self.buttons["lobby"] = TButton("lobby", self.tr("table.dlg.to_lobby"), self._leave,
                                            primary=not self._again)
        state = chance_state(self.model)
        if state is not None:  # committed chance: how the dice were checked
            self.buttons["dice"] = TButton("dice", self.tr(f"table.chance.{state}"),
                                           self._show_chance)

    def _show_chance(self) -> None:
        self.ctx.stack.push(ChanceDialog(self.ctx, self.ui))

    def draw(self, surface: pygame.Surface) -> None:
        if pygame.Rect((0, 0), surface.get_size()) != self.area:
            self.layout()
        self.relabel()
        if self._dim is None or self._dim.get_size() != self.area.size:
            self._dim = pygame.Surface(self.area.size, pygame.SRCALPHA)
            self._dim.fill((10, 16, 24, 150))
        surface.blit(self._dim, self.area.topleft)
        px = self.ui.px
        panel(surface, self.rect, PANEL_BG, CARD_EDGE, px(14), width=2)
        t = self.ui.text
        t.draw(surface, t.fit(self.title(), 22, self.rect.w - px(300), True),
               (self.rect.x + px(18), self.rect.y + px(12)), 22, INK, True)
        pygame.draw.line(surface, CARD_EDGE, (self.rect.x + px(16), self.rect.y + px(46)),
                         (self.rect.right - px(16), self.rect.y + px(46)))
        stats = self.model.stats
        sub = self.tr("table.stats.summary", turns=stats.turn, rolls=sum(stats.dice))
        t.draw(surface, sub, (self.rect.right - px(18), self.rect.y + px(20)), 13, INK_SOFT,
               False, "topright")
        self.draw_body(surface, self.body())
        for btn in self.buttons.values():
            btn.draw(surface, self.ui, 14)
        if self.focus.visible:
            self.focus.draw(surface, self.stops(), self.ui.scale)

    def body(self) -> pygame.Rect:
        px = self.ui.px
        return pygame.Rect(self.rect.x + px(18), self.rect.y + px(56), self.rect.w - px(36),
                           self.rect.h - px(56) - px(66))

    def place(self, body: pygame.Rect) -> None:
        self.footer(["board"] + (["lobby"] if self._lobby else [])
                    + (["again"] if self._again else []), 40)
        dice = self.buttons.get("dice")
        if dice is not None:  # at the left of the footer, apart from the way on
            px = self.ui.px
            w = max(px(150), self.ui.text.font(14, True).size(dice.label)[0] + px(28))
            dice.rect = pygame.Rect(self.rect.x + px(18), self.rect.bottom - px(54), w, px(40))

    def _leave(self) -> None:
        self.ctx.send({"type": "leave"})
        self.close()

    def _play_again(self) -> None:
        app = self.ctx.options.get("app")
        self.close()
        if app is not None:
            app.rematch()

    def vp_cards(self) -> list[int]:
        for ev in reversed(self.model.events):
            if ev.get("type") == "game_over":
                return list(ev.get("vp_cards") or [])
        return []

    def order(self) -> list[int]:
        over = self.model.game_over or {}
        scores = list(over.get("scores") or [])
        winner = over.get("winner")
        return sorted(range(len(scores)), key=lambda q: (q != winner, -scores[q], q))

    def draw_body(self, surface: pygame.Surface, body: pygame.Rect) -> None:
        px = self.ui.px
        left = pygame.Rect(body.x, body.y, round(body.w * 0.44), body.h)
        right = pygame.Rect(left.right + px(16), body.y, body.right - left.right - px(16),
                            body.h)
        y = self._draw_scores(surface, left)
        self._draw_cards(surface, pygame.Rect(left.x, y + px(10), left.w,
                                              left.bottom - y - px(10)))
        self._draw_charts(surface, right)

    def _draw_scores(self, surface: pygame.Surface, area: pygame.Rect) -> int:
        t = self.ui.text
        px = self.ui.px
        over = self.model.game_over or {}
        scores = list(over.get("scores") or [])
        winner = over.get("winner")
        vp_cards = self.vp_cards()
        players = len(scores)
        y = area.y
        for rank, q in enumerate(self.order()):
            row = pygame.Rect(area.x, y, area.w, px(42))
            fill = (255, 240, 196) if q == winner else CARD
            pygame.draw.rect(surface, fill, row, border_radius=px(8))
            pygame.draw.rect(surface, GOLD if q == winner else CARD_EDGE, row, 2 if q == winner
                             else 1, border_radius=px(8))
            col = owner_color(q, players)
            pygame.draw.circle(surface, shade(col, -0.45), (row.x + px(22), row.centery), px(14))
            pygame.draw.circle(surface, col, (row.x + px(22), row.centery), px(12))
            t.draw(surface, str(rank + 1), (row.x + px(22), row.centery), 13, text_on(col), True,
                   "center")
            if palette.marks_on():
                draw_mark(surface, palette.mark(q), (row.x + px(34), row.y + px(9)), px(5),
                          mark_on(col), piece_edge(col))
            name = self.ui.seat_name(q)
            if q == self.model.seat:
                name = self.tr("table.you_suffix", name=name)
            t.draw(surface, t.fit(name, 16, row.w - px(190), True), (row.x + px(44), row.centery),
                   16, INK, True, "midleft")
            t.draw(surface, self.tr("table.dlg.points", n=scores[q]),
                   (row.right - px(12), row.centery - px(3)), 18, INK, True, "midright")
            if q < len(vp_cards) and vp_cards[q]:
                t.draw(surface, self.tr("table.dlg.vp_cards", n=vp_cards[q]),
                       (row.right - px(12), row.bottom - px(1)), 10, INK_SOFT, False,
                       "bottomright")
            y += px(46)
        return y

    def _draw_cards(self, surface: pygame.Surface, area: pygame.Rect) -> None:
        """Per player: cards produced (by resource), stolen, traded with players and
        with the bank."""
        t = self.ui.text
        px = self.ui.px
        stats = self.model.stats
        players = len((self.model.game_over or {}).get("scores") or []) or stats.players or 4
        pygame.draw.rect(surface, CARD, area, border_radius=px(8))
        pygame.draw.rect(surface, CARD_EDGE, area, 1, border_radius=px(8))
        t.draw(surface, self.tr("table.stats.cards_title"), (area.x + px(10), area.y + px(6)),
               13, INK, True)
        cols = [("produced", 0.34), ("stolen", 0.24), ("traded", 0.21), ("bank", 0.21)]
        x = area.x + px(40)
        width = area.w - px(48)
        heads_y = area.y + px(26)
        xs = []
        for key, share in cols:
            xs.append(x)
            w = round(width * share) - px(6)
            t.draw(surface, t.fit(self.tr(f"table.stats.{key}"), 12, w, True), (x, heads_y), 12,
                   INK_SOFT, True)
            t.draw(surface, t.fit(self.tr(f"table.stats.{key}_sub"), 10, w),
                   (x, heads_y + px(15)), 10, INK_SOFT)
            x += round(width * share)
        top = max([s.produced_total for s in stats.seats[:players]] + [1])
        first = heads_y + px(34)
        row_h = max(px(30), min(px(62), (area.bottom - px(20) - first) // max(1, players)))
        y = first
        bar_w = round(width * cols[0][1]) - px(34)
        chip = px(12)
        for q in range(players):
            s = stats.seats[q]
            col = owner_color(q, players)
            cy = y + px(12)
            if q:
                pygame.draw.line(surface, (232, 222, 200), (area.x + px(8), y - px(4)),
                                 (area.right - px(8), y - px(4)))
            pygame.draw.circle(surface, shade(col, -0.45), (area.x + px(20), cy), px(9))
            pygame.draw.circle(surface, col, (area.x + px(20), cy), px(7))
            if palette.marks_on():
                draw_mark(surface, palette.mark(q), (area.x + px(20), cy), px(3), mark_on(col))
            # produced: a bar by resource, the total after it, the counts under it
            bx = xs[0]
            for res, n in enumerate(s.produced):
                w = round(n / top * bar_w)
                if w:
                    pygame.draw.rect(surface, RESOURCE_COLORS[res], (bx, cy - px(6), w, px(12)))
                    bx += w
            t.draw(surface, str(s.produced_total), (bx + px(4), cy), 12, INK, True, "midleft")
            if row_h >= px(44):
                cx = xs[0]
                for res, n in enumerate(s.produced):
                    surface.blit(resource_chip(res, chip), (cx, cy + px(10)))
                    img = t.render(str(n), 10, INK_SOFT)
                    surface.blit(img, (cx + chip + px(2), cy + px(10) + (chip - img.get_height())
                                       // 2))
                    cx += chip + px(4) + max(img.get_width(), t.font(10).size("00")[0])
            took = str(s.stole) + (f"+{s.monopoly}" if s.monopoly else "")
            t.draw(surface, f"{took} / {s.robbed + s.lost_to_monopoly}", (xs[1], cy), 12, INK,
                   True, "midleft")
            if any(s.stole_cards) and row_h >= px(44):  # which, where the events said
                self.chips(surface, s.stole_cards, xs[1], cy + px(10), 11)
            t.draw(surface, f"{s.traded_gave} / {s.traded_got}", (xs[2], cy), 12, INK, True,
                   "midleft")
            t.draw(surface, f"{s.bank_gave} / {s.bank_got}", (xs[3], cy), 12, INK, True,
                   "midleft")
            y += row_h
        note = self.tr("table.stats.columns_note")
        t.draw(surface, t.fit(note, 10, area.w - px(20)), (area.x + px(10), area.bottom - px(4)),
               10, INK_SOFT, False, "bottomleft")

    def _draw_charts(self, surface: pygame.Surface, area: pygame.Rect) -> None:
        t = self.ui.text
        px = self.ui.px
        stats = self.model.stats
        players = len((self.model.game_over or {}).get("scores") or []) or stats.players or 4
        y = area.y
        missing = stats.missing
        if missing is not None:  # say what is missing rather than show numbers as whole
            first = stats.vp_series[0][0] if stats.vp_series else None
            text = (self.tr("table.stats.missing_gap") if missing == "gap" else
                    self.tr("table.stats.missing_start", turn=first) if first is not None else
                    self.tr("table.stats.missing_all"))
            lines = t.wrap(text, 12, area.w - px(20))[:3]
            box = pygame.Rect(area.x, y, area.w, px(8) + len(lines) * px(16))
            pygame.draw.rect(surface, (255, 228, 190), box, border_radius=px(6))
            pygame.draw.rect(surface, (200, 130, 20), box, 1, border_radius=px(6))
            for i, line in enumerate(lines):
                t.draw(surface, line, (box.x + px(10), box.y + px(4) + i * px(16)), 12, INK)
            y = box.bottom + px(8)
        rest = area.bottom - y
        vp_h = round(rest * 0.56)
        t.draw(surface, self.tr("table.stats.vp_title"), (area.x, y), 13, INK, True)
        t.draw(surface, t.fit(self.tr("table.stats.vp_note"), 10, area.w - px(200)),
               (area.right, y + px(3)), 10, INK_SOFT, False, "topright")
        chart = pygame.Rect(area.x, y + px(20), area.w, vp_h - px(24))
        seats = list(range(players))
        series = [[(turn, vps[q]) for turn, vps in stats.vp_series] for q in seats]
        target = (self.model.settings or {}).get("vp_target")
        charts.line_chart(surface, chart, t, self.ui.scale, series,
                          [owner_color(q, players) for q in seats],
                          [palette.mark(q) if palette.marks_on() else None for q in seats],
                          target if isinstance(target, int) else None,
                          self.tr("table.stats.turn"))
        y = chart.bottom + px(10)
        t.draw(surface, self.tr("table.stats.dice_title", n=sum(stats.dice)), (area.x, y), 13,
               INK, True)
        charts.dice_chart(surface, pygame.Rect(area.x, y + px(20), area.w,
                                               area.bottom - y - px(20)),
                          t, self.ui.scale, stats.dice, self.tr("table.stats.expected"))


def chance_state(model: Any) -> str | None:
    """``verified``, ``failed`` or ``pending`` for a game of committed chance
    that is over (None: nothing was committed)."""
    if model.game_over is None:
        return None
    if model.chance_pending:
        return "pending"
    verdict = model.chance_verdict
    if verdict is None:
        return None
    return "verified" if verdict.ok else "failed"


class ChanceDialog(Dialog):
    """How the dice were verified: the commitment at the start, the reveal at
    the end, and what this window recomputed from it (:attr:`ClientModel.chance_verdict`)."""

    kind = "chance"
    over_window = True  # over the results
    after_game_over = True
    width, height = 640, 360

    def title(self) -> str:
        state = chance_state(self.model)
        return self.tr({"verified": "table.chance.title_ok",
                        "pending": "table.chance.title_pending"}.get(state or "",
                                                                     "table.chance.title_bad"))

    def build(self) -> None:
        self.buttons["close"] = TButton("close", self.tr("table.chance.close"), self.close,
                                        primary=True)

    def place(self, body: pygame.Rect) -> None:
        self.footer(["close"])

    def paragraphs(self) -> list[tuple[str, tuple[int, int, int]]]:
        m = self.model
        commitment = (m.announced or "")[:16]
        state = chance_state(m)
        if state == "pending":
            return [(self.tr("table.chance.pending_text", commitment=commitment), INK)]
        verdict = m.chance_verdict
        out = [(self.tr("table.chance.how1", commitment=commitment), INK)]
        if verdict is not None and verdict.ok:
            out += [(self.tr("table.chance.how2"), INK),
                    (self.tr("table.chance.how3", n=verdict.checked.get("dice", 0)), INK)]
        elif verdict is not None:
            out.append((self.tr("table.chance.bad", why=verdict.message), BAD))
        out.append((self.tr("table.chance.how4"), INK_SOFT))
        return out

    def draw_body(self, surface: pygame.Surface, body: pygame.Rect) -> None:
        t = self.ui.text
        px = self.ui.px
        y = body.y + px(4)
        for text, color in self.paragraphs():
            for line in t.wrap(text, 14, body.w):
                if y > body.bottom - px(60):
                    return
                t.draw(surface, line, (body.x, y), 14, color)
                y += px(20)
            y += px(10)


class ConfirmLeaveDialog(Dialog):
    """Leave the table (back to the lobby)?"""

    kind = "leave"
    after_game_over = True
    width, height = 460, 190

    def title(self) -> str:
        return self.tr("table.dlg.leave")

    def build(self) -> None:
        self.buttons["stay"] = TButton("stay", self.tr("common.cancel"), self.close)
        self.buttons["leave"] = TButton("leave", self.tr("table.dlg.leave_ok"), self._leave,
                                        primary=True)

    def place(self, body: pygame.Rect) -> None:
        self.footer(["stay", "leave"])

    def _leave(self) -> None:
        app = self.ctx.options.get("app")
        self.close()
        if app is not None:
            app.leave_table()  # kaitaku play keeps a running game
        else:
            self.ctx.send({"type": "leave"})

    def draw_body(self, surface: pygame.Surface, body: pygame.Rect) -> None:
        playing = self.model.table_status == "playing" and self.model.seat is not None
        kept = getattr(self.ctx.options.get("app"), "play", None) is not None
        text = self.tr(("table.dlg.leave_kept" if kept else "table.dlg.leave_playing")
                       if playing else "table.dlg.leave_text")
        for i, line in enumerate(self.ui.text.wrap(text, 13, body.w)[:3]):
            self.ui.text.draw(surface, line, (body.x, body.y + i * self.ui.px(18)), 13, INK)



class ConfirmQuitDialog(Dialog):
    """Quit in the middle of a game? (The window's close button; a second close quits.)"""

    kind = "quit"
    width, height = 480, 200

    def __init__(self, ctx: Context, ui: TableUI, saved: bool = False) -> None:
        self.saved = saved
        super().__init__(ctx, ui)

    def title(self) -> str:
        return self.tr("table.dlg.quit")

    def build(self) -> None:
        self.buttons["stay"] = TButton("stay", self.tr("table.dlg.keep_playing"), self.close)
        self.buttons["quit"] = TButton("quit", self.tr("table.dlg.quit_ok"), self.ctx.quit,
                                       primary=True)

    def place(self, body: pygame.Rect) -> None:
        self.footer(["stay", "quit"])

    def draw_body(self, surface: pygame.Surface, body: pygame.Rect) -> None:
        text = self.tr("table.dlg.quit_kept" if self.saved else "table.dlg.quit_text")
        for i, line in enumerate(self.ui.text.wrap(text, 13, body.w)[:4]):
            self.ui.text.draw(surface, line, (body.x, body.y + i * self.ui.px(18)), 13, INK)
