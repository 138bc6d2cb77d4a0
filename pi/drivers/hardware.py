"""Construction: the only place that builds real hardware (smbus2 bus, gpiozero devices, luma
OLED, serial port) from a validated :class:`~pi.drivers.wiring.Wiring`, and the :class:`Hardware` that
holds the parts, starts them in order and stops them in reverse.

Every builder accepts injected replacements (``bus_opener``, ``pin_factory``,
``display_device``, ``serial_port``), so the PC simulator and the tests run the same code on the
fakes of ``hardware_mocks``. The hardware libraries are imported lazily, inside the builders.
"""

from __future__ import annotations

import errno as errno_mod
import logging
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

from pi.drivers.adcs import ADC_TYPES, channel_mask
from pi.drivers.analog import AnalogGroup, PieceIdentity
from pi.drivers.bus import BusLock, ManagedBus
from pi.drivers.buttons import ButtonPanel
from pi.drivers.buzzer import Beeper
from pi.drivers.display import BoardDisplay
from pi.drivers.errors import BusUnavailableError, DeviceUnavailableError
from pi.drivers.expanders import EXPANDER_TYPES, MCP23017, Expander, SMBusLike
from pi.drivers.faults import Inbox, SensorInterrupt, SensorOutput
from pi.drivers.interrupt import InterruptLine
from pi.drivers.sensor_groups import DirectGroup, MatrixGroup, SensorGroup
from pi.drivers.sensors import SensorScanner
from pi.drivers.serial_link import SerialLink
from pi.drivers.timebase import GameTime, Monotonic, as_game_time
from pi.drivers.wiring import DisplaySpec, SerialSpec, Wiring

log = logging.getLogger(__name__)

#: Poll period when there is no usable interrupt line (no [interrupt], or a matrix).
NO_INTERRUPT_POLL = 0.01


def open_i2c_bus(bus: int | str = 1, opener: Callable[[int | str], SMBusLike] | None = None
                 ) -> SMBusLike:
    """Opens the I²C bus (``/dev/i2c-<bus>``) with smbus2, or ``opener``.

    Raises BusUnavailableError with what to do when the device node is missing or not allowed.
    """
    if opener is None:
        from smbus2 import SMBus
        opener = SMBus
    path = bus if isinstance(bus, str) else f"/dev/i2c-{bus}"
    try:
        return opener(bus)
    except PermissionError:
        raise BusUnavailableError(
            f"no permission to open {path}: add the user to the i2c group "
            "(sudo usermod -aG i2c $USER) and log in again") from None
    except OSError as e:
        if e.errno in (errno_mod.ENOENT, errno_mod.ENODEV, errno_mod.ENXIO):
            raise BusUnavailableError(
                f"{path} does not exist: enable I²C with 'sudo raspi-config nonint do_i2c 0' "
                "(or add dtparam=i2c_arm=on to /boot/firmware/config.txt) and reboot") from None
        if e.errno in (errno_mod.EACCES, errno_mod.EPERM):
            raise BusUnavailableError(
                f"no permission to open {path}: add the user to the i2c group "
                "(sudo usermod -aG i2c $USER) and log in again") from None
        raise BusUnavailableError(f"cannot open {path}: {e}") from None


def build_expanders(wiring: Wiring, bus: SMBusLike) -> dict[str, Expander]:
    """Chip drivers by chip name, with directions from the wiring (not yet initialised)."""
    inputs: dict[str, int] = {c.name: 0 for c in wiring.chips}
    outputs: dict[str, int] = {c.name: 0 for c in wiring.chips}
    if wiring.matrix is not None:
        for ref in wiring.matrix.rows:
            outputs[ref.chip] |= 1 << ref.pin
        for ref in wiring.matrix.columns:
            inputs[ref.chip] |= 1 << ref.pin
    else:
        for c in wiring.chips:
            inputs[c.name] = sum(1 << p for p, s in enumerate(c.squares) if s)
    out: dict[str, Expander] = {}
    for c in wiring.chips:
        cls = EXPANDER_TYPES[c.kind]
        if cls is MCP23017:
            out[c.name] = MCP23017(bus, c.address, inputs=inputs[c.name],
                                   outputs=outputs[c.name], pull_ups=c.pull_ups,
                                   allow_gp7_inputs=c.allow_gp7_inputs)
        else:
            out[c.name] = cls(bus, c.address, inputs=inputs[c.name], outputs=outputs[c.name],
                              pull_ups=c.pull_ups)
    return out


def build_scanner(wiring: Wiring, bus: ManagedBus | SMBusLike, clock: GameTime | Monotonic, *,
                  reopen: Callable[[], SMBusLike] | None = None, t0: float | None = None,
                  rotation: int | None = None) -> SensorScanner:
    """A SensorScanner for the wiring on ``bus`` (rotation: the wiring's, or 0 when "auto").

    A plain bus handle is wrapped in a :class:`~pi.drivers.bus.ManagedBus` reopened by ``reopen``.
    ``clock``: the GameTime (or a monotonic callable, with epoch ``t0``).
    """
    s = wiring.scan
    time = as_game_time(clock, t0)
    if not isinstance(bus, ManagedBus):
        bus = ManagedBus(bus, reopen, clock=time, retry_initial=s.retry_initial,
                         retry_max=s.retry_max)
    identity: PieceIdentity | None = None
    groups: Sequence[SensorGroup]
    if wiring.analog is not None:
        groups, identity = analog_groups(wiring, bus)
    else:
        groups = _presence_groups(wiring, bus)
    if rotation is None:
        rotation = wiring.orientation or 0
    poll = s.poll_interval
    if wiring.interrupt_gpio is None or wiring.matrix is not None or (
            wiring.analog is not None and not all(ADC_TYPES[c.kind].alerts
                                                  for c in wiring.chips)):
        # no usable interrupt line (none wired, a matrix, an ADC without alerts): 100 Hz
        poll = min(poll, NO_INTERRUPT_POLL)
    return SensorScanner(groups, wiring.size, time, bus=bus, debounce=s.debounce,
                         poll_interval=poll, rotation=rotation, retry_initial=s.retry_initial,
                         retry_max=s.retry_max, chatter_changes=s.chatter_changes,
                         chatter_window=s.chatter_window, chatter_recover=s.chatter_recover,
                         stuck_after=s.stuck_after, config_check=s.config_check,
                         identity=identity)


def _presence_groups(wiring: Wiring, bus: ManagedBus) -> list[SensorGroup]:
    chips = build_expanders(wiring, bus)
    if wiring.matrix is not None:
        m = wiring.matrix
        return [MatrixGroup([(chips[p.chip], p.pin) for p in m.rows],
                            [(chips[p.chip], p.pin) for p in m.columns], m.squares)]
    return [DirectGroup(chips[c.name], c.squares, active_low=wiring.active_low)
            for c in wiring.chips if any(c.squares)]


def analog_groups(wiring: Wiring, bus: ManagedBus) -> tuple[list[AnalogGroup], PieceIdentity]:
    """An analog Hall board's groups (one per ADC) and the identity that votes on them."""
    a = wiring.analog
    assert a is not None  # by the caller
    groups = [
        AnalogGroup(ADC_TYPES[c.kind](bus, c.address, channel_mask(c.squares)), c.squares, a)
        for c in wiring.chips if any(c.squares)]
    return groups, PieceIdentity(a.votes, a.window, period=NO_INTERRUPT_POLL)


class SharedBusDisplay:
    """A luma device whose frames go out under the bus lock (lower priority than scans).

    Everything but ``display`` is the wrapped device's (``image`` of a ``dummy``, ``width``...).
    """

    def __init__(self, device: Any, lock: BusLock) -> None:
        self._device = device
        self._lock = lock

    def display(self, image: Any) -> None:
        with self._lock.frame():
            self._device.display(image)

    def __getattr__(self, name: str) -> Any:
        return getattr(self._device, name)


@dataclass
class Hardware:
    """Everything the daemon drives; built by :func:`build_hardware`.

    ``start`` powers up in order, ``stop`` stops in reverse order (idempotent; errors are logged,
    never raised). Who scans is the caller's business: the board's scan loop
    (``pi.board.scan_loop.ScanLoop.for_hardware``) sets ``on_interrupt`` to its ``wake``; while
    it is None, each interrupt puts a ``SensorInterrupt`` on ``out`` and the caller calls
    ``scanner.scan()`` (as the tests do).
    """

    wiring: Wiring
    time: GameTime
    bus: ManagedBus
    lock: BusLock
    scanner: SensorScanner
    interrupt: InterruptLine | None = None
    buttons: ButtonPanel | None = None
    beeper: Beeper | None = None
    display: BoardDisplay | None = None
    serial_link: SerialLink | None = None
    out: Inbox | None = None
    #: Called on gpiozero's thread at each falling edge of the interrupt line (see above).
    on_interrupt: Callable[[], None] | None = None
    started: bool = False
    stopped: bool = False

    def start(self) -> list[SensorOutput]:
        """Starts the serial reader and powers the sensors up; returns the scanner's first
        outputs (a SnapshotTaken, or SensorFaults). Raises RuntimeError when started twice or
        after ``stop``."""
        if self.stopped:
            raise RuntimeError("Hardware.start: stopped; build a new Hardware")
        if self.started:
            raise RuntimeError("Hardware.start: already started")
        self.started = True
        if self.serial_link is not None:
            self.serial_link.start()
        with self.lock.scan():
            return list(self.scanner.start())

    def interrupt_fired(self) -> None:
        # gpiozero's thread: wake whoever scans, else tell the caller who scans by hand.
        wake = self.on_interrupt
        if wake is not None:
            wake()
        elif self.out is not None:
            self.out.put(SensorInterrupt())

    def stop(self) -> None:
        """Stops in reverse order of ``start``/construction; idempotent, never raises. A scan
        loop over the scanner is stopped by its owner first (the bus closes here)."""
        if self.stopped:
            return
        self.stopped = True
        steps: list[tuple[str, Callable[[], None] | None]] = [
            ("the serial link", self.serial_link.close if self.serial_link else None),
            ("the display", self.display.close if self.display else None),
            ("the buzzer", self.beeper.close if self.beeper else None),
            ("the buttons", self.buttons.close if self.buttons else None),
            ("the interrupt line", self.interrupt.close if self.interrupt else None),
            ("the I2C bus", self.bus.close),
        ]
        for name, step in steps:
            if step is None:
                continue
            try:
                step()
            except Exception:
                log.exception("stopping %s", name)


def build_hardware(wiring: Wiring, out: Inbox, clock: GameTime | Monotonic, *,
                   t0: float | None = None,
                   bus_opener: Callable[[int | str], SMBusLike] | None = None,
                   pin_factory: Any = None, display_device: Any = None,
                   serial_port: Any = None) -> Hardware:
    """Builds every part the wiring describes; button and serial presses go to ``out``.

    ``clock``: the one :class:`~pi.drivers.timebase.GameTime` of the process (a monotonic callable is
    wrapped, epoch ``t0`` or now); ``hardware.time`` is it. Real hardware is opened unless
    replaced: ``bus_opener`` (bus number → SMBus-like), ``pin_factory`` (gpiozero factory for
    interrupt, buttons and buzzer), ``display_device`` (a luma device), ``serial_port`` (a
    pyserial-like port). Raises BusUnavailableError or DeviceUnavailableError (one line); what
    was opened before the error is closed.
    """
    time = as_game_time(clock, t0)
    handle = open_i2c_bus(wiring.bus, bus_opener)

    def reopen() -> SMBusLike:
        try:
            return open_i2c_bus(wiring.bus, bus_opener)
        except BusUnavailableError as e:
            raise OSError(errno_mod.ENODEV, str(e)) from None

    s = wiring.scan
    bus = ManagedBus(handle, reopen, clock=time, retry_initial=s.retry_initial,
                     retry_max=s.retry_max)
    lock = BusLock()
    scanner = build_scanner(wiring, bus, time)
    hw = Hardware(wiring, time, bus, lock, scanner, out=out)
    try:
        if wiring.interrupt_gpio is not None:
            hw.interrupt = InterruptLine(wiring.interrupt_gpio, hw.interrupt_fired,
                                         pin_factory=pin_factory)
        if wiring.buttons:
            hw.buttons = ButtonPanel(wiring.buttons, out, time, pin_factory=pin_factory,
                                     pull_up=wiring.button_pull_up,
                                     bounce_time=wiring.button_bounce)
        if wiring.buzzer_gpio is not None:
            hw.beeper = Beeper.on_gpio(wiring.buzzer_gpio, tonal=wiring.buzzer_tonal,
                                       pin_factory=pin_factory)
        if wiring.display is not None or display_device is not None:
            if display_device is None:
                assert wiring.display is not None  # by the condition above
                display_device = open_oled(wiring.display, wiring.bus)
            hw.display = BoardDisplay(SharedBusDisplay(display_device, lock))
        if wiring.serial is not None or serial_port is not None:
            if serial_port is None:
                assert wiring.serial is not None  # by the condition above
                serial_port = open_serial(wiring.serial)
            hw.serial_link = SerialLink(serial_port, out, time)
    except Exception:
        hw.stop()
        raise
    return hw


def open_oled(spec: DisplaySpec, bus: int | str = 1) -> Any:
    """The luma.oled device on I²C; DeviceUnavailableError with advice when it cannot open."""
    from luma.core.error import DeviceNotFoundError, DevicePermissionError
    from luma.core.interface.serial import i2c
    from luma.oled.device import sh1106, ssd1306
    port = bus if isinstance(bus, int) else 1
    try:
        serial = i2c(port=port, address=spec.address)
        cls = ssd1306 if spec.driver == "ssd1306" else sh1106
        return cls(serial, width=128, height=64, rotate=spec.rotate)
    except DevicePermissionError:
        raise DeviceUnavailableError(
            "no permission for the OLED's I²C bus: sudo usermod -aG i2c $USER, log in again"
        ) from None
    except DeviceNotFoundError:
        raise DeviceUnavailableError(
            "no I²C bus for the OLED: enable I²C with 'sudo raspi-config nonint do_i2c 0'"
        ) from None
    except OSError as e:
        raise DeviceUnavailableError(
            f"OLED at 0x{spec.address:02x} does not answer ({e.strerror or e}): check wiring"
        ) from None


def open_serial(spec: SerialSpec) -> Any:
    """The pyserial port of the broadcast link; DeviceUnavailableError when it cannot open."""
    import serial
    try:
        return serial.serial_for_url(spec.port, baudrate=spec.baudrate, timeout=0.1)
    except (serial.SerialException, OSError, ValueError) as e:
        raise DeviceUnavailableError(f"cannot open serial port {spec.port}: {e}") from None
