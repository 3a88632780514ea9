"""The table's dialogs: each sends exactly one action the rules allow."""

from __future__ import annotations

from typing import Any

import pygame

from client import dialogs
from client.canned import canned_model, model_from_state, play_until
from client.model import ClientModel
from client.scene import Context
from client.table_scene import TableScene
from protocol.rules import (
    AcceptTrade,
    BuildNeutralRoad,
    CancelTrade,
    ConfirmTrade,
    CounterOffer,
    Discard,
    DiscardKnight,
    GameState,
    GiveBack,
    MaritimeTrade,
    OfferTrade,
    Phase,
    PlayMonopoly,
    PlayYearOfPlenty,
    RejectTrade,
    Steal,
    TokenForcedTrade,
    TokenRobberHome,
    action_from_dict,
    apply,
    legal_actions,
    to_act,
    validate,
)
from protocol.rules.state import MONOPOLY, YEAR_OF_PLENTY

SIZE = (1280, 800)


def setup(ctx: Context, model: ClientModel) -> TableScene:
    ctx.model = model
    scene = TableScene(ctx)
    ctx.stack.push(scene)
    scene.resized(SIZE)
    scene.update(0.0)
    return scene


def click(ctx: Context, pos: tuple[float, float]) -> None:
    p = (round(pos[0]), round(pos[1]))
    ctx.stack.handle(pygame.event.Event(pygame.MOUSEBUTTONDOWN, pos=p, button=1))
    ctx.stack.update(0.0)


def draw(ctx: Context) -> None:
    ctx.stack.draw(pygame.Surface(SIZE))


def sent_actions(sent: list[dict[str, Any]]) -> list[Any]:
    return [action_from_dict(m["action"]) for m in sent if m["type"] == "action"]


def legal_in_engine(s: GameState, action: Any, seat: int) -> None:
    validate(s, action, seat)  # raises if the rules refuse it


# --- discard ------------------------------------------------------------------------------


def test_discard_needs_the_exact_count(ctx: Context, sent: list[dict[str, Any]]) -> None:
    s, history = play_until(lambda s: s.phase == Phase.DISCARD)
    seat = to_act(s)[0]
    owed = s.discard_owed[seat]
    setup(ctx, model_from_state(s, seat, history))
    dlg = ctx.stack.top
    assert isinstance(dlg, dialogs.DiscardDialog) and dlg.count() == owed
    hand = list(s.hands[seat])
    assert not dlg.buttons["ok"].enabled
    # click "+" past the hand: capped at what the seat holds
    chosen = 0
    for st in dlg.steppers:
        for _ in range(hand[st.res] + 2):
            if chosen == owed - 1:
                break
            before = st.value
            click(ctx, st.plus.center)
            chosen += st.value - before
    assert all(st.value <= hand[st.res] for st in dlg.steppers)
    draw(ctx)
    assert sum(dlg.cards()) == owed - 1 and not dlg.buttons["ok"].enabled
    click(ctx, dlg.buttons["ok"].rect.center)
    assert sent == []
    st = next(st for st in dlg.steppers if st.value < hand[st.res])
    click(ctx, st.plus.center)
    draw(ctx)
    assert sum(dlg.cards()) == owed and dlg.buttons["ok"].enabled
    click(ctx, dlg.buttons["ok"].rect.center)
    got = sent_actions(sent)
    assert len(got) == 1 and isinstance(got[0], Discard) and sum(got[0].cards) == owed
    legal_in_engine(s, got[0], seat)
    # the dialog cannot be dismissed with Escape
    ctx.stack.handle(pygame.event.Event(pygame.KEYDOWN, key=pygame.K_ESCAPE, mod=0, unicode=""))
    assert ctx.stack.top is dlg


def test_truncated_discard_allows_any_composition(ctx: Context,
                                                  sent: list[dict[str, Any]]) -> None:
    model = canned_model(0)
    view = model.view
    assert view is not None
    hand = view["you"]["hand"]
    n = sum(hand) // 2
    first: list[int] = []
    left = n
    for h in hand:  # the one listed composition: the first n cards in resource order
        first.append(min(h, left))
        left -= first[-1]
    listed = Discard((first[0], first[1], first[2], first[3], first[4]))
    model.apply({"type": "legal", "version": model.version, "truncated": True, "discard": n,
                 "actions": [listed.to_dict()]})
    setup(ctx, model)
    dlg = ctx.stack.top
    assert isinstance(dlg, dialogs.DiscardDialog) and dlg.count() == n
    # choose a composition that is not the listed one
    picked = 0
    for st in reversed(dlg.steppers):
        while picked < n and st.value < hand[st.res]:
            click(ctx, st.plus.center)
            picked += 1
    draw(ctx)
    click(ctx, dlg.buttons["ok"].rect.center)
    got = sent_actions(sent)
    assert len(got) == 1 and got[0] != listed and sum(got[0].cards) == n


# --- maritime -----------------------------------------------------------------------------------


def test_maritime_trade_uses_the_best_ratio(ctx: Context, sent: list[dict[str, Any]]) -> None:
    model = canned_model(0)
    scene = setup(ctx, model)
    click(ctx, scene.buttons["bank"].rect.center)
    dlg = ctx.stack.top
    assert isinstance(dlg, dialogs.MaritimeDialog)
    draw(ctx)
    ratios = model.view["you"]["ratios"]  # type: ignore[index]
    for r in set(ratios):
        assert f"{r}:1" in scene.ui.text.seen
    options = [a for a in model.legal if isinstance(a, MaritimeTrade)]
    assert options
    bad_give = next((r for r in range(5) if not any(a.give == r for a in options)), None)
    if bad_give is not None:
        click(ctx, dlg.give_tiles[bad_give].center)
        assert dlg.give is None
    want = options[-1]
    click(ctx, dlg.give_tiles[want.give].center)
    click(ctx, dlg.get_tiles[want.get].center)
    draw(ctx)
    assert dlg.buttons["ok"].enabled
    click(ctx, dlg.buttons["ok"].rect.center)
    assert sent_actions(sent) == [want]


# --- domestic trade ---------------------------------------------------------------------------


def _main_turn(seed: int = 3) -> tuple[GameState, list[Any]]:
    return play_until(lambda s: s.phase == Phase.MAIN and sum(s.hands[s.current]) >= 3
                      and s.turn >= 12, seed=seed)


def test_compose_an_offer(ctx: Context, sent: list[dict[str, Any]]) -> None:
    s, history = _main_turn()
    me = s.current
    hand = s.hands[me]
    give_res = max(range(5), key=lambda r: hand[r])
    get_res = (give_res + 1) % 5
    other = (me + 1) % 4
    scene = setup(ctx, model_from_state(s, me, history))
    click(ctx, scene.buttons["trade"].rect.center)
    dlg = ctx.stack.top
    assert isinstance(dlg, dialogs.TradeComposeDialog)
    draw(ctx)
    assert not dlg.buttons["ok"].enabled  # nothing on either side yet
    click(ctx, dlg.give[give_res].plus.center)
    click(ctx, dlg.get[give_res].plus.center)  # the same resource on the other side...
    assert dlg.give[give_res].value == 0  # ...takes it off the first side
    click(ctx, dlg.give[give_res].plus.center)
    click(ctx, dlg.get[get_res].plus.center)
    click(ctx, dlg.target_rects[other].center)
    draw(ctx)
    assert dlg.buttons["ok"].enabled
    click(ctx, dlg.buttons["ok"].rect.center)
    got = sent_actions(sent)
    want = [0] * 5
    want[get_res] = 1
    give = [0] * 5
    give[give_res] = 1
    assert got == [OfferTrade(tuple(give), tuple(want), other)]  # type: ignore[arg-type]
    legal_in_engine(s, got[0], me)


def _offered(seed: int = 3) -> tuple[GameState, list[Any], OfferTrade]:
    s, history = _main_turn(seed)
    me = s.current
    give_res = max(range(5), key=lambda r: s.hands[me][r])
    give = tuple(1 if r == give_res else 0 for r in range(5))
    get = tuple(1 if r == (give_res + 1) % 5 else 0 for r in range(5))
    offer = OfferTrade(give, get, None)  # type: ignore[arg-type]
    history.append(apply(s, offer, me))
    return s, history, offer


def _answering_seat(s: GameState, offer: OfferTrade) -> int | None:
    """A seat asked to answer that holds cards (the client is shown enough cards
    to pay, so that it does not decline at once)."""
    return next((q for q in range(4) if q != s.current and sum(s.hands[q]) > 0), None)


def _able_to_pay(model: ClientModel, offer: OfferTrade) -> ClientModel:
    assert model.view is not None
    hand = model.view["you"]["hand"]
    for r in range(5):
        hand[r] = max(hand[r], offer.get[r])
    return model


def test_answer_an_offer_in_the_panel(ctx: Context, sent: list[dict[str, Any]]) -> None:
    """The offer shows in the panel beside the board; no modal dialog, so the table
    keeps its input; Decline sends the rejection."""
    s, history, offer = _offered()
    seat = _answering_seat(s, offer)
    assert seat is not None
    scene = setup(ctx, _able_to_pay(model_from_state(s, seat, history), offer))
    draw(ctx)
    assert ctx.stack.top is scene  # nothing modal over the table
    panel = scene.trade_panel
    assert panel.visible and panel.answering()
    assert not panel.rect.colliderect(scene.rects["board"])
    assert scene.prompt == ctx.tr("table.prompt.trade_answer", name=scene.ui.seat_name(s.current))
    assert scene.prompt != ctx.tr("table.prompt.trade")
    assert panel.buttons["accept"].enabled == (AcceptTrade() in scene.ctx.model.legal)
    click(ctx, panel.buttons["reject"].rect.center)
    assert sent_actions(sent) == [RejectTrade()]
    legal_in_engine(s, RejectTrade(), seat)


def test_esc_declines_the_offer_being_answered(ctx: Context, sent: list[dict[str, Any]]) -> None:
    s, history, offer = _offered()
    seat = _answering_seat(s, offer)
    assert seat is not None
    scene = setup(ctx, _able_to_pay(model_from_state(s, seat, history), offer))
    draw(ctx)
    ctx.stack.handle(pygame.event.Event(pygame.KEYDOWN, key=pygame.K_ESCAPE, mod=0, unicode=""))
    assert sent_actions(sent) == [RejectTrade()]
    assert ctx.stack.top is scene


def test_an_offer_the_seat_cannot_pay_is_declined_at_once(ctx: Context,
                                                          sent: list[dict[str, Any]]) -> None:
    s, history, offer = _offered()
    seat = next(q for q in range(4) if q != s.current)
    model = model_from_state(s, seat, history)
    assert model.view is not None
    hand = model.view["you"]["hand"]
    for r in range(5):
        if offer.get[r]:
            hand[r] = offer.get[r] - 1  # one card short
    scene = setup(ctx, model)
    assert sent_actions(sent) == [RejectTrade()]
    for _ in range(3):  # once, not every frame
        ctx.stack.update(1 / 60)
    assert sent_actions(sent) == [RejectTrade()]
    draw(ctx)
    name = scene.ui.seat_name(s.current)
    assert any(name in line and "declined for you" in line for line, _ in scene._log_lines)
    assert len(scene.notes) == 1


def test_counter_offer(ctx: Context, sent: list[dict[str, Any]]) -> None:
    s, history, offer = _offered()
    seat = _answering_seat(s, offer)
    assert seat is not None
    scene = setup(ctx, _able_to_pay(model_from_state(s, seat, history), offer))
    draw(ctx)
    panel = scene.trade_panel
    click(ctx, panel.buttons["counter"].rect.center)
    counter = ctx.stack.top
    assert isinstance(counter, dialogs.TradeComposeDialog) and counter.counter
    give, get = counter.terms()
    hand = scene.ctx.model.view["you"]["hand"]
    # pre-filled with the offer seen from our side (what we give capped by our hand)
    assert give == tuple(min(n, h) for n, h in zip(offer.get, hand, strict=True))
    assert get == tuple(offer.give)
    for st in counter.give:
        st.value = 0
    mine = next(r for r in range(5) if s.hands[seat][r] and not offer.give[r])
    click(ctx, counter.give[mine].plus.center)
    draw(ctx)
    # Escape closes the counter; the offer is still there to answer, nothing sent
    ctx.stack.handle(pygame.event.Event(pygame.KEYDOWN, key=pygame.K_ESCAPE, mod=0, unicode=""))
    ctx.stack.update(0.0)
    assert ctx.stack.top is scene and panel.answering() and sent == []
    click(ctx, panel.buttons["counter"].rect.center)
    counter = ctx.stack.top
    assert isinstance(counter, dialogs.TradeComposeDialog)
    for st in counter.give:
        st.value = 0
    click(ctx, counter.give[mine].plus.center)
    draw(ctx)
    assert counter.buttons["ok"].enabled
    click(ctx, counter.buttons["ok"].rect.center)
    got = sent_actions(sent)
    assert len(got) == 1 and isinstance(got[0], CounterOffer)
    assert got[0].give[mine] == 1 and got[0].get == offer.give
    legal_in_engine(s, got[0], seat)


def test_offerer_confirms_or_cancels(ctx: Context, sent: list[dict[str, Any]]) -> None:
    s, history, offer = _offered()
    me = s.current
    accepter = next((q for q in range(4) if q != me and AcceptTrade() in legal_actions(s, q)),
                    None)
    if accepter is not None:
        history.append(apply(s, AcceptTrade(), accepter))
    scene = setup(ctx, model_from_state(s, me, history))
    draw(ctx)
    assert ctx.stack.top is scene
    panel = scene.trade_panel
    assert panel.offering()
    for q in range(4):
        btn = panel.buttons.get(f"confirm{q}")
        if btn is not None and btn.visible:
            assert btn.enabled == (q == accepter)
    if accepter is not None:
        click(ctx, panel.buttons[f"confirm{accepter}"].rect.center)
        assert sent_actions(sent) == [ConfirmTrade(accepter)]
        legal_in_engine(s, ConfirmTrade(accepter), me)
    else:
        click(ctx, panel.buttons["withdraw"].rect.center)
        assert sent_actions(sent) == [CancelTrade()]
        legal_in_engine(s, CancelTrade(), me)


def test_counter_offers_show_what_each_side_gives(ctx: Context) -> None:
    s, history, offer = _offered()
    me = s.current
    seat = _answering_seat(s, offer)
    assert seat is not None
    hand = s.hands[seat]
    mine = next(r for r in range(5) if hand[r] and not offer.give[r])
    give = tuple(1 if r == mine else 0 for r in range(5))
    history.append(apply(s, CounterOffer(give, offer.give), seat))  # type: ignore[arg-type]
    scene = setup(ctx, model_from_state(s, me, history))
    scene.ui.text.seen.clear()
    draw(ctx)
    seen = scene.ui.text.seen
    assert ctx.tr("table.trade.status.countered") in seen
    assert ctx.tr("table.dlg.you_give") in seen and ctx.tr("table.dlg.you_get") in seen


# --- robber and steal ----------------------------------------------------------------------------


def test_steal_victim(ctx: Context, sent: list[dict[str, Any]]) -> None:
    s, history = play_until(lambda s: s.phase == Phase.STEAL, seed=2)
    me = s.current
    setup(ctx, model_from_state(s, me, history))
    dlg = ctx.stack.top
    assert isinstance(dlg, dialogs.StealDialog)
    victims = sorted(s.steal_from)
    assert sorted(int(n[len("victim"):]) for n in dlg.buttons) == victims
    draw(ctx)
    click(ctx, dlg.buttons[f"victim{victims[-1]}"].rect.center)
    assert sent_actions(sent) == [Steal(victims[-1])]
    legal_in_engine(s, Steal(victims[-1]), me)


# --- development cards ---------------------------------------------------------------------------


def _with_card(card: int) -> tuple[GameState, list[Any]]:
    s, history = _main_turn()
    s.dev_hand[s.current][card] += 1  # the seat holds the card (not bought this turn)
    return s, history


def test_year_of_plenty(ctx: Context, sent: list[dict[str, Any]]) -> None:
    s, history = _with_card(YEAR_OF_PLENTY)
    me = s.current
    scene = setup(ctx, model_from_state(s, me, history))
    click(ctx, scene.dev_rects[YEAR_OF_PLENTY].center)
    dlg = ctx.stack.top
    assert isinstance(dlg, dialogs.ResourcePickDialog) and dlg.mode == "year_of_plenty"
    draw(ctx)
    assert not dlg.buttons["ok"].enabled
    click(ctx, dlg.tiles[4].center)
    click(ctx, dlg.tiles[1].center)
    click(ctx, dlg.tiles[2].center)  # a third pick is ignored
    assert sorted(dlg.picks) == [1, 4]
    draw(ctx)
    click(ctx, dlg.buttons["ok"].rect.center)
    got = sent_actions(sent)
    assert got == [PlayYearOfPlenty(1, 4)]
    legal_in_engine(s, got[0], me)


def test_monopoly_from_the_card_menu(ctx: Context, sent: list[dict[str, Any]]) -> None:
    s, history = _with_card(MONOPOLY)
    me = s.current
    scene = setup(ctx, model_from_state(s, me, history))
    click(ctx, scene.buttons["cards"].rect.center)
    menu = ctx.stack.top
    assert isinstance(menu, dialogs.DevCardDialog)
    draw(ctx)
    assert menu.buttons["play3"].enabled
    assert menu.buttons["play1"].enabled == (s.dev_hand[me][1] > s.dev_new[me][1])
    click(ctx, menu.buttons["play3"].rect.center)
    dlg = ctx.stack.top
    assert isinstance(dlg, dialogs.ResourcePickDialog) and dlg.mode == "monopoly"
    click(ctx, dlg.tiles[3].center)
    draw(ctx)
    click(ctx, dlg.buttons["ok"].rect.center)
    assert sent_actions(sent) == [PlayMonopoly(3)]
    legal_in_engine(s, PlayMonopoly(3), me)


# --- the two-player game -------------------------------------------------------------------------


def test_token_actions(ctx: Context, sent: list[dict[str, Any]]) -> None:
    s, history = play_until(
        lambda s: s.phase == Phase.MAIN and TokenForcedTrade() in legal_actions(s, s.current),
        players=2, seed=4)
    me = s.current
    scene = setup(ctx, model_from_state(s, me, history))
    assert scene.buttons["tokens"].visible and scene.buttons["tokens"].enabled
    click(ctx, scene.buttons["tokens"].rect.center)
    dlg = ctx.stack.top
    assert isinstance(dlg, dialogs.TokenDialog)
    draw(ctx)
    legal = legal_actions(s, me)
    assert dlg.buttons["robber_home"].enabled == (TokenRobberHome() in legal)
    assert dlg.buttons["discard_knight"].enabled == (DiscardKnight() in legal)
    click(ctx, dlg.buttons["forced"].rect.center)
    assert sent_actions(sent) == [TokenForcedTrade()]
    # then the cards go back through the give-back dialog
    sent.clear()
    ctx.stack.scenes.clear()
    history.append(apply(s, TokenForcedTrade(), me))
    assert s.phase == Phase.GIVE_BACK
    setup(ctx, model_from_state(s, me, history))
    back = ctx.stack.top
    assert isinstance(back, dialogs.DiscardDialog) and back.give_back
    need = back.count()
    for st in back.steppers:
        while sum(back.cards()) < need and st.value < s.hands[me][st.res]:
            click(ctx, st.plus.center)
    draw(ctx)
    click(ctx, back.buttons["ok"].rect.center)
    got = sent_actions(sent)
    assert len(got) == 1 and isinstance(got[0], GiveBack) and sum(got[0].cards) == need
    legal_in_engine(s, got[0], me)


def test_neutral_road_choice(ctx: Context, surface: pygame.Surface,
                             sent: list[dict[str, Any]]) -> None:
    s, history = play_until(lambda s: s.phase == Phase.NEUTRAL_ROAD, players=2, seed=4)
    me = s.current
    legal = [a for a in legal_actions(s, me) if isinstance(a, BuildNeutralRoad)]
    owners = sorted({a.neutral for a in legal})
    scene = setup(ctx, model_from_state(s, me, history))
    ctx.stack.draw(surface)
    target = owners[-1]
    if len(owners) > 1:
        assert set(scene.neutral_rects) == set(owners)
        click(ctx, scene.neutral_rects[target].center)
        ctx.stack.draw(surface)
    assert scene.neutral == target
    edge = next(a.edge for a in legal if a.neutral == target)
    lay = scene.board.layout
    assert lay is not None
    click(ctx, lay.edge_xy[edge])
    assert sent_actions(sent) == [BuildNeutralRoad(target, edge)]


# --- the language -------------------------------------------------------------------------


def test_an_open_dialog_relabels_on_a_language_switch(ctx: Context) -> None:
    from client.i18n import Translator

    model = canned_model(0)
    scene = setup(ctx, model)
    click(ctx, scene.buttons["bank"].rect.center)
    dlg = ctx.stack.top
    assert isinstance(dlg, dialogs.MaritimeDialog)
    draw(ctx)
    en = Translator("en")
    assert dlg.buttons["ok"].label == en("table.dlg.trade_ok")
    assert dlg.buttons["close"].label == en("common.close")
    ctx.tr = Translator("ja")  # what App.set_lang does (F2)
    ctx.stack.update(1 / 60)
    draw(ctx)
    ja = Translator("ja")
    assert dlg.buttons["ok"].label == ja("table.dlg.trade_ok") != en("table.dlg.trade_ok")
    assert dlg.buttons["close"].label == ja("common.close")
    assert ja("table.dlg.bank") in scene.ui.text.seen  # the title too
    assert ctx.stack.top is dlg  # still open, still the same dialog
