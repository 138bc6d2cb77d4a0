"""``damiera doctor``: the Pi's checks through :class:`pi.drivers.system.PiSystem`, tested with
the fake Pi of ``hardware_mocks.pi_system`` (healthy, then broken one way at a time); the state
directory's free space and the fsync latency of the journal's own appends; the command with
``--simulate`` (exit 0 when all is well, 1 on a FAIL)."""

from __future__ import annotations

from pathlib import Path

import pytest

from hardware_mocks.pi_system import FakePiSystem
from pi.cli import main
from pi.drivers.system import HostSystem, pi_checks
from pi.board.doctor import fsync_latency


def lines(system: FakePiSystem) -> list[str]:
    return [f.line() for f in pi_checks(system)]


def test_a_healthy_pi() -> None:
    assert lines(FakePiSystem()) == [
        "OK   /dev/i2c-1: I²C enabled, 400 kHz",
        "OK   group i2c: pi is in it",
        "OK   group gpio: pi is in it",
        "OK   GPIO: /dev/gpiochip0, /dev/gpiochip1",
        "OK   gpiozero: pin backend lgpio",
        "OK   clock: synchronised",
        "OK   unit: /etc/systemd/system/damiera.service, watchdog 20"]


def test_i2c_off() -> None:
    pi = FakePiSystem()
    pi.i2c_off()
    assert lines(pi)[0] == ("FAIL /dev/i2c-1: missing: I²C is not enabled (raspi-config: "
                            "disabled) — sudo raspi-config nonint do_i2c 0, then reboot")


def test_a_slow_bus_is_a_warning() -> None:
    pi = FakePiSystem()
    pi.files["/sys/class/i2c-adapter/i2c-1/of_node/clock-frequency"] = (50_000).to_bytes(4, "big")
    assert lines(pi)[0] == ("WARN /dev/i2c-1: I²C enabled, 50 kHz — dtparam=i2c_arm_baudrate="
                            "400000 in /boot/firmware/config.txt for a faster scan")
    pi.files["/sys/class/i2c-adapter/i2c-1/of_node/clock-frequency"] = (100_000).to_bytes(4, "big")
    assert lines(pi)[0].startswith("OK   /dev/i2c-1: I²C enabled, 100 kHz — dtparam")


def test_groups() -> None:
    pi = FakePiSystem(user_groups=frozenset({"pi", "gpio"}))
    assert lines(pi)[1] == ("FAIL group i2c: pi is not in it — sudo usermod -aG i2c pi, then log "
                            "in again")


def test_gpio_chips_and_backend() -> None:
    pi = FakePiSystem(modules=frozenset({"RPi.GPIO"}))
    del pi.files["/dev/gpiochip0"], pi.files["/dev/gpiochip1"]
    assert lines(pi)[3:5] == [
        "FAIL GPIO: no /dev/gpiochip* — not a Raspberry Pi, or a kernel without the GPIO "
        "character device", "OK   gpiozero: pin backend rpigpio"]
    assert lines(FakePiSystem(modules=frozenset()))[4].startswith("FAIL gpiozero: no pin backend")


def test_clock_by_timedatectl_or_timesyncd() -> None:
    pi = FakePiSystem()
    del pi.files["/run/systemd/timesync/synchronized"]
    assert lines(pi)[5] == "OK   clock: synchronised"  # timedatectl says yes
    pi.outputs["timedatectl show -p NTPSynchronized --value"] = "no\n"
    assert lines(pi)[5].startswith("WARN clock: not synchronised: a Pi has no real-time clock")
    pi.files["/run/systemd/timesync/synchronized"] = b""
    assert lines(pi)[5] == "OK   clock: synchronised"


def test_unit_and_watchdog() -> None:
    pi = FakePiSystem()
    pi.files["/etc/systemd/system/damiera.service"] = b"[Service]\nType=notify\n"
    assert lines(pi)[6] == ("WARN unit: /etc/systemd/system/damiera.service has no WatchdogSec "
                            "— reinstall it from systemd/damiera.service")
    del pi.files["/etc/systemd/system/damiera.service"]
    assert lines(pi)[6].startswith("WARN unit: damiera.service is not installed")


def test_the_shipped_unit_has_the_watchdog_the_fake_reads() -> None:
    unit = (Path(__file__).resolve().parents[2] / "systemd" / "damiera.service").read_text()
    assert "\nWatchdogSec=20\n" in unit


def test_the_host_system_answers_without_raising(tmp_path: Path) -> None:
    host = HostSystem()
    (tmp_path / "x").write_bytes(b"\x00\x06\x1a\x80")
    assert host.read_bytes(str(tmp_path / "x")) == b"\x00\x06\x1a\x80"
    assert host.read_bytes(str(tmp_path / "nothing")) is None
    assert host.glob(str(tmp_path / "*")) == [str(tmp_path / "x")]
    assert host.run(["/nonexistent/raspi-config"]) is None
    assert host.run(["true"]) == ""
    assert host.has_module("json") and not host.has_module("no_such_module_here")
    assert host.user() and isinstance(host.groups(), frozenset)


def test_fsync_latency_uses_the_journal_and_leaves_nothing(tmp_path: Path) -> None:
    p50, p99 = fsync_latency(tmp_path, samples=10)
    assert 0 < p50 <= p99 < 5
    assert list(tmp_path.iterdir()) == []


@pytest.fixture
def quick_disk(monkeypatch: pytest.MonkeyPatch) -> None:
    """The disk's fsync as on a quiet machine: the summary's counts are the command's, not the
    load of whatever else runs (a loaded disk's p99 is a WARN, as it should be on a Pi;
    the fsync check itself: test_fsync_latency_uses_the_journal_and_leaves_nothing)."""
    import pi.board.doctor as doctor
    monkeypatch.setattr(doctor, "fsync_latency", lambda _root, samples=0: (0.002, 0.004))


def test_doctor_simulated(capsys: pytest.CaptureFixture[str], tmp_path: Path,
                          quick_disk: None) -> None:
    code = main(["doctor", "--simulate", "--state-dir", str(tmp_path)])
    out = capsys.readouterr().out.splitlines()
    assert code == 0
    assert out[7] == "OK   0x3c: the OLED answers"
    assert out[8].startswith(f"OK   {tmp_path}: ") and out[8].endswith(" MB free")
    assert out[9].startswith("OK   fsync: journal append p50 ")
    assert out[-1] == "OK: 10 ok, 0 warnings, 0 faults"


def test_doctor_with_the_bus_off(capsys: pytest.CaptureFixture[str], tmp_path: Path,
                                 quick_disk: None) -> None:
    code = main(["doctor", "--simulate", "--fault", "bus-off", "--state-dir", str(tmp_path)])
    out = capsys.readouterr().out.splitlines()
    assert code == 1
    assert out[0].startswith("FAIL /dev/i2c-1: missing: I²C is not enabled")
    assert out[7] == "FAIL OLED: not checked: [Errno 2] No such file or directory: '/dev/i2c-1'"
    assert out[-1] == "FAIL: 8 ok, 0 warnings, 2 faults"
