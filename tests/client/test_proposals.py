"""The window carries the rules' last choices: Road Building's "up to two"
(R-DEV-5: stop after the first free road) and trades proposed to the current
player by seats off turn (R-TRADE-2). Built from positions in their text form,
driven by clicks on the real table scene."""

from __future__ import annotations

from typing import Any

from client import dialogs
from client.canned import model_from_state
from client.scene import Context
from protocol.rules import (
    AcceptProposal,
    OfferTrade,
    ProposeTrade,
    RejectProposal,
    StopRoadBuilding,
    WithdrawProposal,
    apply,
    legal_actions,
)
from protocol.rules.position import from_text
from tests.client.test_table_scene import actions, click, make_scene

ROAD_BUILDING = ("kaitaku/1 p=3 seed=7 turn=30 cur=0 phase=road_building dice=1,3 flags=dev "
                 "free=1 robber=14 played=R1 #0 s=3,45 r=0,1,58,59,2 h=L1B2W1O1 "
                 "#1 s=48 c=20 r=22,63 h=B2G2O2 #2 s=32 c=29 r=38,43 h=B1O1")
MAIN = ("kaitaku/1 p=3 seed=7 turn=30 cur=0 dice=1,3 robber=14 #0 s=3,45 r=0,1,58,59 "
        "h=L1B2W1O1 #1 s=48 c=20 r=22,63 h=B2G2O2 #2 s=32 c=29 r=38,43 h=B1O1")


def test_stop_building_roads_after_the_first_free_road_R_DEV_5(
        ctx: Context, sent: list[dict[str, Any]]) -> None:
    s = from_text(ROAD_BUILDING)
    assert StopRoadBuilding() in legal_actions(s, 0)
    scene = make_scene(ctx, model_from_state(s, 0))
    end = scene.buttons["end"]
    assert end.enabled and end.label == ctx.tr("table.btn.stop_roads")
    assert scene.prompt == ctx.tr("table.prompt.road_building_more", n=1)
    click(ctx, end.rect.center)
    assert actions(sent) == [StopRoadBuilding()]


def test_propose_a_trade_to_the_current_player_R_TRADE_2(
        ctx: Context, sent: list[dict[str, Any]]) -> None:
    s = from_text(MAIN)
    model = model_from_state(s, 1)  # seat 1 is off turn, seat 0 plays its turn
    assert model.view is not None and model.view["you"]["may_propose"]
    scene = make_scene(ctx, model)
    trade = scene.buttons["trade"]
    assert trade.enabled
    click(ctx, trade.rect.center)
    dlg = ctx.stack.top
    assert isinstance(dlg, dialogs.TradeComposeDialog) and dlg.kind == "propose"
    assert dlg.title() == ctx.tr("table.dlg.propose", name=scene.ui.seat_name(0))
    dlg.give[1].set(1)  # one brick
    dlg.get[0].set(1)   # for one lumber
    ctx.stack.update(0.0)
    click(ctx, dlg.buttons["ok"].rect.center)
    assert actions(sent) == [ProposeTrade((0, 1, 0, 0, 0), (1, 0, 0, 0, 0))]


def _with_proposal() -> Any:
    s = from_text(MAIN)
    apply(s, ProposeTrade((0, 1, 0, 0, 0), (1, 0, 0, 0, 0)), 1)
    return s


def test_the_current_player_answers_a_proposal_in_the_panel_R_TRADE_2(
        ctx: Context, sent: list[dict[str, Any]]) -> None:
    s = _with_proposal()
    scene = make_scene(ctx, model_from_state(s, 0))
    panel = scene.trade_panel
    assert panel.visible and panel.proposal_rows() == [1]
    buttons = panel.buttons
    assert buttons["p_accept1"].visible and buttons["p_accept1"].enabled
    assert buttons["p_reject1"].visible and buttons["p_counter1"].visible
    click(ctx, buttons["p_accept1"].rect.center)
    assert actions(sent) == [AcceptProposal(1)]


def test_decline_and_counter_a_proposal_R_TRADE_2(
        ctx: Context, sent: list[dict[str, Any]]) -> None:
    s = _with_proposal()
    scene = make_scene(ctx, model_from_state(s, 0))
    buttons = scene.trade_panel.buttons
    click(ctx, buttons["p_reject1"].rect.center)
    assert actions(sent) == [RejectProposal(1)]
    sent.clear()
    scene = make_scene(ctx, model_from_state(s, 0))
    click(ctx, scene.trade_panel.buttons["p_counter1"].rect.center)
    dlg = ctx.stack.top
    assert isinstance(dlg, dialogs.TradeComposeDialog) and dlg.to == 1
    assert dlg.terms() == ((1, 0, 0, 0, 0), (0, 1, 0, 0, 0))  # seen from this side
    dlg.get[1].set(2)  # ask for two bricks instead
    ctx.stack.update(0.0)
    click(ctx, dlg.buttons["ok"].rect.center)
    assert actions(sent) == [OfferTrade((1, 0, 0, 0, 0), (0, 2, 0, 0, 0), 1)]


def test_the_proposer_sees_its_proposal_and_withdraws_it_R_TRADE_2(
        ctx: Context, sent: list[dict[str, Any]]) -> None:
    s = _with_proposal()
    scene = make_scene(ctx, model_from_state(s, 1))
    panel = scene.trade_panel
    assert panel.proposal_rows() == [1]
    assert not scene.buttons["trade"].enabled  # one open proposal at a time
    withdraw = panel.buttons["p_withdraw"]
    assert withdraw.visible and withdraw.enabled
    click(ctx, withdraw.rect.center)
    assert actions(sent) == [WithdrawProposal()]
    # a seat neither proposing nor on turn sees no panel
    other = make_scene(ctx, model_from_state(s, 2))
    assert not other.trade_panel.visible
