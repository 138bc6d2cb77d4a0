"""Exceptions of one board's daemon: its configuration, its state directory and its journals.

Each message is one line naming the file (and the key, for a configuration), shown as is.
"""

from __future__ import annotations

from pathlib import Path

from engine.errors import ConfigurationError, InputError, StateError

__all__ = ["ConfigError", "StateDirError", "StateDirBusyError", "JournalError", "JournalWriteError",
           "JournalDamagedError", "GameFilesError", "ActionRefused", "ActionLate", "GameDirError"]


class ConfigError(ConfigurationError):
    """A configuration file that cannot be read or holds a bad value: one line, file and key."""

    def __init__(self, source: str, key: str, problem: str) -> None:
        super().__init__(f"{source}: {key}: {problem}" if key else f"{source}: {problem}")
        self.source = source
        self.key = key
        self.problem = problem


class StateDirError(StateError):
    """The state directory cannot be used (missing permission, not a directory, full...); one line."""


class StateDirBusyError(StateDirError):
    """Another process holds the state directory's lock (a second daemon on the same board)."""


class JournalError(StateError):
    """Base class of the journal's errors; each message is one line naming the file."""


class JournalWriteError(JournalError):
    """An append failed: the line is not in the journal."""


class JournalDamagedError(JournalError):
    """The journal is damaged beyond a torn last line: kept untouched, a new game must start."""

    def __init__(self, path: Path, line: int, problem: str) -> None:
        super().__init__(f"{path}: line {line}: {problem}; the journal is kept as it is and a "
                         "new game starts")
        self.path = path
        self.line = line
        self.problem = problem


class GameFilesError(StateError):
    """A game's ``game.pdn``/``report.json`` (derived from its journal, which has everything)
    could not be written: said on the screen while the board runs, and as the daemon's exit
    status when it stops with them still unwritten."""


class ActionRefused(StateError):
    """An arbiter's action the board does not carry out in its present state; the message is one
    line for people (``no game in play``)."""


class ActionLate(ActionRefused):
    """An arbiter's action not journaled in time (``ACT_TIMEOUT``): it may still be, later."""


class GameDirError(InputError):
    """A game's folder or journal that ``damiera report`` cannot use (not a folder, no
    ``trace.jsonl``, not UTF-8, no start line): one line naming it."""
