"""The window's sounds, synthesised: nothing is shipped, nothing is downloaded.

:class:`SoundBoard` opens ``pygame.mixer`` when the window starts. Without an
audio device (``SDL_AUDIODRIVER=dummy`` in tests, a headless machine, a mixer
that fails to open) it stays silent and every call is harmless. Each cue is
computed once, the first time it plays, from sines, a few harmonics and
seeded noise (:func:`synth`), as 16-bit samples at the mixer's rate:

============  ==============================================
``roll``      dice rattling in a cup and landing
``build``     two knocks of wood
``trade``     a two-note chime
``robber``    a low, falling growl
``turn``      a bright three-note chime: your turn
``award``     a rising call: Longest Road or Largest Army changes hands
``win``       a short fanfare
============  ==============================================

``muted`` silences everything (the M key, kept in the settings file).
"""

from __future__ import annotations

import array
import contextlib
import math
import random
import threading
from collections.abc import Callable

import pygame

CUES = ("roll", "build", "trade", "robber", "turn", "award", "win")
RATE = 22050
MAX_PLAYED = 200


def _env(t: float, attack: float, decay: float) -> float:
    """A percussive envelope: a short linear attack, then exponential decay."""
    if t < attack:
        return t / attack
    return math.exp(-(t - attack) / decay)


def _bell(t: float, freq: float, decay: float) -> float:
    partials = ((1.0, 1.0), (2.0, 0.45), (3.01, 0.22), (4.2, 0.1))
    return sum(a * math.sin(2 * math.pi * freq * k * t) for k, a in partials) / 1.77 * \
        _env(t, 0.004, decay)


def _roll(rate: int) -> list[float]:
    rng = random.Random(3)
    n = int(rate * 0.55)
    out = [0.0] * n
    t = 0.0
    hits = []
    while t < 0.42:
        hits.append(t)
        t += rng.uniform(0.025, 0.07)
    hits += [0.46, 0.5]  # they land
    for k, start in enumerate(hits):
        freq = rng.uniform(1800, 3200) if k < len(hits) - 2 else rng.uniform(700, 900)
        amp = 0.5 if k < len(hits) - 2 else 0.9
        i0 = int(start * rate)
        low = 0.0
        for i in range(int(rate * 0.03)):
            if i0 + i >= n:
                break
            tt = i / rate
            low = 0.6 * low + 0.4 * rng.uniform(-1, 1)  # a little low-passed noise
            tone = math.sin(2 * math.pi * freq * tt)
            out[i0 + i] += amp * (0.55 * low + 0.45 * tone) * _env(tt, 0.001, 0.006)
    return out


def _build(rate: int) -> list[float]:
    rng = random.Random(5)
    n = int(rate * 0.32)
    out = [0.0] * n
    for start, f in ((0.0, 190.0), (0.14, 230.0)):
        i0 = int(start * rate)
        for i in range(n - i0):
            t = i / rate
            v = (math.sin(2 * math.pi * f * t) + 0.5 * math.sin(2 * math.pi * f * 2.7 * t)
                 + 0.4 * rng.uniform(-1, 1) * math.exp(-t / 0.004))
            out[i0 + i] += 0.55 * v * _env(t, 0.001, 0.035)
    return out


def _notes(rate: int, notes: list[tuple[float, float, float]], length: float,
           voice: Callable[[float, float, float], float],
           span: Callable[[float], float]) -> list[float]:
    """Notes ``(start, frequency, shape)`` of ``voice`` mixed into ``length``
    seconds; ``span(shape)``: how long a note sounds."""
    n = int(rate * length)
    out = [0.0] * n
    for start, freq, shape in notes:
        i0 = int(start * rate)
        for i in range(min(n - i0, int(rate * span(shape)))):
            out[i0 + i] += voice(i / rate, freq, shape)
    return out


def _bell_span(decay: float) -> float:
    return 0.004 + 7 * decay


def _brass_span(length: float) -> float:
    return length + 0.25


def _robber(rate: int) -> list[float]:
    n = int(rate * 0.7)
    out = []
    phase = 0.0
    for i in range(n):
        t = i / rate
        f = 150 * (1 - 0.45 * t / 0.7)
        phase += 2 * math.pi * f / rate
        v = (math.sin(phase) + 0.35 * math.sin(3 * phase) + 0.2 * math.sin(5 * phase))
        trem = 0.75 + 0.25 * math.sin(2 * math.pi * 9 * t)
        out.append(0.6 * v * trem * _env(t, 0.03, 0.3))
    return out


def _brass(t: float, freq: float, length: float) -> float:
    """A soft brass-like note: odd harmonics, a swell and a release at ``length``."""
    if t > length + 0.25:
        return 0.0
    amp = min(1.0, t / 0.03) * (1.0 if t < length else math.exp(-(t - length) / 0.08))
    v = sum(math.sin(2 * math.pi * freq * k * t) / k for k in (1, 2, 3, 5))
    return 0.3 * amp * v


def synth(name: str, rate: int = RATE) -> list[float]:
    """The samples (-1..1) of cue ``name`` at ``rate`` Hz."""
    if name == "roll":
        return _roll(rate)
    if name == "build":
        return _build(rate)
    if name == "trade":
        return _notes(rate, [(0.0, 1318.5, 0.18), (0.09, 1760.0, 0.3)], 0.6, _bell, _bell_span)
    if name == "robber":
        return _robber(rate)
    if name == "turn":
        return _notes(rate, [(0.0, 1046.5, 0.25), (0.11, 1318.5, 0.25), (0.22, 1568.0, 0.45)],
                      0.9, _bell, _bell_span)
    if name == "award":
        return _notes(rate, [(0.0, 784.0, 0.12), (0.1, 1046.5, 0.12), (0.2, 1568.0, 0.2)],
                      0.75, _brass, _brass_span)
    if name == "win":
        return _notes(rate, [(0.0, 523.3, 0.12), (0.14, 659.3, 0.12), (0.28, 784.0, 0.12),
                             (0.42, 1046.5, 0.5), (0.42, 659.3, 0.5), (0.42, 784.0, 0.5)],
                      1.3, _brass, _brass_span)
    raise ValueError(f"no sound {name!r}")


def to_pcm(samples: list[float], channels: int, volume: float = 0.8) -> bytes:
    """Signed 16-bit native-endian samples, peak-normalised to ``volume``."""
    peak = max((abs(v) for v in samples), default=0.0) or 1.0
    k = 32767 * volume / peak
    out = array.array("h")
    for v in samples:
        s = int(v * k)
        out.extend([s] * channels)
    return out.tobytes()  # native order, as the mixer's AUDIO_S16SYS wants


_PCM: dict[tuple[str, int, int], bytes] = {}
_PCM_LOCK = threading.Lock()


def pcm(name: str, rate: int, channels: int) -> bytes:
    """Cue ``name`` as mixer samples, computed once per process."""
    key = (name, rate, channels)
    with _PCM_LOCK:
        data = _PCM.get(key)
    if data is None:
        data = to_pcm(synth(name, rate), channels)
        with _PCM_LOCK:
            _PCM[key] = data
    return data


def _prepare(rate: int, channels: int) -> None:
    for name in CUES:
        pcm(name, rate, channels)


class SoundBoard:
    """The cues, played through ``pygame.mixer`` when there is one."""

    def __init__(self, *, muted: bool = False, volume: float = 0.7,
                 enabled: bool = True) -> None:
        self.muted = muted
        self.volume = max(0.0, min(1.0, volume))
        self.available = False
        self.error: str | None = None
        self.requested: list[str] = []  # every cue asked for (tests read it)
        self.played: list[str] = []  # the cues that went to the mixer
        self._sounds: dict[str, pygame.mixer.Sound] = {}
        self._format: tuple[int, int, int] | None = None
        if enabled:
            self.start()

    def start(self) -> bool:
        """Open the mixer (or find it open); False when there is no audio."""
        try:
            init = pygame.mixer.get_init()
            if init is None:
                pygame.mixer.init(frequency=RATE, size=-16, channels=1, buffer=512)
                init = pygame.mixer.get_init()
        except (pygame.error, OSError, NotImplementedError) as exc:
            self.error = str(exc) or type(exc).__name__
            return False
        if init is None:
            self.error = "no mixer"
            return False
        freq, size, channels = init
        if size not in (-16, 16):
            self.error = f"unsupported sample format {size}"
            return False
        self._format = (freq, size, channels)
        self.available = True
        if any((name, freq, channels) not in _PCM for name in CUES):  # computed off the loop
            threading.Thread(target=_prepare, args=(freq, channels), name="kaitaku-sounds",
                             daemon=True).start()
        return True

    def toggle_mute(self) -> bool:
        """Mute or unmute; returns whether muted now."""
        self.muted = not self.muted
        if self.muted and self.available:
            with contextlib.suppress(pygame.error):
                pygame.mixer.stop()
        return self.muted

    def sound(self, name: str) -> pygame.mixer.Sound | None:
        """The cue ``name``, synthesised the first time (None without audio)."""
        if not self.available or self._format is None:
            return None
        snd = self._sounds.get(name)
        if snd is None:
            freq, _size, channels = self._format
            try:
                snd = pygame.mixer.Sound(buffer=pcm(name, freq, channels))
                snd.set_volume(self.volume)
            except (pygame.error, ValueError) as exc:
                self.error = str(exc)
                self.available = False
                return None
            self._sounds[name] = snd
        return snd

    def play(self, name: str) -> bool:
        """Play cue ``name`` (nothing when muted or without audio); True when played."""
        self.requested.append(name)
        del self.requested[:-MAX_PLAYED]
        if self.muted:
            return False
        snd = self.sound(name)
        if snd is None:
            return False
        try:
            snd.play()
        except pygame.error as exc:
            self.error = str(exc)
            return False
        self.played.append(name)
        del self.played[:-MAX_PLAYED]
        return True

    def close(self) -> None:
        self._sounds.clear()
        if self.available:
            with contextlib.suppress(pygame.error):
                pygame.mixer.quit()
            self.available = False
