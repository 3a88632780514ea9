"""Bot leagues: many seeded games between entries, stored in SQLite, rated with
openskill's Plackett-Luce model, written up as a report (``kaitaku league``).

| module | its one job |
| --- | --- |
| ``schedule`` | entries, balanced seat rotations, each game's seed |
| ``games`` | one scheduled game (in-process bots or ``cmd:`` programs), timed, clocked |
| ``sandbox`` | running an untrusted ``cmd:`` program so that it reaches nothing but its game |
| ``duplicate`` | duplicate matches: the same chance in every seat rotation of a board |
| ``store`` | the league database: leagues, games with their logs, decision times |
| ``ratings`` | openskill ratings, standings, head-to-head |
| ``run`` | running (or resuming) a league: local, process pool or dask cluster |
| ``report``, ``charts`` | the HTML and Markdown report, its SVG charts |
| ``ladder``, ``ladder_web`` | the live ladder (``kaitaku server --ladder``), its web page |
| ``stats`` | small statistics shared with the benchmarks (Wilson interval, percentiles) |
"""

from .games import ENGINE_TURN_CAP, GameOutcome, GameTask, play_task, rank_seats, timed
from .ratings import Standing, Standings, head_to_head, rate
from .run import LeagueResult, ProgressLine, format_table, run_league
from .schedule import Entry, block_size, game_seed, parse_entry, schedule
from .store import DEFAULT_DB, StoredGame, connect, load_games, load_log

__all__ = [
    "DEFAULT_DB", "ENGINE_TURN_CAP", "Entry", "GameOutcome", "GameTask", "LeagueResult",
    "ProgressLine", "Standing", "Standings", "StoredGame", "block_size", "connect",
    "format_table", "game_seed", "head_to_head", "load_games", "load_log", "parse_entry",
    "play_task", "rank_seats", "rate", "run_league", "schedule", "timed",
]
