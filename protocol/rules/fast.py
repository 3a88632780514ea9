"""The engine's fast path for simulation (search bots' rollouts).

:func:`step` changes a state exactly as :func:`protocol.rules.apply` does —
the same position, the same log entry, the same draws from the game's RNG, the
same recorded outcomes accepted through ``chance`` — but builds no events and
skips the legality checks: it is for actions the caller knows to be legal
(one of :func:`protocol.rules.legal_actions`). Both paths run the same effect
functions of :mod:`protocol.rules.engine`; ``apply`` runs each action's check
first. Domestic trade offers, answers and proposals (which ``legal_actions``
does not list, or lists only in part) keep their checks on this path too: an
illegal one raises :class:`~protocol.rules.errors.RulesError` and changes
nothing.

:func:`forced` gives the only action a seat can take when that needs no list
(rolling with no development card to play), so a rollout
can skip :func:`~protocol.rules.legal_actions` there. Copies are
:meth:`GameState.copy`, which shares the board tables and drops the log.
"""

from __future__ import annotations

from .actions import Action
from .engine import _HANDLERS, _ROLL, _RULES, PRE_ROLL, check_win
from .state import GameState

Outcome = tuple[int, ...] | None


def step(s: GameState, action: Action, seat: int, chance: Outcome = None) -> Outcome:
    """Apply the legal ``action`` of ``seat`` to ``s`` without events or checks;
    return the chance outcome (what the log records for it)."""
    rule = _RULES.get(type(action))
    if rule is not None:
        outcome = rule[1](s, seat, action, chance, None)
    else:  # a domestic trade action: it checks itself and leaves ``s`` alone if illegal
        outcome = _HANDLERS[type(action)](s, seat, action, chance, [])
    if s.log is not None:
        s.log.append((seat, action, outcome))
    check_win(s, None)
    return outcome


def forced(s: GameState, seat: int) -> Action | None:
    """The one legal action of ``seat`` when it is known without listing them
    all (the roll, with no development card to play); None otherwise.

    Whenever it returns an action, ``legal_actions(s, seat)`` is exactly
    ``[that action]``.
    """
    if seat == s.current and s.phase == PRE_ROLL and (
            s.dev_played or not any(s.dev_hand[seat])):
        return _ROLL
    return None


__all__ = ["forced", "step"]
