"""One exception family for everything the rules engine refuses.

Every refusal leaves the game state exactly as it was. ``code`` is a stable,
machine-readable reason (the wire protocol forwards it); the message is for
humans.
"""

from __future__ import annotations


class RulesError(Exception):
    """Base class of every error raised by :mod:`protocol.rules`."""

    code = "rules_error"

    def __init__(self, message: str, code: str | None = None) -> None:
        super().__init__(message)
        if code is not None:
            self.code = code


class IllegalAction(RulesError):
    """A well-formed action that the rules do not allow now."""

    code = "illegal_action"


class NotYourTurn(IllegalAction):
    """The seat has no decision to make now."""

    code = "not_your_turn"


class MalformedAction(RulesError):
    """Data that does not describe any action (wrong type, field or value range)."""

    code = "malformed_action"


class InvalidLog(RulesError):
    """A game log that does not replay (bad header, bad outcome, illegal step)."""

    code = "invalid_log"
