"""The board's hardware: I²C expanders over smbus2, presence sensors and their scanner,
gpiozero buttons and buzzer, the luma OLED, the serial link, the wiring file, and
:mod:`pi.drivers.hardware`, the one place that builds real devices from a wiring; and bringing a
board up: :mod:`pi.drivers.probe` (what answers on the bus), :mod:`pi.drivers.bringup` (what
map and test share, watch, the daemon's start-up probe), :mod:`pi.drivers.wiring_map` (map),
:mod:`pi.drivers.board_tester` (test), :mod:`pi.drivers.system` (the Pi's checks) and
:mod:`pi.drivers.diagram` (a wiring drawn as SVG).

Every driver takes its bus, pin factory or device as an argument; hardware libraries are imported
inside the driver that needs them, so this package imports on a PC."""
