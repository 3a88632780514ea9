"""Sandboxed entries (league.sandbox): attacks by real programs in real
sandboxes (bubblewrap, unshare, limits only), run by root and by an
unprivileged user (the system's ``nobody``, through setpriv, when the tests
run as root). For every mode the test checks the claim :func:`probe`
measured both ways: what it says is enforced holds against the attack, and
what it says is ``NOT enforced`` really is not (so the printed lines are
true). A mode this machine cannot run is skipped with the measured reason."""

from __future__ import annotations

import dataclasses
import functools
import json
import os
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from league.sandbox import Isolation, Limits, measure, probe

from . import sandbox_attacks as attacks

pytestmark = pytest.mark.skipif(not sys.platform.startswith("linux"), reason="Linux only")

ROOT = sys.platform.startswith("linux") and os.geteuid() == 0
SYSTEM_PYTHON = "/usr/bin/python3"
PY = SYSTEM_PYTHON if os.path.exists(SYSTEM_PYTHON) else sys.executable
"""The attacks' interpreter: stdlib only; the system's, which any uid can run
(this venv's may live under a home directory others cannot enter)."""
NOBODY = 65534
MODES = ("bubblewrap", "unshare", "limits")


def _as_nobody(*args: str) -> dict[str, Any]:
    run = subprocess.run(
        ["setpriv", f"--reuid={NOBODY}", f"--regid={NOBODY}", "--clear-groups", "--",
         SYSTEM_PYTHON, str(Path(attacks.__file__)), *args],
        capture_output=True, text=True, timeout=120, cwd="/tmp",
        env={"PATH": "/usr/bin:/bin", "HOME": "/tmp", "LANG": "C.UTF-8"})
    if run.returncode != 0:
        raise RuntimeError(f"as nobody: {run.stderr[-2000:]}")
    result: dict[str, Any] = json.loads(run.stdout)
    return result


@functools.cache
def _nobody_reason() -> str | None:
    """Why the unprivileged run is impossible here (None: it is possible)."""
    if not ROOT:
        return "the tests run unprivileged already (the 'self' cases)"
    if not shutil.which("setpriv") or not os.path.exists(SYSTEM_PYTHON):
        return "needs setpriv and /usr/bin/python3 to run as nobody"
    if not os.access(attacks.__file__, os.R_OK):
        return "the tests are not readable by nobody"
    return None


@functools.cache
def _measured(user: str) -> dict[str, Any]:
    if user == "nobody":
        return _as_nobody("candidates", SYSTEM_PYTHON)
    return attacks.candidates(PY)


@dataclasses.dataclass(frozen=True)
class Case:
    user: str
    mode: str

    def isolation(self) -> Isolation:
        if self.user == "nobody" and _nobody_reason():
            pytest.skip(_nobody_reason() or "")
        found = _measured(self.user).get(self.mode)
        if found is None:
            pytest.skip(f"{self.mode}: not on this machine")
        if isinstance(found, str):
            pytest.skip(f"{self.mode} cannot run here ({self.user}): {found}")
        iso: Isolation = attacks.isolation(found)
        return iso

    def attack(self, name: str, iso: Isolation) -> dict[str, Any]:
        tmp = Path(tempfile.mkdtemp(prefix="kaitaku-attack-"))
        os.chmod(tmp, 0o777)
        try:
            if self.user == "nobody":
                return _as_nobody("attack", name, json.dumps(dataclasses.asdict(iso)),
                                  SYSTEM_PYTHON, str(tmp))
            return attacks.ATTACKS[name](iso, PY, tmp)
        finally:
            shutil.rmtree(tmp, ignore_errors=True)


CASES = [Case(u, m) for u in (("root", "nobody") if ROOT else ("self",)) for m in MODES]
IDS = [f"{c.mode}-{c.user}" for c in CASES]


# --- item 2: no capability, no uid 0 of the host, read-only stays read-only --------------------


@pytest.mark.parametrize("case", CASES, ids=IDS)
def test_an_entry_holds_no_privilege_and_cannot_remount(case: Case) -> None:
    iso = case.isolation()
    got = case.attack("privilege", iso)
    assert iso.unprivileged, "every mode runs entries without privilege, whoever runs it"
    assert got["host"], "the attack's processes were found on the host"
    for uids, cap_eff in got["host"]:
        assert 0 not in uids and cap_eff == 0, got
    caps = got["inside"]["caps"]
    assert caps["CapPrm"] == caps["CapEff"] == caps["CapAmb"] == 0, got
    assert got["inside"]["nnp"] or caps["CapBnd"] == 0, got
    if iso.readonly:
        assert got["written"] == [], "remounted or wrote through a read-only bind"
    else:  # "NOT enforced" is true: the bot wrote to a directory of the organiser
        assert got["written"], got


# --- item 3: no host socket of any kind ------------------------------------------------------


@pytest.mark.parametrize("case", CASES, ids=IDS)
def test_an_entry_reaches_no_host_socket(case: Case) -> None:
    iso = case.isolation()
    got = case.attack("sockets", iso)
    if iso.network:
        assert got["inside"] == [] and got["host_accepted"] == 0, got
    else:
        assert got["inside"] and got["host_accepted"] > 0, got


# --- item 4: limits of the entry as a whole ----------------------------------------------------


@pytest.mark.parametrize("case", CASES, ids=IDS)
def test_a_fork_bomb_stops_at_the_entrys_process_limit(case: Case) -> None:
    iso = case.isolation()
    got = case.attack("processes", iso)
    if iso.processes:
        assert got["forked"] < got["limit"], got
    else:
        assert got["forked"] >= got["limit"], got


@pytest.mark.parametrize("case", CASES, ids=IDS)
def test_memory_is_bound_for_all_processes_together(case: Case) -> None:
    iso = case.isolation()
    got = case.attack("memory", iso)
    if iso.memory:
        assert got["held"] < got["of"], got
        assert "memory limit" in got["note"], "the entry's log says why"
    else:  # each process under its own RLIMIT_AS: together they pass the limit
        assert got["held"] == got["of"], got


@pytest.mark.parametrize("case", CASES, ids=IDS)
def test_cpu_time_is_bound_for_all_processes_together(case: Case) -> None:
    iso = case.isolation()
    got = case.attack("cpu", iso)
    if iso.cpu:
        assert not got["finished"] and "CPU time" in str(got["why"]), got
    else:  # 1.5 s of CPU against 1 s: each process stays under its own RLIMIT_CPU
        assert got["finished"], got


@pytest.mark.parametrize("case", CASES, ids=IDS)
def test_what_an_entry_stores_is_bound_in_total(case: Case) -> None:
    iso = case.isolation()
    got = case.attack("storage", iso)
    if iso.storage:  # /tmp (its directory included) and /dev/shm: 1.25 x its file limit
        assert got["stored_mb"] <= got["file_mb"] * 5 // 4, got
    else:
        assert got["stored_mb"] > got["file_mb"] * 5 // 4, got


# --- item 5: every process dies with the game; the league cannot be signalled ------------------


@pytest.mark.parametrize("case", CASES, ids=IDS)
def test_a_daemon_dies_with_its_game_and_cannot_signal_the_league(case: Case) -> None:
    iso = case.isolation()
    got = case.attack("daemon", iso)
    assert got["before"] >= 2, "the daemon and the entry ran during the game"
    if iso.killed:
        assert got["left"] == 0, got
    else:
        assert got["left"] > 0, got
    assert got["can_signal"] is not iso.no_signal, got


@pytest.mark.parametrize("case", CASES, ids=IDS)
def test_when_the_league_is_killed_its_entries_die_in_a_namespace_mode(case: Case) -> None:
    """kill -9 of the league itself: bubblewrap and unshare end the entry's
    whole tree (parent-death signals and the PID namespace); limits only
    cannot, and the documentation says so."""
    iso = case.isolation()
    marker = f"orphan-attack-{os.getpid()}-{time.monotonic_ns()}"
    python = SYSTEM_PYTHON if case.user == "nobody" else PY
    argv = [python, str(Path(attacks.__file__)), "orphan",
            json.dumps(dataclasses.asdict(iso)), python, marker]
    if case.user == "nobody":
        argv = ["setpriv", f"--reuid={NOBODY}", f"--regid={NOBODY}", "--clear-groups", "--",
                *argv]
    league = subprocess.Popen(argv, stdout=subprocess.PIPE, text=True, cwd="/tmp",
                              env={"PATH": "/usr/bin:/bin", "HOME": "/tmp"})
    workdir = stderr = None
    try:
        assert league.stdout is not None
        ready, workdir, stderr = league.stdout.readline().split()
        assert ready == "ready"
        assert len(attacks.sb._processes_with(marker)) >= 2
    finally:
        league.kill()
        league.wait()
        if workdir and stderr:  # what the killed league left
            shutil.rmtree(workdir, ignore_errors=True)
            Path(stderr).unlink(missing_ok=True)
    deadline = time.monotonic() + 3
    while attacks.sb._processes_with(marker) and time.monotonic() < deadline:
        time.sleep(0.02)
    left = attacks.sb._processes_with(marker)
    for pid in left:
        os.kill(pid, signal.SIGKILL)
    if iso.tool is not None:
        assert left == [], "an entry's process outlived the league"
    else:
        assert left, "limits only: the daemon outlives a killed league (as documented)"


# --- item 6: the organiser's files are not there -----------------------------------------------


@pytest.mark.parametrize("case", CASES, ids=IDS)
def test_an_entry_never_sees_the_organisers_working_tree(case: Case) -> None:
    iso = case.isolation()
    got = case.attack("files", iso)
    assert got["checked"], "there were files to look for"
    if iso.hidden_files:
        assert got["seen"] == [], got
    else:
        assert got["seen"], got


@pytest.mark.parametrize("case", CASES, ids=IDS)
def test_a_script_named_by_path_runs_but_its_neighbours_stay_hidden(case: Case) -> None:
    iso = case.isolation()
    got = case.attack("script", iso)
    assert got["ran"]
    if iso.hidden_files:
        assert got["neighbour"] is False and got["folder"] == ["bot.py"], got
    else:
        assert got["neighbour"] is True, got


@pytest.mark.skipif(not ROOT, reason="the editable install of this venv is root's")
def test_the_project_runs_inside_but_its_working_tree_stays_hidden(tmp_path: Path) -> None:
    """With this editable install (the packages live in the working tree) the
    entry imports the project, and sees no ``.git``, tests, or database."""
    iso = probe()
    if not iso.hidden_files:
        pytest.skip("this machine's mode does not hide files: " + "; ".join(iso.notes))
    os.chmod(tmp_path, 0o777)
    got = attacks.files(iso, sys.executable, tmp_path)
    assert got["seen"] == [], got
    assert str(got["imported"]).endswith("league/sandbox.py"), got


# --- item 7: what is printed is measured -------------------------------------------------------


def test_probe_prints_each_property_and_what_did_not_hold() -> None:
    iso = probe()
    text = "\n".join(iso.lines())
    for part in ("no root, no capabilities", "no network", "no writes outside",
                 "organiser's files hidden", "storage bound", "memory of all",
                 "CPU time of all", "each process's memory", "process count of all",
                 "killed with its game",
                 "cannot signal the league"):
        assert part in text
    nothing = Isolation(iso.tool, iso.root)  # a mode not measured enforces nothing
    assert all(line.endswith("NOT enforced") for line in nothing.lines()[1:]), nothing.lines()
    assert iso.rlimits, "every mode gives each process its rlimits"


def test_a_mode_that_cannot_start_is_not_claimed(tmp_path: Path) -> None:
    broken = Isolation("bubblewrap", ROOT, bwrap=str(shutil.which("false") or "/bin/false"))
    with pytest.raises(OSError):
        measure(broken, python=PY)


def test_limits_are_checked() -> None:
    with pytest.raises(ValueError):
        Limits(memory_mb=-1)
    with pytest.raises(ValueError):
        Limits(processes=True)  # type: ignore[arg-type]


@pytest.fixture(autouse=True)
def _no_leftovers() -> Iterator[None]:
    yield
    deadline = time.monotonic() + 3  # a process being killed takes a moment to go
    while attacks.sb._processes_with("attack-") and time.monotonic() < deadline:
        time.sleep(0.02)
    assert not attacks.sb._processes_with("attack-"), "an attack left a process behind"
