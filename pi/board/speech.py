"""A board that speaks: each move as it is committed, irregularities as they are flagged, the
result, and the clock's warnings, in the board's language (``[speech]`` in ``damiera.toml``).

For visually impaired players (both federations admit them) and for lampo play, where nobody
can look away from the board. Three parts:

* the words — :func:`move_phrase`, :func:`flag_phrase`, :func:`result_phrase`,
  :func:`cue_phrase`: a decision or a clock cue as a :class:`Phrase`, its text marked for
  gettext on the board's ``gettext.NullTranslations`` (``engine.i18n``). Moves are said in the
  variant's notation: ``22-18`` as "22 18", a capture ``22x13`` as "22 takes 13" ("22 per 13"),
  algebraic for Brazilian ("c3 d4").
* the clock's warnings — :class:`BoardSpeech` reads every clock reading the controller takes
  with a :class:`engine.clock_display.CueTracker` of its own (:data:`SPEECH_RULES`): the last
  minute and the last ten seconds of a player's time (COMP 3.6.2 h–i: the last minutes' seconds
  shown, the last seconds sounded), the start of the mosse-lampo phase (COMP 5.6) and, in it,
  the arbiter's countdown of every move, "meno 15… meno 10… meno 5, 4, 3, 2, 1, 0!" (COMP 5.7).
* the queue — :class:`PhraseQueue`: phrases are said one at a time on a thread of their own
  (espeak-ng, ``pi.drivers.speech``), so the event loop never waits for the voice; a phrase
  still waiting when a newer one makes it noise is dropped (:data:`SUPERSEDES`: a move said
  after the next was played, a countdown step after the next one fell due). An irregularity,
  the result and the start of the mosse-lampo phase are never dropped for a move.

The controller calls :meth:`BoardSpeech.decided` and :meth:`BoardSpeech.clock` on the event
loop's thread; both only put phrases on the queue.
"""

from __future__ import annotations

import gettext
import logging
import os
import threading
from collections import deque
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from typing import Literal, Protocol

from engine.articles import article, title
from engine.clock_display import Cue, CueTracker, DisplayRules
from engine.clock_events import ClockReading
from engine.colour import Colour
from engine.decisions import Decision, Flag, FlagDecided, FlagRaised, GameEnded, MoveCommitted
from engine.variants import find_variant

log = logging.getLogger(__name__)

__all__ = ["Phrase", "PhraseKind", "SUPERSEDES", "PhraseQueue", "BoardSpeech", "Speaker",
           "SPEECH_RULES", "move_phrase", "flag_phrase", "decided_phrase", "result_phrase",
           "cue_phrase", "phrases"]

PhraseKind = Literal["move", "flag", "result", "clock", "phase"]

#: What a new phrase of each kind makes stale among the phrases still waiting: a move said
#: after the next was played is noise, and so is a clock warning said after a move or a later
#: warning; an irregularity, the result and the mosse-lampo phase begun (``phase``: from then
#: on every move has its countdown, COMP 5.6) stay until they are said.
SUPERSEDES: dict[PhraseKind, frozenset[PhraseKind]] = {
    "move": frozenset({"move", "clock"}),
    "clock": frozenset({"clock"}),
    "flag": frozenset({"clock"}),
    "result": frozenset({"clock"}),
    "phase": frozenset({"clock"}),
}

#: The article of a move whose clock press was forgotten, committed when the opponent moved on
#: (COMP 4.6; the COMP articles are the same in every rule set): not said, nobody but the
#: opponent may point the forgotten press out, and the move said while the forgetful player's
#: face still runs would.
FORGOTTEN_PRESS = article(find_variant("italian"), "press_forgotten").code

#: How far the speech thread and the espeak-ng it starts sit below the daemon (``PhraseQueue``:
#: niceness raised by this much).
NICE = 10

#: The clock's spoken warnings outside the lampo countdown: the last minute and the last ten
#: seconds (COMP 3.6.2 h–i; the buzzer beeps the last seconds one by one, the voice says two).
SPEECH_RULES = DisplayRules(beep_seconds=(60, 10))


@dataclass(frozen=True, slots=True)
class Phrase:
    """What the board says: ``text`` in the board's language, ``kind`` for the queue's
    :data:`SUPERSEDES`."""

    text: str
    kind: PhraseKind


class Speaker(Protocol):
    """The synthesizer (``pi.drivers.speech.Espeak``): says ``text``, returning once it is said;
    False when it could not (it has logged why). Called on the queue's thread only."""

    def say(self, text: str) -> bool: ...


# ---------------------------------------------------------------------- the words

def move_phrase(d: MoveCommitted, t: gettext.NullTranslations) -> Phrase:
    """The move as the variant writes it, said: ``22-18`` "22 18"; ``22x13`` "22 takes 13",
    ``22x13x6`` "22 takes 13 takes 6" (numbers for the 8×8 and 10×10 rules, algebraic squares
    for Brazilian)."""
    if "x" in d.notation:
        squares = [s for s in d.notation.split("x") if s]
        text = squares[0]
        for square in squares[1:]:
            # TRANSLATORS: a capture said aloud, square by square: "22 takes 13"
            text = t.gettext("{move} takes {square}").format(move=text, square=square)
        return Phrase(text, "move")
    return Phrase(" ".join(s for s in d.notation.split("-") if s), "move")


def flag_phrase(flag: Flag, t: gettext.NullTranslations) -> Phrase | None:
    """An irregularity as it is flagged (pending the opponent's decision): "irregularity:" and
    its article's title; None for the other kinds of flag (notices, incorrectness: recorded,
    not said; the result is :func:`result_phrase`'s)."""
    if flag.kind != "irregularity" or flag.status != "pending":
        return None
    name = title(flag.code)
    return Phrase(t.gettext("irregularity: {title}").format(
        title=t.gettext(name) if name else flag.code), "flag")


def decided_phrase(d: FlagDecided, t: gettext.NullTranslations) -> Phrase | None:
    """An irregularity decided: corrected (the position put back, IT 8.2) or kept (IT 8.2,
    8.3); None for other flags."""
    if d.flag.kind != "irregularity":
        return None
    if d.flag.status == "corrected":
        return Phrase(t.gettext("irregularity corrected"), "flag")
    if d.flag.status == "maintained":
        return Phrase(t.gettext("irregularity kept"), "flag")
    return None


def result_phrase(d: GameEnded, t: gettext.NullTranslations) -> Phrase:
    """The game's end: who won, or a draw."""
    if d.winner is Colour.WHITE:
        return Phrase(t.gettext("game over: White wins"), "result")
    if d.winner is Colour.BLACK:
        return Phrase(t.gettext("game over: Black wins"), "result")
    if d.result in ("1-1", "1/2-1/2"):
        return Phrase(t.gettext("game over: draw"), "result")
    return Phrase(t.gettext("game over"), "result")


def phrases(decisions: Iterable[Decision], t: gettext.NullTranslations) -> list[Phrase]:
    """What the board says of ``decisions`` (one input's), in their order, but the move first:
    an irregular move is flagged as it is committed, and said before its flag ("18 14.
    irregularity: …"). A move whose press was forgotten (:data:`FORGOTTEN_PRESS`) is not
    said."""
    out: list[Phrase] = []
    for d in decisions:
        phrase: Phrase | None = None
        if isinstance(d, MoveCommitted):
            phrase = None if d.article == FORGOTTEN_PRESS else move_phrase(d, t)
        elif isinstance(d, FlagRaised):
            phrase = flag_phrase(d.flag, t)
        elif isinstance(d, FlagDecided):
            phrase = decided_phrase(d, t)
        elif isinstance(d, GameEnded):
            phrase = result_phrase(d, t)
        if phrase is not None:
            out.append(phrase)
    return sorted(out, key=lambda p: p.kind != "move")


def cue_phrase(cue: Cue, t: gettext.NullTranslations) -> Phrase | None:
    """A clock cue of :data:`SPEECH_RULES` said: the last minute, ten seconds left (COMP 3.6.2
    h–i), the mosse-lampo phase begun (COMP 5.6) and its countdown (COMP 5.7: "minus 15",
    "minus 10", "minus 5", "4" … "1", "zero"); None for the flag (the result says it)."""
    white = cue.side is Colour.WHITE
    if cue.kind == "lampo_start":
        return Phrase(t.gettext("White: mosse lampo") if white else t.gettext("Black: mosse lampo"),
                      "phase")
    if cue.kind == "lampo":
        seconds = cue.threshold_ms // 1000
        if seconds == 0:
            return Phrase(t.gettext("zero"), "clock")
        if seconds >= 5:
            return Phrase(t.gettext("minus {n}").format(n=seconds), "clock")
        return Phrase(str(seconds), "clock")
    if cue.kind == "beep":
        seconds = cue.threshold_ms // 1000
        if seconds == 60:
            return Phrase(t.gettext("White: last minute") if white
                          else t.gettext("Black: last minute"), "clock")
        text = (t.ngettext("White: {n} second", "White: {n} seconds", seconds) if white
                else t.ngettext("Black: {n} second", "Black: {n} seconds", seconds))
        return Phrase(text.format(n=seconds), "clock")
    return None


# ---------------------------------------------------------------------- the queue

class PhraseQueue:
    """Says phrases one at a time with ``say(phrase)`` on a thread of its own (named ``name``,
    started at the first :meth:`put`). A phrase put drops every phrase still waiting that it
    makes stale (:data:`SUPERSEDES`), and the oldest waiting when ``limit`` wait already; the
    phrase being said is never cut. An exception from ``say`` is logged and contained.
    ``nice``: how much the thread's niceness is raised above the daemon's (Linux; 19 at most),
    so that what it starts (espeak-ng) yields the CPU to the daemon's own threads.
    Thread-safe; :meth:`put` never blocks."""

    def __init__(self, say: Callable[[Phrase], object], name: str = "speech",
                 limit: int = 8, nice: int = 0) -> None:
        self._say = say
        self.name = name
        self.limit = limit
        self.nice = nice
        self._cond = threading.Condition()
        self._waiting: deque[Phrase] = deque()
        self._busy = False
        self._closing = False
        self._thread: threading.Thread | None = None
        #: phrases dropped as stale or for room
        self.dropped = 0

    def put(self, phrase: Phrase) -> None:
        """Queues ``phrase``; returns at once. After :meth:`close`, dropped."""
        with self._cond:
            if self._closing:
                self.dropped += 1
                return
            stale = SUPERSEDES[phrase.kind]
            if stale:
                kept = deque(p for p in self._waiting if p.kind not in stale)
                self.dropped += len(self._waiting) - len(kept)
                self._waiting = kept
            while len(self._waiting) >= self.limit:
                self._waiting.popleft()
                self.dropped += 1
            self._waiting.append(phrase)
            if self._thread is None:
                self._thread = threading.Thread(target=self._run, name=self.name, daemon=True)
                self._thread.start()
            self._cond.notify_all()

    def flush(self, timeout: float | None = None) -> bool:
        """Waits until every phrase put has been said or dropped (at most ``timeout`` seconds);
        False on timeout."""
        with self._cond:
            return self._cond.wait_for(lambda: not self._waiting and not self._busy, timeout)

    def close(self, timeout: float = 5.0) -> None:
        """Says what still waits for at most ``timeout`` seconds (the last move, the result),
        drops the rest and ends the thread once the phrase being said ends. Idempotent."""
        self.flush(timeout)
        with self._cond:
            self._closing = True
            self.dropped += len(self._waiting)
            self._waiting.clear()
            self._cond.notify_all()
            thread = self._thread
        if thread is not None:
            thread.join(timeout)

    def _run(self) -> None:
        if self.nice:
            try:  # Linux: a thread's own niceness, which the processes it starts inherit
                tid = threading.get_native_id()
                own = os.getpriority(os.PRIO_PROCESS, tid)
                os.setpriority(os.PRIO_PROCESS, tid, min(19, own + self.nice))
            except OSError as exc:
                log.info("%s: priority not lowered (%s)", self.name, exc)
        while True:
            with self._cond:
                while not self._waiting and not self._closing:
                    self._cond.wait()
                if not self._waiting:
                    return
                phrase = self._waiting.popleft()
                self._busy = True
            try:
                self._say(phrase)
            except Exception:  # the voice must go on: the next phrase may well be said
                log.exception("%s: failed on %r; the next phrase is said as usual", self.name,
                              phrase.text)
            finally:
                with self._cond:
                    self._busy = False
                    self._cond.notify_all()


# ---------------------------------------------------------------------- the board's voice

class BoardSpeech:
    """The controller's voice: what it decides and what its clock shows, said through
    ``speaker`` (``pi.drivers.speech.Espeak``) on a :class:`PhraseQueue`, in the language of
    ``translations``. :meth:`decided` and :meth:`clock` are called on the event loop's thread
    and only queue phrases."""

    def __init__(self, speaker: Speaker, translations: gettext.NullTranslations,
                 limit: int = 8) -> None:
        self.speaker = speaker
        self.translations = translations
        # nice 10: espeak-ng's synthesis (tens of ms of CPU a phrase) must not delay the
        # journal's writer or the scans on a Pi's few cores
        self.queue = PhraseQueue(lambda p: speaker.say(p.text), "speech", limit, nice=NICE)
        self._cues = CueTracker(SPEECH_RULES)
        self._game: str | None = None

    def decided(self, decisions: Iterable[Decision]) -> None:
        """Says the moves, irregularities and result among ``decisions``."""
        for phrase in phrases(decisions, self.translations):
            self.queue.put(phrase)

    def clock(self, reading: ClockReading, game: str) -> None:
        """A reading of the running clock of game ``game``: says the warnings it crossed since
        the last reading (a new game starts afresh)."""
        if game != self._game:
            self._game = game
            self._cues = CueTracker(SPEECH_RULES)
        for cue in self._cues.update(reading):
            phrase = cue_phrase(cue, self.translations)
            if phrase is not None:
                self.queue.put(phrase)

    def close(self) -> None:
        """Ends the voice: what still waits is said for a few seconds, then dropped."""
        self.queue.close()
