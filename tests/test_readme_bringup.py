"""Every ``damiera`` command of the board builder's guide's "Building a board" section
(docs/board-builder.md, its ``sh pi`` block: on the board's Pi) runs exactly as written,
with ``--simulate`` (on the register-level fakes), in order, in one folder: doctor, probe, map
(writing the wiring file the next ones read), probe again, watch, test, diagram. On a sound
simulated board each exits 0; the example with a planted fault names it."""

from __future__ import annotations

import re
import shlex
from pathlib import Path

import pytest

from pi.cli import main

GUIDE = Path(__file__).resolve().parent.parent / "docs" / "board-builder.md"
#: Commands that touch no hardware: run as written, without --simulate.
NO_HARDWARE = ("damiera hardware diagram",)


def section() -> str:
    text = GUIDE.read_text(encoding="utf-8")
    start = text.index("## Building a board")
    return text[start:text.index("\n## ", start + 1)]


def block_commands() -> list[str]:
    blocks = re.findall(r"```sh pi\n(.*?)```", section(), re.S)
    return [line.strip() for block in blocks for line in block.splitlines()
            if line.strip().startswith("damiera ")]


def inline_commands() -> list[str]:
    """Whole bring-up commands quoted in the prose (with options), not the bare command names
    (nor the daemon's ``damiera run --simulate`` the demo board's paragraph names)."""
    found = (" ".join(m.split()) for m in re.findall(r"`(damiera hardware [^`]+)`", section()))
    return [c for c in found if " --" in c]


def test_the_section_shows_the_bring_up_in_order() -> None:
    order = [c.split(" --")[0] for c in block_commands()]
    assert order == ["damiera doctor", "damiera hardware probe", "damiera hardware map",
                     "damiera hardware probe", "damiera hardware watch", "damiera hardware test",
                     "damiera hardware diagram"]
    assert "sudo systemd/install-pi.sh --wiring wiring.toml" in section()


def test_every_command_runs_as_written(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                       capsys: pytest.CaptureFixture[str]) -> None:
    monkeypatch.chdir(tmp_path)
    monkeypatch.delenv("STATE_DIRECTORY", raising=False)
    for command in block_commands():
        argv = shlex.split(command)[1:]
        if not command.startswith(NO_HARDWARE):
            argv.append("--simulate")
        code = main(argv)
        out = capsys.readouterr()
        assert code == 0, (command, out.out[-2000:], out.err)
        assert out.err == "", command
    assert (tmp_path / "wiring.toml").is_file() and (tmp_path / "wiring.svg").is_file()
    assert len(list((tmp_path / ".state" / "board-tests").glob("*.json"))) == 1


def test_the_fault_example_names_the_fault(monkeypatch: pytest.MonkeyPatch, tmp_path: Path,
                                           capsys: pytest.CaptureFixture[str]) -> None:
    root = Path(__file__).resolve().parent.parent
    commands = inline_commands()
    assert commands == ["damiera hardware test --wiring pi/drivers/wiring/mcp23017_8x8.toml "
                        "--variant italian --simulate --fault swap:b1,d1"]
    monkeypatch.chdir(root)
    monkeypatch.setenv("STATE_DIRECTORY", str(tmp_path))
    code = main(shlex.split(commands[0])[1:])
    out = capsys.readouterr().out
    assert code == 1
    assert "b1: swapped with d1" in out and "names `b1: swapped with d1`" in section()
