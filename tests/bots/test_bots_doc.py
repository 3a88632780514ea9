"""The example bot in docs/BOTS.md runs as written."""

from __future__ import annotations

import re
import sys
import textwrap
import types
from pathlib import Path
from typing import Any

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


def test_the_example_proposer_plays_a_game() -> None:
    text = DOC.read_text(encoding="utf-8")
    builder = re.search(r"```python\n(\"\"\"builder\.py.*?)```", text, re.S)
    proposer = re.search(r"```python\n(\"\"\"proposer\.py.*?)```", text, re.S)
    assert builder is not None and proposer is not None
    modules = {}
    for name, code in (("builder", builder.group(1)), ("proposer", proposer.group(1))):
        module = types.ModuleType(name)
        sys.modules[name] = module
        exec(compile(code, f"{name}.py", "exec"), module.__dict__)
        modules[name] = module
    try:
        bot = modules["proposer"].Proposer(1)
        asked = []
        original = bot.propose

        def propose(view: Any) -> Any:
            action = original(view)
            asked.append(action)
            return action

        bot.propose = propose
        result = play_game([bot, HeuristicBot(2), HeuristicBot(3), HeuristicBot(4)],
                           Settings(players=4, turn_cap=1000), 9)
        assert result.decisions > 100
        assert asked and any(a is not None for a in asked)  # it proposed, legally
    finally:
        for name in modules:
            del sys.modules[name]


def _block(marker: str) -> str:
    text = DOC.read_text(encoding="utf-8")
    for code in re.findall(r"```python\n(.*?)```", text, re.S):
        if marker in code:
            return str(code)
    raise AssertionError(f"no python example with {marker!r} in BOTS.md")


def test_the_schema_example_validates_frames(monkeypatch: Any) -> None:
    """The schema snippet runs from the repository root and tells a bad frame."""
    monkeypatch.chdir(DOC.parents[1])
    scope: dict[str, Any] = {"msg": {"type": "result", "seq": 1, "ok": True}}
    exec(compile(_block("Draft202012Validator"), "schema-example", "exec"), scope)
    assert list(scope["theirs"].iter_errors({"type": "result", "seq": 1, "ok": True})) == []
    assert list(scope["theirs"].iter_errors({"type": "result", "seq": "one", "ok": True}))


def test_the_transcript_example_replays_a_transcript(monkeypatch: Any) -> None:
    monkeypatch.chdir(DOC.parents[1])
    scope: dict[str, Any] = {}
    code = textwrap.dedent(_block("FrameDecoder()"))  # the example sits in a list item
    exec(compile(code, "transcript-example", "exec"), scope)
    assert len(scope["got"]) == len(scope["expected"]) > 1000
