"""What the clock faces show and which beeps are due: pure functions of a clock reading.

Display rules (COMP 3.6.2 h–i, 4.3, 5.7), with the thresholds in :class:`DisplayRules`:

- One face text per reading, read at a glance on the 128×64 OLED as on a clock, and never
  ambiguous: the separator names the units. ``1h05`` (an ``h``: hours and minutes) from an hour
  up, ``59:59`` (a colon: minutes and seconds) below, ``19.9`` (a point: seconds and tenths) in
  the last 20 s. The rule asks for the running seconds "in the last minutes" (COMP 3.6.2 h); we
  show them through the whole last hour (issue 16: with ``0h59`` … ``0h10`` nothing visibly moved
  for fifty minutes of an hour's control), and tenths, the resolution of the clock, when every
  tenth counts. Why these forms: the old ``h:mm``/``m:ss`` pair showed 20 minutes and 20 seconds
  both as ``0:20`` and 1 hour and 1 minute both as ``1:00``; ``h:mm:ss`` would settle it but is
  seven characters, as wide as a face at a readable size (``10:00:00`` is wider), so above an
  hour the OLED keeps ``1h05``; the switch to ``59:59`` tells the player, by the new separator,
  that the seconds now run. Always floored: a face never shows more time than is left.
- Where there is room (the web pages, the hall), :func:`format_time_full` gives the form of a
  DGT3000 or a lichess board: ``1:05:00``, ``58:12``, ``9:58``, ``0:19.9``, which changes every
  second (every tenth in the last 20 s) at any time left; its colons and point say its units too.
- Beeps (optional, COMP 3.6.2 i): one short beep as the time crosses 10, 5, 4, 3, 2 and 1 s left,
  a long one at zero (the flag).
- Mosse lampo (COMP 5.7): the arbiter's countdown "-15, -10, -5, 4, 3, 2, 1, 0!" as screen labels
  and buzzer cues; above 15 s the face shows the whole seconds left of the move; ``0`` is a long
  buzz (the move must be complete by then). These labels have no separator, so they are never
  taken for the player's time either.
- The moves completed are always shown (COMP 4.3): ``23/40`` (23 moves, the control at the 40th)
  or ``23`` in a period for the rest of the game.

Cues fire exactly once per crossing of a threshold: a face's time only decreases within one *run*
(:class:`engine.clock.FaceReading`), so a threshold ``T`` is crossed between two readings of the
same run when ``previous > T >= now``; when a new run began in between (the face restarted after a
credit, a new lampo move) the crossing is measured from what the face showed when the run began.
A crossing in a run superseded by a new run before the next reading is stale and not reported
(read the clock a few times a second).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

from engine.clock_events import ClockReading, FaceReading
from engine.colour import COLOURS, Colour

__all__ = [
    "DisplayRules", "DEFAULT_RULES", "LAMPO_COUNTDOWN", "Cue", "FaceDisplay", "format_time",
    "format_time_full", "lampo_label", "moves_text", "face_display", "cues_crossed", "CueTracker",
]

#: COMP 5.7: the arbiter's countdown of a mosse-lampo move, (seconds left, what he says).
LAMPO_COUNTDOWN: tuple[tuple[int, str], ...] = (
    (15, "-15"), (10, "-10"), (5, "-5"), (4, "4"), (3, "3"), (2, "2"), (1, "1"), (0, "0"),
)


@dataclass(frozen=True, slots=True)
class DisplayRules:
    """Thresholds of the display, in milliseconds / seconds (module docstring). Raises
    ValueError unless ``0 <= tenths_below_ms <= seconds_below_ms``."""

    seconds_below_ms: int = 60 * 60 * 1000   # COMP 3.6.2 h: seconds shown in the last hour
    tenths_below_ms: int = 20 * 1000
    beep_seconds: tuple[int, ...] = (10, 5, 4, 3, 2, 1)  # COMP 3.6.2 i: optional beeps
    beeps: bool = True

    def __post_init__(self) -> None:
        if not 0 <= self.tenths_below_ms <= self.seconds_below_ms:
            raise ValueError(f"display thresholds out of order: tenths below "
                             f"{self.tenths_below_ms} ms, seconds below {self.seconds_below_ms} ms")


DEFAULT_RULES = DisplayRules()


@dataclass(frozen=True, slots=True)
class Cue:
    """A screen and buzzer cue due for ``side``: ``kind`` ``beep`` (last seconds), ``flag`` (zero),
    ``lampo`` (a step of the COMP 5.7 countdown) or ``lampo_start`` (the phase began);
    ``screen``: the text to flash; ``buzzer``: ``short`` or ``long``; ``threshold_ms``: the
    time left at which it fired."""

    side: Colour
    kind: Literal["beep", "flag", "lampo", "lampo_start"]
    screen: str
    buzzer: Literal["short", "long"]
    threshold_ms: int


@dataclass(frozen=True, slots=True)
class FaceDisplay:
    """What one face shows: ``time`` text, ``moves`` text (COMP 4.3), and markers."""

    side: Colour
    time: str
    moves: str
    running: bool
    in_lampo: bool
    flagged: bool


def format_time(ms: int, rules: DisplayRules = DEFAULT_RULES) -> str:
    """The OLED's text of a face showing ``ms`` milliseconds (module docstring): ``1h05`` (hours,
    minutes) from ``rules.seconds_below_ms`` up (an hour by default), ``59:59`` (minutes,
    seconds) from ``rules.tenths_below_ms`` up, else ``19.9`` (seconds, tenths); always floored.
    Two times give the same text only when they are in the same range and floor to the same unit
    of it. Raises ValueError for a negative time."""
    if ms < 0:
        raise ValueError(f"a face cannot show a negative time ({ms} ms)")
    if ms >= rules.seconds_below_ms:
        minutes = ms // 60000
        return f"{minutes // 60}h{minutes % 60:02d}"
    if ms >= rules.tenths_below_ms:
        seconds = ms // 1000
        return f"{seconds // 60}:{seconds % 60:02d}"
    tenths = ms // 100
    return f"{tenths // 10}.{tenths % 10}"


def format_time_full(ms: int, rules: DisplayRules = DEFAULT_RULES) -> str:
    """The text of a face with room for seconds at any time (the pages; module docstring), as a
    DGT3000 or a lichess board shows it: ``1:05:00`` (hours, minutes, seconds) from an hour up,
    ``58:12`` / ``9:58`` (minutes, seconds) from ``rules.tenths_below_ms`` up, else ``0:19.9``
    (minutes, seconds and tenths: the same clock, a tenth finer); always floored.
    Raises ValueError for a negative time."""
    if ms < 0:
        raise ValueError(f"a face cannot show a negative time ({ms} ms)")
    if ms >= rules.tenths_below_ms:
        seconds = ms // 1000
        hours, minutes = seconds // 3600, seconds // 60 % 60
        if hours:
            return f"{hours}:{minutes:02d}:{seconds % 60:02d}"
        return f"{minutes}:{seconds % 60:02d}"
    tenths = ms // 100
    seconds = tenths // 10
    return f"{seconds // 60}:{seconds % 60:02d}.{tenths % 10}"


def lampo_label(ms: int) -> str:
    """The face of a mosse-lampo move with ``ms`` left: whole seconds above 15 s, then the last
    word of the arbiter's countdown said (COMP 5.7): ``-15`` … ``1``, ``0``."""
    if ms < 0:
        raise ValueError(f"a face cannot show a negative time ({ms} ms)")
    label = str(ms // 1000)
    for seconds, word in LAMPO_COUNTDOWN:
        if ms <= seconds * 1000:
            label = word
    return label


def moves_text(face: FaceReading) -> str:
    """The move count (COMP 4.3): ``23/40`` when a control is ahead, else ``23``."""
    if face.moves_to_control is None:
        return str(face.moves)
    return f"{face.moves}/{face.moves + face.moves_to_control}"


def face_display(face: FaceReading, rules: DisplayRules = DEFAULT_RULES) -> FaceDisplay:
    """What ``face`` shows under ``rules``."""
    text = lampo_label(face.ms) if face.in_lampo else format_time(face.ms, rules)
    return FaceDisplay(face.side, text, moves_text(face), face.running, face.in_lampo,
                       face.flagged)


_CueRow = tuple[int, Literal["beep", "flag", "lampo", "lampo_start"], str,
                Literal["short", "long"]]


def _cue_table(in_lampo: bool, rules: DisplayRules) -> list[_CueRow]:
    rows: list[_CueRow] = []
    if in_lampo:
        for seconds, word in LAMPO_COUNTDOWN:
            rows.append((seconds * 1000, "lampo", word, "long" if seconds == 0 else "short"))
        return rows
    if rules.beeps:
        for seconds in sorted(rules.beep_seconds, reverse=True):
            rows.append((seconds * 1000, "beep", str(seconds), "short"))
    rows.append((0, "flag", "0.0", "long"))  # COMP 4.8 b: zero on the display
    return rows


def cues_crossed(previous: FaceReading | None, now: FaceReading,
                 rules: DisplayRules = DEFAULT_RULES) -> tuple[Cue, ...]:
    """The cues due between two readings of the same face, ``previous`` (None: no earlier
    reading) and ``now``, highest threshold first. Raises ValueError if the faces differ."""
    if previous is not None and previous.side != now.side:
        raise ValueError(f"readings of different faces: {previous.side} and {now.side}")
    cues: list[Cue] = []
    same_run = previous is not None and previous.run == now.run
    if previous is not None and not previous.in_lampo and now.in_lampo:
        cues.append(Cue(now.side, "lampo_start", "LAMPO", "long", 0))
    upper = previous.ms if same_run and previous is not None else now.run_start_ms
    for threshold, kind, screen, buzzer in _cue_table(now.in_lampo, rules):
        if upper > threshold >= now.ms:
            cues.append(Cue(now.side, kind, screen, buzzer, threshold))
    return tuple(cues)


class CueTracker:
    """Remembers the last reading of each face and reports each cue once (module docstring).

    Feed it every reading the display takes: :meth:`update` with a whole
    :class:`engine.clock.ClockReading`, or :meth:`update_face` with one face.
    """

    def __init__(self, rules: DisplayRules = DEFAULT_RULES) -> None:
        self._rules = rules
        self._last: dict[Colour, FaceReading] = {}

    def update_face(self, face: FaceReading) -> tuple[Cue, ...]:
        """The cues ``face`` crossed since its last reading."""
        cues = cues_crossed(self._last.get(face.side), face, self._rules)
        self._last[face.side] = face
        return cues

    def update(self, reading: ClockReading) -> tuple[Cue, ...]:
        """The cues both faces crossed since the last reading, White's first."""
        cues: list[Cue] = []
        for side in COLOURS:
            cues.extend(self.update_face(reading.face(side)))
        return tuple(cues)
