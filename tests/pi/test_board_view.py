"""The typed read side of a board (``pi.board.view``): the board's controller and the hub's replica
are both a ``BoardView``, and mypy sees a reader or an implementation that strays from it — a
renamed controller attribute breaks the hall at type-checking time, not at run time."""

from __future__ import annotations

import pathlib
import re
import textwrap

from mypy import api

from pi.board.view import Phase

ROOT = pathlib.Path(__file__).resolve().parents[2]

# Both implementations of the view, and a stand-in with every attribute the view names.
GOOD = """
    from pi.board.controller import BoardController
    from pi.board.view import BoardView, Phase
    from pi.hall.boardview import BoardReplica, ReportedFault
    from pi.web.views import state_dict


    def board(controller: BoardController, replica: BoardReplica) -> list[BoardView]:
        return [controller, replica]


    class StandIn:
        phase = Phase.SETUP
        game = None
        message = ""
        faults: dict[int, ReportedFault] = {}

        def now(self) -> float:
            return 0.0

        @property
        def config(self) -> "Config":
            return Config()

        @property
        def variant(self) -> "Variant":
            return find_variant("italian")


    from engine.variants import Variant, find_variant  # noqa: E402
    from pi.board.config import Config  # noqa: E402


    def shown(stand_in: StandIn) -> object:
        return state_dict(stand_in, 0, arbiter_view=True, snap=None, last_record=None,
                          flag_lines={})
"""

# A reader in the hall that reads what the view does not offer (the controller's own banner).
READER = """
    from pi.board.view import BoardView


    def header(board: BoardView) -> str:
        return board.banner
"""

# The stand-in above with one attribute renamed, ``message`` → ``shown``: no longer a view.
RENAMED = GOOD.replace('message = ""', 'shown = ""')


def _mypy(tmp_path: pathlib.Path, **sources: str) -> dict[str, list[str]]:
    for name, text in sources.items():
        (tmp_path / f"{name}.py").write_text(textwrap.dedent(text))
    out, err, _status = api.run([
        "--strict", "--config-file", str(ROOT / "pyproject.toml"),
        # the checkout's cache (ignored by git), of its own beside tests/test_typing.py's: the
        # package's modules are checked again only when they changed, the three files here always
        "--cache-dir", str(ROOT / ".mypy_cache" / "board-view"), "--no-error-summary",
        *(str(tmp_path / f"{name}.py") for name in sources)])
    errors: dict[str, list[str]] = {name: [] for name in sources}
    for line in (out + err).splitlines():
        m = re.match(r".*?(\w+)\.py:\d+: (?:error|note): (.*)", line)
        if m and m.group(1) in errors:
            errors[m.group(1)].append(m.group(2).strip())
    return errors


def test_mypy_sees_the_controller_and_the_replica_as_views_and_refuses_strays(
        tmp_path: pathlib.Path) -> None:
    errors = _mypy(tmp_path, good=GOOD, reader=READER, renamed=RENAMED)
    assert errors["good"] == [], errors  # both implementations and the stand-in are views
    assert any('"BoardView" has no attribute "banner"' in e for e in errors["reader"]), errors
    assert any('Argument 1 to "state_dict" has incompatible type "StandIn"' in e
               for e in errors["renamed"]), errors
    assert "message" in errors["renamed"], errors  # the protocol member it lacks


def test_the_phase_is_an_enum_not_a_string() -> None:
    """``/api/state``'s ``phase`` is the enum's value; the enum itself is no string, so a test
    of it against ``"playing"`` is a type error (mypy's strict equality), never a silent False."""
    assert [p.value for p in Phase] == ["setup", "playing", "over"]
    assert not isinstance(Phase.PLAYING, str)
