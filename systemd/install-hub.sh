#!/bin/bash
# Installs the hall's hub on the hall's PC (Debian, Ubuntu: systemd, Python 3.11 or later) from
# this checkout, in one command:
#
#   sudo systemd/install-hub.sh --hall DIR [--http HOST:PORT] [--hall-network CIDR]...
#                               [--no-start] [--dry-run]
#
# - DIR is the folder `damiera hub init` wrote;
# - updates apt's lists and installs python3-venv (and on 32-bit Raspberry Pi OS the compiler and
#   headers that build Pillow, as on a board);
# - creates the system user `damiera-hub` (no other groups: the hub needs no device);
# - builds its own virtualenv, /opt/damiera-hub/venv-<stamp> (a board on the same machine has
#   /opt/damiera/venv), beside the one the hub runs, as install-pi.sh does on a board: the
#   versions and files of systemd/requirements-pi.txt but the GPIO backends (lgpio, RPi.GPIO:
#   the hub drives no pin), each with its SHA-256 (pip --require-hashes refuses anything else);
#   only wheels are installed as root, what is built from source is fetched and built by
#   `damiera-hub` (no root, no new privileges); it must pass `pip check` and import damiera
#   before the running services are touched (a failure leaves them as they were);
# - copies DIR/hub.toml to /etc/damiera-hub/hub.toml, root:damiera-hub 0640 (it holds the hub's
#   broker password and the boards' signing keys: readable by the services, not by every user),
#   replacing it each run (the hall's folder is the source of truth), and the CA hub.toml names
#   ([mqtt] ca, beside it: hall-ca.crt) to /etc/damiera-hub, 0644. Nothing else of DIR: the
#   CA's and the broker's keys, the broker's passwords and the boards' configs stay there;
# - --http HOST:PORT: where the hall page, the console and the feeds are served (drop-in
#   http.conf; default 0.0.0.0:8090, or the drop-in already there);
# - --hall-network CIDR (repeatable): the hall's network, the only one besides loopback the
#   services talk to (IPAddressAllow=); default the private and link-local ranges, or the
#   drop-in already there;
# - installs systemd/damiera-hub.service and its drop-ins; points /opt/damiera-hub/venv at the
#   new venv (one rename); enables the hub's unit and (unless --no-start) (re)starts it, back on
#   the venv before if it does not start; keeps the venv before (for a rollback) and removes
#   older ones.
#
# Running it again upgrades damiera from the checkout, in a new venv, and restarts the services.
# The broker is not installed here: it runs from DIR/mosquitto.conf (docs/organiser.md).
# --dry-run prints the commands and the files it would write instead (no root needed).
set -euo pipefail

# die, run, put_file, the checks, the venv's build (build_venv), SRC, VENV, UNIT_DIR, NETWORKS,
# START, DRY_RUN: shared with install-pi.sh.
# shellcheck source-path=SCRIPTDIR source=install-lib.sh
source "$(dirname "${BASH_SOURCE[0]}")/install-lib.sh"
# The hub's own venv: a board on the same machine keeps /opt/damiera/venv, and neither
# installer rebuilds the other's under its running service.
set_prefix /opt/damiera-hub

CONF=/etc/damiera-hub
STATE=/var/lib/damiera-hub
USER_NAME=damiera-hub
DEFAULT_HTTP=0.0.0.0:8090
HALL=""
HTTP=""

# The fact of hub.toml the installer needs: [mqtt] ca ("" when none); or one line saying why
# not, with exit status 1.
READ_HUB_TOML='
import sys, tomllib
try:
    with open(sys.argv[1], "rb") as f:
        hub = tomllib.load(f)
except (OSError, UnicodeDecodeError, tomllib.TOMLDecodeError) as e:
    sys.exit(" ".join(str(e).split()))
mqtt = hub.get("mqtt", {})
ca = mqtt.get("ca", "") if isinstance(mqtt, dict) else None
if not isinstance(ca, str) or "\n" in ca:
    sys.exit("[mqtt] ca is not as damiera hub init writes it")
print(ca)
'

while [[ $# -gt 0 ]]; do
    case "$1" in
        --hall)
            [[ $# -ge 2 ]] || die "--hall needs the folder damiera hub init wrote"
            HALL="$2"
            shift 2
            ;;
        --http)
            [[ $# -ge 2 ]] || die "--http needs HOST:PORT (e.g. 0.0.0.0:8090)"
            HTTP="$2"
            shift 2
            ;;
        --hall-network)
            [[ $# -ge 2 ]] || die "--hall-network needs an address range (e.g. 192.168.10.0/24)"
            NETWORKS+=("$2")
            shift 2
            ;;
        --no-start) START=0; shift ;;
        --dry-run) DRY_RUN=1; shift ;;
        -h|--help) show_help; exit 0 ;;
        *) die "unknown option $1 (see --help)" ;;
    esac
done

[[ -n "$HALL" ]] || die "--hall DIR is needed: the folder damiera hub init wrote (see --help)"
[[ "$HALL" == / ]] || HALL="${HALL%/}"
[[ -f "$HALL/hub.toml" ]] || die "no $HALL/hub.toml (--hall: the folder damiera hub init wrote)"
# HOST:PORT as the hub's --http takes it (pi.board.config.parse_host_port); it becomes a word
# of the units' command line, so nothing else.
HTTP_SHAPE='^(\[[0-9A-Fa-f:.]+\]|[A-Za-z0-9]([A-Za-z0-9.-]*[A-Za-z0-9])?):([0-9]{1,5})$'
if [[ -n "$HTTP" ]]; then
    port=0
    [[ ! "$HTTP" =~ $HTTP_SHAPE ]] || port=$((10#${BASH_REMATCH[3]}))
    ((port >= 1 && port <= 65535)) \
        || die "--http wants HOST:PORT (e.g. 0.0.0.0:8090 or [::]:8090, port 1..65535): $HTTP"
fi
check_networks
check_checkout systemd/damiera-hub.service
check_root
check_python "Debian 12 has 3.11, Ubuntu 24.04 3.12, Debian 13 3.13"  # PY_VERSION, PY_MACHINE
CA_NAME="$(python3 -c "$READ_HUB_TOML" "$HALL/hub.toml" 2>&1)" || die "$HALL/hub.toml: $CA_NAME"
if [[ -n "$CA_NAME" ]]; then
    # The hub reads it beside its hub.toml: it is installed beside /etc/damiera-hub/hub.toml.
    [[ "$CA_NAME" != */* ]] || die "$HALL/hub.toml: [mqtt] ca names a file beside it" \
        "(hub init: hall-ca.crt), not $CA_NAME"
    [[ -f "$HALL/$CA_NAME" ]] || die "no CA file $HALL/$CA_NAME ([mqtt] ca of $HALL/hub.toml)"
fi

# The hub drives no GPIO: the lock's two backends (the board's `pi` extra; RPi.GPIO has no
# wheel) are left out of its venv, so a 64-bit PC builds nothing and needs no compiler.
LOCK_WITHOUT=(lgpio rpi-gpio)
run apt-get update
# FROM_SOURCE (:none: on a 64-bit PC or Pi; Pillow on armv7l), BUILD_APT, BUILD_ENV
packages_to_build "$PY_VERSION" "$PY_MACHINE"
APT_PACKAGES=(python3-venv "${BUILD_APT[@]}")
echo "== packages (Python $PY_VERSION on $PY_MACHINE; built from source: $FROM_SOURCE)"
run apt-get install -y --no-install-recommends "${APT_PACKAGES[@]}"

echo "== user $USER_NAME"
make_user "$USER_NAME" "$STATE"

# Beside the venv the services run, which they keep running until the restart below.
PREVIOUS="$(current_venv)"
build_venv "$USER_NAME"

echo "== configuration $CONF"
run install -d -m 0755 "$CONF"
# root:damiera-hub 0640: the services read it; other users do not see the password and keys.
run install -m 0640 -o root -g "$USER_NAME" "$HALL/hub.toml" "$CONF/hub.toml"
if [[ -n "$CA_NAME" ]]; then  # public: the broker's certificate is checked against it
    run install -m 0644 -o root -g root "$HALL/$CA_NAME" "$CONF/$CA_NAME"
fi

# install_unit NAME: the unit file and its drop-in folder.
install_unit() {
    run install -m 0644 "$SRC/systemd/$1" "$UNIT_DIR/$1"
    run install -d -m 0755 "$UNIT_DIR/$1.d"
}

# network_dropin UNIT: the hall's network in UNIT's drop-in folder.
network_dropin() {
    hall_network_dropin "$UNIT_DIR/$1.d" "\
# Written by install-hub.sh (--hall-network): the hall's network, which the hub talks to and
# answers besides loopback (the unit denies every other address)."
}

# http_dropin UNIT: where UNIT serves (--http, else the default), unless the drop-in is there
# and no --http is given (kept: edits survive a re-install).
http_dropin() {
    local path="$UNIT_DIR/$1.d/http.conf"
    if [[ -n "$HTTP" || ! -e "$path" ]]; then
        put_file 0644 root:root "$path" "\
# Written by install-hub.sh (--http): where the hall page, the console and the feeds are served.
[Service]
Environment=DAMIERA_HUB_HTTP=${HTTP:-$DEFAULT_HTTP}"
    else
        echo "keeping $path"
    fi
}

echo "== services"
install_unit damiera-hub.service
network_dropin damiera-hub.service
http_dropin damiera-hub.service
UNITS=(damiera-hub.service)
SEE="systemctl status damiera-hub; journalctl -u damiera-hub -f"
switch_venv
run systemctl daemon-reload
run systemctl enable "${UNITS[@]}"
if [[ $START -eq 1 ]]; then
    restart_or_roll_back "$PREVIOUS" "${UNITS[@]}"
    echo "started: $SEE"
else
    echo "not started (--no-start): systemctl start ${UNITS[*]}"
fi
prune_venvs "$PREVIOUS"
if [[ -n "$PREVIOUS" ]]; then
    echo "the venv before: $PREFIX/$PREVIOUS (back to it: sudo ln -sfn $PREVIOUS $VENV.new &&" \
        "sudo mv -T $VENV.new $VENV, then restart the hub's unit)"
fi
echo "the arbiter's token (the console, /arbiter):" \
    "sudo -u $USER_NAME $VENV/bin/damiera token --state-dir $STATE"
echo "the broker: mosquitto -c $HALL/mosquitto.conf, on the machine hub.toml's [mqtt] url" \
    "names (docs/organiser.md)"
