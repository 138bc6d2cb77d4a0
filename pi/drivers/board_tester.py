"""``damiera hardware test``: the guided test of a wired board — the initial position set up
and matched (IT 7.1, its orientation IT 7.2 / INT 5.1), every square wired lifted and put back
(or put and lifted), dead, stuck, swapped and chattering squares named; the clock buttons
pressed, a test card on the OLED, the buzzer sounded (:func:`run_board_test`, its
:class:`BoardTestReport`). The command is in ``pi/hardware_cli.py``; the bench, the sampler, the
squares read through the real drivers and the prompts it shares with ``hardware map``
(``pi.drivers.wiring_map``) are ``pi.drivers.bringup``'s.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

from engine.i18n import DEFAULT_LANGUAGE, N_, localize, translations
from engine.squares import all_squares, numbered_squares, square_sort_key, unrotate_square
from engine.variants import Variant
from pi.drivers.bringup import (SAMPLE, SETTLE, Bench, BoardSquares, Request, Sampler, Say, ask,
                                in_language, oled_prompt)
from pi.drivers.errors import OrientationError
from pi.drivers.orientation import detect_orientation
from pi.drivers.probe import FAIL, OK, WARN, Finding, worst
from pi.drivers.wiring import Wiring

__all__ = ["BoardTestReport", "run_board_test", "setup_articles", "draw_test_card",
           "SETUP_STEPS"]

#: The set-up of the initial position may take this many steps' time.
SETUP_STEPS = 10


def setup_articles(variant: Variant) -> tuple[str, str]:
    """The articles of the set-up checks: the position and count of the pieces (IT 7.1), the
    board turned the right way (IT 7.2, EN 7.2, INT 5.1; shared/rules/SPEC.md)."""
    turned = {"IT": "IT 7.2", "EN": "EN 7.2"}.get(variant.code, "INT 5.1")
    return "IT 7.1", turned


@dataclass
class BoardTestReport:
    """A guided test's outcome: ``findings`` in the order found, and per dark square
    (physical name) what was seen: ``ok``, ``dead``, ``stuck``, ``chattering``, ``swapped``,
    ``shows as X``, ``not tested``."""

    wiring: str
    variant: str
    findings: list[Finding] = field(default_factory=list)
    squares: dict[str, str] = field(default_factory=dict)
    rotation: int | None = None
    when: str = ""  # UTC, ISO 8601: set by whoever files the report

    @property
    def verdict(self) -> str:
        return worst(self.findings)

    def to_json(self) -> dict[str, Any]:
        return {"when": self.when, "wiring": self.wiring, "variant": self.variant,
                "verdict": self.verdict,
                "rotation": None if self.rotation is None else self.rotation * 90,
                "squares": dict(sorted(self.squares.items(),
                                       key=lambda kv: square_sort_key(kv[0]))),
                "findings": [f.to_json() for f in self.findings]}

    def to_text(self, language: str = DEFAULT_LANGUAGE) -> str:
        """The report as text: English in its file (:data:`DEFAULT_LANGUAGE`, its format
        unchanged), in ``language`` on a person's terminal."""
        t = translations(language)
        counts: dict[str, int] = {}
        for state in self.squares.values():
            counts[state] = counts.get(state, 0) + 1
        summary = ", ".join(f"{n} {localize(s, language)}" for s, n in sorted(counts.items()))
        head = (t.gettext("board test of {wiring} ({variant}) at {when}: {verdict}")
                if self.when else t.gettext("board test of {wiring} ({variant}): {verdict}"))
        return "\n".join([head.format(wiring=self.wiring, variant=self.variant, when=self.when,
                                      verdict=self.verdict),
                          *(f.shown(language) for f in self.findings),
                          t.gettext("squares: {summary}").format(summary=summary)]) + "\n"

    def json_text(self) -> str:
        return json.dumps(self.to_json(), indent=1, ensure_ascii=False) + "\n"


def run_board_test(bench: Bench, wiring: Wiring, variant: Variant, expected: frozenset[str],
                   say: Say, free: bool = False,
                   language: str = DEFAULT_LANGUAGE) -> BoardTestReport:
    """The guided test of a wired board: the initial position ``expected`` (logical squares)
    set up and matched (IT 7.1, orientation IT 7.2 / INT 5.1); each dark square, in the
    official numbering, lifted and put back (or put and lifted), then each light square a
    sensor is wired to, put and lifted; dead, stuck, swapped and
    chattering squares named; both clock buttons pressed; a test card on the OLED; the buzzer
    sounded. ``free``: the squares in any order, ticked off as they are seen closing and
    opening (swapped wires cannot be told then). Raises the drivers' BusUnavailableError when
    the bus cannot be opened. ``language``: of the prompts (said and on the OLED); the
    report's findings stay English (its files), localized where they are shown."""
    say = in_language(say, language)
    report = BoardTestReport(wiring.source, variant.name)
    position, turned = setup_articles(variant)
    bus = bench.open_bus(wiring.bus)
    board = BoardSquares(wiring, bus)
    board.init()
    device = _open_display(bench, wiring, report)
    screen = oled_prompt(device, language)
    sampler: Sampler[str] = Sampler(board.read, bench)
    size = wiring.size

    candidates = ((wiring.orientation,) if wiring.orientation is not None
                  else wiring.auto_candidates)
    physical_start = tuple(sorted(unrotate_square(s, candidates[0], size) for s in expected))
    ask(bench, say, screen, Request("set up", N_("set up the initial position"),
                                     physical_start))
    # Until as many squares as pieces closed: a person sets up one piece at a time, so the
    # set-up gets SETUP_STEPS steps' time.
    deadline = bench.clock() + SETUP_STEPS * bench.step_timeout
    sensed: frozenset[str] = frozenset()
    chattering: set[str] = set()
    while len(sensed - chattering) < len(expected) and bench.clock() < deadline:
        sensed, chatter = sampler.wait_change(sensed, max(0.0, deadline - bench.clock()))
        chattering |= chatter
    sensed, more = sampler.settle(0.1)
    chattering |= more
    sensed = frozenset(sensed - chattering)
    for address, error in sorted(board.failed.items()):
        names = " ".join(sorted((s for c in wiring.chips if c.address == address
                                 for s in c.squares if s), key=square_sort_key))
        report.findings.append(Finding(FAIL, f"0x{address:02x}", N_(
            "does not answer ({error}); not tested: {squares}").format(error=error, squares=names),
            N_("run damiera hardware probe")))
    try:
        rotation = detect_orientation(sensed, expected, size, candidates)
        report.rotation = rotation
        report.findings.append(Finding(OK, N_("set-up"), N_(
            "the initial position matches ({code}), orientation {degrees}° ({code_turned})"
        ).format(code=position, degrees=rotation * 90, code_turned=turned)))
    except OrientationError:
        rotation = candidates[0]
        start = frozenset(physical_start)
        missing = " ".join(sorted(start - sensed, key=square_sort_key))
        extra = " ".join(sorted(sensed - start, key=square_sort_key))
        what = (N_("the initial position does not match ({code}, {code_turned}): not seen "
                   "{missing}; seen but empty {extra}") if missing and extra else
                N_("the initial position does not match ({code}, {code_turned}): not seen "
                   "{missing}") if missing else
                N_("the initial position does not match ({code}, {code_turned}): seen but "
                   "empty {extra}"))
        report.findings.append(Finding(
            FAIL, N_("set-up"), what.format(code=position, code_turned=turned, missing=missing,
                                            extra=extra),
            N_("the squares below say why")))

    dark = numbered_squares(size, variant.first_dark_file_even)
    dark_physical = {unrotate_square(s, rotation, size) for s in dark}
    # every sensor wired is tested: the light squares' too (the parts list needs them to see a
    # board turned the wrong way, IT 7.2), after the dark ones, by their names (issue 37)
    light = [s for s in all_squares(size) if s not in dark
             and unrotate_square(s, rotation, size) in wiring.sensed_squares]
    labelled = [(f"{number} ({unrotate_square(s, rotation, size)})", s)
                for number, s in enumerate(dark, start=1)]
    labelled += [(unrotate_square(s, rotation, size), s)
                 for s in sorted(light, key=square_sort_key)]
    unseen = board.unseen()
    shows: dict[str, str] = {}
    if free:
        _free_steps(bench, say, screen, sampler, report,
                    [unrotate_square(s, rotation, size) for _, s in labelled], unseen,
                    chattering)
    for label, logical in () if free else labelled:
        square = unrotate_square(logical, rotation, size)
        if square in unseen:
            report.squares[square] = "not tested"
            continue
        if square in chattering:
            report.squares[square] = "chattering"
            continue
        occupied = logical in expected
        squares_now = sampler.settle(SETTLE)[0] - chattering
        steps = ((("lift", N_("take the piece off {square}")),
                  ("place", N_("put it back on {square}"))) if occupied
                 else (("place", N_("put a piece on {square}")),
                       ("lift", N_("take the piece off {square}"))))
        verdict = "ok"
        for action, words in steps:
            ask(bench, say, screen, Request(action, words.format(square=label), (square,)))
            after, chatter = sampler.wait_change(squares_now, bench.step_timeout)
            chattering |= chatter
            if square in chatter:
                verdict = N_("chattering")
                break
            changed = (after ^ squares_now) - chattering
            if changed == {square}:
                squares_now = after
                continue
            if not changed:
                was_closed = square in squares_now
                verdict = N_("stuck") if was_closed else N_("dead")
                break
            others = sorted(changed - {square}, key=square_sort_key)
            verdict = N_("shows as {square}").format(square=others[0]) if len(changed) == 1 \
                else N_("shows on {squares}").format(
                    squares=" ".join(sorted(changed, key=square_sort_key)))
            shows[square] = others[0]
            squares_now = after
        report.squares[square] = verdict
    ask(bench, say, screen, Request("clear", N_("take every piece off the board")))
    left, chatter = sampler.settle(0.1)
    for square in sorted(left - chattering - set(report.squares), key=square_sort_key):
        report.squares[square] = "stuck"  # a light square (or one not asked) closed on its own
    for square in list(report.squares):
        other = shows.get(square)
        if other is not None and shows.get(other) == square:
            report.squares[square] = N_("swapped with {square}").format(square=other)
    for square, verdict in sorted(report.squares.items(), key=lambda kv: square_sort_key(kv[0])):
        if verdict == "ok":
            continue
        advice = {"dead": N_("never closes: a broken switch, or its wire is off"),
                  "stuck": N_("never opens: a stuck switch or a short to ground"),
                  "chattering": N_("changes on its own: a loose joint or a broken switch"),
                  "not tested": ""}.get(verdict, N_("the wires of these squares are crossed: "
                                                    "swap them (or run damiera hardware map)"))
        report.findings.append(Finding(WARN if verdict == "not tested" else FAIL, square,
                                       verdict, advice))
    good = sum(1 for s, v in report.squares.items() if v == "ok" and s in dark_physical)
    report.findings.append(Finding(OK if good == len(dark) else FAIL, N_("squares"),
                                   N_("{good} of {n} dark squares closed and opened "
                                      "cleanly").format(good=good, n=len(dark))))
    if light:
        light_physical = {unrotate_square(s, rotation, size) for s in light}
        good = sum(1 for s, v in report.squares.items() if v == "ok" and s in light_physical)
        report.findings.append(Finding(OK if good == len(light) else FAIL, N_("light squares"),
                                       N_("{good} of {n} light squares closed and opened "
                                          "cleanly").format(good=good, n=len(light))))
    report.findings += _test_buttons(bench, wiring, say, screen)
    report.findings += _test_card(device)
    report.findings += _test_buzzer(bench, wiring)
    return report


def _free_steps(bench: Bench, say: Say, screen: Callable[[str], None] | None,
                sampler: Sampler[str], report: BoardTestReport, order: Sequence[str],
                unseen: frozenset[str], chattering: set[str]) -> None:
    """The squares in any order: each is ticked off once seen closing and opening. It ends
    when every square is ticked, or when as many steps as squares left passed in silence (the
    person has done what they could); a square left is ``stuck`` if closed, else ``dead``."""
    for square in order:
        if square in unseen:
            report.squares[square] = N_("not tested")
        elif square in chattering:
            report.squares[square] = N_("chattering")
    remaining = [s for s in order if s not in report.squares]
    closed_seen: set[str] = set()
    opened_seen: set[str] = set()
    current = frozenset(sampler.settle(SETTLE)[0] - chattering)
    silent = 0
    while remaining and silent < len(remaining):
        offer = remaining[silent % len(remaining)]
        # English (said through localize, which picks the language's plural form by {n})
        left = translations(DEFAULT_LANGUAGE).ngettext(
            "lift and put back, or put and lift, any square: {n} left",
            "lift and put back, or put and lift, any square: {n} left", len(remaining))
        ask(bench, say, screen, Request("toggle", left.format(n=len(remaining)), (offer,)))
        after, chatter = sampler.wait_change(current, bench.step_timeout)
        chattering |= chatter
        changed = (after ^ current) - chattering
        # only a square still to tick is progress (a crossed wire may change another)
        silent = 0 if changed & set(remaining) else silent + 1
        for square in changed:
            (closed_seen if square in after else opened_seen).add(square)
        current = after
        for square in [s for s in remaining if s in chattering]:
            report.squares[square] = "chattering"
        remaining = [s for s in remaining if s not in report.squares
                     and not (s in closed_seen and s in opened_seen)]
    for square in order:
        if square not in report.squares:
            report.squares[square] = ("ok" if square not in remaining else
                                      "stuck" if square in current else "dead")


def _open_display(bench: Bench, wiring: Wiring, report: BoardTestReport) -> Any:
    from pi.drivers.errors import DeviceUnavailableError
    try:
        return bench.display_device(wiring)
    except DeviceUnavailableError as exc:
        report.findings.append(Finding(FAIL, "OLED", str(exc)))
        return None


def _test_buttons(bench: Bench, wiring: Wiring, say: Say,
                  screen: Callable[[str], None] | None) -> list[Finding]:
    import queue

    from pi.drivers.buttons import ButtonPanel
    clocks = {side: {"clock": c["clock"]} for side, c in wiring.buttons.items() if "clock" in c}
    if len(clocks) < 2:
        return [Finding(WARN, N_("buttons"), N_("the wiring file names no clock button for "
                                                "{sides}").format(sides=" and ".join(
                            s for s in ("white", "black") if s not in clocks)),
                        N_("add [buttons.white] and [buttons.black] clock = GPIO"))]
    presses: queue.Queue[Any] = queue.Queue()
    panel = ButtonPanel(clocks, presses, bench.clock, pin_factory=bench.pin_factory,
                        pull_up=wiring.button_pull_up, bounce_time=None)
    findings = []
    try:
        for side in ("white", "black"):
            gpio = clocks[side]["clock"]
            ask(bench, say, screen, Request("press", N_("press {side}'s clock button").format(
                side=side), button=(side, "clock")))
            end = bench.clock() + bench.step_timeout
            seen = False
            while not seen and bench.clock() < end:
                try:
                    press = presses.get_nowait()
                    seen = str(press.side) == side and press.name == "clock"
                except queue.Empty:
                    bench.sleep(SAMPLE)
            findings.append(Finding(OK, f"GPIO {gpio}", N_("{side}'s clock button "
                                                           "pressed").format(side=side))
                            if seen else
                            Finding(FAIL, f"GPIO {gpio}", N_("{side}'s clock button: no press "
                                                             "seen").format(side=side),
                                    N_("check the button's wire to the GPIO and to ground")))
    finally:
        panel.close()
    return findings


def draw_test_card(device: Any) -> None:
    """A test card on the OLED: a frame, a checkerboard and a line of text, so a dead row or
    column of pixels shows."""
    from luma.core.render import canvas

    from pi.drivers.display import HEIGHT, WIDTH
    with canvas(device) as draw:
        draw.rectangle((0, 0, WIDTH - 1, HEIGHT - 1), outline=1)
        for row in range(4):
            for col in range(8):
                if (row + col) % 2:
                    x, y = 4 + col * 8, 4 + row * 8
                    draw.rectangle((x, y, x + 7, y + 7), fill=1)
        draw.text((72, 8), "damiera", fill=1)
        draw.text((72, 22), "test card", fill=1)
        draw.line((0, HEIGHT - 1, WIDTH - 1, 0), fill=1)


def _test_card(device: Any) -> list[Finding]:
    if device is None:
        return [Finding(WARN, "OLED", N_("no OLED in the wiring file"))]
    try:
        draw_test_card(device)
    except OSError as exc:
        return [Finding(FAIL, "OLED", N_("the test card could not be sent ({error})").format(
            error=exc))]
    return [Finding(OK, "OLED", N_("test card shown"), N_("check every edge and square by eye"))]


def _test_buzzer(bench: Bench, wiring: Wiring) -> list[Finding]:
    if wiring.buzzer_gpio is None:
        return [Finding(WARN, N_("buzzer"), N_("no buzzer in the wiring file"))]
    from pi.drivers.buzzer import Beeper
    beeper = Beeper.on_gpio(wiring.buzzer_gpio, tonal=wiring.buzzer_tonal,
                            pin_factory=bench.pin_factory)
    try:
        beeper.play("ok")
    finally:
        beeper.close()
    return [Finding(OK, f"GPIO {wiring.buzzer_gpio}", N_("the buzzer sounded"),
                    N_("listen for it"))]
