# shellcheck shell=bash
# What systemd/install-pi.sh (a board) and systemd/install-hub.sh (the hall's hub) share, sourced
# by both, never run: their options' common state, errors as one line on stderr with exit 2,
# --dry-run's printing, the checks, what is built from source, the virtualenv /opt/damiera/venv
# built from the hash-checked locks with nothing built as root, the hall's network drop-in.
# On a machine with a board and the hub, both use the one venv.

# The script that sourced this file (its name starts its error lines).
SCRIPT="${BASH_SOURCE[1]}"
SRC="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
PREFIX=/opt/damiera
VENV="$PREFIX/venv"
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

# check_python HINT: python3 is 3.11 or later (tomllib; the locks are for 3.11).
check_python() {
    python3 -c 'import sys; sys.exit(sys.version_info < (3, 11))' \
        || die "damiera needs Python 3.11 or later ($1)"
}

# packages_to_build [gpio]: FROM_SOURCE, the packages pip builds from source here (PyPI has no
# wheel for them; `:none:` for none), and BUILD_HEADERS, the apt packages their build needs
# besides python3-dev and gcc. `gpio`: the lock's GPIO backends are installed (a board: RPi.GPIO
# is built); without, they are left out of it (the hub: see LOCK_WITHOUT).
packages_to_build() {
    local sources=()
    [[ "${1:-}" != gpio ]] || sources+=(rpi-gpio)
    # shellcheck disable=SC2034  # the sourcing script's apt-get install
    BUILD_HEADERS=()
    # On 32-bit Raspberry Pi OS also Pillow (which needs the JPEG and zlib headers). It may run
    # a 64-bit kernel (uname says aarch64): ask Python.
    if [[ "$(python3 -c 'import struct; print(struct.calcsize("P") * 8)')" == 32 ]]; then
        sources+=(pillow)
        # shellcheck disable=SC2034
        BUILD_HEADERS=(libjpeg-dev zlib1g-dev)
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

# build_venv USER UNIT...: $VENV made afresh with exactly the locks' files, the packages without
# a wheel built by USER, the UNITs (USER's services) stopped first if they run.
build_venv() {
    local user=$1 unit
    shift
    echo "== virtualenv $VENV (systemd/requirements-*.txt: pinned, hash-checked)"
    # Made afresh each time (--clear): root never starts a Python whose site-packages hold what an
    # earlier run built as `$user` (a .pth file there would run as root).
    for unit in "$@"; do
        if systemctl is-active --quiet "$unit" 2>/dev/null; then
            run systemctl stop "$unit"
        fi
    done
    run install -d -m 0755 "$PREFIX"
    run python3 -m venv --clear "$VENV"
    # pip is the one python3-venv brings (Debian's, updated by apt), not upgraded from PyPI.
    local PIP_ENV=(PIP_CONFIG_FILE=/dev/null PIP_NO_CACHE_DIR=1 PIP_DISABLE_PIP_VERSION_CHECK=1)
    local PIP=(env "${PIP_ENV[@]}" "$VENV/bin/python" -m pip)
    local AS_USER=(setpriv --reuid="$user" --regid="$user" --clear-groups --no-new-privs)
    # The venv runs the Python that made it: one in a home folder (pyenv's, first on root's PATH
    # outside sudo) cannot be run by the service's user.
    run "${AS_USER[@]}" env "$VENV/bin/python" -c "" 2>/dev/null \
        || die "the service's user $user cannot run $VENV/bin/python (made from" \
            "$(command -v python3), which it cannot reach): run it with sudo, or with the" \
            "system's python3 first on PATH"
    # The tools that build the packages without a wheel: wheels only, so nothing runs as root.
    run "${PIP[@]}" install --quiet --require-hashes --only-binary=:all: --no-deps \
        --index-url "$INDEX" -r "$SRC/systemd/requirements-build.txt"
    # damiera itself, from this checkout (root's own files), with the locked setuptools.
    run "${PIP[@]}" install --quiet --no-index --no-deps --no-build-isolation "$SRC"
    # Everything else is fetched and built by the service's user with no way to gain
    # privileges, in a fresh folder, while its services are stopped (no process of that user
    # runs to tamper).
    if [[ $DRY_RUN -eq 1 ]]; then
        BUILD=/tmp/damiera-build.XXXXXX
    else
        BUILD="$(mktemp -d /tmp/damiera-build.XXXXXX)"
        trap 'rm -rf "$BUILD"' EXIT
    fi
    if [[ ${#LOCK_WITHOUT[@]} -eq 0 ]]; then
        run install -m 0644 "$SRC/systemd/requirements-pi.txt" "$BUILD/requirements-pi.txt"
    else
        put_file 0644 root:root "$BUILD/requirements-pi.txt" "$(lock_without "${LOCK_WITHOUT[@]}")"
    fi
    run chown "$user:$user" "$BUILD"
    run "${AS_USER[@]}" env HOME="$BUILD" "${PIP_ENV[@]}" "$VENV/bin/python" -m pip wheel \
        --quiet --require-hashes --no-build-isolation --only-binary=:all: \
        --no-binary="$FROM_SOURCE" --index-url "$INDEX" --wheel-dir "$BUILD/wheels" \
        -r "$BUILD/requirements-pi.txt"
    # The last run of the venv's Python as root: the code just installed is not run by it.
    run "${PIP[@]}" install --quiet --no-index --no-deps "$BUILD"/wheels/*.whl
    run "${AS_USER[@]}" env HOME="$BUILD" "${PIP_ENV[@]}" "$VENV/bin/python" -m pip check
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
