"""Committed chance: every chance outcome of a game drawn from a secret that is
committed to before the game and revealed after it, so anyone can check it.

A committed game's chance is a pure function of its *secret* (64 bytes: the
*deal* key, then the *play* key, 32 bytes each) and the recorded actions. The
server sends ``commitment(secret, salt)`` when the game starts and reveals the
secret and the salt when no game that uses them can still be played; then
:func:`verify` recomputes every outcome from the secret and the actions, and
names the first step that does not follow. The derivation (``kaitaku-chance/1``,
documented for other languages in ``docs/PROTOCOL.md``):

* a *stream* ``(key, label)`` is the 64-bit big-endian words of the blocks
  ``HMAC-SHA256(key, label + "#" + j)`` for j = 0, 1, … (decimal, ASCII), four
  words a block; ``below(n)`` takes the next word ``w`` until
  ``w < 2**64 - 2**64 % n`` and returns ``w % n`` (exactly uniform); a shuffle
  is Fisher–Yates from the last index down (``j = below(i + 1)``);
* the *deal* (board and starting seat): the engine's ``new_game(settings, seed)``
  with ``seed`` the first word of stream ``(deal, "seed")`` shifted right by one;
* dice, roll ``r`` (0-based) of turn ``t``: ``x = below(36)`` of stream
  ``(play, "dice/t/r/a")``, the dice ``x // 6 + 1`` and ``x % 6 + 1``; ``a``
  (the attempt) is 0, and counts up while a two-player second roll repeats
  the first roll's sum (R-2P-3);
* balanced dice (:data:`BALANCED_DRAWS`): :func:`balanced_roll`;
* the development card bought when ``k`` cards have been bought before:
  ``below(cards left)`` of stream ``(play, "deck/k")``, counted through the
  deck's cards in kind order (knights, road building, year of plenty,
  monopoly, victory points);
* a steal, with ``r`` rolls made this turn and ``d`` 1 if a development card
  was played this turn (else 0): ``below(cards in the victim's hand)`` of stream
  ``(play, "steal/t/r/d")``, counted through the hand in resource order
  (lumber, brick, wool, grain, ore);
* a two-player forced trade of turn ``t``: each card in turn,
  ``below(cards left of the victim's)`` of stream ``(play, "forced/t")``,
  counted the same way.

Every outcome depends on the turn and the situation, never on how many
outcomes came before, so the same secret gives the same luck to whoever sits
in a seat: a duplicate set shares one secret among its rotations.

Chance reaches the engine through ``apply(..., chance=)`` (:class:`CommittedChance`
gives each action's outcome before it is applied), so the engine's own
generator stays what replays and uncommitted games use.
"""

from __future__ import annotations

import hashlib
import hmac
from dataclasses import dataclass, field
from typing import Any, TypeVar

from . import events as ev
from .actions import Action, BuyDevCard, MoveRobber, RollDice, Steal, TokenForcedTrade
from .board import Board
from .engine import apply, new_game
from .errors import RulesError
from .log import GameLog
from .state import GameState, Phase, Settings

T = TypeVar("T")

SCHEME = "kaitaku-chance/1"
"""The name of the derivation below (``reveal.scheme``)."""
SECRET_BYTES = 64
"""A game's secret: the deal key (32 bytes), then the play key (32 bytes)."""
SALT_BYTES = 16
BALANCED_DRAWS = 32
"""Balanced dice: how many cards of each shuffled deck of 36 are dealt before a
fresh deck is shuffled (the other 4 are never dealt, so the end of a deck
cannot be counted)."""
_COMMIT_PREFIX = b"kaitaku-chance/1\x00"
_MASK = (1 << 64) - 1


class Stream:
    """The uniform integers of one ``(key, label)`` (see the module's doc)."""

    __slots__ = ("_block", "_key", "_label", "_pos", "_words")

    def __init__(self, key: bytes, label: str) -> None:
        self._key = key
        self._label = label.encode("ascii") + b"#"
        self._block = 0
        self._words: tuple[int, ...] = ()
        self._pos = 4

    def word(self) -> int:
        if self._pos == 4:
            d = hmac.digest(self._key, self._label + str(self._block).encode("ascii"),
                            "sha256")
            self._block += 1
            self._words = tuple(int.from_bytes(d[i:i + 8], "big") for i in range(0, 32, 8))
            self._pos = 0
        w = self._words[self._pos]
        self._pos += 1
        return w

    def below(self, n: int) -> int:
        if n <= 0:
            raise ValueError("below() needs n > 0")
        limit = (1 << 64) - (1 << 64) % n
        while True:
            w = self.word()
            if w < limit:
                return w % n

    def shuffle(self, items: list[T]) -> None:
        for i in range(len(items) - 1, 0, -1):
            j = self.below(i + 1)
            items[i], items[j] = items[j], items[i]


def commitment(secret: bytes, salt: bytes) -> str:
    """``SHA-256("kaitaku-chance/1" NUL salt secret)`` in lower-case hex."""
    return hashlib.sha256(_COMMIT_PREFIX + salt + secret).hexdigest()


def deal_key(secret: bytes) -> bytes:
    return secret[:32]


def play_key(secret: bytes) -> bytes:
    return secret[32:]


def deal_seed(secret: bytes) -> int:
    """The engine seed of the deal (the board and the starting seat)."""
    return Stream(deal_key(secret), "seed").word() >> 1


def new_committed_game(settings: Settings, secret: bytes) -> GameState:
    """A new game whose board and starting seat come from ``secret``'s deal."""
    return new_game(settings, deal_seed(secret))


def _pick(counts: list[int], i: int) -> int:
    """The kind of the ``i``-th card of ``counts`` (kinds in order)."""
    r = 0
    while i >= counts[r]:
        i -= counts[r]
        r += 1
    return r


def ordinary_roll(play: bytes, turn: int, roll: int, first_sum: int) -> tuple[int, int]:
    """The dice of roll ``roll`` of ``turn``; ``first_sum`` (a two-player second
    roll; else 0) is a sum they may not have."""
    attempt = 0
    while True:
        x = Stream(play, f"dice/{turn}/{roll}/{attempt}").below(36)
        d = (x // 6 + 1, x % 6 + 1)
        if not first_sum or d[0] + d[1] != first_sum:
            return d
        attempt += 1


def _balanced_deck(play: bytes, block: int) -> list[int]:
    deck = list(range(36))
    Stream(play, f"balanced/{block}").shuffle(deck)
    return deck


def balanced_roll(play: bytes, rolls_per_turn: int, turn: int, roll: int,
                  cache: dict[int, list[int]] | None = None) -> tuple[int, int]:
    """Balanced dice: the ``k``-th roll of the game (``k = (turn - 1) *
    rolls_per_turn + roll``) is card ``k mod 32`` of deck ``k div 32``, a
    shuffle of the 36 outcomes ``x`` (dice ``x // 6 + 1``, ``x % 6 + 1``) by
    stream ``(play, "balanced/b")``; the last 4 cards are never dealt. A
    two-player second roll (odd ``k``) whose card repeats the first roll's sum
    is swapped with the first later card of the deck that does not (the
    ordinary second roll if none does). So within each deck every outcome
    comes at most once, and each single roll is still uniform."""
    k = (turn - 1) * rolls_per_turn + roll
    if k < 0:
        raise RulesError("no roll before the first turn", "invalid_log")
    block, pos = divmod(k, BALANCED_DRAWS)
    base = None if cache is None else cache.get(block)
    if base is None:
        base = _balanced_deck(play, block)
        if cache is not None:
            if len(cache) > 8:
                cache.clear()
            cache[block] = base
    deck = base[:]
    first_sum = 0
    out = (0, 0)
    for i in range(pos + 1):
        second = rolls_per_turn == 2 and i % 2 == 1
        if second:
            j = i
            while j < 36 and deck[j] // 6 + deck[j] % 6 + 2 == first_sum:
                j += 1
            if j == 36:  # every card left repeats the first sum
                t, r = divmod(k - pos + i, rolls_per_turn)
                out = ordinary_roll(play, t + 1, r, first_sum)
                continue
            deck[i], deck[j] = deck[j], deck[i]
        x = deck[i]
        out = (x // 6 + 1, x % 6 + 1)
        first_sum = out[0] + out[1]
    return out


def roll_outcome(play: bytes, settings: Settings, turn: int, roll: int, first_sum: int,
                 cache: dict[int, list[int]] | None = None) -> tuple[int, int]:
    """The dice of roll ``roll`` (0-based) of ``turn`` under ``settings``."""
    if settings.balanced_dice:
        return balanced_roll(play, settings.rolls_per_turn, turn, roll, cache)
    return ordinary_roll(play, turn, roll, first_sum)


_CHANCY = (RollDice, BuyDevCard, MoveRobber, Steal, TokenForcedTrade)


class CommittedChance:
    """The chance of a committed game: call it with ``(state, seat, action)``
    before applying each action and pass what it returns as ``apply``'s
    ``chance``. It keeps no state of the game (only a cache): a game taken
    back or restored goes on the same way."""

    def __init__(self, secret: bytes, settings: Settings) -> None:
        if len(secret) != SECRET_BYTES:
            raise ValueError(f"a secret is {SECRET_BYTES} bytes")
        self.play = play_key(secret)
        self.settings = settings
        self._decks: dict[int, list[int]] = {}

    def __call__(self, s: GameState, seat: int, action: Action) -> tuple[int, ...] | None:
        return self.outcome(s, seat, action)

    def outcome(self, s: GameState, seat: int, action: Action) -> tuple[int, ...] | None:
        """The outcome ``action`` by ``seat`` draws in ``s`` (None: no chance,
        or an illegal action, which the real ``apply`` reports)."""
        if not isinstance(action, _CHANCY):
            return None
        if isinstance(action, RollDice):
            if s.phase != Phase.PRE_ROLL or seat != s.current:  # apply refuses it
                return None
            return roll_outcome(self.play, s.settings, s.turn, s.rolls_done, s.first_sum,
                                self._decks)
        if isinstance(action, BuyDevCard):
            deck = s.dev_deck
            left = sum(deck)
            if not left:
                return None
            k = sum(s.settings.dev_deck) - left  # cards bought before this one
            return (_pick(deck, Stream(self.play, f"deck/{k}").below(left)),)
        trial = s.copy()
        try:
            events = apply(trial, action, seat)
        except RulesError:
            return None
        for e in events:
            if isinstance(e, ev.Stolen):
                hand = s.hands[e.victim]
                if not e.count:
                    return (-1,)
                label = f"steal/{s.turn}/{s.rolls_done}/{int(s.dev_played)}"
                return (_pick(hand, Stream(self.play, label).below(sum(hand))),)
            if isinstance(e, ev.ForcedTradeDrawn):
                pool = s.hands[e.victim][:]
                stream = Stream(self.play, f"forced/{s.turn}")
                drawn = []
                for _ in range(e.count):
                    r = _pick(pool, stream.below(sum(pool)))
                    pool[r] -= 1
                    drawn.append(r)
                return tuple(drawn)
        return None



# --- secrets, reveals and verification ------------------------------------------------


def _hex(d: dict[str, Any], key: str, size: int) -> bytes:
    v = d.get(key)
    if not isinstance(v, str) or len(v) != 2 * size:
        raise ValueError(f"{key}: {2 * size} hex digits")
    try:
        return bytes.fromhex(v)
    except ValueError:
        raise ValueError(f"{key}: {2 * size} hex digits") from None


@dataclass(frozen=True, slots=True)
class Reveal:
    """A committed game's chance once revealed: its secret and salt, and the
    commitment they were announced with."""

    secret: bytes
    salt: bytes
    commitment: str
    scheme: str = SCHEME

    @classmethod
    def new(cls, secret: bytes, salt: bytes) -> Reveal:
        return cls(secret, salt, commitment(secret, salt))

    def to_dict(self) -> dict[str, str]:
        return {"scheme": self.scheme, "commitment": self.commitment,
                "salt": self.salt.hex(), "secret": self.secret.hex()}

    def announced(self) -> dict[str, str]:
        """What may be known before the reveal: the scheme and the commitment."""
        return {"scheme": self.scheme, "commitment": self.commitment}

    @classmethod
    def from_dict(cls, d: Any) -> Reveal:
        """A revealed secret from its plain form (hex strings), every field
        checked; raises :class:`ValueError`. The commitment is the one given,
        not recomputed: :func:`verify` compares them."""
        if not isinstance(d, dict):
            raise ValueError("a reveal is a map")
        scheme = d.get("scheme", SCHEME)
        if scheme != SCHEME:
            raise ValueError(f"unknown chance scheme {str(scheme)[:40]!r}")
        c = d.get("commitment")
        if not isinstance(c, str) or len(c) != 64 or not _is_hex(c):
            raise ValueError("commitment: 64 hex digits")
        return cls(_hex(d, "secret", SECRET_BYTES), _hex(d, "salt", SALT_BYTES), c.lower())

    def matches(self) -> bool:
        """Whether the secret and salt give the commitment."""
        return hmac.compare_digest(commitment(self.secret, self.salt), self.commitment)


def _is_hex(text: str) -> bool:
    return all(c in "0123456789abcdefABCDEF" for c in text)


@dataclass
class Verdict:
    """What :func:`verify` found. ``ok``: every outcome follows; else ``step``
    is the first that does not (-1: the commitment or the deal) and
    ``message`` says why. ``checked`` counts the outcomes recomputed by kind
    (``dice``, ``cards``, ``steals``, ``forced``)."""

    ok: bool
    message: str
    step: int | None = None
    checked: dict[str, int] = field(default_factory=dict)

    def summary(self) -> str:
        if not self.ok:
            where = "" if self.step is None or self.step < 0 else f"step {self.step}: "
            return f"NOT fair: {where}{self.message}"
        c = self.checked
        return (f"fair: the commitment matches; the board, the starting seat, "
                f"{c.get('dice', 0)} rolls, {c.get('cards', 0)} development cards, "
                f"{c.get('steals', 0)} steals and {c.get('forced', 0)} forced-trade draws "
                f"follow from the secret")


def _show(outcome: Any, action: Action) -> str:
    if outcome is None:
        return "no chance"
    if isinstance(action, RollDice) and len(outcome) == 2:
        return f"{outcome[0]}+{outcome[1]}"
    return "[" + ", ".join(str(x) for x in outcome) + "]"


_KIND = {RollDice: "dice", BuyDevCard: "cards", TokenForcedTrade: "forced",
         MoveRobber: "steals", Steal: "steals"}


def verify(log: GameLog, reveal: Reveal | None = None,
           announced: str | None = None) -> Verdict:
    """Check a committed game's record against its revealed secret (``reveal``,
    else the log's own ``chance``): the commitment (and ``announced``, the one a
    client was sent at the start, when given), the deal, then every step's
    outcome recomputed from the secret and the actions before it."""
    if reveal is None:
        if log.chance is None:
            return Verdict(False, "the game was not played with committed chance", -1)
        if "secret" not in log.chance:
            return Verdict(False, "the secret has not been revealed yet", -1)
        try:
            reveal = Reveal.from_dict(log.chance)
        except ValueError as exc:
            return Verdict(False, f"the reveal is malformed: {exc}", -1)
    if not reveal.matches():
        return Verdict(False, "the revealed secret and salt do not give the commitment "
                       f"{reveal.commitment}", -1)
    if log.chance is not None and log.chance.get("commitment", reveal.commitment) \
            != reveal.commitment:
        return Verdict(False, "the record's commitment is not the revealed one", -1)
    if announced is not None and announced.lower() != reveal.commitment:
        return Verdict(False, f"the commitment sent at the start ({announced[:64]}) is not "
                       f"the revealed one ({reveal.commitment})", -1)
    s = new_committed_game(log.settings, reveal.secret)
    if log.seed != s.seed:
        return Verdict(False, f"the record's seed {log.seed} is not the deal's {s.seed}", -1)
    if log.board != s.board:
        return Verdict(False, "the board is not the one the secret deals", -1)
    if log.first_seat != s.first_seat:
        return Verdict(False, f"the record's starting seat {log.first_seat} is not the "
                       f"secret's {s.first_seat}", -1)
    chance = CommittedChance(reveal.secret, log.settings)
    checked = {"dice": 0, "cards": 0, "steals": 0, "forced": 0}
    for i, (seat, action, recorded) in enumerate(log.steps):
        what = f"{action.name} by seat {seat}, turn {s.turn}"
        try:
            expected = chance(s, seat, action)
            apply(s, action, seat, expected)
        except RulesError as exc:
            return Verdict(False, f"({what}) does not replay: {exc}", i, checked)
        got = s.log[-1][2] if s.log else expected
        rec = None if recorded is None else tuple(recorded)
        if rec != (None if got is None else tuple(got)):
            return Verdict(False, f"({what}) the record says {_show(rec, action)}, the secret "
                           f"gives {_show(got, action)}", i, checked)
        if got is not None and got != (-1,):
            kind = _KIND.get(type(action))
            if kind is not None:
                checked[kind] += 1
    return Verdict(True, "every outcome follows from the secret", None, checked)


def check_seen(reveal: Reveal, announced: str | None, settings: Settings,
               board: Board | None, first_seat: int | None,
               rolls: list[tuple[int, int, tuple[int, int]]]) -> Verdict:
    """What a seat can check on its own: the commitment it was sent at the
    start (``announced``), the board and the starting seat it saw (None: not
    seen) and every roll it saw, ``(turn, roll of the turn, dice)``."""
    if not reveal.matches():
        return Verdict(False, "the revealed secret does not match its commitment", -1)
    if announced is None:
        return Verdict(False, "no commitment was received at the start of the game", -1)
    if announced.lower() != reveal.commitment:
        return Verdict(False, "the revealed secret does not match the commitment sent at "
                       "the start of the game", -1)
    s = new_committed_game(settings, reveal.secret)
    if board is not None and board != s.board:
        return Verdict(False, "the board was not dealt from the secret", -1)
    if first_seat is not None and first_seat != s.first_seat:
        return Verdict(False, "the starting seat was not drawn from the secret", -1)
    play = play_key(reveal.secret)
    cache: dict[int, list[int]] = {}
    first: dict[int, int] = {}
    for i, (turn, roll, dice) in enumerate(rolls):
        first_sum = first.get(turn, 0) if roll else 0
        want = roll_outcome(play, settings, turn, roll, first_sum, cache)
        if tuple(dice) != want:
            return Verdict(False, f"turn {turn}, roll {roll + 1}: {dice[0]}+{dice[1]} was "
                           f"rolled, the secret gives {want[0]}+{want[1]}", i,
                           {"dice": i})
        if roll == 0:
            first[turn] = dice[0] + dice[1]
    return Verdict(True, "every roll follows from the secret", None, {"dice": len(rolls)})


def rolls_seen(events: list[ev.Event]) -> list[tuple[int, int, tuple[int, int]]]:
    """The rolls among a game's events, from its start, as :func:`check_seen`
    takes them: ``(turn, roll of the turn, dice)``."""
    out: list[tuple[int, int, tuple[int, int]]] = []
    turn, roll = 0, 0
    for e in events:
        if isinstance(e, ev.TurnStarted):
            turn, roll = e.turn, 0
        elif isinstance(e, ev.DiceRolled):
            out.append((turn, roll, (e.dice[0], e.dice[1])))
            roll += 1
    return out
