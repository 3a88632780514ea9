"""``kaitaku play --terminal``: bots play a game in the terminal, one line per event."""

from __future__ import annotations

import sys
import time
from collections.abc import Callable, Sequence

from bots import BUILTIN_BOTS, Bot, play_game
from protocol.rules import DEV_CARDS, RESOURCES, Action, Event, GameState, Settings
from protocol.rules import events as ev

SEAT_NAMES = ("赤 Red", "青 Blue", "白 White", "橙 Orange", "緑 Green", "茶 Brown")
NEUTRAL_NAMES = ("中立 Neutral-1", "中立 Neutral-2")
RESOURCE_JA = ("木材", "レンガ", "羊毛", "小麦", "鉱石")
"""The resources' Japanese names, as the game window says them (``table.res.*``)."""


def _seat_name(q: int | None, players: int = 4, names: Sequence[str] = ()) -> str:
    """``[赤 Red]``, or with the seat's player's name ``[Aiko 赤 Red]``."""
    if q is None:
        return "nobody"
    if players == 2 and q >= 2:
        return f"[{NEUTRAL_NAMES[q - 2]}]"
    name = names[q] if q < len(names) and names[q] else ""
    seat = SEAT_NAMES[q % len(SEAT_NAMES)]
    return f"[{name} {seat}]" if name else f"[{seat}]"


def cards_text(cards: tuple[int, ...]) -> str:
    parts = [f"{c} {RESOURCES[r]}({RESOURCE_JA[r]})" for r, c in enumerate(cards) if c]
    return ", ".join(parts) or "nothing"


def describe(e: Event, players: int = 4, names: Sequence[str] = ()) -> str | None:
    """One line of text for an event, or None for events not worth a line;
    ``names``: the seats' players, named with their colour."""

    def seat_name(q: int | None) -> str:
        return _seat_name(q, players, names)

    match e:
        case ev.TurnStarted(seat=q, turn=t):
            return f"\n— turn {t}: {seat_name(q)} —"
        case ev.SpecialBuildStarted(seat=q):
            return f"  special building: {seat_name(q)} may build"
        case ev.DiceRolled(seat=q, dice=(a, b)):
            return f"{seat_name(q)} rolls {a}+{b} = {a + b}"
        case ev.Produced(gains=gains, withheld=w):
            got = [f"{seat_name(q)} {cards_text(g)}" for q, g in enumerate(gains) if any(g)]
            extra = f" (bank short: no {', '.join(RESOURCES[r] for r in w)})" if w else ""
            return ("  production: " + "; ".join(got) + extra) if got or w else None
        case ev.SetupIncome(seat=q, cards=c):
            return f"{seat_name(q)} receives {cards_text(c)}"
        case ev.SettlementBuilt(seat=q, node=n):
            return f"{seat_name(q)} builds a settlement (開拓地) at {n}"
        case ev.CityBuilt(seat=q, node=n):
            return f"{seat_name(q)} builds a city (都市) at {n}"
        case ev.RoadBuilt(seat=q, edge=x):
            return f"{seat_name(q)} builds a road (街道) on {x}"
        case ev.Discarded(seat=q, cards=c):
            return f"{seat_name(q)} discards {cards_text(c)}"
        case ev.RobberMoved(seat=q, hex=h):
            return f"{seat_name(q)} moves the robber (盗賊) to hex {h}"
        case ev.Stolen(thief=a, victim=b, count=c):
            return f"{seat_name(a)} steals {'a card' if c else 'nothing'} from {seat_name(b)}"
        case ev.DevCardBought(seat=q):
            return f"{seat_name(q)} buys a development card (発展カード)"
        case ev.DevCardPlayed(seat=q, card=c):
            return f"{seat_name(q)} plays {DEV_CARDS[c].replace('_', ' ')}"
        case ev.MonopolyTaken(seat=q, resource=r, taken=t):
            return f"{seat_name(q)} takes {sum(t)} {RESOURCES[r]} by monopoly"
        case ev.YearOfPlentyTaken(seat=q, cards=c):
            return f"{seat_name(q)} takes {cards_text(c)} (year of plenty)"
        case ev.MaritimeTraded(seat=q, give=g, count=n, get=r):
            return f"{seat_name(q)} trades {n} {RESOURCES[g]} for 1 {RESOURCES[r]} with the bank"
        case ev.TradeCompleted(seat=q, partner=p, gave=g, got=r):
            return f"{seat_name(q)} trades {cards_text(g)} to {seat_name(p)} for {cards_text(r)}"
        case ev.LongestRoadChanged(holder=h, length=n):
            return f"Longest Road (最長交易路) → {seat_name(h)} ({n})"
        case ev.LargestArmyChanged(holder=h, knights=n):
            return f"Largest Army (最大騎士力) → {seat_name(h)} ({n} knights)"
        case ev.TokensGained(seat=q, count=n, reason=why):
            return f"{seat_name(q)} gains {n} trade token(s) (交易チップ) for a {why}"
        case ev.TokensSpent(seat=q, count=n, action=what):
            return f"{seat_name(q)} spends {n} trade token(s) on {what.replace('_', ' ')}"
        case ev.ForcedTradeDrawn(seat=q, victim=v, count=n):
            return f"{seat_name(q)} draws {n} card(s) from {seat_name(v)} (forced trade)"
        case ev.GaveBack(seat=q, partner=v, count=n):
            return f"{seat_name(q)} gives {n} card(s) back to {seat_name(v)}"
        case ev.KnightDiscarded(seat=q):
            return f"{seat_name(q)} discards a played knight"
        case ev.GameOver(winner=w, scores=sc):
            lines = ["", "=== game over / ゲーム終了 ==="]
            lines.append(f"winner / 勝者: {seat_name(w)}")
            for q, v in enumerate(sc):
                lines.append(f"  {seat_name(q):12} {v} VP")
            return "\n".join(lines)
    return None


def run(bot_names: list[str], seed: int, delay: float, vp_target: int, sea3d: bool = False,
        out: Callable[[str], None] = print) -> int:
    bots: list[Bot] = [BUILTIN_BOTS[name](seed * 10 + i) for i, name in enumerate(bot_names)]
    out(f"Kaitaku 開拓 — {len(bots)} bots play (seed {seed}): "
        + ", ".join(f"{_seat_name(i)} {b.name}" for i, b in enumerate(bots)))

    def show(s: GameState, seat: int, action: Action, events: list[Event]) -> None:
        for e in events:
            line = describe(e, len(bots))
            if line:
                out(line)
                if delay:
                    sys.stdout.flush()
                    time.sleep(delay)

    if not 2 <= len(bots) <= 6:
        out("a game needs 2 to 6 bots")
        return 2
    if sea3d:
        settings = Settings.sea3d(len(bots), vp_target=vp_target, turn_cap=2000)
    else:
        settings = Settings(players=len(bots), vp_target=vp_target, turn_cap=2000)
    result = play_game(bots, settings, seed, on_step=show)
    return 0 if result.winner is not None else 1
