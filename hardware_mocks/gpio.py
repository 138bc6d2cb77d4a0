"""gpiozero MockFactory helpers: a factory to pass as ``pin_factory=``, and button presses.

Library code never sets ``Device.pin_factory``; tests pass the factory explicitly.
"""

from __future__ import annotations

import functools
from collections import deque
from typing import Any

#: Level changes a mock pin keeps in ``states`` (the newest). gpiozero's own MockPin keeps
#: every one: a simulator pressing buttons and sounding the buzzer game after game would keep
#: them all for its whole life.
STATES_KEPT = 256


def mock_factory(pwm: bool = False) -> Any:
    """A fresh gpiozero MockFactory (with PWM-capable pins when ``pwm``, for TonalBuzzer) whose
    pins keep their last :data:`STATES_KEPT` level changes in ``states``."""
    from gpiozero.pins.mock import MockFactory
    return MockFactory(pin_class=_bounded_pin_class(pwm))


@functools.cache
def _bounded_pin_class(pwm: bool) -> type:
    """gpiozero's MockPin (MockPWMPin when ``pwm``) with ``states`` a bounded deque."""
    from gpiozero.pins.mock import MockPin, MockPWMPin
    base = MockPWMPin if pwm else MockPin

    def clear_states(pin: Any) -> None:
        base.clear_states(pin)
        pin.states = deque(pin.states, maxlen=STATES_KEPT)

    # Built with type(): gpiozero ships no types, and a class statement cannot subclass Any.
    return type(f"Bounded{base.__name__}", (base,), {"clear_states": clear_states})


def press(factory: Any, gpio: int, pull_up: bool = True) -> None:
    """Presses the button on ``gpio`` (closes it to ground when pulled up)."""
    pin = factory.pin(gpio)
    pin.drive_low() if pull_up else pin.drive_high()


def release(factory: Any, gpio: int, pull_up: bool = True) -> None:
    """Releases the button on ``gpio``."""
    pin = factory.pin(gpio)
    pin.drive_high() if pull_up else pin.drive_low()


def tap(factory: Any, gpio: int, pull_up: bool = True) -> None:
    """Press then release."""
    press(factory, gpio, pull_up)
    release(factory, gpio, pull_up)
