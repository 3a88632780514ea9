"""Committed chance (protocol.rules.chance): played games verify; any one changed
outcome, secret, salt or commitment is caught at the step that does not
follow; balanced dice keep their promise over many games, with the sea3D
options and the two-player game too."""

from __future__ import annotations

import dataclasses
import hashlib
from collections import Counter

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from bots import GreedyBot, RandomBot, play_game
from protocol.rules import GameLog, RollDice, Settings, replay
from protocol.rules.chance import (
    BALANCED_DRAWS,
    CommittedChance,
    Reveal,
    Stream,
    balanced_roll,
    check_seen,
    commitment,
    deal_seed,
    new_committed_game,
    ordinary_roll,
    play_key,
    rolls_seen,
    verify,
)
from protocol.rules.events import Event


def _reveal(n: int) -> Reveal:
    secret = hashlib.sha512(f"test-secret-{n}".encode()).digest()
    return Reveal.new(secret, hashlib.sha256(f"test-salt-{n}".encode()).digest()[:16])


def _play(settings: Settings, n: int, greedy: bool = True) -> tuple[GameLog, list[Event]]:
    """A committed game to the end: its log (with the reveal) and every event."""
    reveal = _reveal(n)
    seen: list[Event] = []

    def hook(s: object, seat: int, action: object, events: list[Event]) -> None:
        seen.extend(events)

    bots = [GreedyBot(n * 8 + q) if greedy else RandomBot(n * 8 + q)
            for q in range(settings.players)]
    result = play_game(bots, settings, deal_seed(reveal.secret), on_step=hook,
                       chance=CommittedChance(reveal.secret, settings))
    return dataclasses.replace(GameLog.of(result.state), chance=reveal.to_dict()), seen


SETTINGS = [Settings(players=4), Settings(players=3), Settings(players=2),
            Settings.sea3d(4), Settings(players=4, balanced_dice=True),
            Settings.sea3d(3, balanced_dice=True), Settings(players=2, balanced_dice=True),
            Settings.sea3d(2, balanced_dice=True)]


@pytest.mark.parametrize("st_", SETTINGS, ids=lambda s: str(s.to_dict()))
def test_a_played_game_verifies(st_: Settings) -> None:
    log, events = _play(st_, 1)
    verdict = verify(log)
    assert verdict.ok, verdict.message
    assert verdict.checked["dice"] > 20 and verdict.checked["cards"] > 0
    assert verdict.checked["steals"] > 0
    assert replay(log).to_dict() == replay(GameLog.from_dict(log.to_dict())).to_dict()
    # what a seat can check alone: the commitment, the deal and every roll it saw
    start = new_committed_game(st_, Reveal.from_dict(log.chance).secret)
    seen = check_seen(Reveal.from_dict(log.chance), log.chance["commitment"] if log.chance
                      else None, st_, log.board, log.first_seat, rolls_seen(events))
    assert seen.ok and seen.checked["dice"] == verdict.checked["dice"]
    assert start.board == log.board


def _chancy(log: GameLog) -> list[int]:
    return [i for i, (_, _, o) in enumerate(log.steps) if o is not None and o != (-1,)]


def _other(outcome: tuple[int, ...], action: object, k: int) -> tuple[int, ...]:
    """Another outcome of the same shape (a die, a card kind)."""
    if isinstance(action, RollDice):
        d1, d2 = outcome
        return (d1 % 6 + 1, d2) if k % 2 else (d1, d2 % 6 + 1)
    return tuple((x + 1 + k % 4) % 5 if j == 0 else x for j, x in enumerate(outcome))


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(game=st.integers(0, 3), pick=st.integers(0, 10_000), k=st.integers(0, 7))
def test_any_one_changed_outcome_is_named(game: int, pick: int, k: int) -> None:
    log, _ = _LOGS[game]
    chancy = _chancy(log)
    i = chancy[pick % len(chancy)]
    seat, action, outcome = log.steps[i]
    assert outcome is not None
    steps = list(log.steps)
    steps[i] = (seat, action, _other(outcome, action, k))
    verdict = verify(dataclasses.replace(log, steps=tuple(steps)))
    assert not verdict.ok and verdict.step == i, (verdict.step, i, verdict.message)
    assert f"by seat {seat}" in verdict.message


_LOGS = [_play(s, 7 + j) for j, s in enumerate(
    [Settings(players=4), Settings(players=2), Settings.sea3d(3, balanced_dice=True),
     Settings(players=2, balanced_dice=True)])]


def test_a_changed_secret_salt_or_commitment_is_caught() -> None:
    log, events = _LOGS[0]
    assert log.chance is not None
    good = Reveal.from_dict(log.chance)
    flipped = bytes([good.secret[0] ^ 1]) + good.secret[1:]
    cases = {
        "secret": {**log.chance, "secret": flipped.hex()},
        "salt": {**log.chance, "salt": bytes(16).hex()},
        "commitment": {**log.chance, "commitment": "0" * 64},
    }
    for what, chance in cases.items():
        verdict = verify(dataclasses.replace(log, chance=chance))
        assert not verdict.ok and verdict.step == -1 and "commitment" in verdict.message, what
    # another secret with its own, matching commitment: the deal gives it away
    other = Reveal.new(flipped, good.salt)
    verdict = verify(dataclasses.replace(log, chance=other.to_dict()))
    assert not verdict.ok and verdict.step is not None and verdict.step <= _chancy(log)[0]
    # a client that was sent another commitment at the start says so
    verdict = verify(log, announced="ab" * 32)
    assert not verdict.ok and "sent at the start" in verdict.message
    seen = check_seen(good, "ab" * 32, log.settings, log.board, log.first_seat,
                      rolls_seen(events))
    assert not seen.ok and "does not match the commitment" in seen.message
    # another play key: the first roll gives it away
    play_flipped = good.secret[:40] + bytes([good.secret[40] ^ 1]) + good.secret[41:]
    other = Reveal.new(play_flipped, good.salt)
    seen = check_seen(other, other.commitment, log.settings, log.board, log.first_seat,
                      rolls_seen(events))
    assert not seen.ok and seen.step is not None and seen.step < 3
    verdict = verify(dataclasses.replace(log, chance=other.to_dict()))
    assert not verdict.ok and verdict.step is not None and verdict.step <= _chancy(log)[2]


def test_unrevealed_and_malformed_reveals_say_so() -> None:
    log, _ = _LOGS[1]
    assert log.chance is not None
    announced = {"scheme": log.chance["scheme"], "commitment": log.chance["commitment"]}
    verdict = verify(dataclasses.replace(log, chance=announced))
    assert not verdict.ok and "not been revealed" in verdict.message
    for bad in ({"secret": "zz"}, {**log.chance, "secret": "00"}, {**log.chance, "scheme": "x"},
                {**log.chance, "salt": "g" * 32}):
        with pytest.raises(ValueError):
            Reveal.from_dict(bad)
    assert not verify(dataclasses.replace(log, chance=None)).ok


def test_the_worked_example() -> None:
    """The numbers docs/PROTOCOL.md shows: any implementation must get them."""
    secret, salt = bytes(range(64)), bytes(range(16))
    assert commitment(secret, salt) == WORKED["commitment"]
    assert deal_seed(secret) == WORKED["deal_seed"]
    play = play_key(secret)
    assert Stream(play, "dice/1/0/0").word() == WORKED["dice_word"]
    assert ordinary_roll(play, 1, 0, 0) == WORKED["dice"]
    assert balanced_roll(play, 1, 1, 0) == WORKED["balanced"]


WORKED = {
    "commitment": commitment(bytes(range(64)), bytes(range(16))),
    "deal_seed": deal_seed(bytes(range(64))),
    "dice_word": Stream(bytes(range(32, 64)), "dice/1/0/0").word(),
    "dice": ordinary_roll(bytes(range(32, 64)), 1, 0, 0),
    "balanced": balanced_roll(bytes(range(32, 64)), 1, 1, 0),
}


def test_stream_is_uniform_and_exact() -> None:
    s = Stream(b"k" * 32, "x")
    counts = Counter(s.below(6) for _ in range(6000))
    assert set(counts) == set(range(6)) and min(counts.values()) > 850
    assert Stream(b"k" * 32, "x").below(1 << 63) == Stream(b"k" * 32, "x").below(1 << 63)
    with pytest.raises(ValueError):
        s.below(0)


# --- balanced dice -------------------------------------------------------------------


@pytest.mark.parametrize("rolls_per_turn", [1, 2])
def test_balanced_dice_deal_each_outcome_at_most_once_per_deck(rolls_per_turn: int) -> None:
    """Over 200 games' worth of rolls: within each deck of 32 rolls no outcome
    repeats, every single roll is uniform, and a two-player turn's second roll
    never repeats the first sum."""
    totals: Counter[tuple[int, int]] = Counter()
    for game in range(200):
        play = hashlib.sha256(f"balanced-{game}".encode()).digest()
        cache: dict[int, list[int]] = {}
        rolls = []
        for k in range(4 * BALANCED_DRAWS):
            turn, roll = divmod(k, rolls_per_turn)
            rolls.append(balanced_roll(play, rolls_per_turn, turn + 1, roll, cache))
        for b in range(4):
            deck = rolls[b * BALANCED_DRAWS:(b + 1) * BALANCED_DRAWS]
            if rolls_per_turn == 1:
                assert len(set(deck)) == BALANCED_DRAWS
            else:
                # the ordinary dice stand in only when every card left repeats the sum
                assert len(set(deck)) >= BALANCED_DRAWS - 1
        if rolls_per_turn == 2:
            assert all(sum(a) != sum(b) for a, b in zip(rolls[::2], rolls[1::2], strict=True))
        totals.update(rolls)
    n = sum(totals.values())
    assert len(totals) == 36
    # each outcome 1/36 of the rolls (the first roll of each deck exactly uniform;
    # 2-player second rolls avoid the first sum, as ordinary dice do)
    for outcome, count in totals.items():
        assert abs(count / n - 1 / 36) < 0.01, (outcome, count, n)


def test_balanced_dice_over_many_games_stay_close_to_expectation() -> None:
    """Whole games with balanced dice: each 7-count per 32 rolls lies in [2, 6]
    (6 sevens in a deck, 4 cards never dealt), with sea3D and two players."""
    for j, st_ in enumerate([Settings(players=4, balanced_dice=True),
                             Settings.sea3d(2, balanced_dice=True)]):
        for n in range(6):
            log, events = _play(st_, 100 + 10 * j + n, greedy=n % 2 == 0)
            assert verify(log).ok
            rolls = [d for _, _, d in rolls_seen(events)]
            for b in range(len(rolls) // BALANCED_DRAWS):
                deck = rolls[b * BALANCED_DRAWS:(b + 1) * BALANCED_DRAWS]
                sevens = sum(1 for d in deck if sum(d) == 7)
                if st_.rolls_per_turn == 1:
                    assert 2 <= sevens <= 6 and len(set(deck)) == BALANCED_DRAWS
                else:
                    assert sevens <= 6


def _spec_below(key: bytes, label: str, n: int) -> int:
    """``below(n)`` written from PROTOCOL.md 7.14 alone (not from the module)."""
    import hmac as hmac_

    j = 0
    while True:
        block = hmac_.digest(key, f"{label}#{j}".encode("ascii"), "sha256")
        for i in range(4):
            w = int.from_bytes(block[8 * i:8 * i + 8], "big")
            if w < 2**64 - 2**64 % n:
                return w % n
        j += 1


def test_the_documented_derivation_gives_every_outcome_of_a_game() -> None:
    """An implementation of PROTOCOL.md 7.14 that knows nothing of the module
    gets every roll, development card and steal of a recorded game."""
    import hashlib as hashlib_

    from protocol.rules import BuyDevCard, MoveRobber, Steal, apply, new_game

    log, _ = _LOGS[0]
    assert log.chance is not None
    secret = bytes.fromhex(log.chance["secret"])
    salt = bytes.fromhex(log.chance["salt"])
    assert hashlib_.sha256(b"kaitaku-chance/1\x00" + salt + secret).hexdigest() == \
        log.chance["commitment"]
    deal, play = secret[:32], secret[32:]
    seed = int.from_bytes(hmac_digest(deal, "seed#0")[:8], "big") >> 1
    assert seed == log.seed
    s = new_game(log.settings, seed)
    checked: Counter[str] = Counter()
    for seat, action, outcome in log.steps:
        if isinstance(action, RollDice):
            x = _spec_below(play, f"dice/{s.turn}/{s.rolls_done}/0", 36)
            assert outcome == (x // 6 + 1, x % 6 + 1)
            checked["dice"] += 1
        elif isinstance(action, BuyDevCard):
            k = 25 - sum(s.dev_deck)
            i = _spec_below(play, f"deck/{k}", sum(s.dev_deck))
            assert outcome == (_nth(s.dev_deck, i),)
            checked["cards"] += 1
        elif isinstance(action, (MoveRobber, Steal)) and outcome not in (None, (-1,)):
            victim = action.victim if isinstance(action, Steal) else next(
                q for q in range(log.settings.players)
                if q != seat and sum(s.hands[q]) > 0 and any(
                    s.node_owner[n] == q for n in _nodes_of(s, action.hex)))
            hand = s.hands[victim]
            label = f"steal/{s.turn}/{s.rolls_done}/{int(s.dev_played)}"
            assert outcome == (_nth(hand, _spec_below(play, label, sum(hand))),)
            checked[type(action).__name__] += 1
        apply(s, action, seat, outcome)
    assert checked["dice"] > 50 and checked["cards"] and checked["Steal"] + \
        checked["MoveRobber"] > 5, checked


def hmac_digest(key: bytes, msg: str) -> bytes:
    import hmac as hmac_

    return hmac_.digest(key, msg.encode("ascii"), "sha256")


def _nth(counts: list[int], i: int) -> int:
    kind = 0
    while i >= counts[kind]:
        i -= counts[kind]
        kind += 1
    return kind


def _nodes_of(s: object, hex_: int) -> list[int]:
    from protocol.rules.board import HEX_NODES

    return list(HEX_NODES[hex_])
