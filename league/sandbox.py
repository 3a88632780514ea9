"""Running an untrusted bot program so that it reaches nothing but its own game.

A sandboxed entry gets its connection to the game on its standard input and
output (one end of a socket pair; the documented ``stdio`` transport of
PROTOCOL.md), a private working directory, and limits on memory, CPU time,
processes, open files and what it can store. The league runs it in the first
of these modes the machine offers:

* **bubblewrap** (``bwrap``, Debian/Ubuntu package ``bubblewrap``) and
  **unshare** (util-linux): new network, PID, IPC, UTS and mount namespaces.
  Its file system is built from nothing: the system's directories, the
  interpreter's prefix, the project's own packages (only the package
  directories of an editable install, never the working tree around them)
  and the paths its command line names, all read-only; a size-capped tmpfs
  at ``/tmp`` (its home ``/tmp/work`` on it) and one at ``/dev/shm`` are the
  only writable places. No host socket is reachable: the network namespace
  has only its own loopback (abstract unix sockets belong to a network
  namespace), and the host's directories that hold path sockets are not
  there.
* **resource limits only** where neither works.

Whoever runs the league, the entry never has a capability or uid 0 of the
host: a root organiser runs each sandbox as its own unprivileged uid (above
:data:`SANDBOX_UID_BASE`, no user has it) with an empty capability bounding
set and ``no_new_privs``; a non-root organiser's entries run as that user in
a user namespace (bubblewrap, unshare) or as that user (limits only).

Limits bind the entry as a whole where a cgroup is writable (the league runs
as root): memory (``memory.max`` / ``memory.limit_in_bytes``), processes
(``pids.max``) and CPU time (the cgroup's CPU counter, checked every
:data:`CPU_POLL` seconds). Each process also gets rlimits (address space, CPU
seconds, open files, file size, no core dumps); ``RLIMIT_NPROC`` binds the
entry as a whole when it has a uid of its own (root) and roughly otherwise.

Nothing is assumed: :func:`probe` runs a probe program in each candidate mode
that attempts every escape (remounts, writes to a read-only bind, a TCP
connection, abstract and path unix sockets, a look at the organiser's files,
a signal to the league, a fork bomb, memory over the limit in several
processes, more than its storage, a daemon in a new session) and
:meth:`Isolation.lines` prints what it measured, ``NOT enforced`` for what
did not hold. ``kaitaku league`` prints it at start.

Nothing here is a security boundary against a kernel exploit.
"""

from __future__ import annotations

import contextlib
import functools
import importlib.metadata
import importlib.util
import itertools
import json
import os
import shutil
import signal
import socket
import sys
import tempfile
import time
from collections.abc import Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

PROBE_TIMEOUT = 10.0
"""Seconds the probe of one mode may take."""

SANDBOX_HOME = "/tmp/work"
"""The entry's own directory inside a namespace sandbox (on its private /tmp)."""

SANDBOX_UID_BASE = 1 << 30
"""A root organiser runs each sandbox as a uid of its own from here up: the
league's process id and a counter, so no two live sandboxes share one."""

CPU_POLL = 0.1
"""Seconds between two looks at an entry's CPU time (cgroup)."""

DEFAULT_STORAGE_MB = 64
"""An entry's private /tmp when its file limit is 0 (no limit)."""

_SYSTEM_DIRS = ("/usr", "/bin", "/sbin", "/lib", "/lib64", "/lib32", "/opt")
_ETC_FILES = ("/etc/ld.so.cache", "/etc/ld.so.conf", "/etc/ld.so.conf.d", "/etc/localtime",
              "/etc/passwd", "/etc/group", "/etc/nsswitch.conf", "/etc/alternatives",
              "/etc/hosts", "/etc/ssl", "/etc/ca-certificates", "/etc/mime.types")
_DEVICES = ("null", "zero", "full", "random", "urandom")


@dataclass(frozen=True, slots=True)
class Limits:
    """Limits of a sandboxed entry (0: no limit of that kind)."""

    memory_mb: int = 4096
    """Memory of the entry as a whole (a cgroup, where the league can make
    one) and address space of each of its processes (``RLIMIT_AS``).
    JavaScript engines reserve large address ranges: give Node.js bots 16384
    or 0."""
    cpu_seconds: int = 600
    """CPU time of the entry as a whole (a cgroup) and of each process
    (``RLIMIT_CPU``), a safety net behind the chess clock."""
    processes: int = 64
    """Processes and threads the entry may have at once, all together."""
    open_files: int = 256
    file_mb: int = 64
    """Largest file the entry may write (its standard error included), and the
    size of its private /tmp (its directory is on it); its /dev/shm holds a
    quarter of that."""

    def __post_init__(self) -> None:
        for name in ("memory_mb", "cpu_seconds", "processes", "open_files", "file_mb"):
            value = getattr(self, name)
            if type(value) is not int or value < 0:
                raise ValueError(f"sandbox limit {name} must be an integer >= 0")

    @property
    def storage_bytes(self) -> int:
        """Size of the private /tmp (its /dev/shm: a quarter of it)."""
        return (self.file_mb or DEFAULT_STORAGE_MB) << 20


@dataclass(frozen=True, slots=True)
class Isolation:
    """A sandbox mode and what it enforces on this machine (as :func:`probe`
    measured it; a mode not measured enforces nothing)."""

    tool: str | None
    """``"bubblewrap"``, ``"unshare"`` or None (resource limits only)."""
    root: bool
    """The league runs as root (each sandbox then gets a uid of its own)."""
    bwrap: str | None = None
    cgroups: tuple[tuple[str, str], ...] = ()
    """(kind, directory) of the cgroups sandboxes are made in: kinds
    ``memory``, ``pids``, ``cpu`` (root only)."""
    unprivileged: bool = False
    """No capability, no uid 0 of the host, no way to gain either."""
    readonly: bool = False
    """Writes outside its private /tmp and /dev/shm fail, remounts included."""
    network: bool = False
    """No host socket: no TCP/UDP, no abstract or path unix socket."""
    hidden_files: bool = False
    """The organiser's files (working tree, other directories) are not visible."""
    memory: bool = False
    """Memory bound for all its processes together."""
    cpu: bool = False
    """CPU time bound for all its processes together."""
    processes: str | None = None
    """How its process count is bound as a whole: ``"cgroup"``, ``"rlimit"`` or None."""
    storage: bool = False
    """What it can store on the host is bound in total."""
    killed: bool = False
    """Every process it starts dies with its game."""
    no_signal: bool = False
    """It cannot signal the league."""
    rlimits: bool = False
    """Each process has its rlimits (address space, CPU time, open files, file
    size, no core dumps)."""
    notes: tuple[str, ...] = field(default=())

    def lines(self) -> list[str]:
        """A plain statement of what is and is not enforced here."""
        def mark(ok: bool, how: str) -> str:
            return f"enforced ({how})" if ok else "NOT enforced"

        ns = "its own namespaces" if self.tool else ""
        out = [f"sandbox for cmd: entries: {self.tool or 'resource limits only'}"
               + (" (the league runs as root)" if self.root else "")]
        who = ("a uid of its own, no capabilities" if self.root
               else "your uid, no capabilities")
        out.append("  no root, no capabilities, no remount: " + mark(self.unprivileged, who))
        out.append("  no network (TCP, UDP, unix sockets): " + mark(self.network, ns))
        out.append("  no writes outside its private /tmp: "
                   + mark(self.readonly, "read-only binds"))
        out.append("  the organiser's files hidden: "
                   + mark(self.hidden_files, "only the interpreter, the packages and "
                          "the paths its command names are there"))
        out.append("  storage bound in total: "
                   + mark(self.storage, "size-capped /tmp and /dev/shm, file size limit"))
        out.append("  memory of all its processes: " + mark(self.memory, "cgroup"))
        out.append("  CPU time of all its processes: "
                   + mark(self.cpu, f"cgroup, checked every {CPU_POLL:g} s"))
        out.append("  each process's memory, CPU time, open files, file size, no core "
                   "dumps: " + mark(self.rlimits, "rlimits"))
        procs = {"cgroup": "cgroup pids.max", "rlimit": "RLIMIT_NPROC"}
        out.append("  process count of all its processes: "
                   + mark(self.processes is not None, procs.get(self.processes or "", "")))
        out.append("  every process killed with its game: "
                   + mark(self.killed, "PID namespace, also if the league is killed"
                          if self.tool else "cgroup and uid; not if the league is killed"))
        out.append("  cannot signal the league: "
                   + mark(self.no_signal, "PID namespace" if self.tool else "another uid"))
        out.extend(f"  note: {n}" for n in self.notes)
        return out

    @property
    def enforced(self) -> list[str]:
        """The names of the properties that hold (for tests and JSON)."""
        names = ("unprivileged", "readonly", "network", "hidden_files", "memory", "cpu",
                 "storage", "killed", "no_signal", "rlimits")
        return [n for n in names if getattr(self, n)] + (["processes"] if self.processes
                                                          else [])


# --- cgroups ---------------------------------------------------------------------------------

_CGROUP_FILES = {  # kind: (v1 controller, v1 file, v2 file)
    "memory": ("memory", "memory.limit_in_bytes", "memory.max"),
    "pids": ("pids", "pids.max", "pids.max"),
    "cpu": ("cpuacct", "cpuacct.usage", "cpu.stat"),
}


def _cgroup_bases() -> tuple[tuple[str, str], ...]:
    """For each kind, the league's own cgroup directory in which it can make a
    child that has the kind's file (v1 or v2); root only."""
    try:
        own = [line.split(":", 2) for line in
               Path("/proc/self/cgroup").read_text().strip().splitlines()]
        mounts = Path("/proc/self/mountinfo").read_text().splitlines()
    except OSError:
        return ()
    v1: dict[str, tuple[str, str]] = {}  # controller: (mount point, root in hierarchy)
    v2: tuple[str, str] | None = None
    for line in mounts:
        pre, _, post = line.partition(" - ")
        parts, rest = pre.split(), post.split()
        if len(parts) < 5 or len(rest) < 3:
            continue
        if rest[0] == "cgroup2" and v2 is None:
            v2 = (parts[4], parts[3])
        elif rest[0] == "cgroup":
            for opt in rest[2].split(","):
                v1.setdefault(opt, (parts[4], parts[3]))
    out: list[tuple[str, str]] = []
    for kind, (controller, file1, file2) in _CGROUP_FILES.items():
        candidates: list[tuple[Path, str]] = []
        for _, names, path in own:
            if controller in names.split(",") and controller in v1:
                mount, root = v1[controller]
                candidates.append((Path(mount) / os.path.relpath(path, root), file1))
            elif names == "" and v2 is not None:
                mount, root = v2
                candidates.append((Path(mount) / os.path.relpath(path, root), file2))
        for base, name in candidates:
            _remove_stale(base)
            trial = base / f"kaitaku-probe-{os.getpid()}"
            try:
                trial.mkdir()
            except OSError:
                continue
            ok = (trial / name).exists()
            with contextlib.suppress(OSError):
                trial.rmdir()
            if ok:
                out.append((kind, str(base.resolve())))
                break
    return tuple(out)


def _remove_stale(base: Path) -> None:
    """Remove the empty cgroups a league that was killed left behind (named
    after its process id, which is gone)."""
    with contextlib.suppress(OSError):
        for child in base.iterdir():
            parts = child.name.split("-")
            if len(parts) > 2 and parts[0] == "kaitaku" and parts[1].isdigit() \
                    and not Path(f"/proc/{parts[1]}").exists():
                with contextlib.suppress(OSError):
                    child.rmdir()  # fails if a process is still in it


def _cgroup_cpu_seconds(directory: Path) -> float | None:
    with contextlib.suppress(OSError, ValueError):
        if (directory / "cpuacct.usage").exists():
            return int((directory / "cpuacct.usage").read_text()) / 1e9
        for line in (directory / "cpu.stat").read_text().splitlines():
            if line.startswith("usage_usec "):
                return int(line.split()[1]) / 1e6
    return None


# --- what an entry may read ------------------------------------------------------------------


def _under(path: str, roots: Sequence[str]) -> bool:
    return any(path == r or path.startswith(r.rstrip("/") + "/") for r in roots)


@functools.cache
def _project_packages() -> tuple[str, ...]:
    """The directories of this project's top-level packages (with an editable
    install they are in the working tree: only they are made visible)."""
    dirs: set[str] = set()
    with contextlib.suppress(Exception):
        for name, dists in importlib.metadata.packages_distributions().items():
            if "kaitaku" in dists:
                spec = importlib.util.find_spec(name)
                for loc in (spec.submodule_search_locations or []) if spec else []:
                    dirs.add(os.path.realpath(loc))
    if not dirs:  # not installed: this package's own tree
        here = Path(__file__).resolve().parent.parent
        for name in ("protocol", "bots", "server", "client", "league", "kaitaku"):
            if (here / name / "__init__.py").is_file():
                dirs.add(str(here / name))
    return tuple(sorted(dirs))


def _readable_paths(argv: Sequence[str] = ()) -> list[str]:
    """What a sandboxed entry may read besides the system: the interpreter, its
    libraries, this project's packages (so ``{python} -m kaitaku bot`` works)
    and any program or script its command line names by an absolute path."""
    prefixes = {os.path.realpath(p) for p in (sys.prefix, sys.base_prefix, sys.exec_prefix)}
    paths = set(prefixes)
    paths.add(os.path.dirname(os.path.realpath(sys.executable)))
    for p in sys.path:  # library directories of this interpreter, not the working directory
        real = os.path.realpath(p) if p else ""
        if real and os.path.isdir(real) and any(real.startswith(q + os.sep) for q in prefixes):
            paths.add(real)
    paths.update(_project_packages())
    for a in argv:
        if os.path.isabs(a) and os.path.exists(a):
            paths.update((a, os.path.realpath(a)))
    out = sorted(p for p in paths if p != "/" and os.path.exists(p))
    # Keep only the outermost of nested paths.
    return [p for p in out if not any(p != q and p.startswith(q + os.sep) for q in out)]


def _binds(argv: Sequence[str]) -> list[str]:
    """Every host path bound read-only into a namespace sandbox, system first."""
    system = [d for d in _SYSTEM_DIRS if os.path.exists(d)]
    rest = [p for p in _readable_paths(argv) if not _under(p, system)]
    return system + [f for f in _ETC_FILES if os.path.exists(f)] + rest


def _ancestors(paths: Sequence[str]) -> list[str]:
    out: set[str] = set()
    for p in paths:
        parent = os.path.dirname(p)
        while parent not in ("/", ""):
            out.add(parent)
            parent = os.path.dirname(parent)
    return sorted(out, key=lambda p: (p.count("/"), p))


# --- inside the sandbox ----------------------------------------------------------------------

# The unshare mode's init (run as root, or as root of a user namespace): a new
# root on a tmpfs with the binds listed in $KEEP, a proc, a minimal /dev, a
# size-capped /tmp and /dev/shm; then pivot_root into it, drop the old root,
# and start the entry with no capabilities (as root: its own uid).
_UNSHARE_INIT = r"""
set -e
PATH="$PATH:/usr/sbin:/sbin"
R="$1"; TMPSZ="$2"; SHMSZ="$3"; DROP="$4"; shift 4
mount -t tmpfs -o mode=755,size=4m kaitaku-root "$R"
mkdir "$R/tmp"
mount -t tmpfs -o mode=1777,size="$TMPSZ" kaitaku-tmp "$R/tmp"
mkdir -m 777 "$R/tmp/work"
while IFS= read -r k; do
  [ -n "$k" ] || continue
  t="$R$k"
  if [ -d "$k" ]; then mkdir -p "$t"; else mkdir -p "$(dirname "$t")"; : > "$t"; fi
  mount --bind "$k" "$t"  # not recursive: a mount below it stays out of sight
  mount -o remount,bind,ro "$t"
done <<KEEP_END
$KEEP
KEEP_END
mkdir -p "$R/proc" "$R/dev" "$R/.old"
mount -t proc proc "$R/proc"
mount -t tmpfs -o mode=755,size=64k kaitaku-dev "$R/dev"
for d in null zero full random urandom; do
  : > "$R/dev/$d"; mount --bind "/dev/$d" "$R/dev/$d"
done
ln -s /proc/self/fd "$R/dev/fd"; ln -s /proc/self/fd/0 "$R/dev/stdin"
ln -s /proc/self/fd/1 "$R/dev/stdout"; ln -s /proc/self/fd/2 "$R/dev/stderr"
mkdir "$R/dev/shm"
mount -t tmpfs -o mode=1777,size="$SHMSZ" kaitaku-shm "$R/dev/shm"
mount -o remount,ro kaitaku-dev "$R/dev" 2>/dev/null || mount -o remount,ro "$R/dev"
mount -o remount,ro kaitaku-root "$R" 2>/dev/null || mount -o remount,ro "$R"
cd "$R"
pivot_root . .old
umount -l /.old
cd /tmp/work
if [ "$DROP" = - ]; then
  exec setpriv --no-new-privs --bounding-set=-all --inh-caps=-all -- "$@"
fi
exec setpriv --reuid="$DROP" --regid="$DROP" --clear-groups --no-new-privs \
  --bounding-set=-all --inh-caps=-all -- "$@"
"""

_PR_SET_PDEATHSIG = 1
_PR_CAPBSET_DROP = 24
_PR_SET_NO_NEW_PRIVS = 38


def _child_setup(limits: Limits, nproc: int | None, cgroups: Sequence[str],
                 uid: int | None) -> None:
    """In the child before exec: its own session, its cgroups, rlimits, no new
    privileges; as root (limits only) its own uid with no capabilities; a
    parent-death signal."""
    import ctypes
    import resource

    os.setsid()
    for cg in cgroups:
        with open(os.path.join(cg, "cgroup.procs"), "w") as f:
            f.write(str(os.getpid()))

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
    if not sys.platform.startswith("linux"):
        return  # no prctl: limits only (and probe() says so)
    libc = ctypes.CDLL(None, use_errno=True)
    if uid is not None:
        for c in range(64):
            libc.prctl(_PR_CAPBSET_DROP, c, 0, 0, 0)
        os.setgroups([])
        os.setresgid(uid, uid, uid)
        os.setresuid(uid, uid, uid)
    if libc.prctl(_PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0:
        raise OSError(ctypes.get_errno(), "PR_SET_NO_NEW_PRIVS")
    libc.prctl(_PR_SET_PDEATHSIG, signal.SIGKILL, 0, 0, 0)  # die with the league


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


def _kill_uid(uid: int) -> None:
    """Kill every process of ``uid`` at once: ``kill(-1)`` as that uid (the
    kernel signals them all under one lock, so none can fork away)."""
    pid = os.fork()
    if pid == 0:  # pragma: no cover - the child only makes system calls
        try:
            os.setgroups([])
            os.setresgid(uid, uid, uid)
            os.setresuid(uid, uid, uid)
            os.kill(-1, signal.SIGKILL)
        except BaseException:
            pass
        os._exit(0)
    os.waitpid(pid, 0)


_serial = itertools.count()


class Sandbox:
    """One sandboxed program: started with :meth:`start`, ended (with its whole
    process tree) by :meth:`stop`. ``base`` is where its host directory is
    made (a temporary directory by default)."""

    def __init__(self, limits: Limits | None = None, isolation: Isolation | None = None,
                 base: str | Path | None = None) -> None:
        self.limits = limits or Limits()
        self.isolation = isolation or probe()
        self.uid: int | None = None
        if self.isolation.root:
            self.uid = SANDBOX_UID_BASE + (((os.getpid() & 0x3FFFFF) << 8)
                                           | (next(_serial) & 0xFF))
        self.workdir = Path(tempfile.mkdtemp(prefix="kaitaku-bot-", dir=base))
        if self.uid is not None:
            os.chown(self.workdir, self.uid, self.uid)
        self.stderr_path = Path(tempfile.mkstemp(prefix="kaitaku-bot-", suffix=".err",
                                                 dir=base)[1])
        self.cgroups: list[tuple[str, Path]] = []
        self.proc: Any = None
        self.ended: str | None = None
        """Why the league ended the program (a limit it passed), if it did."""
        self._watch: Any = None

    # -- the command line -----------------------------------------------------------

    def wrap(self, argv: Sequence[str]) -> list[str]:
        """The full command line that runs ``argv`` in this sandbox."""
        iso = self.isolation
        inner = list(argv)
        tmp = self.limits.storage_bytes
        drop: list[str] = []
        if self.uid is not None:
            drop = ["setpriv", f"--reuid={self.uid}", f"--regid={self.uid}", "--clear-groups",
                    "--no-new-privs", "--bounding-set=-all", "--inh-caps=-all", "--"]
        if iso.tool == "bubblewrap":
            assert iso.bwrap is not None
            cmd = [iso.bwrap, "--die-with-parent", "--new-session", "--unshare-pid",
                   "--unshare-net", "--unshare-ipc", "--unshare-uts", "--unshare-cgroup-try"]
            if not iso.root:
                cmd += ["--unshare-user"]
            # /tmp first: what the command names under the organiser's /tmp is
            # bound onto the entry's own (empty) one.
            cmd += ["--perms", "1777", "--size", str(tmp), "--tmpfs", "/tmp",
                    "--perms", "0777", "--dir", SANDBOX_HOME]
            binds = _binds(inner)
            for d in ["/etc", *_ancestors([b for b in binds if not b.startswith("/etc/")])]:
                if d != "/tmp":
                    cmd += ["--perms", "0755", "--dir", d]
            for b in binds:
                cmd += ["--ro-bind", b, b]
            cmd += ["--proc", "/proc", "--dev", "/dev",
                    "--perms", "1777", "--size", str(tmp // 4), "--tmpfs", "/dev/shm",
                    "--remount-ro", "/dev", "--remount-ro", "/",
                    "--chdir", SANDBOX_HOME, "--setenv", "HOME", SANDBOX_HOME,
                    "--setenv", "TMPDIR", "/tmp", "--"]
            return cmd + drop + inner
        if iso.tool == "unshare":
            base = ["unshare", "--mount", "--net", "--pid", "--ipc", "--uts", "--fork",
                    "--kill-child"]
            if not iso.root:
                base[1:1] = ["--user", "--map-root-user"]
            return [*base, "--", "/bin/sh", "-c", _UNSHARE_INIT, "sh", str(self.workdir),
                    str(tmp), str(tmp // 4), str(self.uid) if self.uid is not None else "-",
                    *inner]
        return inner

    def _make_cgroups(self) -> list[str]:
        """This sandbox's cgroups (root only), with its limits written."""
        lim = self.limits
        made: list[str] = []
        for kind, base in self.isolation.cgroups:
            cg = Path(base) / f"kaitaku-{os.getpid()}-{self.workdir.name}"
            try:
                cg.mkdir(exist_ok=True)
                if kind == "memory" and lim.memory_mb:
                    name = "memory.max" if (cg / "memory.max").exists() \
                        else "memory.limit_in_bytes"
                    (cg / name).write_text(str(lim.memory_mb << 20))
                    with contextlib.suppress(OSError):  # v1 with swap accounting
                        (cg / "memory.memsw.limit_in_bytes").write_text(
                            str(lim.memory_mb << 20))
                    with contextlib.suppress(OSError):  # v2: no swap either
                        (cg / "memory.swap.max").write_text("0")
                elif kind == "pids" and lim.processes:
                    (cg / "pids.max").write_text(str(lim.processes))
            except OSError:
                with contextlib.suppress(OSError):
                    cg.rmdir()
                continue
            self.cgroups.append((kind, cg))
            if str(cg) not in made:
                made.append(str(cg))
        return made

    # -- life ----------------------------------------------------------------------

    async def start(self, argv: Sequence[str], connection: int,
                    env: dict[str, str] | None = None) -> Any:
        """Start ``argv`` with ``connection`` (a socket's file descriptor) as its
        standard input and output; its standard error goes to a file outside
        the sandbox (:meth:`stderr_tail`)."""
        import asyncio

        iso = self.isolation
        nproc: int | None = None
        if self.limits.processes:
            nproc = (self.limits.processes if self.uid is not None
                     else _own_process_count() + self.limits.processes)
        home = SANDBOX_HOME if iso.tool else str(self.workdir)
        clean_env = {"PATH": os.environ.get("PATH", "/usr/bin:/bin"), "LANG": "C.UTF-8",
                     "HOME": home, "TMPDIR": "/tmp" if iso.tool else str(self.workdir),
                     "PYTHONDONTWRITEBYTECODE": "1", **(env or {})}
        command = self.wrap(argv)
        if iso.tool == "unshare":
            clean_env["KEEP"] = "\n".join(_binds(argv))
        cgroups = self._make_cgroups()
        limits, uid = self.limits, (self.uid if iso.tool is None else None)
        with open(self.stderr_path, "wb") as err:
            self.proc = await asyncio.create_subprocess_exec(
                *command, stdin=connection, stdout=connection, stderr=err,
                cwd=str(self.workdir), env=clean_env,
                preexec_fn=lambda: _child_setup(limits, nproc, cgroups, uid))
        cpu = next((cg for kind, cg in self.cgroups if kind == "cpu"), None)
        if cpu is not None and self.limits.cpu_seconds:
            self._watch = asyncio.ensure_future(self._watch_cpu(cpu))
        return self.proc

    async def _watch_cpu(self, cg: Path) -> None:
        import asyncio

        while self.proc is not None and self.proc.returncode is None:
            used = _cgroup_cpu_seconds(cg)
            if used is not None and used > self.limits.cpu_seconds:
                self.ended = (f"the league ended it: {used:.1f} s of CPU time, over its "
                              f"limit of {self.limits.cpu_seconds} s")
                self._kill_all()
                return
            await asyncio.sleep(CPU_POLL)

    def stderr_tail(self, limit: int = 300) -> str:
        """The end of what it wrote to its standard error (raw: clean it before
        printing, :func:`league.text.clean`), after why the league ended it."""
        try:
            with open(self.stderr_path, "rb") as f:
                f.seek(0, os.SEEK_END)
                f.seek(max(0, f.tell() - 4 * limit))
                tail = f.read().decode(errors="replace").strip()[-limit:]
        except OSError:
            tail = ""
        ended = self.ended or self._oom_note()
        return f"{ended}; {tail}" if ended else tail

    def _oom_note(self) -> str | None:
        """Whether the memory cgroup's limit killed one of its processes."""
        for kind, cg in self.cgroups:
            if kind != "memory":
                continue
            for name in ("memory.events", "memory.oom_control"):
                with contextlib.suppress(OSError, ValueError):
                    for line in (cg / name).read_text().splitlines():
                        key, _, value = line.partition(" ")
                        if key == "oom_kill" and int(value) > 0:
                            return (f"the league's memory limit ({self.limits.memory_mb} MB "
                                    "for all its processes) killed a process of it")
        return None

    def _kill_all(self) -> None:
        """SIGKILL to everything it started: its process group, its cgroups'
        processes and (as root) every process of its uid."""
        proc = self.proc
        if proc is not None:
            with contextlib.suppress(ProcessLookupError, PermissionError):
                os.killpg(proc.pid, signal.SIGKILL)
        if self.uid is not None:
            _kill_uid(self.uid)
        for _, cg in self.cgroups:
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
                time.sleep(0.01)

    async def stop(self, grace: float = 1.0) -> None:
        """End the program and everything it started; remove its directory."""
        import asyncio

        if self._watch is not None:
            self._watch.cancel()
        proc = self.proc
        if proc is not None and proc.returncode is None:
            with contextlib.suppress(ProcessLookupError, PermissionError):
                os.killpg(proc.pid, signal.SIGTERM)
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(proc.wait(), grace)
        self._kill_all()
        if proc is not None:
            with contextlib.suppress(Exception):
                await asyncio.wait_for(proc.wait(), 5)
        for _, cg in self.cgroups:
            with contextlib.suppress(OSError):
                cg.rmdir()
        self.cgroups = []
        shutil.rmtree(self.workdir, ignore_errors=True)
        with contextlib.suppress(OSError):
            self.stderr_path.unlink()


# --- measuring what holds --------------------------------------------------------------------

# The probe program: attempts every escape in the sandbox and says (one JSON
# line on its standard output) what worked; then starts a daemon in a new
# session and waits until the league closes its connection. Standard library
# only; runs as the entry would.
_PROBE = r'''
import ctypes, json, os, select, signal, socket, sys, time
a = json.loads(sys.argv[1]); out = {}
libc = ctypes.CDLL(None, use_errno=True)
st = {}
for line in open("/proc/self/status"):
    k, _, v = line.partition(":")
    st[k] = v.split()
out["uid"] = [int(x) for x in st["Uid"]]
out["caps"] = [int(st[k][0], 16) for k in ("CapPrm", "CapEff", "CapAmb", "CapInh")]
out["bounding"] = int(st["CapBnd"][0], 16)
out["nnp"] = st.get("NoNewPrivs", ["0"])[0] == "1"
import resource
out["rlimits"] = {n: resource.getrlimit(getattr(resource, n))[1]
                  for n in ("RLIMIT_AS", "RLIMIT_CPU", "RLIMIT_NOFILE", "RLIMIT_FSIZE",
                            "RLIMIT_CORE")}
try:  # more than its memory in one process
    big = bytearray((a["mem"] + 32) << 20)
    out["big"] = True
    del big
except MemoryError:
    out["big"] = False
def attempt_writes(tag):
    wrote = []
    for d in a["ro"]:
        for how in ("mount", "bind", "tmpfs"):
            if how == "mount":
                libc.mount(None, d.encode(), None, ctypes.c_ulong(32 | 4096), None)
            elif how == "bind":
                libc.mount(None, d.encode(), None, ctypes.c_ulong(32), None)
            else:
                libc.mount(b"none", d.encode(), b"tmpfs", ctypes.c_ulong(0), None)
            try:
                with open(os.path.join(d, "w-%s-%s" % (tag, how)), "w") as f:
                    f.write("x")
                wrote.append(d)
            except OSError:
                pass
    return wrote
out["wrote"] = attempt_writes("plain")
r, w = os.pipe()
pid = os.fork()
if pid == 0:  # the same in a user and mount namespace of its own
    ok = libc.unshare(0x10000000 | 0x00020000) == 0
    os.write(w, json.dumps(attempt_writes("userns") if ok else []).encode())
    os._exit(0)
os.close(w); os.waitpid(pid, 0)
out["wrote"] += json.loads(os.read(r, 65536) or b"[]"); os.close(r)
out["sockets"] = []
for fam, addr in ((socket.AF_INET, ("127.0.0.1", a["port"])), (socket.AF_UNIX, a["abstract"]),
                  (socket.AF_UNIX, a["path"])):
    try:
        s = socket.socket(fam, socket.SOCK_STREAM); s.settimeout(2); s.connect(addr)
        out["sockets"].append(repr(addr)); s.close()
    except OSError:
        pass
out["seen"] = [p for p in a["hidden"] if os.path.lexists(p)]
try:
    os.kill(a["league"], 0); out["signal"] = True
except OSError:
    out["signal"] = False
kids = []
for _ in range(a["procs"] + 8):
    try:
        k = os.fork()
    except OSError:
        break
    if k == 0:
        signal.pause(); os._exit(0)
    kids.append(k)
out["forked"] = len(kids)
for k in kids:
    os.kill(k, signal.SIGKILL); os.waitpid(k, 0)
n, chunk, held = 3, a["mem"] * 9 // 20, []
r, w = os.pipe()
for _ in range(n):
    k = os.fork()
    if k == 0:
        try:
            block = b"m" * (chunk << 20); os.write(w, b"1")
        except MemoryError:
            os._exit(1)
        signal.pause(); os._exit(0)
    held.append(k)
os.close(w)
got, alive = 0, set(held)
while got + n - len(alive) < n:
    if select.select([r], [], [], 0.05)[0]:
        got += len(os.read(r, 16) or b"")
    for k in list(alive):
        if os.waitpid(k, os.WNOHANG)[0]:
            alive.discard(k)
out["memory_held"] = sum(1 for k in held if k in alive and os.waitpid(k, os.WNOHANG)[0] == 0)
for k in held:
    with __import__("contextlib").suppress(OSError):
        os.kill(k, signal.SIGKILL); os.waitpid(k, 0)
stored, mb = 0, b"s" * (1 << 20)
for d in a["store"]:
    for i in range(a["store_cap"]):
        if stored >= a["store_cap"]:
            break
        try:
            with open(os.path.join(d, "%s-%d" % (a["tag"], i)), "wb") as f:
                f.write(mb)
            stored += 1
        except OSError:
            break
out["stored_mb"] = stored
t = time.process_time()
while time.process_time() - t < 0.05:
    pass
r, w = os.pipe()
if os.fork() == 0:  # a daemon in a session of its own, its parent gone
    os.setsid()
    if os.fork() == 0:
        os.write(w, b"1")
        signal.pause()
    os._exit(0)
os.read(r, 1)
sys.stdout.write(json.dumps(out) + "\n"); sys.stdout.flush()
sys.stdin.read()
'''


def _processes_with(marker: str) -> list[int]:
    """Processes (seen from here) running a Python program whose command line
    holds ``marker``."""
    out = []
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            with open(f"/proc/{entry}/cmdline", "rb") as f:
                argv = f.read().split(b"\0")
        except OSError:
            continue
        if argv and os.path.basename(argv[0]).startswith(b"python") \
                and any(marker.encode() in a for a in argv):
            out.append(int(entry))
    return out


def _host_view(pid: int) -> tuple[list[int], int] | None:
    """(host uids, effective capabilities) of a process, as the host sees it."""
    try:
        status = Path(f"/proc/{pid}/status").read_text()
    except OSError:
        return None
    fields = dict(line.split(":", 1) for line in status.splitlines() if ":" in line)
    return [int(x) for x in fields["Uid"].split()], int(fields["CapEff"].split()[0], 16)


def _organiser_paths(named: Sequence[str] = (), limit: int = 20) -> list[str]:
    """Paths of the organiser's that a sandbox must not show: what is in the
    league's working directory and, with an editable install, the working
    tree around the project's packages (``.git``, databases, reports), except
    what the sandbox binds on purpose and its own layout."""
    binds = _binds(named)
    prefixes = [os.path.realpath(p) for p in (sys.prefix, sys.base_prefix)]
    places = [os.getcwd()]
    packages = _project_packages()
    if packages and not _under(packages[0], prefixes):
        places.append(os.path.dirname(packages[0]))
    out: list[str] = []
    for place in places:
        with contextlib.suppress(OSError):
            for name in sorted(os.listdir(place))[:limit]:
                p = os.path.join(place, name)
                if (_under(p, binds) or any(_under(b, [p]) for b in binds)
                        or _under(p, [SANDBOX_HOME, "/dev", "/proc"])
                        or p in out):
                    continue
                out.append(p)
    return out


def measure(iso: Isolation, limits: Limits | None = None,
            python: str = sys.executable) -> Isolation:
    """Run the probe program in a sandbox of mode ``iso`` and return ``iso``
    with what held (every property measured; nothing assumed). Raises
    OSError if the sandbox cannot start or the probe does not answer."""
    import asyncio

    probe_limits = limits or Limits(memory_mb=160, cpu_seconds=30, processes=12,
                                    open_files=64, file_mb=4)
    with tempfile.TemporaryDirectory(prefix="kaitaku-probe-") as tmp:
        shown = Path(tmp) / "shown"  # named on its command line: bound read-only
        hidden = Path(tmp) / "hidden"  # not named: must not be there
        os.chmod(tmp, 0o755)  # reachable by another uid: only the sandbox may stop it
        shown.mkdir(mode=0o777)
        hidden.mkdir(mode=0o777)
        os.chmod(shown, 0o777)
        os.chmod(hidden, 0o777)
        (hidden / "organiser.db").write_text("x")
        tag = f"kaitaku-probe-{os.getpid()}-{next(_serial)}"
        tcp = socket.create_server(("127.0.0.1", 0))
        abstract = socket.socket(socket.AF_UNIX)
        abstract.bind(b"\0" + tag.encode())
        path_sock = socket.socket(socket.AF_UNIX)
        path_sock.bind(str(hidden / "s"))
        os.chmod(hidden / "s", 0o777)
        for s in (tcp, abstract, path_sock):
            s.listen(8)
            s.setblocking(False)
        hide = [str(hidden / "organiser.db"), *_organiser_paths([str(shown)])]
        store = [".", "/tmp", "/dev/shm", "/dev"]
        args = {"ro": [str(shown)], "port": tcp.getsockname()[1], "abstract": "\0" + tag,
                "path": str(hidden / "s"), "hidden": hide, "league": os.getpid(),
                "procs": probe_limits.processes, "mem": probe_limits.memory_mb,
                "store": store, "store_cap": 3 * (probe_limits.storage_bytes >> 20),
                "tag": tag}
        argv = [python, "-I", "-c", _PROBE + f"\n# {tag}\n", json.dumps(args),
                str(shown)]

        async def run() -> tuple[dict[str, Any], list[tuple[list[int], int] | None], bool, bool]:
            ours, theirs = socket.socketpair()
            box = Sandbox(probe_limits, iso)
            try:
                try:
                    await box.start(argv, theirs.fileno())
                except OSError as exc:
                    who = f"uid {box.uid}" if box.uid is not None else "it"
                    raise OSError(f"{who} cannot start {argv[0]}: "
                                  f"{exc.strerror or exc}") from None
                theirs.close()
                reader, writer = await asyncio.open_connection(sock=ours)
                try:
                    line = await asyncio.wait_for(reader.readline(), PROBE_TIMEOUT)
                except TimeoutError:
                    line = b""
                if not line:
                    raise OSError(f"the {iso.tool or 'limits-only'} sandbox did not start: "
                                  + box.stderr_tail())
                found = json.loads(line)
                views = [_host_view(p) for p in _processes_with(tag)]
                cpu_cg = next((cg for kind, cg in box.cgroups if kind == "cpu"), None)
                cpu = cpu_cg is not None and (_cgroup_cpu_seconds(cpu_cg) or 0) > 0.01
                writer.close()
            finally:
                await box.stop(grace=0.2)
            deadline = time.monotonic() + 2
            while _processes_with(tag) and time.monotonic() < deadline:
                await asyncio.sleep(0.02)
            left = _processes_with(tag)
            for pid in left:  # a mode that does not kill them: the probe cleans up
                with contextlib.suppress(OSError):
                    os.kill(pid, signal.SIGKILL)
            return found, views, cpu, not left

        try:
            try:
                asyncio.get_running_loop()
            except RuntimeError:  # no loop running here: run one
                found, views, cpu, killed = asyncio.run(run())
            else:  # called from a coroutine (a game starting its first sandbox)
                from concurrent.futures import ThreadPoolExecutor

                with ThreadPoolExecutor(1) as pool:
                    found, views, cpu, killed = pool.submit(asyncio.run, run()).result()
        finally:
            for s in (tcp, abstract, path_sock):
                s.close()
            for d in ("/tmp", "/dev/shm", "/dev"):
                for name in os.listdir(d) if os.path.isdir(d) else []:
                    if name.startswith(tag):
                        with contextlib.suppress(OSError):
                            os.unlink(os.path.join(d, name))
        wrote = any(shown.iterdir())  # seen from the host: a private tmpfs is no escape
        host_ok = bool(views) and all(v is not None and 0 not in v[0] and v[1] == 0
                                      for v in views)
        inside_ok = not any(found["caps"]) and (found["nnp"] or found["bounding"] == 0)
        unprivileged = host_ok and inside_ok
        storage_cap = (probe_limits.storage_bytes * 5 // 4) >> 20
        want = {"RLIMIT_AS": probe_limits.memory_mb << 20,
                "RLIMIT_CPU": probe_limits.cpu_seconds, "RLIMIT_NOFILE": probe_limits.open_files,
                "RLIMIT_FSIZE": probe_limits.file_mb << 20, "RLIMIT_CORE": 0}
        rlimits = found["rlimits"] == want and not found["big"]
        return replace(
            iso, unprivileged=unprivileged, readonly=not wrote,
            network=not found["sockets"], hidden_files=not found["seen"],
            memory=found["memory_held"] < 3, cpu=cpu,
            processes=iso.processes if found["forked"] < probe_limits.processes else None,
            storage=found["stored_mb"] <= storage_cap, killed=killed,
            no_signal=not found["signal"], rlimits=rlimits)


def _candidates() -> list[Isolation]:
    """The modes this machine might offer, best first (not yet measured)."""
    root = os.geteuid() == 0
    cgroups = _cgroup_bases() if root else ()
    procs = "cgroup" if any(k == "pids" for k, _ in cgroups) else "rlimit"
    out: list[Isolation] = []
    bwrap = shutil.which("bwrap")
    setpriv = shutil.which("setpriv")
    if bwrap and (setpriv or not root):
        out.append(Isolation("bubblewrap", root, bwrap=bwrap, cgroups=cgroups,
                             processes=procs))
    if shutil.which("unshare") and setpriv and shutil.which("pivot_root", path=os.pathsep.join(
            [os.environ.get("PATH", ""), "/usr/sbin", "/sbin"])):
        out.append(Isolation("unshare", root, cgroups=cgroups, processes=procs))
    out.append(Isolation(None, root, cgroups=cgroups, processes=procs))
    return out


@functools.cache
def probe() -> Isolation:
    """The best mode this machine offers, with what it enforces measured (once
    per process) by a probe program that attempts every escape in it."""
    if not sys.platform.startswith("linux") or os.name != "posix":
        return Isolation(None, False, processes="rlimit" if os.name == "posix" else None,
                         notes=("namespaces need Linux; only resource limits apply",))
    failures: list[str] = []
    for cand in _candidates():
        try:
            iso = measure(cand)
        except (OSError, ValueError, KeyError, TimeoutError) as exc:
            failures.append(f"{cand.tool or 'limits only'}: {exc}"[:300])
            continue
        notes = list(iso.notes)
        if failures:
            notes.append("not usable here: " + "; ".join(failures))
        if iso.tool is None:
            notes.append("install bubblewrap for namespaces (network, files, processes)")
        if not iso.root and not (iso.memory and iso.cpu):
            notes.append("memory and CPU time of an entry as a whole need a cgroup, which "
                         "the league makes when it runs as root")
        return replace(iso, notes=tuple(notes))
    return Isolation(None, os.geteuid() == 0,
                     notes=("no sandbox could start: " + "; ".join(failures),))
