#!/bin/bash
# Installs damiera on a Raspberry Pi from this checkout, in one command:
#
#   sudo systemd/install-pi.sh [--wiring FILE] [--config FILE] [--ca FILE]
#                              [--credential NAME=FILE]... [--hall-network CIDR]...
#                              [--no-start] [--dry-run]
#
# Raspberry Pi OS bookworm (Python 3.11) and trixie (Python 3.13), 64- and 32-bit.
#
# - updates apt's lists, enables I²C (raspi-config nonint do_i2c 0) and installs the build tools
#   of what has no wheel on PyPI for this Python and machine: RPi.GPIO; lgpio from Python 3.13
#   (against Raspberry Pi OS's liblgpio-dev, or with its bundled library where apt has none);
#   Pillow on 32-bit armv7l;
# - creates the system user `damiera` in the groups i2c, gpio and dialout;
# - builds a new virtualenv /opt/damiera/venv-<stamp> beside the one the service runs, with
#   exactly the versions and files of systemd/requirements-pi.txt (damiera's dependencies and
#   its `pi` extra, each with its SHA-256; pip --require-hashes refuses anything else). Only
#   wheels are installed as root; the packages built from source are fetched and built by
#   `damiera` (no root, no new privileges). It must pass `pip check` and import damiera, as
#   `damiera`; until then the running service is not touched, and a failure leaves it as it was;
# - copies the example config (or --config FILE, e.g. a hall's board-<n>.toml) to
#   /etc/damiera/damiera.toml, root:damiera 0640 (it may hold the broker password: readable by the
#   service, not by every user), and a wiring file (default pi/drivers/wiring/mcp23017_8x8.toml,
#   or --wiring FILE) to /etc/damiera/wiring.toml, never overwriting files already there except
#   with --config (your edits survive a re-install);
# - --ca FILE: the hall's certificate authority (hub init's hall-ca.crt), installed as
#   /etc/damiera/hall-ca.crt 0644, where a hall's board-<n>.toml names it (ca = "hall-ca.crt",
#   beside the config); default: the hall-ca.crt lying beside --config's file, if there is one;
# - --credential NAME=FILE: a secret kept out of the config, root-only in
#   /etc/damiera/credentials/NAME and passed by systemd to the service alone (LoadCredential=;
#   the config names it, e.g. [mqtt] password_credential = "mqtt-password");
# - --hall-network CIDR (repeatable): the hall's network, the only one besides loopback the
#   service talks to (IPAddressAllow=); default the private and link-local ranges;
# - installs systemd/damiera.service and its drop-ins, points /opt/damiera/venv at the new venv
#   (one rename), enables the service and (unless --no-start) (re)starts it, back on the venv
#   before if it does not start; keeps the venv before (for a rollback) and removes older ones.
#
# Running it again upgrades damiera from the checkout, in a new venv, and restarts the service.
# --dry-run prints the commands and the files it would write instead (no root needed).
set -euo pipefail

# die, run, put_file, the checks, the venv's build (build_venv), SRC, VENV, UNIT_DIR, NETWORKS,
# START, DRY_RUN: shared with install-hub.sh.
# shellcheck source-path=SCRIPTDIR source=install-lib.sh
source "$(dirname "${BASH_SOURCE[0]}")/install-lib.sh"
set_prefix /opt/damiera

CONF=/etc/damiera
STATE=/var/lib/damiera
DROPIN_DIR="$UNIT_DIR/damiera.service.d"
CREDENTIALS="$CONF/credentials"
USER_NAME=damiera
GROUPS_NEEDED=(i2c gpio dialout)

WIRING="$SRC/pi/drivers/wiring/mcp23017_8x8.toml"
CONFIG=""
CA=""
CA_NAME=hall-ca.crt
CREDENTIAL_ARGS=()

while [[ $# -gt 0 ]]; do
    case "$1" in
        --wiring)
            [[ $# -ge 2 ]] || die "--wiring needs a file"
            WIRING="$2"
            shift 2
            ;;
        --config)
            [[ $# -ge 2 ]] || die "--config needs a file"
            CONFIG="$2"
            shift 2
            ;;
        --ca)
            [[ $# -ge 2 ]] || die "--ca needs a file"
            CA="$2"
            shift 2
            ;;
        --credential)
            [[ $# -ge 2 ]] || die "--credential needs NAME=FILE"
            CREDENTIAL_ARGS+=("$2")
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

[[ -f "$WIRING" ]] || die "no wiring file $WIRING"
[[ -z "$CONFIG" || -f "$CONFIG" ]] || die "no config file $CONFIG"
[[ -z "$CA" || -f "$CA" ]] || die "no CA file $CA"
if [[ -z "$CA" && -n "$CONFIG" && -f "$(dirname "$CONFIG")/$CA_NAME" ]]; then
    CA="$(dirname "$CONFIG")/$CA_NAME"
fi
for arg in "${CREDENTIAL_ARGS[@]}"; do
    name="${arg%%=*}"
    # The name as the daemon's config reader takes it (pi.board.config.read_credential).
    [[ "$arg" == *=* && "$name" =~ ^[A-Za-z0-9_-][A-Za-z0-9_.-]{0,63}$ ]] \
        || die "--credential wants NAME=FILE, NAME of letters, digits, '.', '_', '-': $arg"
    [[ -f "${arg#*=}" ]] || die "no credential file ${arg#*=}"
done
check_networks
check_checkout systemd/damiera.service
check_root
check_python "Raspberry Pi OS bookworm has 3.11, trixie 3.13"  # PY_VERSION, PY_MACHINE

run apt-get update
# FROM_SOURCE (RPi.GPIO on a Pi; lgpio from Python 3.13; Pillow on armv7l), BUILD_APT, BUILD_ENV
packages_to_build "$PY_VERSION" "$PY_MACHINE" gpio
# espeak-ng: the board's voice ([speech] in damiera.toml; off unless turned on there).
APT_PACKAGES=(python3-venv i2c-tools espeak-ng "${BUILD_APT[@]}")
echo "== packages (Python $PY_VERSION on $PY_MACHINE; built from source: $FROM_SOURCE)"
run apt-get install -y --no-install-recommends "${APT_PACKAGES[@]}"

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
make_user "$USER_NAME" "$STATE"
run usermod --append --groups "$(IFS=,; echo "${GROUPS_NEEDED[*]}")" "$USER_NAME"

# Beside the venv the service runs, which it keeps running until the restart below.
PREVIOUS="$(current_venv)"
build_venv "$USER_NAME"

echo "== configuration $CONF"
run install -d -m 0755 "$CONF"
# root:damiera 0640: the service reads it; other users do not see a password in it.
if [[ -n "$CONFIG" ]]; then
    run install -m 0640 -o root -g "$USER_NAME" "$CONFIG" "$CONF/damiera.toml"
elif [[ -e "$CONF/damiera.toml" ]]; then
    echo "keeping $CONF/damiera.toml"
    run chown root:"$USER_NAME" "$CONF/damiera.toml"
    run chmod 0640 "$CONF/damiera.toml"
else
    run install -m 0640 -o root -g "$USER_NAME" "$SRC/pi/damiera.example.toml" "$CONF/damiera.toml"
fi
if [[ -n "$CA" ]]; then  # public: the broker's certificate is checked against it
    run install -m 0644 -o root -g root "$CA" "$CONF/$CA_NAME"
fi
if [[ -e "$CONF/wiring.toml" ]]; then
    echo "keeping $CONF/wiring.toml"
else
    run install -m 0644 "$WIRING" "$CONF/wiring.toml"
fi
# Secrets: root-only on disk; systemd copies each into the service's own credentials folder.
CREDENTIAL_NAMES=()
if [[ -d "$CREDENTIALS" ]]; then
    while IFS= read -r -d '' file; do
        CREDENTIAL_NAMES+=("${file##*/}")
    done < <(find "$CREDENTIALS" -mindepth 1 -maxdepth 1 -type f -print0)
fi
if [[ ${#CREDENTIAL_ARGS[@]} -gt 0 ]]; then
    run install -d -m 0700 -o root -g root "$CREDENTIALS"
fi
for arg in "${CREDENTIAL_ARGS[@]}"; do
    run install -m 0600 -o root -g root "${arg#*=}" "$CREDENTIALS/${arg%%=*}"
    CREDENTIAL_NAMES+=("${arg%%=*}")
done

echo "== service"
run install -m 0644 "$SRC/systemd/damiera.service" "$UNIT_DIR/damiera.service"
run install -d -m 0755 "$DROPIN_DIR"
hall_network_dropin "$DROPIN_DIR" "\
# Written by install-pi.sh (--hall-network): the hall's network, which the board talks to and
# answers besides loopback (the unit denies every other address)."
if [[ ${#CREDENTIAL_NAMES[@]} -gt 0 ]]; then
    loads=""
    while IFS= read -r name; do
        loads+=$'\n'"LoadCredential=$name:$CREDENTIALS/$name"
    done < <(printf '%s\n' "${CREDENTIAL_NAMES[@]}" | sort -u)
    put_file 0644 root:root "$DROPIN_DIR/credentials.conf" "\
# Written by install-pi.sh (--credential): the secrets in $CREDENTIALS,
# passed to the service alone as \$CREDENTIALS_DIRECTORY/<name>.
[Service]$loads"
fi
switch_venv
run systemctl daemon-reload
run systemctl enable damiera.service
if [[ $START -eq 1 ]]; then
    restart_or_roll_back "$PREVIOUS" damiera.service
    echo "started: systemctl status damiera; journalctl -u damiera -f"
fi
prune_venvs "$PREVIOUS"
if [[ -n "$PREVIOUS" ]]; then
    echo "the venv before: $PREFIX/$PREVIOUS (back to it: sudo ln -sfn $PREVIOUS $VENV.new &&" \
        "sudo mv -T $VENV.new $VENV && sudo systemctl restart damiera)"
fi
if [[ ! -e /dev/i2c-1 ]]; then
    echo "note: /dev/i2c-1 appears after a reboot if I²C was off" >&2
fi
