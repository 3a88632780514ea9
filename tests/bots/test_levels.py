"""Bot levels (bots.levels): Easy / Normal / Hard follow the measured ratings of the
built-in bots, and the names a server gives its bots say the level."""

from __future__ import annotations

from pathlib import Path

import pytest

from bots import BUILTIN_BOTS
from bots.levels import (
    LEVELS,
    MEASURED,
    UNRATED,
    bot_for_level,
    bot_name,
    level_of,
    ordinal,
    parse_bot_name,
)


def test_the_levels_are_the_three_strongest_bots_by_measured_rating() -> None:
    assert set(MEASURED) | set(UNRATED) == set(BUILTIN_BOTS)
    assert not set(MEASURED) & set(UNRATED)
    assert all(level_of(k) is None for k in UNRATED)  # unrated: at no level
    assert list(LEVELS) == ["easy", "normal", "hard"]
    kinds = list(LEVELS.values())
    assert [ordinal(k) for k in kinds] == sorted(ordinal(k) for k in kinds)
    # Each level is clearly above the one below: its rating band (mu - 2 sigma)
    # clears the lower level's mu + 2 sigma.
    for low, high in zip(kinds, kinds[1:], strict=False):
        assert MEASURED[high][0] - 2 * MEASURED[high][1] > MEASURED[low][0] - 2 * MEASURED[low][1]
        assert MEASURED[high][0] > MEASURED[low][0] + MEASURED[low][1]
    weakest = min(MEASURED, key=ordinal)
    assert level_of(weakest) is None and weakest not in kinds
    assert LEVELS == {"easy": "greedy", "normal": "heuristic", "hard": "search"}
    with pytest.raises(ValueError):
        bot_for_level("expert")


def test_server_names_say_the_level_and_read_back() -> None:
    assert bot_name("heuristic", 2) == "Bot 2 (Normal)"
    assert bot_name("greedy") == "Bot (Easy)"
    assert bot_name("search", 4) == "Bot 4 (Hard)"
    assert bot_name("random", 3) == "Bot 3 (Random)"
    for kind in BUILTIN_BOTS:
        for n in (None, 1, 4, 5, 6):  # seats 5 and 6 of a five or six player game
            assert parse_bot_name(bot_name(kind, n)) == (kind, n)
    assert parse_bot_name("heuristic-bot 2") == ("heuristic", 2)  # an older server's name
    for other in ("Bot 7 (Normal)", "Bot (Expert)", "Aiko", "bot (Normal)", "Bot 2 (Normal) "):
        assert parse_bot_name(other) is None


def test_the_window_shows_server_bots_by_level_in_its_language() -> None:
    from client.describe import builtin_bot, player_name
    from client.i18n import Translator

    en, ja = Translator("en"), Translator("ja")
    assert player_name("Bot 2 (Normal)", "bot", ja) == "ボット2（普通）"
    assert player_name("Bot (Hard)", "bot", en) == "Bot (Hard)"
    assert player_name("Bot 3 (Random)", "bot", ja) == player_name("random-bot 3", "bot", ja)
    assert player_name("Bot 2 (Normal)", "human", en) == "Bot 2 (Normal)"  # a person's name
    assert builtin_bot("Bot 1 (Easy)", "bot") == "greedy"


@pytest.mark.slow
def test_a_league_of_the_built_ins_orders_them_as_measured(tmp_path: Path) -> None:
    """A smaller league than the one behind MEASURED (search is left out: at its
    default budget it takes minutes): the order of the others holds."""
    from league import Entry, run_league

    entries = [Entry(k, k) for k in ("random", "greedy", "heuristic")]
    result = run_league(entries, 48, players=3, seed=2, db=tmp_path / "levels.db", workers=2)
    order = [s.name for s in result.standings.entries]
    assert order == sorted(order, key=ordinal, reverse=True)
