"""Turn events (plain dicts, already redacted for this seat) into log lines.

Every line comes from the catalogs (``table.log.*`` keys), with seat names
from the table. An event another seat's copy of which hides a detail (a
bought card, a stolen resource) has its own wording for the hidden case.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from typing import Any

from protocol.rules.board import RESOURCES, TERRAIN_NAMES

from . import palette

Tr = Callable[..., str]

DEV_NAMES = ("knight", "road_building", "year_of_plenty", "monopoly", "victory_point")


def builtin_bot(name: str, kind: str | None) -> str | None:
    """The built-in bot kind (``bots.levels.KINDS``) of a bot seat the
    server named (``Bot 2 (Normal)``, or an older server's ``heuristic-bot 2``;
    :func:`bots.levels.parse_bot_name`); None for anyone else."""
    from bots.levels import parse_bot_name

    parsed = parse_bot_name(name) if kind == "bot" else None
    return parsed[0] if parsed is not None else None


def player_name(name: str, kind: str | None, tr: Tr) -> str:
    """A seat's name as the players see it: a built-in bot by its level in the
    window's language ("Bot 2 (Normal)", "ボット2（普通）"), anybody else by the
    name they chose."""
    from bots.levels import parse_bot_name

    parsed = parse_bot_name(name) if kind == "bot" else None
    if parsed is None:
        return name
    bot_kind, n = parsed
    label = kind_label(bot_kind, tr)
    return tr("bot.name", level=label, n=n) if n else tr("bot.name_plain", level=label)


def kind_label(kind: str, tr: Tr) -> str:
    """A built-in bot kind as players know it, in the window's language: its
    level ("Normal", "普通"), or for a bot at no level its kind ("Random")."""
    from bots.levels import level_of

    level = level_of(kind)
    return tr(f"bot.level.{level}") if level else tr(f"bot.kind.{kind}")


def seat_name(model: Any, tr: Tr, seat: int | None) -> str:
    """The name shown for ``seat``: the table's name, else "Seat N"; neutrals by colour."""
    if seat is None:
        return tr("table.nobody")
    players = 0
    if model is not None and model.view is not None:
        players = int(model.view.get("players", 0))
    if players == 2 and seat >= 2:
        return tr(f"table.neutral_cb.{seat}" if palette.name() == "colorblind"
                  else f"table.neutral.{seat}")
    seats = model.table_seats if model is not None else []
    if 0 <= seat < len(seats):
        name = seats[seat].get("name")
        if name:
            return player_name(str(name), seats[seat].get("kind"), tr)
    return tr("table.seat_n", n=seat + 1)


def res_name(tr: Tr, res: int) -> str:
    return tr(f"table.res.{RESOURCES[res]}")


def dev_name(tr: Tr, card: int) -> str:
    return tr(f"table.dev.{DEV_NAMES[card]}")


def cards_text(tr: Tr, cards: Sequence[int] | None) -> str:
    """"2 lumber, 1 ore" in the catalog's words (nothing: "nothing")."""
    if not cards or not any(cards):
        return tr("table.nothing")
    parts = [tr("table.count_res", n=n, res=res_name(tr, r)) for r, n in enumerate(cards) if n]
    return tr("table.list_sep").join(parts)


_ACTED = re.compile(r"the server played ([a-z_]{1,40}) for you \(([a-z-]{1,20})\)")
ACTED_ACTIONS = ("build_settlement", "build_road", "roll_dice", "end_turn", "discard",
                 "give_back", "move_robber", "steal", "reject_trade", "cancel_trade",
                 "stop_road_building", "withdraw_proposal", "build_neutral_road",
                 "build_neutral_settlement")
"""The moves the server makes for a seat that the window names (``acted.what.*``)."""


def acted_text(tr: Tr, message: str) -> str:
    """The notice for the server's ``acted_for_you`` (``the server played NAME for
    you (VIA)``): what was played and why, in the window's words."""
    m = _ACTED.fullmatch(message.strip())
    name, via = (m.group(1), m.group(2)) if m else ("", "")
    what = tr(f"acted.what.{name}" if name in ACTED_ACTIONS else "acted.what.other")
    why = via.replace("-", "_") if via in ("timeout", "stand-in", "disconnected") else "other"
    return tr(f"acted.{why}", what=what)


def reason_text(tr: Tr, reason: object) -> str | None:
    """The words for a trade answer's reason (``protocol.wire.TRADE_REASONS``);
    None for none or one this window does not know."""
    from protocol.wire import TRADE_REASONS

    if not isinstance(reason, str) or reason not in TRADE_REASONS:
        return None
    return tr(f"table.reason.{reason}")


def hex_text(tr: Tr, view: dict[str, Any] | None, hex_id: int) -> str:
    """"the 8 fields" (or "hex 5" without a board)."""
    if view is None or "board" not in view:
        return tr("table.hex_n", n=hex_id)
    terrain = view["board"]["terrain"][hex_id]
    number = view["board"]["numbers"][hex_id]
    name = tr(f"table.terrain.{TERRAIN_NAMES[terrain]}")
    if number:
        return tr("table.hex_numbered", number=number, terrain=name)
    return tr("table.hex_plain", terrain=name)


def describe(event: dict[str, Any], tr: Tr, name: Callable[[int | None], str],
             view: dict[str, Any] | None = None) -> list[tuple[str, int | None]]:
    """The log lines of one event: ``(text, seat the line is about, or None)``."""
    t = event.get("type")
    seat = event.get("seat")
    who = name(seat) if isinstance(seat, int) else ""

    def line(key: str, about: int | None = seat, **fields: Any) -> tuple[str, int | None]:
        return (tr(f"table.log.{key}", name=who, **fields), about)

    def because(entry: tuple[str, int | None]) -> tuple[str, int | None]:
        """A trade answer's line with the reason its seat gave (if any)."""
        why = reason_text(tr, event.get("reason"))
        return (tr("table.reason.line", line=entry[0], why=why), entry[1]) if why else entry

    if t == "turn_started":
        return [line("turn_started", turn=event["turn"])]
    if t == "turn_ended":
        return [line("turn_ended")]
    if t == "special_build_started":
        return [line("special_build_started")]
    if t == "dice_rolled":
        a, b = event["dice"]
        return [line("dice_rolled", a=a, b=b, total=a + b)]
    if t == "produced":
        out: list[tuple[str, int | None]] = []
        for q, gains in enumerate(event["gains"]):
            if any(gains):
                out.append((tr("table.log.produced", name=name(q), cards=cards_text(tr, gains)), q))
        for r in event.get("withheld", ()):
            out.append((tr("table.log.withheld", res=res_name(tr, r)), None))
        if not out:
            out.append((tr("table.log.produced_none"), None))
        return out
    if t == "setup_income":
        return [line("setup_income", cards=cards_text(tr, event["cards"]))]
    if t == "discards_owed":
        return [(tr("table.log.discards_owed", name=name(q), n=n), q)
                for q, n in enumerate(event["owed"]) if n]
    if t == "discarded":
        return [line("discarded", cards=cards_text(tr, event["cards"]))]
    if t == "robber_moved":
        return [line("robber_moved", hex=hex_text(tr, view, event["hex"]))]
    if t == "stolen":
        thief, victim = name(event["thief"]), name(event["victim"])
        if not event["count"]:
            return [(tr("table.log.stolen_nothing", thief=thief, victim=victim), event["thief"])]
        if event.get("resource") is None:
            return [(tr("table.log.stolen_hidden", thief=thief, victim=victim), event["thief"])]
        return [(tr("table.log.stolen", thief=thief, victim=victim,
                    res=res_name(tr, event["resource"])), event["thief"])]
    if t == "road_built":
        return [line("road_built_free" if event.get("free") else "road_built")]
    if t == "settlement_built":
        return [line("settlement_built_free" if event.get("free") else "settlement_built")]
    if t == "city_built":
        return [line("city_built")]
    if t == "dev_card_bought":
        if event.get("card") is None:
            return [line("dev_card_bought")]
        return [line("dev_card_bought_known", card=dev_name(tr, event["card"]))]
    if t == "dev_card_played":
        return [line("dev_card_played", card=dev_name(tr, event["card"]))]
    if t == "year_of_plenty_taken":
        return [line("year_of_plenty_taken", cards=cards_text(tr, event["cards"]))]
    if t == "monopoly_taken":
        return [line("monopoly_taken", n=sum(event["taken"]), res=res_name(tr, event["resource"]))]
    if t == "maritime_traded":
        return [line("maritime_traded", count=event["count"], give=res_name(tr, event["give"]),
                     get=res_name(tr, event["get"]))]
    if t == "trade_offered":
        give, get = cards_text(tr, event["give"]), cards_text(tr, event["get"])
        to = list(event.get("to", ()))
        players = int(view.get("players", 0)) if view else 0
        if len(to) == 1 and players != 2:
            return [line("trade_offered_to", give=give, get=get, to=name(to[0]))]
        return [line("trade_offered_all", give=give, get=get)]
    if t == "trade_answered":
        return [because(line("trade_accepted" if event["accepted"] else "trade_rejected"))]
    if t == "trade_countered":
        return [because(line("trade_countered", give=cards_text(tr, event["give"]),
                             get=cards_text(tr, event["get"])))]
    if t == "trade_completed":
        return [because(line("trade_completed", partner=name(event["partner"]),
                             gave=cards_text(tr, event["gave"]),
                             got=cards_text(tr, event["got"])))]
    if t == "trade_cancelled":
        return [line("trade_cancelled")]
    if t in ("trade_proposed", "proposal_rejected"):
        # A proposal goes to the player on turn when it is made (R-TRADE-2): the
        # model notes that seat (``on_turn``); the view's is a guess for old lines.
        current = event.get("on_turn", view.get("current") if view else None)
        on_turn = name(current) if isinstance(current, int) else tr("table.nobody")
        if t == "proposal_rejected":
            return [because(line("proposal_rejected", to=on_turn))]
        return [line("trade_proposed", to=on_turn, give=cards_text(tr, event["give"]),
                     get=cards_text(tr, event["get"]))]
    if t == "proposal_withdrawn":
        return [line("proposal_withdrawn")]
    if t == "road_building_stopped":
        return [line("road_building_stopped")]
    if t == "longest_road_changed":
        if event.get("holder") is None:
            return [(tr("table.log.longest_road_aside"), None)]
        return [(tr("table.log.longest_road", name=name(event["holder"]),
                    length=event["length"]), event["holder"])]
    if t == "largest_army_changed":
        if event.get("holder") is None:
            return [(tr("table.log.largest_army_aside"), None)]
        return [(tr("table.log.largest_army", name=name(event["holder"]),
                    knights=event["knights"]), event["holder"])]
    if t == "game_over":
        winner = event.get("winner")
        if winner is None:
            return [(tr("table.log.game_stopped"), None)]
        scores = event.get("scores") or []
        score = scores[winner] if winner < len(scores) else "?"
        return [(tr("table.log.game_over", name=name(winner), score=score), winner)]
    if t == "tokens_gained":
        reason = tr(f"table.token_reason.{event.get('reason', 'settlement')}")
        return [line("tokens_gained", n=event["count"], reason=reason)]
    if t == "tokens_spent":
        what = event.get("action", "forced_trade")
        act = tr(f"table.token_action.{what}")
        return [line("tokens_spent", n=event["count"], action=act)]
    if t == "forced_trade_drawn":
        victim = name(event["victim"])
        if event.get("cards") is None:
            return [line("forced_trade_drawn_hidden", n=event["count"], victim=victim)]
        return [line("forced_trade_drawn", cards=cards_text(tr, event["cards"]), victim=victim)]
    if t == "gave_back":
        partner = name(event["partner"])
        if event.get("cards") is None:
            return [line("gave_back_hidden", n=event["count"], partner=partner)]
        return [line("gave_back", cards=cards_text(tr, event["cards"]), partner=partner)]
    if t == "knight_discarded":
        return [line("knight_discarded")]
    return [(tr("table.log.unknown", type=str(t)), None)]
