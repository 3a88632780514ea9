"""Bot levels (bots.levels): Easy / Normal / Hard follow the measured ratings of the
built-in bots, and the names a server gives its bots say the level."""

from __future__ import annotations

from pathlib import Path

import pytest

from bots import BUILTIN_BOTS, make_bot
from bots.levels import (
    KIND_LABELS,
    KINDS,
    LABELS,
    LEVELS,
    MEASURED,
    THINKING,
    bot_for_level,
    bot_name,
    level_of,
    ordinal,
    parse_bot_name,
)


def test_the_levels_follow_the_measured_ratings() -> None:
    """Hard is the strongest rated built-in; Easy and Normal the two strongest
    of those that answer at once; each level clearly above the one below."""
    assert tuple(BUILTIN_BOTS) == KINDS and set(MEASURED) == set(KINDS)
    assert {k for k in KINDS if hasattr(make_bot(k, 1), "budget")} == THINKING
    assert list(LEVELS) == ["easy", "normal", "hard"]
    kinds = list(LEVELS.values())
    assert LEVELS["hard"] == max(MEASURED, key=ordinal)
    quick = sorted((k for k in KINDS if k not in THINKING), key=ordinal)
    assert [LEVELS["easy"], LEVELS["normal"]] == quick[-2:]
    assert [ordinal(k) for k in kinds] == sorted(ordinal(k) for k in kinds)
    # Each level is clearly above the one below: its mu clears the lower
    # level's mu + sigma, and its mu - 2 sigma the lower one's.
    for low, high in zip(kinds, kinds[1:], strict=False):
        assert MEASURED[high][0] - 2 * MEASURED[high][1] > MEASURED[low][0] - 2 * MEASURED[low][1]
        assert MEASURED[high][0] > MEASURED[low][0] + MEASURED[low][1]
    weakest = min(MEASURED, key=ordinal)
    assert level_of(weakest) is None and weakest not in kinds
    assert LEVELS == {"easy": "greedy", "normal": "heuristic", "hard": "search"}
    assert level_of("hard") is None  # rated below the search bot
    with pytest.raises(ValueError):
        bot_for_level("expert")


def test_server_names_say_the_level_and_read_back() -> None:
    assert bot_name("heuristic", 2) == "Bot 2 (Normal)"
    assert bot_name("greedy") == "Bot (Easy)"
    assert bot_name("search", 4) == "Bot 4 (Hard)"
    assert bot_name("hard", 4) == "Bot 4 (Learned)"  # at no level: by its kind
    assert bot_name("random", 3) == "Bot 3 (Random)"
    for kind in BUILTIN_BOTS:
        for n in (None, 1, 4, 5, 6):  # seats 5 and 6 of a five or six player game
            assert parse_bot_name(bot_name(kind, n)) == (kind, n)
    assert parse_bot_name("heuristic-bot 2") == ("heuristic", 2)  # an older server's name
    for other in ("Bot 7 (Normal)", "Bot (Expert)", "Aiko", "bot (Normal)", "Bot 2 (Normal) ",
                  "Bot ()", "Bot (Heuristic)", "Bot (learned)", "Bot (Search)"):
        assert parse_bot_name(other) is None


def test_the_window_shows_server_bots_by_level_in_its_language() -> None:
    from client.describe import builtin_bot, player_name
    from client.i18n import Translator

    en, ja = Translator("en"), Translator("ja")
    assert player_name("Bot 2 (Normal)", "bot", ja) == "ボット2（普通）"
    assert player_name("Bot (Hard)", "bot", en) == "Bot (Hard)"
    assert player_name("Bot 3 (Random)", "bot", ja) == player_name("random-bot 3", "bot", ja)
    assert player_name("Bot 3 (Random)", "bot", ja) == "ボット3（ランダム）"
    assert player_name("Bot 4 (Learned)", "bot", ja) == "ボット4（学習型）"
    assert player_name("search-bot 4", "bot", ja) == "ボット4（強い）"  # an older server's
    assert player_name("Bot 2 (Normal)", "human", en) == "Bot 2 (Normal)"  # a person's name
    assert builtin_bot("Bot 1 (Easy)", "bot") == "greedy"
    assert builtin_bot("Bot 1 (Hard)", "bot") == "search"
    assert builtin_bot("Bot 1 (Learned)", "bot") == "hard"
    for kind in KINDS:  # every kind has a label in both languages, none a level's
        assert KIND_LABELS[kind] not in LABELS.values()
        assert en(f"bot.kind.{kind}") == KIND_LABELS[kind]
        assert ja(f"bot.kind.{kind}") not in (KIND_LABELS[kind], f"bot.kind.{kind}")


@pytest.mark.slow
def test_a_league_of_the_built_ins_orders_them_as_measured(tmp_path: Path) -> None:
    """A smaller league than the one behind MEASURED (search is left out: at its
    default budget it takes minutes): the order of the others holds."""
    from league import Entry, run_league

    entries = [Entry(k, k) for k in ("random", "greedy", "heuristic")]
    result = run_league(entries, 48, players=3, seed=2, db=tmp_path / "levels.db", workers=2)
    order = [s.name for s in result.standings.entries]
    assert order == sorted(order, key=ordinal, reverse=True)
