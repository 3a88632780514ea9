"""The open domestic trade, in a panel beside the board that blocks nothing.

While an offer is open the panel takes the place of the dice histogram and
the log in the right column. Everyone sees the terms and each addressed
seat's answer (a counter-offer with what each side gives). A seat asked to
answer gets *Accept*, *Decline* and *Counter…* (the counter is composed in
:class:`client.dialogs.TradeComposeDialog`); the offerer gets *Trade* on each
seat that accepted or countered and *Withdraw offer*. The rest of the table
(the board, the hand, the chat, the log's scroll, *Leave*) keeps working.

An offer this seat cannot pay (it lacks the cards asked for) is declined at
once by :meth:`TradePanel.auto_decline`, with a line in the log (``note``).

With no offer open, the panel shows the proposals to the current player
(R-TRADE-2): the current player sees each one with *Accept*, *Decline* and
*Counter…* (an offer to that seat, composed from the proposal's terms); the
proposing seat sees its own with *Withdraw*.
"""

from __future__ import annotations

from collections.abc import Callable
from functools import partial
from typing import Any

import pygame

from protocol.rules import (
    AcceptProposal,
    AcceptTrade,
    Action,
    CancelTrade,
    ConfirmTrade,
    RejectProposal,
    RejectTrade,
    WithdrawProposal,
)
from protocol.wire.messages import MAX_SEATS

from .board_view import owner_color
from .describe import cards_text, reason_text
from .intents import confirmable, covers, my_hand, open_trade, proposals
from .table_gfx import (
    BAD,
    CARD_EDGE,
    GOOD,
    INK,
    INK_SOFT,
    PANEL_BG,
    TABLE_SHADOW,
    panel,
    resource_chip,
    shade,
)
from .table_widgets import TableUI, TButton

_STATUS_KEYS = {0: "waiting", 1: "accepted", 2: "rejected", 3: "countered"}
_STATUS_COLORS = {1: GOOD, 2: BAD, 3: (200, 130, 20)}


class TradePanel:
    """See the module docstring. ``send`` sends one action (True when it went out);
    ``counter`` opens the counter-offer dialog; ``counter_proposal(seat)`` the
    offer that answers ``seat``'s proposal."""

    def __init__(self, ui: TableUI, send: Callable[[Action], bool],
                 counter: Callable[[], None], note: Callable[[str], None],
                 counter_proposal: Callable[[int], None] | None = None) -> None:
        self.ui = ui
        self._send = send
        self._note = note
        self._counter_proposal = counter_proposal or (lambda q: None)
        self.rect = pygame.Rect(0, 0, 0, 0)
        self.area = pygame.Rect(0, 0, 0, 0)  # where the panel may grow
        self.buttons: dict[str, TButton] = {
            "accept": TButton("accept", "", lambda: self._send(AcceptTrade()), primary=True),
            "reject": TButton("reject", "", lambda: self._send(RejectTrade())),
            "counter": TButton("counter", "", counter),
            "withdraw": TButton("withdraw", "", lambda: self._send(CancelTrade())),
        }
        for q in range(MAX_SEATS):
            self.buttons[f"confirm{q}"] = TButton(f"confirm{q}", "", partial(self._confirm, q),
                                                  primary=True)
        for q in range(MAX_SEATS):  # the current player's answers to seat q's proposal
            self.buttons[f"p_accept{q}"] = TButton(
                f"p_accept{q}", "", partial(self._send_quietly, AcceptProposal(q)), primary=True)
            self.buttons[f"p_reject{q}"] = TButton(
                f"p_reject{q}", "", partial(self._send_quietly, RejectProposal(q)))
            self.buttons[f"p_counter{q}"] = TButton(
                f"p_counter{q}", "", partial(self._counter_proposal_of, q))
        self.buttons["p_withdraw"] = TButton(
            "p_withdraw", "", partial(self._send_quietly, WithdrawProposal()))
        self._labels = {"accept": "table.dlg.accept", "reject": "table.dlg.reject",
                        "counter": "table.dlg.counter_btn", "withdraw": "table.dlg.cancel_offer",
                        "p_withdraw": "table.dlg.withdraw_proposal"}
        self._declined: tuple[Any, ...] | None = None  # the offer declined for this seat

    def _confirm(self, seat: int) -> None:
        self._send(ConfirmTrade(seat))

    def _send_quietly(self, action: Action) -> None:
        self._send(action)

    def _counter_proposal_of(self, seat: int) -> None:
        self._counter_proposal(seat)

    def proposal_rows(self) -> list[int]:
        """The proposals this panel shows when no offer is open: every open one
        for the current player, its own for a proposing seat."""
        model = self.model
        view, seat = model.view, model.seat
        if view is None or seat is None or self.trade() is not None \
                or model.game_over is not None:
            return []
        open_ = proposals(model)
        if view.get("current") == seat:
            return sorted(open_)
        return [seat] if seat in open_ else []
    @property
    def model(self) -> Any:
        return self.ui.ctx.model

    def trade(self) -> dict[str, Any] | None:
        return open_trade(self.model)

    @property
    def visible(self) -> bool:
        return self.trade() is not None or bool(self.proposal_rows())

    def answering(self) -> bool:
        """This seat is asked to answer the open offer (and has not yet)."""
        trade, seat = self.trade(), self.model.seat
        return (trade is not None and seat is not None and trade["offerer"] != seat
                and 0 <= seat < len(trade["status"]) and trade["status"][seat] == 0)

    def offering(self) -> bool:
        trade = self.trade()
        return trade is not None and trade["offerer"] == self.model.seat

    # -- what the seat does ------------------------------------------------------------

    def auto_decline(self) -> bool:
        """Decline at once an offer this seat cannot pay; True when it did."""
        trade = self.trade()
        if trade is None or not self.answering() or self.ui.pending():
            return False
        hand = my_hand(self.model)
        if hand is None or covers(hand, trade["get"]):
            return False
        key = (trade["offerer"], tuple(trade["give"]), tuple(trade["get"]), self.model.version)
        if key == self._declined or not self.ui.may(RejectTrade()):
            return False
        if not self._send(RejectTrade()):
            return False
        self._declined = key
        tr = self.ui.ctx.tr
        self._note(tr("table.trade.auto_declined", name=self.ui.seat_name(trade["offerer"]),
                      cards=cards_text(tr, trade["get"])))
        return True

    def escape(self) -> bool:
        """Esc: decline the offer being answered, or withdraw this seat's own offer
        or proposal."""
        if self.answering() and self.ui.may(RejectTrade()):
            return self._send(RejectTrade())
        if self.offering() and self.ui.may(CancelTrade()):
            return self._send(CancelTrade())
        if self.model.seat in self.proposal_rows() and self.ui.may(WithdrawProposal()):
            return self._send(WithdrawProposal())
        return False

    # -- layout and input --------------------------------------------------------------

    def layout(self, area: pygame.Rect) -> None:
        """``area``: the room the panel may use (the histogram and log, down to the chat)."""
        self.area = pygame.Rect(area)

    @staticmethod
    def _rows(trade: dict[str, Any]) -> list[int]:
        """The addressed seats (one row each)."""
        return [q for q, st in enumerate(trade["status"]) if st >= 0 and q != trade["offerer"]]

    def _place(self, trade: dict[str, Any]) -> list[tuple[int, int, bool]]:
        """Set the buttons' places and the panel's height; returns the seat rows
        (seat, y, has a counter line)."""
        px = self.ui.px
        a = self.area
        y = a.y + px(30) + 2 * px(28) + px(6)
        rows = []
        for q in self._rows(trade):
            counter = trade["status"][q] == 3 and trade["counters"][q] is not None
            rows.append((q, y, counter))
            y += px(26) + (px(24) if counter else 0) + (px(16) if self._reason(q) else 0)
        btn_h = px(30)
        y += px(6)
        for b in self.buttons.values():
            b.visible = False
        bottom_names: list[str] = []
        if self.answering():
            bottom_names = ["counter", "reject", "accept"]
        elif self.offering():
            bottom_names = ["withdraw"]
        if bottom_names:
            gap = px(6)
            bw = (a.w - px(20) - gap * (len(bottom_names) - 1)) // len(bottom_names)
            x = a.x + px(10)
            for name in bottom_names:
                btn = self.buttons[name]
                btn.rect = pygame.Rect(x, y, bw, btn_h)
                btn.visible = True
                x += bw + gap
            y += btn_h + px(8)
        self.rect = pygame.Rect(a.x, a.y, a.w, max(px(60), y - a.y))
        if self.offering():
            ok = set(confirmable(self.model)) if not self.ui.pending() else set()
            for q, ry, _ in rows:
                btn = self.buttons[f"confirm{q}"]
                btn.rect = pygame.Rect(a.right - px(10) - px(84), ry, px(84), px(24))
                btn.visible = trade["status"][q] in (1, 3)
                btn.enabled = q in ok
        return rows

    def _reason(self, seat: int) -> str | None:
        """The words for the reason ``seat`` gave for its answer to the open offer."""
        trade = self.trade()
        if trade is None or trade["status"][seat] not in (1, 2, 3):
            return None
        return reason_text(self.ui.ctx.tr, self.model.trade_reasons.get(seat))

    def _place_proposals(self, rows: list[int]) -> list[tuple[int, int]]:
        """Buttons and height of the proposals view; returns (proposer, y) rows."""
        px = self.ui.px
        a = self.area
        mine = (self.model.view or {}).get("current") == self.model.seat
        y = a.y + px(30)
        out = []
        hand = my_hand(self.model) or [0] * 5
        open_ = proposals(self.model)
        for q in rows:
            out.append((q, y))
            y += px(24) + 2 * px(26)
            names = ([f"p_counter{q}", f"p_reject{q}", f"p_accept{q}"] if mine
                     else ["p_withdraw"])
            gap = px(6)
            bw = (a.w - px(20) - gap * (len(names) - 1)) // len(names)
            x = a.x + px(10)
            for name in names:
                btn = self.buttons[name]
                btn.rect = pygame.Rect(x, y, bw, px(28))
                btn.visible = True
                x += bw + gap
            if mine:
                give, get = open_[q]  # from the proposer's side: the current player gives get
                self.buttons[f"p_accept{q}"].enabled = (
                    self.ui.may(AcceptProposal(q)) and covers(hand, get))
                self.buttons[f"p_reject{q}"].enabled = self.ui.may(RejectProposal(q))
                self.buttons[f"p_counter{q}"].enabled = not self.ui.pending()
            else:
                self.buttons["p_withdraw"].enabled = self.ui.may(WithdrawProposal())
            y += px(28) + px(10)
        self.rect = pygame.Rect(a.x, a.y, a.w, max(px(60), y - a.y))
        return out

    def _draw_proposals(self, surface: pygame.Surface, rows: list[int]) -> None:
        ui, t, px = self.ui, self.ui.text, self.ui.px
        tr = ui.ctx.tr
        placed = self._place_proposals(rows)
        r = self.rect
        panel(surface, r, PANEL_BG, CARD_EDGE, px(10), solid_shadow=TABLE_SHADOW)
        view = self.model.view or {}
        players = int(view.get("players", 4))
        current = view.get("current")
        mine = current == self.model.seat
        head = (tr("table.trade.proposals_to_you") if mine
                else tr("table.trade.your_proposal", name=ui.seat_name(current)))
        t.draw(surface, t.fit(head, 14, r.w - px(20), True), (r.x + px(10), r.y + px(15)), 14,
               INK, True, "midleft")
        open_ = proposals(self.model)
        hand = my_hand(self.model) or [0] * 5
        for q, y in placed:
            give, get = open_[q]
            c = owner_color(q, players)
            pygame.draw.circle(surface, shade(c, -0.45), (r.x + px(18), y + px(10)), px(7))
            pygame.draw.circle(surface, c, (r.x + px(18), y + px(10)), px(6))
            if mine:
                t.draw(surface, t.fit(ui.seat_name(q), 13, r.w - px(40), True),
                       (r.x + px(30), y + px(10)), 13, INK, True, "midleft")
                lines = [(tr("table.dlg.you_give"), get), (tr("table.dlg.you_get"), give)]
                if not covers(hand, get):
                    t.draw(surface, tr("table.dlg.cannot_pay"), (r.right - px(10), y + px(2)),
                           11, BAD, True, "topright")
            else:
                t.draw(surface, t.fit(tr("table.trade.status.waiting"), 13, r.w - px(40), True),
                       (r.x + px(30), y + px(10)), 13, INK_SOFT, True, "midleft")
                lines = [(tr("table.dlg.you_give"), give), (tr("table.dlg.you_get"), get)]
            label_w = max(t.font(12, True).size(label)[0] for label, _ in lines) + px(10)
            ly = y + px(22)
            for label, cards in lines:
                t.draw(surface, label, (r.x + px(10), ly + px(12)), 12, INK_SOFT, True,
                       "midleft")
                self._chips(surface, cards, r.x + px(10) + label_w, ly + px(2), px(20),
                            r.right - px(8))
                ly += px(26)
        for b in self.buttons.values():
            b.draw(surface, ui, 13)

    def update(self) -> None:
        tr = self.ui.ctx.tr
        for name, key in self._labels.items():
            self.buttons[name].label = tr(key)
        for q in range(MAX_SEATS):
            self.buttons[f"confirm{q}"].label = tr("table.dlg.confirm")
        for q in range(MAX_SEATS):
            self.buttons[f"p_accept{q}"].label = tr("table.dlg.accept")
            self.buttons[f"p_reject{q}"].label = tr("table.dlg.reject")
            self.buttons[f"p_counter{q}"].label = tr("table.dlg.counter_btn")
        trade = self.trade()
        if trade is None:
            for b in self.buttons.values():
                b.visible = False
            rows = self.proposal_rows()
            if rows:
                self._place_proposals(rows)
            return
        self._place(trade)
        pending = self.ui.pending()
        hand = my_hand(self.model) or [0] * 5
        self.buttons["accept"].enabled = self.ui.may(AcceptTrade()) and covers(hand,
                                                                              trade["get"])
        self.buttons["reject"].enabled = self.ui.may(RejectTrade())
        self.buttons["counter"].enabled = not pending and self.answering()
        self.buttons["withdraw"].enabled = self.ui.may(CancelTrade())

    def handle(self, event: pygame.event.Event) -> bool:
        """Clicks on the panel's buttons (and anywhere on the panel) are the panel's."""
        if not self.visible:
            return False
        if event.type == pygame.MOUSEMOTION:
            for b in self.buttons.values():
                b.handle(event)
            return False
        if event.type == pygame.MOUSEBUTTONDOWN and event.button == 1:
            for b in self.buttons.values():
                if b.handle(event):
                    return True
            return self.rect.collidepoint(event.pos)
        return False

    # -- drawing -----------------------------------------------------------------------

    def draw(self, surface: pygame.Surface) -> None:
        trade = self.trade()
        if trade is None:
            proposers = self.proposal_rows()
            if proposers:
                self._draw_proposals(surface, proposers)
            return
        rows = self._place(trade)
        ui, t, px = self.ui, self.ui.text, self.ui.px
        tr = ui.ctx.tr
        r = self.rect
        panel(surface, r, PANEL_BG, CARD_EDGE, px(10), solid_shadow=TABLE_SHADOW)
        players = int((self.model.view or {}).get("players", 4))
        offerer = trade["offerer"]
        seat = self.model.seat
        if self.offering():
            head = tr("table.dlg.your_offer")
        elif trade.get("to") is not None and trade.get("to") != seat:
            head = tr("table.trade.offer_to", name=ui.seat_name(offerer),
                      to=ui.seat_name(trade.get("to")))
        else:
            head = tr("table.dlg.offer_from", name=ui.seat_name(offerer))
        col = owner_color(offerer, players)
        pygame.draw.circle(surface, shade(col, -0.45), (r.x + px(16), r.y + px(15)), px(7))
        pygame.draw.circle(surface, col, (r.x + px(16), r.y + px(15)), px(6))
        t.draw(surface, t.fit(head, 14, r.w - px(40), True), (r.x + px(28), r.y + px(15)), 14,
               INK, True, "midleft")
        # the terms, seen from this seat when it is involved
        if self.offering():
            lines = [(tr("table.dlg.you_give"), trade["give"]),
                     (tr("table.dlg.you_get"), trade["get"])]
        elif seat is not None and 0 <= seat < len(trade["status"]) and trade["status"][seat] >= 0:
            lines = [(tr("table.dlg.you_give"), trade["get"]),
                     (tr("table.dlg.you_get"), trade["give"])]
        else:
            name = ui.seat_name(offerer)
            lines = [(tr("table.trade.gives", name=name), trade["give"]),
                     (tr("table.trade.wants", name=name), trade["get"])]
        label_w = max(t.font(12, True).size(label)[0] for label, _ in lines) + px(10)
        y = r.y + px(30)
        for label, cards in lines:
            t.draw(surface, label, (r.x + px(10), y + px(12)), 12, INK_SOFT, True, "midleft")
            self._chips(surface, cards, r.x + px(10) + label_w, y + px(2), px(20),
                        r.right - px(8))
            y += px(28)
        if self.answering():
            hand = my_hand(self.model) or [0] * 5
            if not covers(hand, trade["get"]):
                t.draw(surface, tr("table.dlg.cannot_pay"), (r.right - px(10), r.y + px(30)),
                       11, BAD, True, "topright")
        # the answers
        for q, ry, counter in rows:
            st = trade["status"][q]
            c = owner_color(q, players)
            pygame.draw.circle(surface, shade(c, -0.45), (r.x + px(18), ry + px(12)), px(7))
            pygame.draw.circle(surface, c, (r.x + px(18), ry + px(12)), px(6))
            name = ui.seat_name(q) if q != seat else tr("table.you_suffix", name=ui.seat_name(q))
            label = tr(f"table.trade.status.{_STATUS_KEYS.get(st, 'waiting')}")
            # the name gets what the answer and a confirm button leave of the row
            room = r.w - px(30) - t.font(12, True).size(label)[0] - px(8) - (
                px(96) if self.offering() else px(10))
            nr = t.draw(surface, t.fit(name, 13, max(px(40), room), True),
                        (r.x + px(30), ry + px(12)), 13, INK, True, "midleft")
            t.draw(surface, label, (nr.right + px(8), ry + px(12)), 12,
                   _STATUS_COLORS.get(st, INK_SOFT), True, "midleft")
            why = self._reason(q)
            if why:
                wy = ry + px(26) + (px(24) if counter else 0)
                t.draw(surface, t.fit(why, 11, r.w - px(40)), (r.x + px(30), wy + px(6)), 11,
                       INK_SOFT, False, "midleft")
            if counter:
                give, get = trade["counters"][q]  # from the counterer's side
                if self.offering():
                    parts = [(tr("table.dlg.you_give"), get), (tr("table.dlg.you_get"), give)]
                else:
                    n = ui.seat_name(q)
                    parts = [(tr("table.trade.gives", name=n), give),
                             (tr("table.trade.wants", name=n), get)]
                x = r.x + px(30)
                for label, cards in parts:
                    lr = t.draw(surface, label, (x, ry + px(36)), 11, INK_SOFT, True, "midleft")
                    x = self._chips(surface, cards, lr.right + px(4), ry + px(28), px(16),
                                    r.right - px(96)) + px(10)
        for b in self.buttons.values():
            b.draw(surface, ui, 13)

    def _chips(self, surface: pygame.Surface, cards: list[int], x: int, y: int, size: int,
               right: int) -> int:
        """One chip per card (×n after a resource when they do not fit); returns the x
        after the last."""
        gap = max(1, size // 8)
        n_chips = sum(cards)
        crowded = x + n_chips * (size + gap) > right
        for res, n in enumerate(cards):
            if not n:
                continue
            if crowded:
                surface.blit(resource_chip(res, size), (x, y))
                img = self.ui.text.render(f"×{n}", 11, INK, True)
                surface.blit(img, (x + size + 1, y + (size - img.get_height()) // 2))
                x += size + img.get_width() + gap + 3
            else:
                for _ in range(n):
                    surface.blit(resource_chip(res, size), (x, y))
                    x += size + gap
        return x
