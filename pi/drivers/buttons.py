"""The players' controls: one gpiozero input device per wired control, per side.

``DigitalInputDevice`` rather than ``Button``: a ``Button`` keeps a thread per button that wakes
ten times a second to time "held" presses, which nothing here uses (18 buttons: 180 wake-ups a
second on an idle Pi, and slow to close). Edges come from the pin backend's own callbacks.

A press puts a :class:`~engine.events.ButtonPressed` on the inbox given, stamped with the injected
clock; that is all the gpiozero callback thread does.
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Mapping
from typing import Any

from engine.events import BUTTON_NAMES, SIDES, ButtonPressed
from pi.drivers.faults import Inbox
from pi.drivers.timebase import GameTime, Monotonic, as_game_time

log = logging.getLogger(__name__)


class ButtonPanel:
    """Buttons from ``gpios[side][name]`` (BCM numbers; any control may be absent).

    ``pull_up``: the button closes to ground. ``bounce_time``: gpiozero debounce, seconds.
    ``pin_factory``: passed to every gpiozero device (None: gpiozero's default).
    Presses are stamped by ``clock``, the process's :class:`~pi.drivers.timebase.GameTime` (a plain
    monotonic callable is wrapped with epoch ``t0``, default 0).
    Raises ValueError for an unknown side or control name.
    """

    def __init__(self, gpios: Mapping[str, Mapping[str, int]], out: Inbox,
                 clock: GameTime | Monotonic, *, t0: float | None = None, pin_factory: Any = None,
                 pull_up: bool = True, bounce_time: float | None = 0.02) -> None:
        from gpiozero import DigitalInputDevice
        self._out = out
        self.time = as_game_time(clock, t0, default_epoch=0.0)
        self.buttons: dict[tuple[str, str], Any] = {}
        try:
            for side, controls in gpios.items():
                if side not in SIDES:
                    raise ValueError(f"unknown side {side!r}")
                for name, gpio in controls.items():
                    if name not in BUTTON_NAMES:
                        raise ValueError(f"unknown control {name!r}")
                    button = DigitalInputDevice(gpio, pull_up=pull_up,
                                                bounce_time=bounce_time or None,
                                                pin_factory=pin_factory)
                    button.when_activated = self._callback(name, side)
                    self.buttons[(side, name)] = button
        except Exception:
            self.close()
            raise

    def _callback(self, name: str, side: str) -> Callable[[], None]:
        def pressed() -> None:
            # gpiozero's thread: stamp and queue, nothing else.
            self._out.put(ButtonPressed(self.time.stamp(), name, side))
        return pressed

    def is_pressed(self, side: str, name: str) -> bool:
        """Whether that control is held down now (False if it is not wired)."""
        button = self.buttons.get((side, name))
        return bool(button is not None and button.is_active)

    def close(self) -> None:
        for button in self.buttons.values():
            button.close()
        self.buttons.clear()
