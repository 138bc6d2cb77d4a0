"""How one face of the game clock runs: pure arithmetic in whole milliseconds, no state of its
own (COMP 4.1, 4.8, 5.6, 5.7, 5.9.3). :class:`engine.clock.GameClock` keeps a :class:`FaceState`
per player and lets it run with :func:`run_face`, the one computation behind both running the
clock and reading it, so a reading always shows what running would, without copying the clock.
Nothing here costs time that grows with the number of moves.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from engine.clock_events import BothFlagsFell, FaceReading, FlagFell
from engine.colour import Colour
from engine.timecontrol import TimeControl
from engine.frozen import quick_init

__all__ = ["FaceState", "Stretch", "run_face", "credits_total_ms", "face_reading"]


def credits_total_ms(control: TimeControl, moves: int) -> int:
    """What the presses of a player's first ``moves`` moves credit in all under ``control``
    (the sum of ``control.credit_ms(n)`` for n = 1..moves), in time that does not grow with
    ``moves``: per period, its increment for each move in it and the next period's time when the
    period is completed; the last period with a move count repeats (COMP 4.1 "ecc.")."""
    total = 0
    left = moves
    periods = control.periods
    for index, period in enumerate(periods):
        if left <= 0:
            break
        last = index == len(periods) - 1
        if period.moves is None or last:
            total += left * period.increment * 1000
            if period.moves is not None:  # repeating: each completion credits the period again
                total += (left // period.moves) * period.seconds * 1000
            break
        played = min(left, period.moves)
        total += played * period.increment * 1000
        if played == period.moves:
            total += periods[index + 1].seconds * 1000
        left -= played
    return total



@dataclass(slots=True)
class FaceState:
    remaining_ms: int                 # the player's time (0 once the mosse-lampo phase began)
    lampo_ms: int | None = None       # time left for the current mosse-lampo move, or None
    moves: int = 0
    consumed_ms: int = 0              # time this face ran, in total
    credited_ms: int = 0              # time credited by presses (bonus, next periods)
    # Credit of the counted moves whose press earned other than the time control says (a move
    # in the mosse-lampo phase earns nothing), by move number: a retraction gives back exactly
    # what the press credited, and nothing is scanned or copied per move.
    odd_credits: dict[int, int] = field(default_factory=dict)
    run: int = 0
    run_start_ms: int = 0

    @property
    def shown_ms(self) -> int:
        return self.remaining_ms if self.lampo_ms is None else self.lampo_ms

    def take(self, stretch: Stretch) -> None:
        """Become what ``stretch`` (from :func:`run_face` on this face) says; a mosse-lampo phase
        begun in it is a new run, from the time of a move (COMP 5.6)."""
        self.remaining_ms, self.lampo_ms = stretch.remaining_ms, stretch.lampo_ms
        self.consumed_ms = stretch.consumed_ms
        if stretch.lampo_began_ms is not None and stretch.per_move_ms is not None:
            self.run += 1
            self.run_start_ms = stretch.per_move_ms


@quick_init
@dataclass(frozen=True, slots=True)
class Stretch:
    """What a running face becomes after running for a stretch of time (:func:`run_face`)."""

    remaining_ms: int
    lampo_ms: int | None
    consumed_ms: int
    lampo_began_ms: int | None        # when the mosse-lampo phase began in the stretch
    fell_ms: int | None               # when the flag fell in the stretch
    fell_in_lampo: bool
    per_move_ms: int | None           # the time of a mosse-lampo move (None: no mosse lampo)


def run_face(face: FaceState, start_ms: int, target_ms: int, lampo: int | None,
             lampo_move_done: bool) -> Stretch:
    """``face`` running from ``start_ms`` to ``target_ms`` (later): its time, and the instants it
    reached zero. ``lampo``: seconds of a mosse-lampo move (``TimeControl.lampo``), None without.
    ``lampo_move_done``: the player's move was complete already, so a mosse-lampo zero in this
    stretch is no loss (COMP 5.7, note). Pure: the one computation behind both running the clock
    and reading it, so a reading always shows what running would."""
    per_move = None if lampo is None else lampo * 1000
    remaining, left_ms, consumed = face.remaining_ms, face.lampo_ms, face.consumed_ms
    cursor = start_ms
    began: int | None = None
    if left_ms is None:
        left = target_ms - cursor
        if remaining > left:
            return Stretch(remaining - left, None, consumed + left, None, None, False, per_move)
        cursor += remaining
        consumed += remaining
        remaining = 0
        if per_move is None:  # COMP 4.8 b: zero on the display
            return Stretch(0, None, consumed, None, cursor, False, per_move)
        began, left_ms = cursor, per_move  # COMP 5.6: the mosse-lampo phase begins
        if cursor == target_ms:
            return Stretch(0, left_ms, consumed, began, None, False, per_move)
    left = target_ms - cursor
    if left_ms > left or lampo_move_done:
        return Stretch(remaining, left_ms - min(left, left_ms), consumed + left, began, None,
                       False, per_move)
    # COMP 5.7: "zero!" and the move not complete.
    return Stretch(remaining, 0, consumed + left_ms, began, cursor + left_ms, True, per_move)

def face_reading(side: Colour, face: FaceState, stretch: Stretch | None, running: Colour | None,
                 flag: FlagFell | BothFlagsFell | None, control: TimeControl) -> FaceReading:
    """What ``side``'s ``face`` shows, or shows once ``stretch`` (its run up to a later time, see
    :func:`run_face`) has passed; ``running``: whose face runs then; ``flag``: the flag fallen
    before. Changes nothing."""
    lampo_ms, run, run_start_ms = face.lampo_ms, face.run, face.run_start_ms
    if stretch is None:
        shown = face.remaining_ms if lampo_ms is None else lampo_ms  # FaceState.shown_ms
    else:
        lampo_ms = stretch.lampo_ms
        shown = stretch.remaining_ms if lampo_ms is None else lampo_ms
        if stretch.lampo_began_ms is not None and stretch.per_move_ms is not None:
            run, run_start_ms = run + 1, stretch.per_move_ms
        if stretch.fell_ms is not None:
            flag = FlagFell(side, stretch.fell_ms / 1000, stretch.fell_in_lampo)
    in_lampo = lampo_ms is not None
    flagged = flag is not None and (isinstance(flag, BothFlagsFell) or flag.side is side)
    return FaceReading(side, shown, running is side, face.moves, in_lampo, flagged, run,
                       run_start_ms, None if in_lampo else control.moves_to_control(face.moves))
