"""The example bot in docs/BOTS.md runs as written."""

from __future__ import annotations

import re
import sys
import types
from pathlib import Path

from bots import HeuristicBot, RandomBot, play_game
from protocol.rules import Settings

DOC = Path(__file__).resolve().parents[2] / "docs" / "BOTS.md"


def test_the_example_bot_plays_a_game() -> None:
    text = DOC.read_text(encoding="utf-8")
    code = re.search(r"```python\n(\"\"\"builder\.py.*?)```", text, re.S)
    assert code is not None
    assert len(code.group(1).strip().splitlines()) <= 30
    module = types.ModuleType("builder")
    exec(compile(code.group(1), "builder.py", "exec"), module.__dict__)
    sys.modules["builder"] = module
    try:
        builder = module.Builder(1)
        result = play_game([builder, HeuristicBot(2), RandomBot(3), RandomBot(4)],
                           Settings(players=4, turn_cap=1000), 7)
        assert result.decisions > 100
        assert result.scores[0] >= 2
    finally:
        del sys.modules["builder"]
