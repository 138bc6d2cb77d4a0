"""Time controls of the FID competition rules (COMP, Capo III) and the PDN time syntax.

A :class:`TimeControl` is an immutable value object written and read in the PDN ``TimeControl``
tag syntax. PDN 3.0 takes that tag from PGN (PGN standard 9.6.1): descriptors separated by ``:``,
each ``moves/seconds`` (a period of so many moves), ``seconds`` (the rest of the game) or
``seconds+increment`` (Fischer). Seconds are whole seconds, as in PGN::

    7200                 whole game in 2 h                                   COMP 3.11.2
    40/7200:3600         40 moves in 2 h, then the rest in 1 h, unused time  COMP 3.11.1, 4.1
                         carried over; a last period with a move count
                         repeats (``40/7200`` = 40 moves every 2 h)
    1800+10              Fischer: 30 min plus 10 s per completed move        COMP 3.11.4, 5.9
    40/7200:1800+10      40 moves in 2 h, then 30 min + 10 s a move          COMP 3.11.5
    40/7200:0+10         40 moves in 2 h, then only 10 s a move              COMP 3.11.5
    1800:1/30            30 min, then *mosse lampo* of 30 s a move           COMP 3.11.3, 5.6

Mosse lampo: PGN has no per-move time (its ``*seconds`` is a sandclock, which FID does not use),
so damiera writes them as a last ``1/L`` descriptor right after a sudden-death period: "then one
move in L seconds", each move timed afresh, nothing carried over. After a sudden-death period no
other descriptor can occur in PGN, so the form is unambiguous; a PGN reader sees a valid
descriptor list. ``0:1/30`` is mosse lampo from the first move (imposed by the arbiter, COMP 5.8).

Also here: the minimum times of COMP 5.3 (:func:`minimum_time_warnings`, a list of warnings, not a
refusal), and the PDN time values: ``WhiteTime``/``BlackTime`` tags (:func:`format_pdn_time`,
:func:`parse_pdn_time`) and the PDN 3.0 ``[%clock w0:05:00 B0:04:59]`` comment command
(:func:`format_clock_comment`, :func:`parse_clock_comment`).

Standard library only; no I/O and no reading of the system time.
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass
from typing import Literal

from engine.errors import PdnTimeError, TimeControlError, UnknownVariantError, excerpt

__all__ = [
    "Period", "TimeControl", "TimeControlKind", "parse_time_control_tag", "minimum_time_warnings",
    "format_pdn_time", "parse_pdn_time", "format_clock_comment", "parse_clock_comment",
    "seconds_to_ms", "MAX_TIME_CONTROL_CHARS",
]

#: What kind of control of COMP 3.11 a :class:`TimeControl` is (``custom``: a valid PDN control
#: that is none of the five, e.g. ``40/5400+30:1800+30``).
TimeControlKind = Literal[
    "moves_in_time", "whole_game", "mosse_lampo", "fischer", "moves_then_fischer", "custom"
]

_KIND_ARTICLE = {
    "moves_in_time": "COMP 3.11.1", "whole_game": "COMP 3.11.2", "mosse_lampo": "COMP 3.11.3",
    "fischer": "COMP 3.11.4", "moves_then_fischer": "COMP 3.11.5", "custom": "PDN TimeControl",
}

# A descriptor of the PGN TimeControl syntax: [moves/]seconds[+increment], ASCII digits only.
_DESCRIPTOR = re.compile(r"(?:([0-9]+)/)?([0-9]+)(?:\+([0-9]+))?")
_MAX_DIGITS = 7  # 9,999,999 s is 115 days: anything longer is a typing mistake
#: Longest TimeControl read (characters): the longest real one (``40/7200:20/3600:1800+30``) is
#: a third of it. Every reader refuses a longer one in one line: a command line's
#: ``--time-control``, a config's ``time_control``, a trace's start line, a PDN tag.
MAX_TIME_CONTROL_CHARS = 64


def seconds_to_ms(seconds: float) -> int:
    """Whole milliseconds of a non-negative finite number of seconds, rounded to the nearest.

    Raises ValueError (``PdnTimeError``) for a negative, infinite or NaN value.
    """
    # the common case first (a clock is told the time on every journal line and every reading):
    # a float in range (NaN fails the comparison and takes the checks below)
    if type(seconds) is float and 0.0 <= seconds < math.inf:
        return round(seconds * 1000)
    if isinstance(seconds, bool) or not isinstance(seconds, (int, float)):
        raise PdnTimeError(f"a time must be a number of seconds, not {seconds!r}")
    if not math.isfinite(seconds) or seconds < 0:
        raise PdnTimeError(f"a time must be a finite number of seconds >= 0, not {seconds!r}")
    return round(seconds * 1000)


@dataclass(frozen=True, slots=True)
class Period:
    """One period of a time control: ``seconds`` for ``moves`` moves (None: the rest of the game),
    plus ``increment`` seconds credited for every move completed in it (Fischer, COMP 5.9)."""

    moves: int | None
    seconds: int
    increment: int = 0

    def __str__(self) -> str:
        text = str(self.seconds) if self.moves is None else f"{self.moves}/{self.seconds}"
        return f"{text}+{self.increment}" if self.increment else text


@dataclass(frozen=True, slots=True)
class TimeControl:
    """An immutable time control: periods in order, then optionally mosse lampo.

    ``periods``: at least one; only the last may be sudden death (``moves`` None); a last period
    with a move count repeats for ever. ``lampo``: seconds per move once the (sudden-death) time
    is used up (COMP 3.11.3, 5.6), or None. Build with :meth:`parse` or the named constructors;
    the constructor validates and raises ``TimeControlError``.
    """

    periods: tuple[Period, ...]
    lampo: int | None = None

    def __post_init__(self) -> None:
        _validate(self)

    # -- construction -------------------------------------------------------------------------

    @classmethod
    def parse(cls, text: str) -> TimeControl:
        """Read a PDN ``TimeControl`` value (module docstring). Surrounding spaces are ignored.

        Raises ``TimeControlError`` (a ValueError) with a one-line message for anything else,
        including PGN's ``?`` (unknown), ``-`` (none) and ``*seconds`` (sandclock); see
        :func:`parse_time_control_tag` for a reader that maps ``?``/``-`` to None.
        """
        if not isinstance(text, str):
            raise TimeControlError(f"a TimeControl must be a string, not {type(text).__name__}")
        raw = text.strip()
        if len(raw) > MAX_TIME_CONTROL_CHARS:
            raise TimeControlError(f"TimeControl longer than {MAX_TIME_CONTROL_CHARS} characters: "
                                   f"{excerpt(text)}")
        if raw in ("", "?", "-"):
            meaning = {"": "empty", "?": "unknown", "-": "no time control"}[raw]
            raise TimeControlError(f"TimeControl {excerpt(text)} is {meaning}: there is no clock to run")
        if raw.startswith("*"):
            raise TimeControlError(
                f"bad TimeControl {excerpt(text)}: '*' is a PGN sandclock, not used by FID; write mosse "
                "lampo as 'T:1/L' (e.g. '1800:1/30')")
        parts = raw.split(":")
        periods: list[Period] = []
        lampo: int | None = None
        for index, part in enumerate(parts):
            match = _DESCRIPTOR.fullmatch(part)
            if match is None:
                raise TimeControlError(
                    f"bad TimeControl {excerpt(text)}: {excerpt(part)} is not moves/seconds, seconds or "
                    "seconds+increment (whole seconds)")
            for group in match.groups():
                if group is not None and len(group.lstrip("0")) > _MAX_DIGITS:
                    raise TimeControlError(f"bad TimeControl {excerpt(text)}: {excerpt(group)} is too large")
            # each read without its leading zeros (a few digits then, checked above): int() of
            # thousands of digits raises a bare ValueError, whatever their value
            moves_text, seconds_text, increment_text = match.groups()
            moves = None if moves_text is None else _whole(moves_text)
            seconds = _whole(seconds_text)
            increment = 0 if increment_text is None else _whole(increment_text)
            after_sudden_death = bool(periods) and periods[-1].moves is None
            if after_sudden_death:
                # The only thing that may follow a sudden-death period is mosse lampo: "1/L".
                if moves != 1 or increment_text is not None or index != len(parts) - 1:
                    raise TimeControlError(
                        f"bad TimeControl {excerpt(text)}: after a period for the rest of the game only "
                        f"mosse lampo '1/L' may follow, not {excerpt(part)}")
                lampo = seconds
                continue
            periods.append(Period(moves, seconds, increment))
        try:
            return cls(tuple(periods), lampo)
        except TimeControlError as error:
            raise TimeControlError(f"bad TimeControl {excerpt(text)}: {error}") from None

    @classmethod
    def whole_game(cls, seconds: int) -> TimeControl:
        """The whole game in ``seconds`` (COMP 3.11.2)."""
        return cls((Period(None, seconds),))

    @classmethod
    def moves_in_time(cls, moves: int, seconds: int, then: int | None = None) -> TimeControl:
        """``moves`` moves in ``seconds``, unused time carried over (COMP 3.11.1, 4.1); then the
        same again for ever, or the rest of the game in ``then`` seconds."""
        periods: tuple[Period, ...] = (Period(moves, seconds),)
        if then is not None:
            periods += (Period(None, then),)
        return cls(periods)

    @classmethod
    def mosse_lampo(cls, seconds: int, per_move: int | None = None,
                    game: str = "italian") -> TimeControl:
        """``seconds`` for the game, then ``per_move`` seconds for each move (COMP 3.11.3, 5.6):
        by default 30 s in Italian draughts and 60 s ("1'") in international draughts."""
        if per_move is None:
            per_move = 30 if _table(game) == "italian" else 60
        return cls((Period(None, seconds),), per_move)

    @classmethod
    def fischer(cls, seconds: int, bonus: int) -> TimeControl:
        """``seconds`` plus ``bonus`` seconds per completed move (COMP 3.11.4, 5.9)."""
        return cls((Period(None, seconds, bonus),))

    @classmethod
    def moves_then_fischer(cls, moves: int, seconds: int, bonus: int,
                           extra: int = 0) -> TimeControl:
        """``seconds`` for ``moves`` moves, then ``extra`` seconds and ``bonus`` seconds per move
        (COMP 3.11.5)."""
        return cls((Period(moves, seconds), Period(None, extra, bonus)))

    # -- reading --------------------------------------------------------------------------------

    def __str__(self) -> str:
        text = ":".join(str(period) for period in self.periods)
        return text if self.lampo is None else f"{text}:1/{self.lampo}"

    def __repr__(self) -> str:
        return f"TimeControl.parse({str(self)!r})"

    @property
    def kind(self) -> TimeControlKind:
        """Which control of COMP 3.11 this is."""
        first, last = self.periods[0], self.periods[-1]
        if self.lampo is not None:
            return "mosse_lampo"
        no_increments = all(p.increment == 0 for p in self.periods)
        if len(self.periods) == 1 and first.moves is None:
            return "whole_game" if no_increments else "fischer"
        if no_increments:
            return "moves_in_time"
        if (len(self.periods) == 2 and first.increment == 0 and last.moves is None
                and last.increment > 0):
            return "moves_then_fischer"
        return "custom"

    @property
    def article(self) -> str:
        """The article of COMP 3.11 that defines this kind of control (``COMP 3.11.4``)."""
        return _KIND_ARTICLE[self.kind]

    @property
    def initial_ms(self) -> int:
        """Milliseconds on each face at the start (COMP 4.4.1 b)."""
        return self.periods[0].seconds * 1000

    def period_index(self, move_number: int) -> int:
        """Index in ``periods`` of the period a player's ``move_number``-th move (1-based) falls
        in; a repeating last period keeps its index. Raises ValueError if move_number < 1."""
        return self._locate(move_number)[0]

    def credit_ms(self, move_number: int) -> int:
        """Milliseconds credited to a player when he completes his ``move_number``-th move
        (1-based) by pressing the clock: the increment of the period the move is in (COMP 5.9),
        plus the time of the next period when the move completes a period (the unused time stays:
        COMP 4.1). Raises ValueError if move_number < 1."""
        index, completes = self._locate(move_number)
        period = self.periods[index]
        credit = period.increment * 1000
        if completes:
            following = self.periods[index + 1] if index + 1 < len(self.periods) else period
            credit += following.seconds * 1000
        return credit

    def moves_to_control(self, moves_done: int) -> int | None:
        """Moves a player still owes before his current period ends, having completed
        ``moves_done``; None in a period for the rest of the game (COMP 4.3: what the arbiter
        needs to see)."""
        if moves_done < 0:
            raise ValueError(f"moves_done must be >= 0, not {moves_done}")
        start = 0
        for period in self.periods:
            if period.moves is None:
                return None
            if moves_done < start + period.moves:
                return start + period.moves - moves_done
            start += period.moves
        last = self.periods[-1]
        assert last.moves is not None  # the loop returned on a sudden-death period
        return last.moves - (moves_done - start) % last.moves

    def _locate(self, move_number: int) -> tuple[int, bool]:
        """(period index, whether the move is the last of its period)."""
        if move_number < 1:
            raise ValueError(f"move numbers start at 1, not {move_number}")
        start = 0
        for index, period in enumerate(self.periods):
            if period.moves is None:
                return index, False
            if move_number <= start + period.moves:
                return index, move_number == start + period.moves
            start += period.moves
        last = self.periods[-1]
        assert last.moves is not None
        # COMP 4.1 "ecc.": the last period with a move count repeats.
        return len(self.periods) - 1, (move_number - start) % last.moves == 0


def _validate(control: TimeControl) -> None:
    """Raise TimeControlError unless ``control`` is well formed (TimeControl docstring)."""
    periods = control.periods
    if not isinstance(periods, tuple) or not periods:
        raise TimeControlError("a TimeControl needs at least one period")
    for index, period in enumerate(periods):
        if not isinstance(period, Period):
            raise TimeControlError(f"period {index + 1} is not a Period: {period!r}")
        for name in ("moves", "seconds", "increment"):
            value = getattr(period, name)
            if value is not None and (isinstance(value, bool) or not isinstance(value, int)):
                raise TimeControlError(f"period {index + 1}: {name} must be whole, not {value!r}")
        if period.moves is not None and period.moves < 1:
            raise TimeControlError(f"period {index + 1} ({period}): a period needs at least 1 move")
        if period.seconds < 0 or period.increment < 0:
            raise TimeControlError(f"period {index + 1} ({period}): times cannot be negative")
        if period.moves is None and index != len(periods) - 1:
            raise TimeControlError(
                f"period {index + 1} ({period}) is for the rest of the game: nothing can follow "
                "it but mosse lampo")
    if control.lampo is not None:
        if isinstance(control.lampo, bool) or not isinstance(control.lampo, int):
            raise TimeControlError(f"mosse lampo must be whole seconds, not {control.lampo!r}")
        if control.lampo < 1:
            raise TimeControlError("mosse lampo need at least 1 s a move")
        last = periods[-1]
        if last.moves is not None or last.increment:
            raise TimeControlError(
                f"mosse lampo follow a period for the rest of the game without increment, not "
                f"{last} (COMP 3.11.3)")
    elif periods[0].seconds == 0:
        raise TimeControlError(
            f"{periods[0]}: a first period of 0 s loses on time at once (only '0:1/L', mosse "
            "lampo from the first move, may start at 0)")


def _whole(digits: str) -> int:
    """The number written ``digits`` (ASCII digits, at most ``_MAX_DIGITS`` of them after the
    leading zeros)."""
    return int(digits.lstrip("0") or "0")


def parse_time_control_tag(text: str) -> TimeControl | None:
    """Read a PDN ``TimeControl`` tag value: None for ``?`` (unknown), ``-`` (no control) or an
    empty value; otherwise :meth:`TimeControl.parse` (raises ``TimeControlError``)."""
    if isinstance(text, str) and text.strip() in ("", "?", "-"):
        return None
    return TimeControl.parse(text)


# -- COMP 5.3: minimum times ------------------------------------------------------------------

# (table, several days) -> (minimum with mosse lampo, minimum initial with Fischer, minimum bonus)
_MINIMUMS: dict[tuple[str, bool], tuple[int, int, int, str]] = {
    ("italian", True): (35 * 60, 30 * 60, 10, "COMP 5.3.1"),
    ("italian", False): (30 * 60, 30 * 60, 10, "COMP 5.3.2"),
    ("international", True): (45 * 60, 40 * 60, 20, "COMP 5.3.3"),
    ("international", False): (30 * 60, 30 * 60, 15, "COMP 5.3.4"),
}


def _table(game: str) -> str:
    """The COMP 5.3 table of a game: Italian for the 8×8 FID games (italian, english),
    international for the international rules (international, brazilian)."""
    tables = {"italian": "italian", "english": "italian",
              "international": "international", "brazilian": "international"}
    try:
        return tables[game]
    except (KeyError, TypeError):
        raise UnknownVariantError(
            f"unknown game {game!r}: expected one of {', '.join(tables)}") from None


def _minutes(seconds: int) -> str:
    return f"{seconds // 60} min" if seconds % 60 == 0 else f"{seconds} s"


def minimum_time_warnings(control: TimeControl, game: str = "italian",
                          days: int = 1) -> tuple[str, ...]:
    """Where ``control`` falls short of COMP 5.3 (Elo-Rubele events) and 5.6, one line each.

    ``game``: ``italian`` or ``english`` (the Italian table), ``international`` or ``brazilian``
    (the international table); ``days``: how many days the event lasts. COMP 5.3 sets minimums
    only for mosse lampo and Fischer (initial time *and* bonus, note to 5.3.4); other controls
    give no warning. An empty tuple means nothing to report. Raises ``UnknownVariantError`` for
    another game and ValueError for ``days`` < 1.
    """
    if isinstance(days, bool) or not isinstance(days, int) or days < 1:
        raise ValueError(f"days must be a whole number >= 1, not {days!r}")
    table = _table(game)
    lampo_min, fischer_min, bonus_min, article = _MINIMUMS[(table, days >= 2)]
    span = "events of 2 or more days" if days >= 2 else "one-day events"
    warnings: list[str] = []
    kind = control.kind
    if kind == "mosse_lampo":
        base = sum(period.seconds for period in control.periods)
        if base < lampo_min:
            warnings.append(
                f"{article}: {table} {span} need at least {_minutes(lampo_min)} per player with "
                f"mosse lampo, {_minutes(base)} given")
        assert control.lampo is not None
        if table == "italian" and control.lampo != 30:
            warnings.append(
                f"COMP 5.6: Italian mosse lampo are 30 s a move, {control.lampo} s given")
        if table == "international" and not 30 <= control.lampo <= 60:
            warnings.append(
                f"COMP 5.6: international mosse lampo are 30 s to 1 min a move, "
                f"{control.lampo} s given")
    elif kind in ("fischer", "moves_then_fischer"):
        initial = control.periods[0].seconds
        bonus = max(period.increment for period in control.periods)
        if initial < fischer_min:
            warnings.append(
                f"{article}: {table} {span} need at least {_minutes(fischer_min)} initial time "
                f"with the Fischer system, {_minutes(initial)} given")
        if bonus < bonus_min:
            warnings.append(
                f"{article}: {table} {span} need a Fischer bonus of at least {bonus_min} s, "
                f"{bonus} s given")
    return tuple(warnings)


# -- PDN time values --------------------------------------------------------------------------

_PDN_HMS = re.compile(r"([0-9]{1,7}):([0-5][0-9]):([0-5][0-9])(?:\.([0-9]{1,3}))?")
_PDN_HM = re.compile(r"([0-9]{1,7})[:.]([0-5][0-9])")


def format_pdn_time(seconds: float) -> str:
    """A time for the ``WhiteTime``/``BlackTime`` tags: ``h:mm:ss``, with ``.t`` (tenths) when
    the value is not a whole second, floored to the tenth (``4.97`` → ``0:00:04.9``).

    Raises ``PdnTimeError`` for a negative, infinite or NaN value."""
    tenths = seconds_to_ms(seconds) // 100
    hours, rest = divmod(tenths, 36000)
    minutes, rest = divmod(rest, 600)
    whole, tenth = divmod(rest, 10)
    text = f"{hours}:{minutes:02d}:{whole:02d}"
    return f"{text}.{tenth}" if tenth else text


def parse_pdn_time(text: str) -> float:
    """Seconds of a PDN time value: ``h:mm:ss`` with optional decimals (``1:05:23.4``), or
    ``h:mm`` / ``h.mm`` as in the ``WhiteTime "1:36"`` and ``"2.23"`` examples of the PDN 3.0
    standard. Raises ``PdnTimeError`` for anything else."""
    if not isinstance(text, str):
        raise PdnTimeError(f"a PDN time must be a string, not {type(text).__name__}")
    raw = text.strip()
    match = _PDN_HMS.fullmatch(raw)
    if match is not None:
        hours, minutes, secs, fraction = match.groups()
        ms = (int(hours) * 3600 + int(minutes) * 60 + int(secs)) * 1000
        if fraction is not None:
            ms += int(fraction.ljust(3, "0"))
        return ms / 1000
    match = _PDN_HM.fullmatch(raw)
    if match is not None:
        return float(int(match.group(1)) * 3600 + int(match.group(2)) * 60)
    raise PdnTimeError(f"bad PDN time {excerpt(text)}: expected h:mm:ss, h:mm:ss.t or h:mm")


# PDN 3.0, "PDN Extensions", clock command: a [wWbB] letter then h:mm:ss (hours 1-2 digits),
# once or twice; an upper-case letter marks the face that is running. ``[%clk`` is accepted too
# (the standard's own example writes ``{[%clk w0:00:10 B0:00:03]}``).
_CLOCK_TIME = r"([wWbB])([0-9]{1,2}):([0-5][0-9]):([0-5][0-9])(\.[0-9]{1,3})?"
_CLOCK_COMMAND = re.compile(r"\[%(?:clock|clk)\s*" + _CLOCK_TIME + r"\s+" + _CLOCK_TIME + r"\s*\]")
_SIDE_NAMES = ("white", "black")


def format_clock_comment(white_seconds: float, black_seconds: float,
                         running: str | None = None) -> str:
    """The PDN 3.0 clock command for a comment: ``[%clock w0:05:00 B0:04:59]``, White first.

    Times are floored to the whole second (the command has no fractions; never show more time
    than is left). ``running`` (``"white"``/``"black"``) writes that side's letter in upper case,
    as lidraughts does: after White's move ``w… B…``, after Black's ``W… b…``. Raises
    ``PdnTimeError`` for a negative or non-finite time, 100 hours or more, or a bad ``running``.
    """
    if running is not None and running not in _SIDE_NAMES:
        raise PdnTimeError(f"running must be 'white', 'black' or None, not {running!r}")
    fields = []
    for side, seconds in zip(_SIDE_NAMES, (white_seconds, black_seconds), strict=True):
        whole = seconds_to_ms(seconds) // 1000
        hours, rest = divmod(whole, 3600)
        if hours > 99:
            raise PdnTimeError(f"{seconds!r} s does not fit the h:mm:ss of a clock comment")
        letter = side[0].upper() if side == running else side[0]
        fields.append(f"{letter}{hours}:{rest // 60:02d}:{rest % 60:02d}")
    return f"[%clock {fields[0]} {fields[1]}]"


def parse_clock_comment(text: str) -> tuple[float, float] | None:
    """(white seconds, black seconds) of the first two-sided ``[%clock …]`` (or ``[%clk …]``)
    command in a comment text, in either order; None when there is none or it does not name
    both sides (a one-time ``[%clock 0:49:11]`` cannot be told apart)."""
    if not isinstance(text, str):
        return None
    for match in _CLOCK_COMMAND.finditer(text):
        groups = match.groups()
        readings: dict[str, float] = {}
        for letter, hours, minutes, secs, fraction in (groups[:5], groups[5:]):
            ms = (int(hours) * 3600 + int(minutes) * 60 + int(secs)) * 1000
            if fraction is not None:  # not written by us, but read: "0:00:04.5"
                ms += int(fraction[1:].ljust(3, "0"))
            readings[letter.lower()] = ms / 1000
        if set(readings) == {"w", "b"}:
            return readings["w"], readings["b"]
    return None
