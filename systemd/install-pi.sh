#!/bin/bash
# Installs damiera on a Raspberry Pi from this checkout, in one command:
#
#   sudo systemd/install-pi.sh [--wiring FILE] [--no-start] [--dry-run]
#
# - enables I²C (raspi-config nonint do_i2c 0) and installs the build tools RPi.GPIO needs
#   (it has no wheel on PyPI);
# - creates the system user `damiera` in the groups i2c, gpio and dialout;
# - creates a virtualenv in /opt/damiera/venv with damiera and its `pi` extra (the GPIO backends
#   lgpio and RPi.GPIO, pinned in pyproject.toml);
# - copies the example config to /etc/damiera/damiera.toml and a wiring file (default
#   pi/drivers/wiring/mcp23017_8x8.toml, or --wiring FILE) to /etc/damiera/wiring.toml, never
#   overwriting files already there (your edits survive a re-install);
# - installs systemd/damiera.service, enables it and (unless --no-start) (re)starts it.
#
# Running it again upgrades damiera in the venv from the checkout and restarts the service.
# --dry-run prints the commands instead of running them (no root needed).
set -euo pipefail

PREFIX=/opt/damiera
VENV="$PREFIX/venv"
CONF=/etc/damiera
STATE=/var/lib/damiera
UNIT_DIR=/etc/systemd/system
USER_NAME=damiera
GROUPS_NEEDED=(i2c gpio dialout)

SRC="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
WIRING="$SRC/pi/drivers/wiring/mcp23017_8x8.toml"
START=1
DRY_RUN=0

die() {
    echo "install-pi.sh: $*" >&2
    exit 2
}

run() {
    if [[ $DRY_RUN -eq 1 ]]; then
        printf '+'
        printf ' %q' "$@"
        printf '\n'
    else
        "$@"
    fi
}

while [[ $# -gt 0 ]]; do
    case "$1" in
        --wiring)
            [[ $# -ge 2 ]] || die "--wiring needs a file"
            WIRING="$2"
            shift 2
            ;;
        --no-start) START=0; shift ;;
        --dry-run) DRY_RUN=1; shift ;;
        -h|--help) sed -n '2,19p' "${BASH_SOURCE[0]}" | sed 's/^# \{0,1\}//'; exit 0 ;;
        *) die "unknown option $1 (see --help)" ;;
    esac
done

[[ -f "$WIRING" ]] || die "no wiring file $WIRING"
[[ -f "$SRC/pyproject.toml" && -f "$SRC/systemd/damiera.service" ]] \
    || die "run it from a damiera checkout ($SRC has no pyproject.toml)"
if [[ $DRY_RUN -eq 0 && $EUID -ne 0 ]]; then
    die "run as root: sudo $0"
fi
python3 -c 'import sys; sys.exit(sys.version_info < (3, 11))' \
    || die "damiera needs Python 3.11 or later (Raspberry Pi OS Bookworm has 3.11)"

echo "== packages (venv, and a compiler for RPi.GPIO, which has no wheel)"
run apt-get install -y --no-install-recommends python3-venv python3-dev gcc i2c-tools

echo "== I²C"
if command -v raspi-config >/dev/null; then
    run raspi-config nonint do_i2c 0
else
    echo "raspi-config not found: enable I²C yourself (dtparam=i2c_arm=on in config.txt)" >&2
fi

echo "== user $USER_NAME"
for group in "${GROUPS_NEEDED[@]}"; do
    getent group "$group" >/dev/null || run groupadd --system "$group"
done
if ! id "$USER_NAME" >/dev/null 2>&1; then
    run useradd --system --user-group --home-dir "$STATE" --no-create-home \
        --shell /usr/sbin/nologin "$USER_NAME"
fi
run usermod --append --groups "$(IFS=,; echo "${GROUPS_NEEDED[*]}")" "$USER_NAME"

echo "== virtualenv $VENV"
run install -d -m 0755 "$PREFIX"
run python3 -m venv "$VENV"
run "$VENV/bin/python" -m pip install --quiet --upgrade pip
run "$VENV/bin/python" -m pip install --quiet "${SRC}[pi]"

echo "== configuration $CONF"
run install -d -m 0755 "$CONF"
if [[ -e "$CONF/damiera.toml" ]]; then
    echo "keeping $CONF/damiera.toml"
else
    run install -m 0644 "$SRC/pi/damiera.example.toml" "$CONF/damiera.toml"
fi
if [[ -e "$CONF/wiring.toml" ]]; then
    echo "keeping $CONF/wiring.toml"
else
    run install -m 0644 "$WIRING" "$CONF/wiring.toml"
fi

echo "== service"
run install -m 0644 "$SRC/systemd/damiera.service" "$UNIT_DIR/damiera.service"
run systemctl daemon-reload
run systemctl enable damiera.service
if [[ $START -eq 1 ]]; then
    run systemctl restart damiera.service
    echo "started: systemctl status damiera; journalctl -u damiera -f"
fi
if [[ ! -e /dev/i2c-1 ]]; then
    echo "note: /dev/i2c-1 appears after a reboot if I²C was off" >&2
fi
