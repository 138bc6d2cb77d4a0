"""An arbiter's action as a request from outside the board (``POST /api/arbiter`` of the web
server, a ``cmd`` of the hall's hub): the docs/trace-format.md object less ``t``, checked before it goes
into the daemon's inbox as an :class:`engine.events.ArbiterActed`.

The checks are those of ``POST /api/arbiter`` (``pi/web/API.md``), so that an action refused on
one path is refused on the other with the same words.
"""

from __future__ import annotations

import unicodedata
from dataclasses import dataclass
from typing import Any

from engine.events import ARBITER_ACTIONS
from engine.trace import NOT_ONE_LINE
from engine.trace import RESULTS as GAME_RESULTS

__all__ = ["ArbiterRequest", "check_arbiter_request", "note_text", "RESULTS", "DECIDES_POSITION"]

#: The results ``adjudicate`` takes (PDN results of every variant's style); ``correct_result``
#: takes a game's result (``engine.trace.RESULTS``, the variant's checked by the board).
RESULTS = ("1-0", "0-1", "1/2-1/2", "2-0", "0-2", "1-1", "0-0", "*")
_MAX_NOTE = 2000
_MAX_GAME_ID = 128
#: The actions that decide on the position the arbiter saw: refused once the game moved on
#: past the journal line the arbiter last saw (``seen``).
DECIDES_POSITION = ("restore", "impose_count", "adjudicate")


@dataclass(frozen=True, slots=True)
class ArbiterRequest:
    """A checked action: ``action`` (one of ``ARBITER_ACTIONS``), ``result`` (adjudicate and
    correct_result), ``text`` (note, and correct_result's reason: valid Unicode, no control
    character), ``public`` (note only: the
    public may see it; COMP 6.16 notes are the arbiter's otherwise); ``game``: the id of the
    game it is meant for, and ``seen``: the last journal line the arbiter saw of it (the board
    refuses an action for another game, or one of :data:`DECIDES_POSITION` once the game moved
    on past ``seen``; None: not said)."""

    action: str
    result: str | None = None
    text: str | None = None
    public: bool = False
    game: str | None = None
    seen: int | None = None

    def to_dict(self) -> dict[str, Any]:
        """The docs/trace-format.md arbiter object less ``t`` (``result`` and ``text`` only when set,
        ``public`` only when true)."""
        out: dict[str, Any] = {"action": self.action}
        if self.result is not None:
            out["result"] = self.result
        if self.text is not None:
            out["text"] = self.text
        if self.public:
            out["public"] = True
        return out

    def to_command(self) -> dict[str, Any]:
        """:meth:`to_dict` with ``game`` and ``seen`` when set (a hall command's action)."""
        out = self.to_dict()
        if self.game is not None:
            out["game"] = self.game
        if self.seen is not None:
            out["seen"] = self.seen
        return out

    def matches(self, record: dict[str, Any]) -> bool:
        """``record`` (a journal line) is this action journaled."""
        return (record.get("type") == "arbiter" and record.get("action") == self.action
                and record.get("result") == self.result and record.get("text") == self.text
                and (record.get("public") is True) == self.public)


def check_arbiter_request(body: Any) -> ArbiterRequest:
    """``body`` read as an action. Raises ValueError with one line saying what is wrong."""
    if not isinstance(body, dict):
        raise ValueError("an action is a JSON object")
    action = body.get("action")
    if not isinstance(action, str) or action not in ARBITER_ACTIONS:
        raise ValueError(f"unknown action; expected one of {', '.join(ARBITER_ACTIONS)}")
    extra = set(body) - {"action", "result", "text", "type", "public", "game", "seen"}
    if extra:
        raise ValueError(f"unexpected key(s): {', '.join(sorted(map(str, extra)))[:120]}")
    result, text = body.get("result"), body.get("text")
    if action == "adjudicate":
        if result not in RESULTS:
            raise ValueError("adjudicate needs \"result\": a PDN result")
    elif action == "correct_result":
        if result not in GAME_RESULTS:
            raise ValueError("correct_result needs \"result\": a PDN result "
                             f"({', '.join(GAME_RESULTS)})")
    elif result is not None:
        raise ValueError("only adjudicate and correct_result take a result")
    public = body.get("public", False)
    if action == "note":
        if not isinstance(text, str) or not text.strip() or len(text) > _MAX_NOTE:
            raise ValueError(f"note needs \"text\": 1 to {_MAX_NOTE} characters")
        text = note_text(text)
        if not isinstance(public, bool):
            raise ValueError("\"public\" is true or false")
    elif action == "correct_result":
        # COMP 6.16: the arbiter says why the result is corrected (one line, as a note)
        if not isinstance(text, str) or not text.strip() or len(text) > _MAX_NOTE:
            raise ValueError(f"correct_result needs \"text\", the reason: 1 to {_MAX_NOTE} "
                             "characters")
        text = note_text(text)
        if public is not False:
            raise ValueError("only note takes \"public\"")
    elif text is not None:
        raise ValueError("only note and correct_result take a text")
    elif public is not False:
        raise ValueError("only note takes \"public\"")
    game, seen = body.get("game"), body.get("seen")
    if game is not None and (not isinstance(game, str) or not 1 <= len(game) <= _MAX_GAME_ID):
        raise ValueError("\"game\" is the id of the game the action is for")
    if seen is not None and (isinstance(seen, bool) or not isinstance(seen, int)
                             or not 0 <= seen <= 10**9):
        raise ValueError("\"seen\" is the last journal line the arbiter saw (a number)")
    return ArbiterRequest(action, result, text, public, game, seen)


def note_text(text: str) -> str:
    """A note's ``text`` as it is journaled: each control character (a newline, a tab, a line
    or paragraph separator: the board's screen draws one line) replaced by a space. Raises
    ValueError for text that is not valid Unicode (a lone surrogate: the journal, UTF-8,
    cannot hold it) or that is blank once cleaned."""
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        raise ValueError("note \"text\" is not valid Unicode (a lone surrogate)") from None
    clean = "".join(" " if unicodedata.category(ch) in NOT_ONE_LINE else ch for ch in text)
    if not clean.strip():
        raise ValueError(f"note needs \"text\": 1 to {_MAX_NOTE} characters")
    return clean

