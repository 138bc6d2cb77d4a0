"""gpiozero MockFactory helpers: a factory to pass as ``pin_factory=``, and button presses.

Library code never sets ``Device.pin_factory``; tests pass the factory explicitly.
"""

from __future__ import annotations

from typing import Any


def mock_factory(pwm: bool = False) -> Any:
    """A fresh gpiozero MockFactory (with PWM-capable pins when ``pwm``, for TonalBuzzer)."""
    from gpiozero.pins.mock import MockFactory, MockPWMPin
    return MockFactory(pin_class=MockPWMPin) if pwm else MockFactory()


def press(factory: Any, gpio: int, pull_up: bool = True) -> None:
    """Presses the button on ``gpio`` (closes it to ground when pulled up)."""
    pin = factory.pin(gpio)
    pin.drive_low() if pull_up else pin.drive_high()


def release(factory: Any, gpio: int, pull_up: bool = True) -> None:
    pin = factory.pin(gpio)
    pin.drive_high() if pull_up else pin.drive_low()


def tap(factory: Any, gpio: int, pull_up: bool = True) -> None:
    """Press then release."""
    press(factory, gpio, pull_up)
    release(factory, gpio, pull_up)
