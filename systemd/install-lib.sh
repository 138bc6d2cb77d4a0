# shellcheck shell=bash
# What systemd/install-pi.sh (a board) and systemd/install-hub.sh (the hall's hub) share, sourced
# by both, never run: their options' common state, errors as one line on stderr with exit 2,
# --dry-run's printing, the checks, what is built from source, the virtualenv (the board's
# /opt/damiera/venv, the hub's /opt/damiera-hub/venv: each its own, so that neither installer
# rebuilds the other's under its running service) built from the hash-checked locks beside the
# running one with nothing built as root, and switched to once it works; the hall's network
# drop-in.

# The script that sourced this file (its name starts its error lines).
SCRIPT="${BASH_SOURCE[1]}"
SRC="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
# The venv's home, set by the sourcing script (set_prefix).
PREFIX=""
VENV=""
# shellcheck disable=SC2034  # the sourcing scripts' (as START below)
UNIT_DIR=/etc/systemd/system
# The only index, whatever /etc/pip.conf says (Raspberry Pi OS adds piwheels): the locks hold
# PyPI's hashes.
INDEX=https://pypi.org/simple
# The hall's network when --hall-network is not given: the private and link-local ranges, so
# that a board set up at home still works in the hall, and nothing on the Internet is reached.
DEFAULT_NETWORKS=(10.0.0.0/8 172.16.0.0/12 192.168.0.0/16 fc00::/7 link-local)
NETWORKS=()
# The lock's packages build_venv leaves out (the hub: the board's GPIO backends).
LOCK_WITHOUT=()
# shellcheck disable=SC2034
START=1
DRY_RUN=0

# set_prefix DIR: the venv is DIR/venv (a symlink to DIR/venv-<stamp>).
set_prefix() {
    PREFIX=$1
    VENV="$PREFIX/venv"
}

die() {
    echo "${SCRIPT##*/}: $*" >&2
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

# put_file MODE OWNER:GROUP PATH TEXT: writes TEXT (and a line break) to PATH.
put_file() {
    local mode=$1 owner=$2 path=$3 text=$4 tmp
    if [[ $DRY_RUN -eq 1 ]]; then
        printf '+ write %s (%s %s)\n' "$path" "$mode" "$owner"
        printf '%s\n' "$text" | sed 's/^/| /'
    else
        tmp="$(mktemp)"
        printf '%s\n' "$text" > "$tmp"
        install -m "$mode" -o "${owner%%:*}" -g "${owner#*:}" "$tmp" "$path"
        rm -f "$tmp"
    fi
}

# show_help: the script's header comment, without its `# `.
show_help() {
    sed -n '2,${/^#/!q;p}' "$SCRIPT" | sed 's/^# \{0,1\}//'
}

check_networks() {
    local network
    for network in "${NETWORKS[@]}"; do
        python3 -c 'import ipaddress, sys; ipaddress.ip_network(sys.argv[1], strict=False)' \
            "$network" 2>/dev/null || die "--hall-network: not an address range: $network"
    done
}

# check_checkout FILE...: this is a damiera checkout holding FILE... (paths in it).
check_checkout() {
    local file ok=1
    for file in pyproject.toml "$@"; do
        [[ -f "$SRC/$file" ]] || ok=0
    done
    [[ $ok -eq 1 ]] || die "run it from a damiera checkout ($SRC has no pyproject.toml)"
}

check_root() {
    if [[ $DRY_RUN -eq 0 && $EUID -ne 0 ]]; then
        die "run as root: sudo $0"
    fi
}

# check_python HINT: python3 is 3.11 or later (tomllib); PY_VERSION (3.11, 3.13 …) and
# PY_MACHINE, the machine its packages are for: aarch64, armv7l (32-bit Raspberry Pi OS, even
# on a 64-bit kernel, where uname says aarch64), x86_64 …
check_python() {
    python3 -c 'import sys; sys.exit(sys.version_info < (3, 11))' \
        || die "damiera needs Python 3.11 or later ($1)"
    # shellcheck disable=SC2034  # the sourcing script's packages_to_build
    PY_VERSION="$(python3 -c 'import sys; print("%d.%d" % sys.version_info[:2])')"
    # shellcheck disable=SC2034
    PY_MACHINE="$(python3 -c 'import platform, struct
machine, bits = platform.machine(), struct.calcsize("P") * 8
print({("aarch64", 32): "armv7l", ("armv8l", 32): "armv7l", ("armv7l", 32): "armv7l",
       ("x86_64", 32): "i686"}.get((machine, bits), machine))')"
}

# has_apt_package NAME: apt has a version of NAME to install (its lists updated first).
has_apt_package() {
    local candidate
    candidate="$(apt-cache policy "$1" 2>/dev/null | awk '$1 == "Candidate:" { print $2 }')"
    [[ -n "$candidate" && "$candidate" != "(none)" ]]
}

# packages_to_build VERSION MACHINE [gpio]: what pip builds from source for Python VERSION on
# MACHINE, because PyPI has no wheel of the locked version for it (tests/pi/test_pi_wheels.py
# checks this against PyPI's files, systemd/files-pi.txt):
# - FROM_SOURCE: the packages, comma-separated (`:none:` for none);
# - BUILD_APT: the apt packages their build needs (none when nothing is built);
# - BUILD_ENV: the build's environment (VAR=value words).
# `gpio`: the lock's GPIO backends are installed (a board); without, they are left out (the
# hub: see LOCK_WITHOUT). Run after `apt-get update` (lgpio asks apt for liblgpio-dev).
packages_to_build() {
    local version=$1 machine=$2 sources=() minor
    minor="${version#*.}"
    BUILD_APT=()
    BUILD_ENV=()
    if [[ "${3:-}" == gpio && ( "$machine" == aarch64 || "$machine" == armv7l ) ]]; then
        # RPi.GPIO: sources only, for every Python.
        sources+=(rpi-gpio)
        # lgpio 0.2.2.0 has wheels up to Python 3.12. Its source is SWIG's: linked against the
        # system's liblgpio where the OS has it (Raspberry Pi OS), else (PYPI=1) with the C
        # library it bundles built in (Debian has no liblgpio).
        if ((minor >= 13)); then
            sources+=(lgpio)
            BUILD_APT+=(swig)
            if has_apt_package liblgpio-dev; then
                BUILD_APT+=(liblgpio-dev)
            else
                BUILD_ENV+=(PYPI=1)
            fi
        fi
    fi
    # Pillow has no 32-bit ARM wheel (armv7l; armv6l: a Pi 1 or Zero): built with the JPEG and
    # zlib headers.
    if [[ "$machine" == armv7l || "$machine" == armv6l ]]; then
        sources+=(pillow)
        BUILD_APT+=(libjpeg-dev zlib1g-dev)
    fi
    if [[ ${#sources[@]} -gt 0 ]]; then
        BUILD_APT=(python3-dev gcc "${BUILD_APT[@]}")
    fi
    FROM_SOURCE="$(IFS=,; echo "${sources[*]:-:none:}")"
}

# lock_without NAME...: systemd/requirements-pi.txt without the entries of the packages NAME...
# (an entry: its `name==version \` line and its hash lines).
lock_without() {
    awk -v names="$*" '
        BEGIN { n = split(names, list, " "); for (i = 1; i <= n; i++) skip[list[i]] = 1 }
        /^[^ #]/ { split($0, pin, "=="); cut = (pin[1] in skip) }
        !cut { print }' "$SRC/systemd/requirements-pi.txt"
}

# make_user NAME HOME: the system user NAME (and its group) unless it exists.
make_user() {
    if ! id "$1" >/dev/null 2>&1; then
        run useradd --system --user-group --home-dir "$2" --no-create-home \
            --shell /usr/sbin/nologin "$1"
    fi
}

# What the new venv must import, as the service's user, before it is switched to: damiera's
# modules and every compiled dependency (Pillow, aiohttp's, lgpio where it is installed).
# RPi.GPIO is only looked for: it refuses to be imported on anything but a Pi 1-4.
IMPORT_CHECK='
import importlib.util
import aiohttp, fpdf, gpiozero, luma.oled.device, paho.mqtt.client, PIL.Image, serial, smbus2
import pi.cli, pi.run, pi.daemon, pi.hall.hub, pi.web.server
if importlib.util.find_spec("lgpio") is not None:
    import lgpio
'

# The venv the sourcing script's services run: $VENV, a symlink to the versioned folder
# $PREFIX/venv-<stamp> (a venv cannot be moved: its scripts name its Python by path).
# build_venv makes a new one beside the running one; switch_venv points $VENV at it.
NEW_VENV=""
SWITCHED=0
BUILD=""

# Removes what a run that did not get to switch_venv leaves: the build folder, the new venv.
cleanup_build() {
    [[ -z "$BUILD" || $DRY_RUN -eq 1 ]] || rm -rf "$BUILD"
    if [[ -n "$NEW_VENV" && $SWITCHED -eq 0 && $DRY_RUN -eq 0 ]]; then
        rm -rf "$NEW_VENV"
        echo "${SCRIPT##*/}: stopped before switching; $VENV is as it was" >&2
    fi
}

# build_venv USER: NEW_VENV, a new venv $PREFIX/venv-<stamp> made with exactly the locks' files,
# the packages without a wheel built by USER, checked (pip check, IMPORT_CHECK as USER); the
# running services and $VENV are not touched. A failure on the way removes it (cleanup_build).
build_venv() {
    local user=$1 stamp
    stamp="$(date -u +%Y%m%d-%H%M%S)"
    NEW_VENV="$PREFIX/venv-$stamp"
    echo "== virtualenv $NEW_VENV (systemd/requirements-*.txt: pinned, hash-checked)"
    [[ ! -e "$NEW_VENV" ]] || die "$NEW_VENV exists already (another run of the installer?)"
    trap cleanup_build EXIT
    run install -d -m 0755 "$PREFIX"
    # A new folder each time: root never starts a Python whose site-packages hold what an
    # earlier run built as `$user` (a .pth file there would run as root).
    run python3 -m venv "$NEW_VENV"
    # pip is the one python3-venv brings (Debian's, updated by apt), not upgraded from PyPI.
    local PIP_ENV=(PIP_CONFIG_FILE=/dev/null PIP_NO_CACHE_DIR=1 PIP_DISABLE_PIP_VERSION_CHECK=1)
    local PIP=(env "${PIP_ENV[@]}" "$NEW_VENV/bin/python" -m pip)
    local AS_USER=(setpriv --reuid="$user" --regid="$user" --clear-groups --no-new-privs)
    # The venv runs the Python that made it: one in a home folder (pyenv's, first on root's PATH
    # outside sudo) cannot be run by the service's user.
    run "${AS_USER[@]}" env "$NEW_VENV/bin/python" -c "" 2>/dev/null \
        || die "the service's user $user cannot run $NEW_VENV/bin/python (made from" \
            "$(command -v python3), which it cannot reach): run it with sudo, or with the" \
            "system's python3 first on PATH"
    # The tools that build the packages without a wheel: wheels only, so nothing runs as root.
    run "${PIP[@]}" install --quiet --require-hashes --only-binary=:all: --no-deps \
        --index-url "$INDEX" -r "$SRC/systemd/requirements-build.txt"
    # damiera itself, from this checkout (root's own files), with the locked setuptools.
    run "${PIP[@]}" install --quiet --no-index --no-deps --no-build-isolation "$SRC"
    # Everything else is fetched and built by the service's user with no way to gain
    # privileges, in a fresh folder of /tmp, which the user's running services cannot reach
    # (their units' PrivateTmp=yes; ProtectSystem=strict keeps them out of $PREFIX).
    if [[ $DRY_RUN -eq 1 ]]; then
        BUILD=/tmp/damiera-build.XXXXXX
    else
        BUILD="$(mktemp -d /tmp/damiera-build.XXXXXX)"
    fi
    if [[ ${#LOCK_WITHOUT[@]} -eq 0 ]]; then
        run install -m 0644 "$SRC/systemd/requirements-pi.txt" "$BUILD/requirements-pi.txt"
    else
        put_file 0644 root:root "$BUILD/requirements-pi.txt" "$(lock_without "${LOCK_WITHOUT[@]}")"
    fi
    run chown "$user:$user" "$BUILD"
    run "${AS_USER[@]}" env HOME="$BUILD" "${PIP_ENV[@]}" "${BUILD_ENV[@]}" \
        "$NEW_VENV/bin/python" -m pip wheel --quiet --require-hashes --no-build-isolation \
        --only-binary=:all: --no-binary="$FROM_SOURCE" --index-url "$INDEX" \
        --wheel-dir "$BUILD/wheels" -r "$BUILD/requirements-pi.txt"
    # The last run of the venv's Python as root: the code just installed is not run by it.
    run "${PIP[@]}" install --quiet --no-index --no-deps "$BUILD"/wheels/*.whl
    run "${AS_USER[@]}" env HOME="$BUILD" "${PIP_ENV[@]}" "$NEW_VENV/bin/python" -m pip check
    # -I: the checkout (the working folder) is not on its path; the venv's damiera is imported.
    # LG_WD: lgpio makes its notification pipe in the working folder at import (joan2937/lg#22),
    # here the caller's checkout, which the service's user may not write
    run "${AS_USER[@]}" env HOME="$BUILD" LG_WD="$BUILD" "$NEW_VENV/bin/python" -I -c "$IMPORT_CHECK"
}

# switch_venv: $VENV points at NEW_VENV, in one rename (a service starting meanwhile finds one
# or the other, whole). The running services keep the venv they started from until restarted.
# A venv folder at $VENV itself (an install before versioned venvs) is kept as venv-legacy.
switch_venv() {
    if [[ -d "$VENV" && ! -L "$VENV" ]]; then
        run rm -rf "$PREFIX/venv-legacy"
        run mv -T "$VENV" "$PREFIX/venv-legacy"
    fi
    run ln -sfn "${NEW_VENV##*/}" "$VENV.new"
    run mv -T "$VENV.new" "$VENV"
    SWITCHED=1
}

# restart_or_roll_back PREVIOUS UNIT...: restarts the UNITs on the venv just switched to; if
# they do not start (systemctl waits for their READY=1), $VENV goes back to PREVIOUS (when
# there is one), they are restarted on it, and the run stops saying so.
restart_or_roll_back() {
    local previous=$1
    shift
    run systemctl restart "$@" && return 0
    if [[ -z "$previous" ]]; then
        die "$* did not start (journalctl -u $1)"
    fi
    run ln -sfn "$previous" "$VENV.new"
    run mv -T "$VENV.new" "$VENV"
    run systemctl restart "$@" || true
    die "$* did not start on the new venv $NEW_VENV: back on $PREFIX/$previous" \
        "(journalctl -u $1)"
}

# prune_venvs PREVIOUS: removes $PREFIX's venvs but the current one and PREVIOUS (the one
# switched from, kept for a rollback: `ln -sfn PREVIOUS $VENV.new && mv -T $VENV.new $VENV`).
prune_venvs() {
    local previous=$1 folder
    for folder in "$PREFIX"/venv-*; do
        [[ -d "$folder" && ! -L "$folder" ]] || continue
        [[ "${folder##*/}" != "${NEW_VENV##*/}" && "${folder##*/}" != "$previous" ]] || continue
        run rm -rf "$folder"
    done
}

# current_venv: the folder $VENV points at now ("" when none), e.g. venv-20260401-101500; a
# venv folder at $VENV itself is venv-legacy (switch_venv moves it there).
current_venv() {
    if [[ -L "$VENV" ]]; then
        basename "$(readlink "$VENV")"
    elif [[ -d "$VENV" ]]; then
        echo venv-legacy
    fi
}

# hall_network_dropin DIR COMMENT: DIR/hall-network.conf allowing the hall's network
# (--hall-network, else the default ranges), unless it is there and no --hall-network is given
# (kept: edits survive a re-install). COMMENT (`# ` lines) heads it.
hall_network_dropin() {
    local dir=$1 comment=$2 networks=("${NETWORKS[@]}")
    if [[ ${#networks[@]} -gt 0 || ! -e "$dir/hall-network.conf" ]]; then
        [[ ${#networks[@]} -gt 0 ]] || networks=("${DEFAULT_NETWORKS[@]}")
        put_file 0644 root:root "$dir/hall-network.conf" "\
$comment
[Service]
IPAddressAllow=${networks[*]}"
    else
        echo "keeping $dir/hall-network.conf"
    fi
}
