"""Issue 16, the command line as a newcomer meets it: ``--help`` has a line for every positional
and option of every subcommand and states its default; bare ``damiera`` shows the usage and the
commands; ``damiera hub`` without a broker says how to make one (``hub init``); ``--speed``
without ``--trace`` is refused; ``--time-control`` gives the simulated game its clock."""

from __future__ import annotations

import argparse
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from pi.board.config import Config
from pi.cli import build_parser, main
from pi.run import RunError, with_time_control

COMMANDS = ("perft", "moves", "replay", "pdn", "bench", "run", "hub", "token")


def _parsers(parser: argparse.ArgumentParser, path: str
             ) -> Iterator[tuple[str, argparse.ArgumentParser]]:
    yield path, parser
    for action in parser._actions:  # noqa: SLF001 - argparse has no public walk of its parsers
        if isinstance(action, argparse._SubParsersAction):  # noqa: SLF001
            for name, sub in action.choices.items():
                yield from _parsers(sub, f"{path} {name}")


def _walk() -> list[tuple[str, argparse.Action]]:
    return [(path, action) for path, parser in _parsers(build_parser(), "damiera")
            for action in parser._actions  # noqa: SLF001
            if not isinstance(action, argparse._HelpAction)]  # noqa: SLF001


def test_every_action_of_every_subcommand_has_help() -> None:
    """Every positional, option and subcommand says what it is (``damiera X --help``)."""
    walked = _walk()
    assert {path for path, _ in walked} >= {f"damiera {c}" for c in COMMANDS} | {
        "damiera hub init"}
    missing = [(path, action.option_strings or action.dest) for path, action in walked
               if not (action.help or "").strip()]
    assert missing == []
    for path, action in walked:
        if isinstance(action, argparse._SubParsersAction):  # noqa: SLF001
            for choice in action._choices_actions:  # noqa: SLF001
                assert (choice.help or "").strip(), (path, choice.dest)


def test_every_optional_value_states_its_default() -> None:
    """An option that takes a value and may be left out says what happens without it."""
    unstated = [(path, action.option_strings) for path, action in _walk()
                if action.option_strings and not action.required and action.nargs != 0
                and "default" not in (action.help or "")]
    assert unstated == []
    for path, action in _walk():
        if action.default not in (None, False) and action.option_strings:
            assert str(action.default).rstrip("0").rstrip(".") in (action.help or ""), (
                path, action.option_strings, action.default)


def test_bare_damiera_shows_the_usage_and_the_commands() -> None:
    proc = subprocess.run([sys.executable, "-m", "pi.cli"], capture_output=True, text=True,
                          timeout=60)
    assert proc.returncode == 2 and proc.stdout == ""
    assert proc.stderr.startswith("usage: damiera")
    for command in COMMANDS:
        assert f"\n    {command} " in proc.stderr, command
    assert "'damiera COMMAND --help' for its options" in proc.stderr


def test_hub_without_a_broker_mentions_hub_init(tmp_path: Path,
                                                capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["hub", "--state-dir", str(tmp_path)]) == 2
    err = capsys.readouterr().err
    assert "no broker" in err and "damiera hub init --boards N --dir DIR" in err


def test_speed_without_a_trace_is_refused(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["run", "--simulate", "--speed", "4", "--http", "off"]) == 2
    assert "--speed needs --trace" in capsys.readouterr().err
    assert main(["run", "--speed", "4"]) == 2  # and without --simulate, as before
    assert "need --simulate" in capsys.readouterr().err


def test_time_control_option_over_the_config() -> None:
    config = Config(time_control="1800+10")
    assert with_time_control(config, None).time_control == "1800+10"
    assert with_time_control(config, " 3600 ").time_control == "3600"
    assert with_time_control(config, "300+3").time_control == "300+3"
    assert with_time_control(config, "-").time_control is None
    for bad in ("an hour", "1" * 65, "*60"):
        with pytest.raises(RunError, match="--time-control"):
            with_time_control(config, bad)


def test_time_control_with_a_trace_is_refused(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["run", "--simulate", "--trace", "x.jsonl", "--time-control", "300"]) == 2
    assert "start line sets its time control" in capsys.readouterr().err
