"""Every command of the README and the guides (docs/*.md, the incoming ones too) is run by a
test as written (issue 16: "Every command in them is run by a test or by CI as written").

Each ``sh`` block is run here, command after command, in a folder of its own holding the
checkout's files, with the venv's bin first on PATH (tests/doc_blocks.py): a command that
finishes must exit 0 and print something (or write the file it names); a long-running one (a
daemon, the broker, the hub, ``make run``) is started, must come up (its page answers, its
broker listens) and is stopped (Ctrl-C) when the block ends, so that the commands after it in
the block use it. Only the ports change, where an option or a URL names them.

What is not run here is listed below with the test (or CI script) that runs it as written,
and this test checks that the named file holds it. Commands for the Raspberry Pi (```sh pi)
are listed with what checks them on a PC, and may only be in the board builder's guide. A
command added to a guide and not run fails here.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from tests.doc_blocks import (
    LONG_RUNNING,
    OTHER_INFO,
    PI_INFO,
    ROOT,
    SHELL_INFO,
    Block,
    Finished,
    Ports,
    VENV,
    Served,
    blocks,
    command_key,
    guides,
    make_sandbox,
    run_finishing,
    serving,
)

pytestmark = pytest.mark.heavy  # every command of the guides, as written: run first (tests/conftest.py)

#: Commands not run here: each with the file that runs it exactly as written.
RUN_ELSEWHERE: dict[str, str] = {
    "make test": ".ci/run",  # CI: the whole suite, this test included
}

#: Whole blocks run elsewhere: (guide, heading) → the test that reads that block from the guide
#: and runs it as written (it names the guide and the heading).
BLOCKS_ELSEWHERE: dict[tuple[str, str], str] = {
    ("docs/organiser.md", "## A round, step by step, on one PC"):
        "tests/hall/test_readme_hall_recipe.py",
    # a game's report: the board's block against a daemon with a game, the hub's against a hub
    ("docs/arbiter-report.md", "## From the command line"): "tests/web/test_report_endpoint.py",
    # the voice: with ALSA pointed at no device, so a PC with audio hears what one without does
    ("docs/speech.md", "## On a PC: `make run` with speech"): "tests/pi/test_speech_docs.py",
    # benchmarks: run with small numbers there (the hall's with the slow marker)
    ("docs/developer-hub-load.md", "## The benchmarks"): "tests/benchmarks/test_bench_hub.py",
    ("docs/developer-board-latency.md", "## How it was measured"):
        "tests/benchmarks/test_board_latency_doc.py",
    # on a copy of the sources: run here, it would rewrite the committed catalogs
    ("docs/languages.md", "## Adding or changing a message"): "tests/i18n/test_make_catalogs.py",
}

#: The Raspberry Pi's commands (```sh pi, in docs/board-builder.md only), not run on a PC, and
#: what checks each here.
PI_ONLY: dict[str, str] = {
    "damiera doctor": "tests/test_readme_bringup.py (as written, with --simulate)",
    "damiera hardware probe": "tests/test_readme_bringup.py (as written, with --simulate)",
    "damiera hardware map --variant italian --out wiring.toml":
        "tests/test_readme_bringup.py (as written, with --simulate)",
    "damiera hardware probe --wiring wiring.toml":
        "tests/test_readme_bringup.py (as written, with --simulate)",
    "damiera hardware watch --wiring wiring.toml --seconds 10":
        "tests/test_readme_bringup.py (as written, with --simulate)",
    "damiera hardware test --wiring wiring.toml --variant italian":
        "tests/test_readme_bringup.py (as written, with --simulate)",
    "damiera hardware diagram --wiring wiring.toml --out wiring.svg":
        "tests/test_readme_bringup.py (as written: it touches no hardware)",
    "sudo systemd/install-pi.sh --wiring wiring.toml --dry-run":
        "tests/pi/test_systemd_unit.py (the installer's dry run, its unit, shellcheck)",
    "sudo systemd/install-pi.sh --wiring wiring.toml":
        "tests/pi/test_systemd_unit.py (the installer's dry run, its unit, shellcheck)",
    "sudo raspi-config nonint do_i2c 0":
        "tests/pi/test_systemd_unit.py (the installer runs it on a Pi: raspi-config)",
    "sudo usermod -aG i2c $USER":
        "tests/pi/test_systemd_unit.py (the installer does it for the user damiera)",
}
PI_GUIDE = "docs/board-builder.md"

#: A line printed by some commands, checked beside the exit status.
EXPECTED_OUTPUT: dict[str, str] = {
    "damiera --help": "usage: damiera",
    "damiera perft --variant italian --depth 6": "36473",
    "damiera moves --variant italian --fen 'W:W30:B27' --json": '"notation": "30x23"',
    "damiera replay pi/samples/italian_sample.jsonl": "Result: 1-0",
    "damiera replay sample/games/*/trace.jsonl": "Result: 1-0",
    "damiera hardware test --wiring pi/drivers/wiring/mcp23017_8x8.toml --variant italian "
    "--simulate --fault swap:b1,d1": "b1: swapped with d1",
    "damiera hardware test --wiring board.toml --variant english": "OK: 32 squares, 0 named",
    "damiera hardware test --wiring board.toml --variant brazilian": "FAIL c3: sensor gain",
}
#: Commands whose exit status is not 0 by design, with it.
EXIT_STATUS: dict[str, int] = {
    # a planted fault: the board has one, exit 1 (the guide says so)
    "damiera hardware test --wiring pi/drivers/wiring/mcp23017_8x8.toml --variant italian "
    "--simulate --fault swap:b1,d1": 1,
    # the analog board's planted faults (issue 40): named, exit 1 (the guide says so)
    "damiera hardware calibrate --wiring board.toml --simulate --fault gain:c3:0.7 "
    "--fault clip:e3:80": 1,
    "damiera hardware test --wiring board.toml --variant brazilian": 1,
}
#: A command like ``damiera …`` or ``sudo …`` in a non-shell block is a form: it has a
#: placeholder (an UPPERCASE word, ``[…]`` or ``<…>``).
COMMAND_WORDS = re.compile(r"^(damiera|make|mosquitto|curl|sudo|python|\.venv/bin/)\b")
PLACEHOLDER = re.compile(r"\[|<|\b[A-Z][A-Z0-9_]*\b")


def all_blocks() -> list[Block]:
    return [b for g in guides() for b in blocks(g)]


def rel(path: Path) -> str:
    return str(path.relative_to(ROOT))


def run_here(block: Block) -> bool:
    return block.info in SHELL_INFO and (rel(block.path), block.heading) not in BLOCKS_ELSEWHERE


def shell_blocks() -> list[Block]:
    return [b for b in all_blocks() if run_here(b)]


# -- what the guides hold ----------------------------------------------------------------------


def test_every_fence_is_a_known_kind() -> None:
    kinds = SHELL_INFO | OTHER_INFO | {PI_INFO}
    odd = [f"{b.name}: ```{b.info}" for b in all_blocks() if b.info not in kinds]
    assert not odd, f"a fence of an unknown kind (sh, sh pi, {', '.join(sorted(OTHER_INFO))}):" \
                    f" {odd}"


def test_commands_outside_shell_blocks_are_forms_with_placeholders() -> None:
    """A runnable command cannot hide in a ```text block: there a command line is a form."""
    hidden = []
    for b in all_blocks():
        if b.info in OTHER_INFO and b.info != "python":
            for c in b.commands:
                key = command_key(c)
                if COMMAND_WORDS.match(key) and not PLACEHOLDER.search(key):
                    hidden.append(f"{b.name}: {key}")
    assert not hidden, f"put these in a ```sh block (they are run then): {hidden}"


def test_pi_commands_are_declared_and_only_in_the_board_builders_guide() -> None:
    pi_blocks = [b for b in all_blocks() if b.info == PI_INFO]
    assert {rel(b.path) for b in pi_blocks} == {PI_GUIDE}
    found = {command_key(c) for b in pi_blocks for c in b.commands}
    assert found - set(PI_ONLY) == set(), "a Pi command not declared in PI_ONLY (what checks it?)"
    assert set(PI_ONLY) - found == set(), "PI_ONLY lists a command no guide has any more"
    for command, checker in PI_ONLY.items():
        named = ROOT / checker.split()[0]
        assert named.is_file(), (command, checker)


def test_commands_run_elsewhere_are_in_the_guides_and_in_the_named_file() -> None:
    in_guides = {command_key(c) for b in all_blocks() if b.info in SHELL_INFO for c in b.commands}
    for command, runner in RUN_ELSEWHERE.items():
        assert command in in_guides, f"{command!r}: no guide has it any more"
        lines = [line.strip() for line in (ROOT / runner).read_text().splitlines()]
        assert command in lines, f"{runner} does not run {command!r} as written"
    headings = {(rel(b.path), b.heading) for b in all_blocks() if b.info in SHELL_INFO}
    for (guide, heading), runner in BLOCKS_ELSEWHERE.items():
        assert (guide, heading) in headings, f"{guide}: no sh block under {heading!r}"
        text = (ROOT / runner).read_text()
        assert guide in text and heading in text, f"{runner} does not read {guide} {heading!r}"


def _slug(heading: str) -> str:
    """A heading's anchor as GitHub makes it."""
    return re.sub(r"[^\w\- ]", "", heading.strip().lower()).replace(" ", "-")


def _anchors(path: Path) -> set[str]:
    text = path.read_text(encoding="utf-8")
    text = re.sub(r"^```.*?^```", "", text, flags=re.S | re.M)
    return {_slug(line.lstrip("#")) for line in text.splitlines() if line.startswith("#")}


def test_links_between_the_guides_resolve() -> None:
    """Every relative link of the README and the guides names a file that exists and, with
    ``#anchor``, a heading of that file (the README's sections moved into docs/)."""
    broken = []
    for guide in guides():
        for target in re.findall(r"\]\(([^)\s]+)\)", guide.read_text(encoding="utf-8")):
            if re.match(r"[a-z]+:", target):
                continue
            path, _, anchor = target.partition("#")
            linked = (guide.parent / path).resolve() if path else guide
            if not linked.exists():
                broken.append(f"{rel(guide)}: {target} (no such file)")
            elif anchor and linked.suffix == ".md" and anchor not in _anchors(linked):
                broken.append(f"{rel(guide)}: {target} (no such heading)")
    assert not broken, broken


def test_there_are_commands_to_run() -> None:
    """The guides have runnable blocks (the extraction is not silently empty)."""
    runnable = [c for b in shell_blocks() for c in b.commands]
    assert len(runnable) >= 20, runnable
    assert "make run" in {command_key(c) for c in runnable}


# -- each block run as written -----------------------------------------------------------------


def _params() -> list[object]:
    return [pytest.param(b, id=b.name) for b in shell_blocks()]


def _check_finished(key: str, done: Finished, cwd: Path) -> None:
    want = EXIT_STATUS.get(key, 0)
    assert done.returncode == want, (key, done.returncode, done.stdout[-2000:],
                                     done.stderr[-2000:])
    expected = EXPECTED_OUTPUT.get(key)
    if expected is not None:
        assert expected in done.stdout, (key, done.stdout[-2000:])
    written = re.search(r"(?:--out|>)\s*(\S+)\s*$", key)
    if written is not None:
        assert (cwd / written.group(1)).stat().st_size > 0, key
    else:
        assert (done.stdout + done.stderr).strip(), f"{key}: printed nothing"


@pytest.mark.parametrize("block", _params())
def test_block_runs_as_written(block: Block, tmp_path: Path) -> None:
    cwd = make_sandbox(tmp_path / "checkout")
    ports = Ports()
    with serving() as started:
        for i, command in enumerate(block.commands):
            key = command_key(command)
            if key in RUN_ELSEWHERE:
                continue
            actual = ports.apply(command)
            # make hall's hall page: its documented HTTP variable (README), on the free port
            # that stands for its default 8090 in the block's URLs
            env = {"HTTP": f"127.0.0.1:{ports.port(8090)}"} if key.startswith("make hall") \
                else {}
            if key.startswith("make "):
                # the venv is this test's: make must find it installed, not install into it
                dry = run_finishing(actual.replace("make ", "make -n ", 1), cwd, env=env)
                assert "pip install" not in dry.stdout, \
                    f"{key}: the venv {VENV} has no make stamps: run `make test` once"
            if LONG_RUNNING.match(key):
                served = Served(actual, cwd, tmp_path / f"served-{i}.log", env=env)
                started.append(served)
                served.wait_up()
            else:
                _check_finished(key, run_finishing(actual, cwd, env=env), cwd)
        for served in started:
            assert served.running() or served.proc.returncode == 0, \
                (served.command, served.output()[-2000:])
