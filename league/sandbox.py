"""Running an untrusted bot program so that it reaches nothing but its own game.

A sandboxed entry gets its connection to the game on its standard input and
output (one end of a socket pair; the documented ``stdio`` transport of
PROTOCOL.md), a private empty working directory, and limits on memory, CPU
time, processes, open files and file size. Its whole process tree is killed
when its game ends, and when the league process dies.

What is enforced depends on the machine; :func:`probe` finds out once and
:meth:`Isolation.lines` says it plainly (``kaitaku league`` prints it at
start):

* **bubblewrap** (``bwrap``, Debian/Ubuntu package ``bubblewrap``): new
  network, PID, IPC and UTS namespaces (no network at all), a file system
  made of read-only system directories, the interpreter and the project,
  a private ``/tmp`` and the bot's own directory as the only writable place.
* **unshare** (util-linux) when bubblewrap is missing: new network and PID
  namespaces (as root, or through a user namespace); as root also a mount
  namespace where every mount is read-only except a private ``/tmp`` that
  holds the bot's directory. Without root the file system is not isolated.
* **resource limits** (POSIX rlimits) everywhere: address space, CPU
  seconds, open files, file size, no core dumps; processes by
  ``RLIMIT_NPROC`` for a non-root organiser, by a cgroup's ``pids.max`` when
  the organiser is root and the cgroup file system is writable.
* **the process tree** always dies with its game: the sandbox's PID
  namespace (or its process group) is killed, and the child gets a
  parent-death signal.

Nothing here is a security boundary against a kernel exploit; it keeps an
ordinary program from reading the organiser's files, talking to the
network, filling the disk or the process table, or outliving its game.
"""

from __future__ import annotations

import contextlib
import functools
import os
import shutil
import signal
import subprocess
import sys
import tempfile
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

PROBE_TIMEOUT = 5.0
"""Seconds a probe of one isolation tool may take."""

TMP_BYTES = 64 << 20
"""Size of a sandbox's private /tmp."""

SANDBOX_HOME = "/tmp/work"
"""Where the bot's own directory appears inside a namespace sandbox."""

_SYSTEM_DIRS = ("/usr", "/bin", "/sbin", "/lib", "/lib64", "/lib32", "/opt")
_ETC_FILES = ("/etc/ld.so.cache", "/etc/ld.so.conf", "/etc/ld.so.conf.d", "/etc/localtime",
              "/etc/passwd", "/etc/group", "/etc/nsswitch.conf", "/etc/alternatives",
              "/etc/hosts", "/etc/ssl", "/etc/ca-certificates", "/etc/mime.types")


@dataclass(frozen=True, slots=True)
class Limits:
    """Per-process limits of a sandboxed entry (0: no limit of that kind)."""

    memory_mb: int = 4096
    """Address space (``RLIMIT_AS``). JavaScript engines reserve large address
    ranges: give Node.js bots 16384 or 0."""
    cpu_seconds: int = 600
    """CPU time of the bot's process (``RLIMIT_CPU``), a safety net behind the
    chess clock."""
    processes: int = 64
    """Processes and threads the bot may have at once."""
    open_files: int = 256
    file_mb: int = 64
    """Largest file the bot may write (its standard error included)."""

    def __post_init__(self) -> None:
        for name in ("memory_mb", "cpu_seconds", "processes", "open_files", "file_mb"):
            value = getattr(self, name)
            if type(value) is not int or value < 0:
                raise ValueError(f"sandbox limit {name} must be an integer >= 0")


@dataclass(frozen=True, slots=True)
class Isolation:
    """What this machine enforces for sandboxed entries."""

    tool: str | None
    """``"bubblewrap"``, ``"unshare"`` or None (limits only)."""
    network: bool
    filesystem: bool
    """Writes outside the bot's own directory (and its private /tmp) fail."""
    hidden_files: bool
    """The organiser's files are not visible at all (bubblewrap)."""
    processes: str | None
    """``"cgroup"``, ``"rlimit"`` or None."""
    pid_namespace: bool
    root: bool
    bwrap: str | None = None
    unshare_user: bool = False
    cgroup: str | None = None
    """The pids cgroup directory sandboxes are created in (root only)."""
    notes: tuple[str, ...] = field(default=())

    def lines(self) -> list[str]:
        """A plain statement of what is and is not enforced here."""
        def mark(ok: bool) -> str:
            return "enforced" if ok else "NOT enforced"

        how = self.tool or "resource limits only"
        out = [f"sandbox for cmd: entries: {how}"]
        out.append(f"  no network: {mark(self.network)}")
        fs = ("enforced (only its own directory and a private /tmp are writable"
              + ("; the organiser's files are not visible)" if self.hidden_files
                 else "; other files stay readable)") if self.filesystem else "NOT enforced")
        out.append(f"  no writes outside its directory: {fs}")
        out.append("  memory, CPU time, open files, file size: enforced (rlimits)")
        procs = {"cgroup": "enforced (cgroup pids.max)", "rlimit": "enforced (RLIMIT_NPROC)"}
        out.append(f"  process count: {procs.get(self.processes or '', 'NOT enforced')}")
        out.append("  killed with its game: enforced ("
                   + ("PID namespace" if self.pid_namespace else "process group") + ")")
        out.extend(f"  note: {n}" for n in self.notes)
        return out


def _runs(argv: Sequence[str]) -> bool:
    try:
        return subprocess.run(list(argv), stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
                              stderr=subprocess.DEVNULL, timeout=PROBE_TIMEOUT).returncode == 0
    except (OSError, subprocess.SubprocessError):
        return False


def _pids_cgroup_root() -> str | None:
    """A writable cgroup directory with the pids controller (v2 or v1), or None."""
    unified = Path("/sys/fs/cgroup")
    candidates: list[Path] = []
    controllers = unified / "cgroup.controllers"
    if controllers.is_file():
        with contextlib.suppress(OSError):
            if "pids" in controllers.read_text().split():
                own = Path("/proc/self/cgroup").read_text().strip().splitlines()
                rel = next((line.split(":", 2)[2] for line in own if line.startswith("0::")), "/")
                candidates.append(unified / rel.lstrip("/"))
    candidates.append(unified / "pids")
    for base in candidates:
        if not (base / "pids.max").exists() and not (base / "cgroup.procs").exists():
            continue
        probe_dir = base / f"kaitaku-probe-{os.getpid()}"
        try:
            probe_dir.mkdir()
        except OSError:
            continue
        ok = (probe_dir / "pids.max").exists()
        with contextlib.suppress(OSError):
            probe_dir.rmdir()
        if ok:
            return str(base)
    return None


@functools.cache
def probe() -> Isolation:
    """Find out (once per process) which isolation this machine offers."""
    if not sys.platform.startswith("linux"):
        return Isolation(None, False, False, False, "rlimit" if os.name == "posix" else None,
                         False, os.name == "posix" and os.geteuid() == 0,
                         notes=("namespaces need Linux; only resource limits apply",))
    root = os.geteuid() == 0
    cgroup = _pids_cgroup_root() if root else None
    procs = "cgroup" if cgroup else ("rlimit" if not root else None)
    notes: list[str] = []
    if root and cgroup is None:
        notes.append("running as root without a writable pids cgroup: the process count "
                     "cannot be limited (RLIMIT_NPROC does not bind root)")
    bwrap = shutil.which("bwrap")
    if bwrap and _runs([bwrap, "--unshare-all", "--die-with-parent", "--ro-bind", "/", "/",
                        "--proc", "/proc", "--dev", "/dev", "true"]):
        return Isolation("bubblewrap", True, True, True, procs, True, root, bwrap=bwrap,
                         cgroup=cgroup, notes=tuple(notes))
    unshare = shutil.which("unshare")
    base = ["--net", "--pid", "--fork", "--kill-child", "--mount-proc"]
    if unshare and root and _runs([unshare, *base, "--mount", "true"]):
        notes.append("install bubblewrap to hide the organiser's files from the bots as well")
        return Isolation("unshare", True, True, False, procs, True, root, cgroup=cgroup,
                         notes=tuple(notes))
    if unshare and _runs([unshare, "--user", "--map-root-user", *base, "true"]):
        notes.append("without root or bubblewrap a bot can still write the organiser's "
                     "files: install bubblewrap")
        return Isolation("unshare", True, False, False, procs, True, root,
                         unshare_user=True, cgroup=cgroup, notes=tuple(notes))
    notes.append("no bubblewrap and no usable unshare: network and files are not isolated")
    return Isolation(None, False, False, False, procs, False, root, cgroup=cgroup,
                     notes=tuple(notes))


def _readable_paths(argv: Sequence[str] = ()) -> list[str]:
    """What a sandboxed bot may read besides the system: the interpreter, its
    libraries, this project (so ``{python} -m kaitaku bot`` works) and any
    program or script its command line names by an absolute path."""
    prefixes = {os.path.realpath(p) for p in (sys.prefix, sys.base_prefix, sys.exec_prefix)}
    paths = set(prefixes)
    paths.add(os.path.dirname(os.path.realpath(sys.executable)))
    for p in sys.path:  # library directories of this interpreter, not the working directory
        real = os.path.realpath(p) if p else ""
        if real and os.path.isdir(real) and any(real.startswith(q + os.sep) for q in prefixes):
            paths.add(real)
    paths.add(str(Path(__file__).resolve().parent.parent))  # the project itself
    for a in argv:
        if os.path.isabs(a) and os.path.exists(a):
            paths.update((a, os.path.realpath(a)))
    out = sorted(p for p in paths if p != "/" and os.path.exists(p))
    # Keep only the outermost of nested paths.
    return [p for p in out if not any(p != q and p.startswith(q + os.sep) for q in out)]


# The sandbox init when only unshare is available and the organiser is root:
# a mount namespace in which every mount is read-only, the bot's directory on
# a private /tmp, private /dev/shm and /var/tmp.
_UNSHARE_ROOT_INIT = r"""
set -e
W="$1"; shift
mkdir -p "$W/.root" "$W/.dev"
mount -t tmpfs -o mode=1777,size=64m none "$W/.root"  # = TMP_BYTES
mkdir "$W/.root/work"
mount --bind "$W" "$W/.root/work"
# What the bot needs that lived under /tmp (the project, its script), one per line.
while IFS= read -r k; do
  [ -n "$k" ] || continue
  t="$W/.root/${k#/tmp/}"
  if [ -d "$k" ]; then mkdir -p "$t"; else mkdir -p "$(dirname "$t")"; : > "$t"; fi
  mount --bind "$k" "$t"
  mount -o remount,bind,ro "$t"
done <<KEEP_END
$KEEP
KEEP_END
mount -t tmpfs -o mode=755,size=1m none "$W/.dev"
for d in null zero full random urandom; do
  touch "$W/.dev/$d"; mount --bind "/dev/$d" "$W/.dev/$d"
done
mkdir "$W/.dev/shm"
mount -t tmpfs -o mode=1777,size=16m none "$W/.dev/shm"
ln -s /proc/self/fd "$W/.dev/fd"
mount --move "$W/.dev" /dev
mount --move "$W/.root" /tmp
mount -t tmpfs -o mode=1777,size=16m none /var/tmp 2>/dev/null || true
for m in $(awk '{print $5}' /proc/self/mountinfo | sort -r); do
  case "$m" in /tmp|/tmp/*|/dev|/dev/*|/var/tmp) continue;; esac
  mount -o remount,bind,ro "$m" 2>/dev/null || true
done
cd /tmp/work
exec setpriv --no-new-privs --bounding-set=-all --inh-caps=-all --clear-groups -- "$@"
"""

_UNSHARE_USER_INIT = r"""
W="$1"; shift
cd "$W"
exec "$@"
"""


def _limit_self(limits: Limits, nproc: int | None) -> None:
    """In the child before exec: rlimits, its own session, a parent-death signal."""
    import resource

    os.setsid()
    with contextlib.suppress(Exception):
        import ctypes

        libc = ctypes.CDLL(None, use_errno=True)
        libc.prctl(1, signal.SIGKILL)  # PR_SET_PDEATHSIG: die with the league

    def cap(kind: int, value: int) -> None:
        with contextlib.suppress(ValueError, OSError):
            resource.setrlimit(kind, (value, value))

    cap(resource.RLIMIT_CORE, 0)
    if limits.memory_mb:
        cap(resource.RLIMIT_AS, limits.memory_mb << 20)
    if limits.cpu_seconds:
        cap(resource.RLIMIT_CPU, limits.cpu_seconds)
    if limits.open_files:
        cap(resource.RLIMIT_NOFILE, limits.open_files)
    if limits.file_mb:
        cap(resource.RLIMIT_FSIZE, limits.file_mb << 20)
    if nproc is not None:
        cap(resource.RLIMIT_NPROC, nproc)


def _own_process_count() -> int:
    """Processes and threads of this user now (RLIMIT_NPROC counts them all)."""
    uid = os.getuid()
    count = 0
    with contextlib.suppress(OSError):
        for entry in os.scandir("/proc"):
            if not entry.name.isdigit():
                continue
            with contextlib.suppress(OSError):
                if entry.stat().st_uid == uid:
                    count += len(os.listdir(f"/proc/{entry.name}/task"))
    return count


class Sandbox:
    """One sandboxed program: started with :meth:`start`, ended (with its whole
    process tree) by :meth:`stop`. ``base`` is where its private directory is
    made (a temporary directory by default)."""

    def __init__(self, limits: Limits | None = None, isolation: Isolation | None = None,
                 base: str | Path | None = None) -> None:
        self.limits = limits or Limits()
        self.isolation = isolation or probe()
        self.workdir = Path(tempfile.mkdtemp(prefix="kaitaku-bot-", dir=base))
        self.stderr_path = Path(tempfile.mkstemp(prefix="kaitaku-bot-", suffix=".err",
                                                 dir=base)[1])
        self.cgroup: Path | None = None
        self.proc: Any = None
        self._keep: list[str] = []

    # -- the command line -----------------------------------------------------------

    def wrap(self, argv: Sequence[str]) -> list[str]:
        """The full command line that runs ``argv`` in this sandbox."""
        iso = self.isolation
        inner = list(argv)
        if iso.tool == "bubblewrap":
            assert iso.bwrap is not None
            cmd = [iso.bwrap, "--die-with-parent", "--unshare-all", "--new-session",
                   "--proc", "/proc", "--dev", "/dev", "--size", str(TMP_BYTES), "--tmpfs", "/tmp"]
            for d in _SYSTEM_DIRS:
                cmd += ["--ro-bind-try", d, d]
            for f in _ETC_FILES:
                cmd += ["--ro-bind-try", f, f]
            for p in _readable_paths(inner):
                cmd += ["--ro-bind", p, p]
            cmd += ["--bind", str(self.workdir), SANDBOX_HOME, "--chdir", SANDBOX_HOME,
                    "--setenv", "HOME", SANDBOX_HOME, "--setenv", "TMPDIR", "/tmp",
                    "--remount-ro", "/", "--"]
            return self._in_cgroup(cmd + inner)
        if iso.tool == "unshare":
            base = ["unshare", "--net", "--pid", "--fork", "--kill-child", "--mount-proc"]
            if iso.unshare_user:
                base[1:1] = ["--user", "--map-root-user"]
                init = _UNSHARE_USER_INIT
            else:
                base.append("--mount")
                init = _UNSHARE_ROOT_INIT
            cmd = [*base, "--", "sh", "-c", init, "sh", str(self.workdir), *inner]
            self._keep = [p for p in _readable_paths(inner) if p.startswith("/tmp/")]
            return self._in_cgroup(cmd)
        return self._in_cgroup(inner)

    def _in_cgroup(self, cmd: list[str]) -> list[str]:
        root = self.isolation.cgroup
        if root is None or not self.limits.processes:
            return cmd
        cg = Path(root) / f"kaitaku-{os.getpid()}-{self.workdir.name}"
        try:
            cg.mkdir()
            (cg / "pids.max").write_text(str(self.limits.processes))
        except OSError:
            return cmd
        self.cgroup = cg
        # The shell moves itself into the cgroup before anything can fork.
        return ["sh", "-c", 'echo $$ > "$0/cgroup.procs" && exec "$@"', str(cg), *cmd]

    # -- life ----------------------------------------------------------------------

    async def start(self, argv: Sequence[str], connection: int,
                    env: dict[str, str] | None = None) -> Any:
        """Start ``argv`` with ``connection`` (a socket's file descriptor) as its
        standard input and output; its standard error goes to a file outside
        the sandbox (:meth:`stderr_tail`)."""
        import asyncio

        iso = self.isolation
        nproc: int | None = None
        if iso.processes == "rlimit" and self.limits.processes:
            nproc = _own_process_count() + self.limits.processes
        clean_env = {"PATH": os.environ.get("PATH", "/usr/bin:/bin"), "LANG": "C.UTF-8",
                     "HOME": SANDBOX_HOME if iso.filesystem else str(self.workdir),
                     "TMPDIR": "/tmp" if iso.filesystem else str(self.workdir),
                     "PYTHONDONTWRITEBYTECODE": "1", **(env or {})}
        limits = self.limits
        command = self.wrap(argv)
        if self._keep:
            clean_env["KEEP"] = "\n".join(self._keep)
        with open(self.stderr_path, "wb") as err:
            self.proc = await asyncio.create_subprocess_exec(
                *command, stdin=connection, stdout=connection, stderr=err,
                cwd=str(self.workdir), env=clean_env,
                preexec_fn=lambda: _limit_self(limits, nproc))
        return self.proc

    def stderr_tail(self, limit: int = 300) -> str:
        try:
            with open(self.stderr_path, "rb") as f:
                f.seek(0, os.SEEK_END)
                f.seek(max(0, f.tell() - 4 * limit))
                return f.read().decode(errors="replace").strip()[-limit:]
        except OSError:
            return ""

    async def stop(self, grace: float = 1.0) -> None:
        """End the program and everything it started; remove its directory."""
        import asyncio

        proc = self.proc
        if proc is not None and proc.returncode is None:
            with contextlib.suppress(ProcessLookupError, PermissionError):
                os.killpg(proc.pid, signal.SIGTERM)
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(proc.wait(), grace)
        if proc is not None:
            with contextlib.suppress(ProcessLookupError, PermissionError):
                os.killpg(proc.pid, signal.SIGKILL)
            with contextlib.suppress(Exception):
                await asyncio.wait_for(proc.wait(), 5)
        self._kill_cgroup()
        shutil.rmtree(self.workdir, ignore_errors=True)
        with contextlib.suppress(OSError):
            self.stderr_path.unlink()

    def _kill_cgroup(self) -> None:
        cg = self.cgroup
        if cg is None:
            return
        import time

        for _ in range(50):
            try:
                pids = [int(p) for p in (cg / "cgroup.procs").read_text().split()]
            except OSError:
                break
            if not pids:
                break
            for pid in pids:
                with contextlib.suppress(ProcessLookupError, PermissionError):
                    os.kill(pid, signal.SIGKILL)
            time.sleep(0.02)
        with contextlib.suppress(OSError):
            cg.rmdir()
        self.cgroup = None
