"""Log lines: every event type reads as a sentence in both languages."""

from __future__ import annotations

import json
import re
from dataclasses import fields
from pathlib import Path
from typing import Any

import pytest

from client.describe import cards_text, describe, seat_name
from client.i18n import Translator
from client.model import ClientModel
from protocol.rules import EVENT_TYPES, Settings, new_game, observe

SAMPLE: dict[str, Any] = {
    "seat": 0, "turn": 7, "dice": (3, 4), "gains": ((1, 0, 0, 0, 0), (0, 0, 0, 0, 0),
                                                  (0, 2, 0, 0, 0), (0, 0, 0, 1, 1)),
    "withheld": (2,), "cards": (1, 0, 0, 1, 0), "owed": (0, 4, 0, 5), "hex": 5, "thief": 1,
    "victim": 2, "count": 2, "resource": 3, "edge": 10, "node": 7, "free": False, "card": 2,
    "taken": (0, 2, 1, 0), "give": (0, 0, 2, 0, 0), "get": (0, 0, 0, 0, 1), "to": (1, 2, 3),
    "accepted": True, "partner": 2, "gave": (1, 0, 0, 0, 0), "got": (0, 1, 0, 0, 0),
    "holder": 1, "length": 6, "knights": 3, "winner": 0, "scores": (10, 7, 6, 5),
    "vp_cards": (1, 0, 0, 0), "reason": "settlement", "action": "forced_trade",
}
HIDDEN: dict[str, dict[str, Any]] = {
    "stolen": {"resource": None}, "dev_card_bought": {"card": None},
    "forced_trade_drawn": {"cards": None}, "gave_back": {"cards": None},
    "longest_road_changed": {"holder": None}, "largest_army_changed": {"holder": None},
    "game_over": {"winner": None}, "maritime_traded": {"give": 1, "get": 4},
    "trade_offered": {"to": (2,)}, "trade_answered": {"accepted": False},
    "road_built": {"free": True}, "settlement_built": {"free": True},
    "stolen_nothing": {"count": 0, "resource": None}, "tokens_gained": {"reason": "knight"},
    "tokens_spent": {"action": "robber_home"},
}


def sample_events() -> list[dict[str, Any]]:
    out = []
    for name, cls in EVENT_TYPES.items():
        ev = {"type": name}
        for f in fields(cls):
            value = SAMPLE[f.name]
            if name in ("maritime_traded", "monopoly_taken") and f.name in ("give", "get",
                                                                            "resource"):
                value = 1 if f.name == "give" else 3
            ev[f.name] = list(value) if isinstance(value, tuple) else value
        out.append(ev)
        for key, changes in HIDDEN.items():
            if key.split("_nothing")[0] == name:
                out.append({**ev, **{k: list(v) if isinstance(v, tuple) else v
                                     for k, v in changes.items()}})
    return out


def model() -> ClientModel:
    m = ClientModel()
    m.apply({"type": "joined", "table": "t", "seat": 0, "settings": {"players": 4}})
    m.apply({"type": "table", "table": "t", "status": "playing", "seats": [
        {"name": n, "kind": "human", "connected": True, "auto": False}
        for n in ("Aiko", "Ben", "Chie", "Dan")]})
    m.apply({"type": "view", "version": 0,
             "view": observe(new_game(Settings(players=4), seed=1), 0)})
    return m


@pytest.mark.parametrize("lang", ["en", "ja"])
def test_every_event_has_a_line(lang: str) -> None:
    tr = Translator(lang)
    m = model()
    covered = set()
    for ev in sample_events():
        lines = describe(ev, tr, lambda q: seat_name(m, tr, q), m.view)
        assert lines, ev
        for text, about in lines:
            assert text and "table.log" not in text and "{" not in text, (ev, text)
            assert about is None or 0 <= about < 4
        covered.add(ev["type"])
    assert covered == set(EVENT_TYPES)


def test_english_wording() -> None:
    tr = Translator("en")
    m = model()

    def one(ev: dict[str, Any]) -> list[str]:
        return [t for t, _ in describe(ev, tr, lambda q: seat_name(m, tr, q), m.view)]

    assert one({"type": "dice_rolled", "seat": 1, "dice": [2, 6]}) == ["Ben rolls 2 + 6 = 8"]
    assert one({"type": "stolen", "thief": 0, "victim": 3, "count": 1, "resource": None}) == \
        ["Aiko steals a card from Dan"]
    assert one({"type": "stolen", "thief": 0, "victim": 3, "count": 1, "resource": 4}) == \
        ["Aiko steals 1 ore from Dan"]
    assert one({"type": "produced", "gains": [[0] * 5, [2, 0, 0, 0, 1], [0] * 5, [0] * 5],
                "withheld": []}) == ["Ben gets 2 lumber, 1 ore"]
    # Proposals go to the player on turn (Aiko, seat 0, in this view).
    assert one({"type": "trade_proposed", "seat": 2, "give": [0, 0, 1, 0, 0],
                "get": [0, 0, 0, 0, 1]}) == ["Chie proposes to Aiko: 1 wool for 1 ore"]
    assert one({"type": "proposal_rejected", "seat": 2}) == ["Aiko declines Chie's proposal"]
    assert one({"type": "proposal_withdrawn", "seat": 3}) == ["Dan withdraws the proposal"]
    assert one({"type": "road_building_stopped", "seat": 1}) == [
        "Ben builds no more free roads"]
    hex_id = 4
    view = m.view
    assert view is not None
    line = one({"type": "robber_moved", "seat": 2, "hex": hex_id})[0]
    assert line.startswith("Chie moves the robber to ")
    assert (str(view["board"]["numbers"][hex_id]) in line) or "desert" in line


def test_japanese_wording() -> None:
    tr = Translator("ja")
    m = model()
    lines = describe({"type": "city_built", "seat": 2, "node": 4}, tr,
                     lambda q: seat_name(m, tr, q), m.view)
    assert lines == [("Chieが都市を建設しました", 2)]
    assert cards_text(tr, [1, 0, 2, 0, 0]) == "木材1枚、羊毛2枚"


def test_japanese_catalogs_use_the_official_terms_and_one_style() -> None:
    folder = Path(__file__).resolve().parents[2] / "client" / "locale" / "ja"
    ja = {k: v for f in sorted(folder.glob("*.json"))
          for k, v in json.loads(f.read_text(encoding="utf-8")).items()}
    for key, text in ja.items():
        assert "材料" not in text, key  # resources are 資源
        assert "テーブル" not in text, key  # a table is 卓
        assert "···" not in text, key
    assert "町" not in ja["table.dev_desc.knight"]
    log = {k: v for k, v in ja.items() if k.startswith("table.log.")
           and k not in ("table.log.turn_started", "table.log.unknown")}
    for key, text in log.items():  # every log line is a sentence in the polite past
        assert "ました" in text or "ません" in text or text.endswith("ん"), (key, text)
    english = [k for k, v in ja.items() if k.startswith("error.")
               and re.search(r"[A-Za-z]{3,}", re.sub(r"{\w+}", "", v))]
    assert english == [], "no English in the Japanese error texts"


def test_names_of_neutrals_and_unknown_seats() -> None:
    tr = Translator("en")
    m = ClientModel()
    m.apply({"type": "view", "version": 0,
             "view": observe(new_game(Settings(players=2), seed=1), 0)})
    assert seat_name(m, tr, 2) == "Neutral (grey)"
    assert seat_name(m, tr, 1) == "Seat 2"
    assert seat_name(m, tr, None) == "nobody"


def test_catalogs_have_the_same_keys() -> None:
    folder = Path(__file__).resolve().parents[2] / "client" / "locale"
    en = json.loads((folder / "en" / "table.json").read_text(encoding="utf-8"))
    ja = json.loads((folder / "ja" / "table.json").read_text(encoding="utf-8"))
    assert set(en) == set(ja)
    for key in en:  # the same placeholders on both sides
        assert set(re.findall(r"{(\w+)}", en[key])) == set(re.findall(r"{(\w+)}", ja[key])), key


def test_built_in_bots_are_named_by_their_level() -> None:
    from client.describe import player_name
    from client.i18n import Translator

    en, ja = Translator("en"), Translator("ja")
    assert player_name("heuristic-bot 2", "bot", en) == "Bot 2 (Normal)"
    assert player_name("search-bot 4", "bot", ja) == "ボット4（強い）"
    assert player_name("greedy-bot", "bot", ja) == "ボット（弱い）"
    assert player_name("greedy-bot 2", "human", en) == "greedy-bot 2"  # a person's name
    assert player_name("mybot", "bot", en) == "mybot"  # somebody's own bot
