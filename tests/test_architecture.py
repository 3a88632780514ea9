"""The layer contract (import-linter, configured in pyproject.toml) holds, and
it fails on an import cycle."""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
PACKAGES = ("protocol", "bots", "server", "client", "league", "kaitaku")


def _lint(cwd: Path) -> subprocess.CompletedProcess[str]:
    exe = Path(sys.executable).with_name("lint-imports")
    return subprocess.run([str(exe), "--no-cache"], cwd=cwd, capture_output=True, text=True,
                          timeout=120)


def test_layer_contract_is_kept() -> None:
    run = _lint(ROOT)
    assert run.returncode == 0, run.stdout + run.stderr
    assert "4 kept, 0 broken" in run.stdout


def _copy(tmp: Path) -> Path:
    for name in PACKAGES:
        shutil.copytree(ROOT / name, tmp / name, ignore=shutil.ignore_patterns("__pycache__"))
    shutil.copy(ROOT / "pyproject.toml", tmp / "pyproject.toml")
    return tmp


def test_contract_fails_on_a_cycle_inside_a_package(tmp_path: Path) -> None:
    tree = _copy(tmp_path)
    table = tree / "server" / "table.py"
    table.write_text(table.read_text() + "\nfrom . import app as _app  # noqa\n")
    run = _lint(tree)
    assert run.returncode != 0
    assert "No cycles are allowed in server" in run.stdout
    assert ".table -> .app" in run.stdout


def test_contract_fails_on_an_upward_import(tmp_path: Path) -> None:
    tree = _copy(tmp_path)
    board = tree / "protocol" / "rules" / "board.py"
    board.write_text(board.read_text() + "\nimport server.storage  # noqa\n")
    run = _lint(tree)
    assert run.returncode != 0
    assert "protocol.rules.board -> server.storage" in run.stdout
