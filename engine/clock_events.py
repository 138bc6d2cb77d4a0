"""What the game clock says: its states, readings, records and events (COMP, Capo III).

Values only; the state machine that produces them is :class:`engine.clock.GameClock`. Sides are
the engine's one colour type, :class:`engine.colour.Colour` (``str(side)`` is ``"white"`` /
``"black"``). Results are frozen dataclasses named in the past tense; each carries the article it
applies in its ``article`` class attribute.
"""

from __future__ import annotations

import enum
from dataclasses import dataclass
from typing import ClassVar, Union

from engine.colour import WHITE, Colour
from engine.errors import ClockError
from engine.frozen import quick_init

__all__ = [
    "check_side", "floor_tenths", "ClockState",
    "FaceReading", "ClockReading", "ClockRecord",
    "ClockStarted", "ClockPressed", "PressRefused", "PressIgnored", "FlagFell", "BothFlagsFell",
    "MosseLampoBegan", "ResignedByStoppingClock", "ClockStopped", "ClockResumed",
    "CorrectionBegan", "CorrectionEnded", "ElapsedDivided", "TimeAdjusted",
    "ClockEvent", "PressResult",
]

def check_side(value: object) -> Colour:
    """``value`` if it is a ``Colour``; raises ``ClockError`` otherwise (``"white"``, 0 or a bool
    is no side: callers turn text into a colour with ``Colour.parse`` first)."""
    if isinstance(value, Colour):
        return value
    raise ClockError(f"a side is a Colour, not {str(value)[:40]!r}")


def floor_tenths(ms: int) -> float:
    """A reading: milliseconds floored to the tenth, as float seconds."""
    return (ms // 100) / 10


class ClockState(enum.StrEnum):
    """Where the clock is. ``flagged``: a flag fell (or both, COMP 5.9.4); ``finished``: a player
    stopped both faces (COMP 6.5). Both are final."""

    READY = "ready"
    RUNNING = "running"
    CORRECTING = "correcting"
    STOPPED = "stopped"
    FLAGGED = "flagged"
    FINISHED = "finished"


# -- readings ---------------------------------------------------------------------------------


@quick_init
@dataclass(frozen=True, slots=True)
class FaceReading:
    """One face at one instant.

    ``ms``: exact milliseconds shown, never negative: the player's time, or in the mosse-lampo
    phase the time left for the current move. ``run``: counts the face's runs (each start of the
    face, each new mosse-lampo move, each credit); ``run_start_ms`` is what the face showed when the
    current run began, so within one run ``ms`` only decreases from it (display cues rely on
    this). ``moves``: moves completed; ``moves_to_control``: moves still owed in the current period
    (None: the rest of the game), COMP 4.3.
    """

    side: Colour
    ms: int
    running: bool
    moves: int
    in_lampo: bool
    flagged: bool
    run: int
    run_start_ms: int
    moves_to_control: int | None

    @property
    def tenths(self) -> int:
        """Whole tenths shown, floored."""
        return self.ms // 100

    @property
    def seconds(self) -> float:
        """Seconds shown, floored to the tenth."""
        return floor_tenths(self.ms)


@quick_init
@dataclass(frozen=True, slots=True)
class ClockReading:
    """Both faces at ``t`` (seconds), with whose face runs and who is to move."""

    t: float
    white: FaceReading
    black: FaceReading
    running: Colour | None
    to_move: Colour
    state: ClockState

    def face(self, side: Colour) -> FaceReading:
        """The reading of ``side``'s face."""
        return self.white if check_side(side) is WHITE else self.black


@dataclass(frozen=True, slots=True)
class ClockRecord:
    """What the arbiter writes down when he stops the clock (COMP 7.3.2, 7.3.12, 4.9.4) and puts
    back at resumption (COMP 7.4.2): the time on each face (exact milliseconds; in the mosse-lampo
    phase 0), moves completed, who is to move and whose face was running."""

    t: float
    white_ms: int
    black_ms: int
    white_moves: int
    black_moves: int
    to_move: Colour
    running: Colour | None
    white_in_lampo: bool = False
    black_in_lampo: bool = False

    @property
    def white_seconds(self) -> float:
        """White's time, floored to the tenth."""
        return floor_tenths(self.white_ms)

    @property
    def black_seconds(self) -> float:
        """Black's time, floored to the tenth."""
        return floor_tenths(self.black_ms)


# -- events -----------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class ClockStarted:
    """The arbiter started the clock: ``running``'s face runs, ``to_move`` is on move."""

    article: ClassVar[str] = "COMP 4.4.2"
    t: float
    to_move: Colour
    running: Colour


@quick_init
@dataclass(frozen=True, slots=True)
class ClockPressed:
    """``side`` pressed his button and the faces swapped. ``counted``: the press completed his
    ``move_number``-th move (COMP 4.5); False when a late player, not on move, only started his
    opponent's face (COMP 6.9 a). ``credit``: seconds credited by the press (Fischer bonus, next
    period). ``white``/``black``: the readings right after the press, floored to the tenth — the
    readings a committed move carries."""

    article: ClassVar[str] = "COMP 4.5"
    side: Colour
    t: float
    counted: bool
    move_number: int
    credit: float
    white: float
    black: float


@dataclass(frozen=True, slots=True)
class PressRefused:
    """``side`` pressed before his move was complete: reported, not obeyed; his face runs on."""

    article: ClassVar[str] = "COMP 4.4.5"
    side: Colour
    t: float
    reason: str


@dataclass(frozen=True, slots=True)
class PressIgnored:
    """A press that can do nothing: his face is not running, the clock is stopped, or a flag has
    already fallen. Nothing changed."""

    article: ClassVar[str] = "COMP 3.6.1"
    side: Colour
    t: float
    reason: str


@dataclass(frozen=True, slots=True)
class FlagFell:
    """``side``'s face reached zero at ``t`` (exact to the millisecond): he loses on time and the
    clock stopped (COMP 4.8 b, 5.9.4). In the mosse-lampo phase: the move was not complete at
    zero (COMP 5.7)."""

    article: ClassVar[str] = "COMP 4.8"
    side: Colour
    t: float
    in_lampo: bool = False


@dataclass(frozen=True, slots=True)
class BothFlagsFell:
    """Both faces found at zero with no telling which was first: the game is drawn."""

    article: ClassVar[str] = "COMP 5.9.4"
    t: float


@dataclass(frozen=True, slots=True)
class MosseLampoBegan:
    """``side``'s time ran out at ``t`` and the mosse-lampo phase began for him: from now on each
    of his moves must be complete within ``per_move`` seconds (COMP 5.6, 5.7)."""

    article: ClassVar[str] = "COMP 5.6"
    side: Colour
    t: float
    per_move: float


@dataclass(frozen=True, slots=True)
class ResignedByStoppingClock:
    """``side`` stopped both faces during play: that is resignation (loss by abandonment)."""

    article: ClassVar[str] = "COMP 6.5"
    side: Colour
    t: float


@dataclass(frozen=True, slots=True)
class ClockStopped:
    """The arbiter stopped both faces (interruption, COMP 7.3.1); ``record`` is what he writes
    down (COMP 7.3.2)."""

    article: ClassVar[str] = "COMP 7.3.1"
    t: float
    record: ClockRecord


@dataclass(frozen=True, slots=True)
class ClockResumed:
    """The arbiter restarted the clock: ``running``'s face runs. ``sealed_move``: the sealed move
    was played and counted first (COMP 7.4.3)."""

    article: ClassVar[str] = "COMP 7.4.3"
    t: float
    running: Colour
    sealed_move: bool


@dataclass(frozen=True, slots=True)
class CorrectionBegan:
    """An irregularity is being corrected: ``offender``'s face runs until the position is restored
    (COMP 4.13). ``retracted_move``: his last counted move (and what its press credited) was taken
    back, so he is on move again."""

    article: ClassVar[str] = "COMP 4.13"
    offender: Colour
    t: float
    retracted_move: bool


@dataclass(frozen=True, slots=True)
class CorrectionEnded:
    """The correction is over; ``seconds`` were charged to ``offender``; ``running`` runs now
    (None: the clock was stopped before and stays so)."""

    article: ClassVar[str] = "COMP 4.13"
    offender: Colour
    t: float
    seconds: float
    running: Colour | None


@dataclass(frozen=True, slots=True)
class ElapsedDivided:
    """Both players were absent: the time elapsed was divided equally between the faces
    (``seconds_each``) and the face of the player still absent, ``running``, was started."""

    article: ClassVar[str] = "COMP 6.10"
    t: float
    seconds_each: float
    running: Colour


@dataclass(frozen=True, slots=True)
class TimeAdjusted:
    """The arbiter set ``side``'s time from ``before`` to ``after`` seconds (clock replaced,
    reconstruction or verification time charged: COMP 4.7, 4.9, 4.11)."""

    article: ClassVar[str] = "COMP 4.7"
    side: Colour
    t: float
    before: float
    after: float


ClockEvent = Union[
    ClockStarted, ClockPressed, PressRefused, PressIgnored, FlagFell, BothFlagsFell,
    MosseLampoBegan, ResignedByStoppingClock, ClockStopped, ClockResumed, CorrectionBegan,
    CorrectionEnded, ElapsedDivided, TimeAdjusted,
]
#: What :meth:`GameClock.press` returns.
PressResult = Union[ClockPressed, PressRefused, PressIgnored, FlagFell, BothFlagsFell]
