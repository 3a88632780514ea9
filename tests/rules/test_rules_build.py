"""R-BUILD-*: roads, settlements, cities, piece limits and buying development cards."""

from __future__ import annotations

from protocol.rules import (
    BuildCity,
    BuildRoad,
    BuildSettlement,
    BuyDevCard,
    Phase,
    apply,
    legal_actions,
    observe,
    redact,
)
from protocol.rules.board import GRAIN, NODE_EDGES
from protocol.rules.events import CityBuilt, DevCardBought, RoadBuilt, SettlementBuilt

from .helpers import (
    CITY_COST,
    DEV_COST,
    KNIGHT,
    MONOPOLY,
    ROAD_COST,
    SETTLEMENT_COST,
    VICTORY_POINT,
    assert_illegal,
    build,
    cards,
    check_conservation,
    edge,
    give,
    give_dev,
    path,
    roll,
    scenario,
)

# A 15-edge walk along the top and right coast.
COAST = (3, 0, 4, 1, 5, 2, 6, 10, 15, 20, 26, 32, 37, 42, 46, 50)


def test_road_costs_lumber_and_brick_R_BUILD_1() -> None:
    s = scenario()
    build(s, 0, settlements=[7])
    give(s, 0, cards(lumber=1, brick=1, wool=1))
    events = apply(s, BuildRoad(edge(7, 12)), 0)
    assert events == [RoadBuilt(0, edge(7, 12), False)]
    assert s.edge_owner[edge(7, 12)] == 0
    assert s.hands[0] == list(cards(wool=1))
    assert s.pieces[0][0] == 14
    check_conservation(s)
    assert_illegal(s, BuildRoad(edge(12, 8)), 0, "cannot_afford")
    give(s, 0, cards(lumber=1))
    assert_illegal(s, BuildRoad(edge(12, 8)), 0, "cannot_afford")


def test_road_must_touch_own_road_or_building_R_BUILD_1() -> None:
    s = scenario()
    build(s, 0, settlements=[7], roads=path(7, 12))
    build(s, 1, settlements=[29], roads=path(29, 23))
    give(s, 0, cards(lumber=3, brick=3))
    assert_illegal(s, BuildRoad(edge(18, 13)), 0, "illegal_placement")  # nowhere near
    assert_illegal(s, BuildRoad(edge(23, 17)), 0, "illegal_placement")  # only seat 1's road
    assert_illegal(s, BuildRoad(edge(7, 12)), 0, "illegal_placement")  # taken
    assert_illegal(s, BuildRoad(edge(29, 23)), 0, "illegal_placement")  # taken by seat 1
    apply(s, BuildRoad(edge(7, 3)), 0)  # from the settlement
    apply(s, BuildRoad(edge(12, 17)), 0)  # from the road
    spots = {a.edge for a in legal_actions(s, 0) if isinstance(a, BuildRoad)}
    assert edge(17, 23) in spots and edge(18, 13) not in spots


def test_road_cannot_pass_an_opponents_building_R_BUILD_1() -> None:
    s = scenario()
    build(s, 0, settlements=[7], roads=path(7, 12))
    build(s, 1, settlements=[17])  # node 17, at the far end of 12-17
    give(s, 0, cards(lumber=3, brick=3))
    apply(s, BuildRoad(edge(12, 17)), 0)  # up to the opponent's settlement: fine
    assert_illegal(s, BuildRoad(edge(17, 22)), 0, "illegal_placement")
    assert_illegal(s, BuildRoad(edge(17, 23)), 0, "illegal_placement")
    spots = {a.edge for a in legal_actions(s, 0) if isinstance(a, BuildRoad)}
    assert not spots & {edge(17, 22), edge(17, 23)}


def test_road_continues_through_own_building_R_BUILD_1() -> None:
    s = scenario()
    build(s, 0, settlements=[7, 17], roads=path(7, 12, 17))
    give(s, 0, ROAD_COST)
    apply(s, BuildRoad(edge(17, 23)), 0)
    assert s.edge_owner[edge(17, 23)] == 0


def test_settlement_costs_four_cards_and_is_worth_1_vp_R_BUILD_2() -> None:
    s = scenario()
    build(s, 0, settlements=[7], roads=path(7, 12, 17))
    give(s, 0, SETTLEMENT_COST)
    vp = s.vp[0]
    events = apply(s, BuildSettlement(17), 0)
    assert events == [SettlementBuilt(0, 17, False)]
    assert s.node_owner[17] == 0 and s.node_level[17] == 1
    assert s.vp[0] == vp + 1
    assert s.hands[0] == [0] * 5
    assert s.pieces[0][1] == 3
    check_conservation(s)


def test_settlement_needs_the_full_price_R_BUILD_2() -> None:
    s = scenario()
    build(s, 0, settlements=[7], roads=path(7, 12, 17))
    for missing in range(4):
        s2 = s.copy(keep_log=True)
        hand = list(SETTLEMENT_COST)
        hand[missing] = 0
        give(s2, 0, hand)
        assert_illegal(s2, BuildSettlement(17), 0, "cannot_afford")


def test_settlement_must_touch_own_road_R_BUILD_2() -> None:
    s = scenario()
    build(s, 0, settlements=[7], roads=path(7, 12))
    build(s, 1, settlements=[29], roads=path(29, 23))
    give(s, 0, SETTLEMENT_COST)
    assert_illegal(s, BuildSettlement(40), 0, "illegal_placement")  # nowhere near
    assert_illegal(s, BuildSettlement(23), 0, "illegal_placement")  # opponent's road only


def test_settlement_distance_rule_R_BUILD_2() -> None:
    s = scenario()
    build(s, 0, settlements=[7], roads=path(7, 12, 17, 23, 18))
    build(s, 1, settlements=[24])
    give(s, 0, SETTLEMENT_COST)
    assert_illegal(s, BuildSettlement(12), 0, "illegal_placement")  # next to own
    assert_illegal(s, BuildSettlement(18), 0, "illegal_placement")  # next to opponent's
    assert_illegal(s, BuildSettlement(7), 0, "illegal_placement")  # taken
    legal = {a.node for a in legal_actions(s, 0) if isinstance(a, BuildSettlement)}
    assert legal == {17, 23}
    apply(s, BuildSettlement(23), 0)


def test_city_replaces_own_settlement_R_BUILD_3() -> None:
    s = scenario()
    build(s, 0, settlements=[7])
    give(s, 0, CITY_COST)
    vp = s.vp[0]
    events = apply(s, BuildCity(7), 0)
    assert events == [CityBuilt(0, 7)]
    assert s.node_level[7] == 2 and s.node_owner[7] == 0
    assert s.vp[0] == vp + 1  # 2 VP for the city instead of 1
    assert s.pieces[0] == [15, 5, 3]  # the settlement went back to the supply
    assert s.hands[0] == [0] * 5
    check_conservation(s)


def test_city_produces_two_cards_R_BUILD_3() -> None:
    s = scenario()
    build(s, 0, settlements=[7])  # hex 3: grain 2
    give(s, 0, CITY_COST)
    apply(s, BuildCity(7), 0)
    s.phase = Phase.PRE_ROLL
    roll(s, 2)
    assert s.hands[0][GRAIN] == 2


def test_city_only_on_own_settlement_R_BUILD_3() -> None:
    s = scenario()
    build(s, 0, settlements=[7], cities=[29], roads=path(7, 12))
    build(s, 1, settlements=[17])
    give(s, 0, CITY_COST)
    assert_illegal(s, BuildCity(12), 0, "illegal_placement")  # empty, own road
    assert_illegal(s, BuildCity(40), 0, "illegal_placement")  # empty
    assert_illegal(s, BuildCity(17), 0, "illegal_placement")  # opponent's
    assert_illegal(s, BuildCity(29), 0, "illegal_placement")  # already a city
    assert {a.node for a in legal_actions(s, 0) if isinstance(a, BuildCity)} == {7}


def test_city_needs_two_grain_and_three_ore_R_BUILD_3() -> None:
    s = scenario()
    build(s, 0, settlements=[7])
    give(s, 0, cards(grain=2, ore=2, lumber=5))
    assert_illegal(s, BuildCity(7), 0, "cannot_afford")
    give(s, 0, cards(ore=1))
    apply(s, BuildCity(7), 0)


def test_road_supply_of_15_R_BUILD_4() -> None:
    s = scenario()
    build(s, 0, settlements=[3], roads=path(*COAST))
    assert s.pieces[0][0] == 0
    give(s, 0, ROAD_COST)
    assert_illegal(s, BuildRoad(edge(50, 53)), 0, "no_pieces")
    assert not [a for a in legal_actions(s, 0) if isinstance(a, BuildRoad)]


def test_settlement_supply_of_5_and_city_returns_one_R_BUILD_4() -> None:
    s = scenario()
    build(s, 0, settlements=[3, 1, 6, 15, 26], roads=path(*COAST[:13]))
    assert s.pieces[0][1] == 0
    give(s, 0, SETTLEMENT_COST)
    assert_illegal(s, BuildSettlement(37), 0, "no_pieces")
    give(s, 0, CITY_COST)
    apply(s, BuildCity(3), 0)
    assert s.pieces[0][1] == 1
    apply(s, BuildSettlement(37), 0)
    assert s.node_owner[37] == 0
    assert s.pieces[0][1] == 0


def test_city_supply_of_4_R_BUILD_4() -> None:
    s = scenario()
    build(s, 0, cities=[3, 1, 6, 15], settlements=[26])
    assert s.pieces[0] == [15, 4, 0]
    give(s, 0, CITY_COST)
    assert_illegal(s, BuildCity(26), 0, "no_pieces")


def test_built_pieces_stay_on_the_board_R_BUILD_4() -> None:
    s = scenario()
    build(s, 0, settlements=[7], roads=path(7, 12))
    build(s, 1, settlements=[18], roads=path(18, 13))
    give(s, 1, ROAD_COST)
    give(s, 1, SETTLEMENT_COST)
    give(s, 1, CITY_COST)
    s.current = 1
    assert_illegal(s, BuildRoad(edge(7, 12)), 1, "illegal_placement")
    assert_illegal(s, BuildSettlement(7), 1, "illegal_placement")
    assert_illegal(s, BuildCity(7), 1, "illegal_placement")
    assert s.node_owner[7] == 0 and s.edge_owner[edge(7, 12)] == 0
    assert len([e for e in NODE_EDGES[7] if s.edge_owner[e] == 0]) == 1


def test_buy_development_card_R_BUILD_5() -> None:
    s = scenario()
    give(s, 0, cards(wool=1, grain=1, ore=1, lumber=1))
    events = apply(s, BuyDevCard(), 0, chance=(MONOPOLY,))
    assert events == [DevCardBought(0, MONOPOLY)]
    assert s.hands[0] == list(cards(lumber=1))
    assert s.dev_hand[0][MONOPOLY] == 1 and s.dev_new[0][MONOPOLY] == 1
    assert s.dev_deck[MONOPOLY] == 1 and sum(s.dev_deck) == 24
    check_conservation(s)
    # Hidden: the others learn that a card was bought, not which.
    assert redact(events, 1) == [DevCardBought(0, None)]
    assert observe(s, 1)["seats"][0]["dev_cards"] == 1
    assert observe(s, 0)["you"]["dev_cards"][MONOPOLY] == 1


def test_development_card_needs_wool_grain_ore_R_BUILD_5() -> None:
    s = scenario()
    give(s, 0, cards(lumber=1, grain=1, ore=1))  # BGA's price: not this game's
    assert_illegal(s, BuyDevCard(), 0, "cannot_afford")
    assert BuyDevCard() not in legal_actions(s, 0)


def test_any_number_of_development_cards_per_turn_R_BUILD_5() -> None:
    s = scenario()
    give(s, 0, [3 * c for c in DEV_COST])
    for card in (KNIGHT, KNIGHT, VICTORY_POINT):
        apply(s, BuyDevCard(), 0, chance=(card,))
    assert s.dev_hand[0] == [2, 0, 0, 0, 1]
    assert sum(s.dev_deck) == 22


def test_no_development_card_from_an_empty_deck_R_BUILD_5() -> None:
    s = scenario()
    for card, count in enumerate(list(s.dev_deck)):
        give_dev(s, 1, card, count)
    assert sum(s.dev_deck) == 0
    give(s, 0, DEV_COST)
    assert_illegal(s, BuyDevCard(), 0, "deck_empty")
    assert BuyDevCard() not in legal_actions(s, 0)
