"""The optional extras (``pyproject.toml``, ``[project.optional-dependencies]``)
and the one way a command says it needs one.

A command that needs an extra calls :func:`require` before it starts
anything: when a module of the extra cannot be imported it prints, at once,
``kaitaku CMD: ... needs the 'X' extra (... is not installed): pip install
'kaitaku[X]'`` and the command exits with :data:`EXIT_MISSING` (non-zero).
"""

from __future__ import annotations

import importlib
import sys

EXTRAS: dict[str, tuple[str, ...]] = {
    "client": ("pygame",),
    "league": ("openskill",),
    "cluster": ("distributed",),
}
"""Extra -> the modules the commands that need it import (the distributions
of ``pyproject.toml``'s extra of the same name provide them)."""
EXIT_MISSING = 2
"""The exit status of a command whose extra is missing."""


def missing(extra: str) -> list[str]:
    """The modules of ``extra`` that cannot be imported here (none: it is installed)."""
    out = []
    for module in EXTRAS[extra]:
        try:
            importlib.import_module(module)
        except ImportError:
            out.append(module)
    return out


def message(command: str, extra: str, what: str, absent: list[str]) -> str:
    """The line a command prints when ``extra`` is missing."""
    verb = "is" if len(absent) == 1 else "are"
    return (f"kaitaku {command}: {what} needs the {extra!r} extra ({', '.join(absent)} "
            f"{verb} not installed): pip install 'kaitaku[{extra}]'")


def require(command: str, extra: str, what: str, hint: str = "") -> bool:
    """True when ``extra`` is installed; else print :func:`message` (and
    ``hint``, another way) to standard error and return False: the command
    then exits with :data:`EXIT_MISSING`."""
    absent = missing(extra)
    if not absent:
        return True
    print(message(command, extra, what, absent) + (f", {hint}" if hint else ""),
          file=sys.stderr)
    return False


__all__ = ["EXIT_MISSING", "EXTRAS", "message", "missing", "require"]
