"""The expanders' interrupt line on one Pi GPIO (gpiozero, imported lazily)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any


class InterruptLine:
    """The wire-ORed, open-drain INT lines of the expanders on one Pi GPIO (active low).

    Each falling edge calls ``fired`` (on gpiozero's callback thread, which does nothing else:
    the scan loop's ``wake``, or ``Hardware.interrupt_fired``). ``pin_factory`` is passed to
    gpiozero (None: its default).
    """

    def __init__(self, gpio: int | str, fired: Callable[[], None], *,
                 pin_factory: Any = None, pull_up: bool = True) -> None:
        from gpiozero import DigitalInputDevice
        self._notify = fired
        self.device = DigitalInputDevice(gpio, pull_up=pull_up, pin_factory=pin_factory)
        self.device.when_activated = self._fired

    def _fired(self) -> None:
        self._notify()

    @property
    def is_active(self) -> bool:
        """True while some chip holds its INT asserted."""
        return bool(self.device.is_active)

    def close(self) -> None:
        """Releases the GPIO (idempotent)."""
        self.device.close()
