"""Debian trixie roots for the system tests, made by ``debootstrap`` once and cached: amd64 for
the container booted with systemd as PID 1 (test_container.py), arm64 for the install under
qemu-user (test_pi_arm64.py). One recipe, the architecture a parameter.

The cache is ``$DAMIERA_ROOTS`` (default /var/cache/damiera-tests/): ``trixie-<arch>/`` the
root, ``trixie-<arch>.recipe`` what it was made from, written last. A root whose recipe file is
missing or differs (an interrupted build, a package added here) is made again; two test
processes asking at once take turns (a lock file). A root is never changed once made: each test
works on a copy of its own (``copy_root``), with the host's pip configuration and CA
certificates put in, so that pip and apt inside reach the registries as the host does."""

from __future__ import annotations

import fcntl
import os
import platform
import shutil
import subprocess
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

SUITE = "trixie"
MIRROR = "http://deb.debian.org/debian"
CACHE = Path(os.environ.get("DAMIERA_ROOTS", "/var/cache/damiera-tests"))
#: What a Raspberry Pi OS image has before the user types anything, besides a minimal Debian:
#: systemd as init with D-Bus, git (the checkout is cloned), Python, sudo, the CA bundle;
#: procps for ps and pkill in the checks. The installers install the rest themselves.
PACKAGES = ("systemd", "systemd-sysv", "dbus", "ca-certificates", "git", "python3", "sudo",
            "procps")
#: Debian's name for the host's architecture, as debootstrap's --arch takes it.
HOST_ARCH = {"x86_64": "amd64", "aarch64": "arm64"}.get(platform.machine(), platform.machine())
#: The binfmt_misc entry (qemu-user-static's) that runs a foreign root's binaries, by architecture.
QEMU = {"arm64": "qemu-aarch64", "armhf": "qemu-arm"}
BINFMT = Path("/proc/sys/fs/binfmt_misc")
#: The host's files that make pip and apt inside reach the registries as the host does.
HOST_FILES = ("etc/pip.conf", "etc/xdg/pip", "etc/ssl/certs", "usr/local/share/ca-certificates",
              "etc/resolv.conf")


class RootError(RuntimeError):
    """A root could not be made (no debootstrap, no network, no emulator): its one-line cause."""


def recipe(arch: str) -> str:
    return f"{SUITE} {arch} {MIRROR} {','.join(PACKAGES)}\n"


def run(args: list[str], what: str, timeout: float) -> None:
    proc = subprocess.run(args, capture_output=True, text=True, timeout=timeout)
    if proc.returncode != 0:
        tail = "\n".join((proc.stdout + proc.stderr).splitlines()[-20:])
        raise RootError(f"{what} failed (exit {proc.returncode}): {' '.join(args)}\n{tail}")


def debian_root(arch: str = HOST_ARCH) -> Path:
    """The cached trixie root for ``arch``, made first when missing (minutes: the packages come
    from deb.debian.org; a foreign architecture's packages are configured under qemu-user)."""
    root = CACHE / f"{SUITE}-{arch}"
    stamp = CACHE / f"{SUITE}-{arch}.recipe"
    CACHE.mkdir(parents=True, exist_ok=True)
    with (CACHE / f"{SUITE}-{arch}.lock").open("w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        if stamp.exists() and stamp.read_text() == recipe(arch) and root.is_dir():
            return root
        stamp.unlink(missing_ok=True)
        new = CACHE / f"{SUITE}-{arch}.new"
        remove(new)
        remove(root)
        bootstrap(arch, new)
        new.rename(root)
        stamp.write_text(recipe(arch))
    return root


def remove(path: Path) -> None:
    """Removes ``path`` after unmounting whatever is mounted under it (debootstrap mounts /proc
    and /sys in the root it makes: an interrupted build leaves them there), deepest first."""
    prefix = str(path.resolve()) + "/"
    mounts = [line.split()[1].encode().decode("unicode_escape")
              for line in Path("/proc/self/mounts").read_text().splitlines()]
    for point in sorted((m for m in mounts if m.startswith(prefix)), key=len, reverse=True):
        subprocess.run(["umount", "--lazy", point], capture_output=True, check=False)
    shutil.rmtree(path, ignore_errors=True)


def bootstrap(arch: str, target: Path) -> None:
    if shutil.which("debootstrap") is None:
        raise RootError("debootstrap is not installed (make test-slow installs it)")
    if arch != HOST_ARCH:
        check_emulation(arch)
    # A foreign architecture in one run, not `--foreign` and then `--second-stage` inside: its
    # second stage then runs debootstrap's own Perl under emulation too, a minute per package
    # lookup (the arm64 root: not done after 54 min here, against 21 min in one run, where only
    # dpkg and the packages' scripts run emulated).
    run(["debootstrap", "--variant=minbase", f"--include={','.join(PACKAGES)}",
         f"--arch={arch}", SUITE, str(target), MIRROR], "debootstrap", timeout=3600)


def check_emulation(arch: str) -> None:
    """``arch``'s binaries run here through binfmt_misc, with the emulator opened when it was
    registered (flag F), so that nothing of the host's has to be copied into the root."""
    entry = BINFMT / QEMU[arch]
    if not entry.exists():
        raise RootError(f"no binfmt_misc entry {entry}: install qemu-user-static and "
                        "binfmt-support (make test-pi does), with binfmt_misc mounted")
    lines = entry.read_text().splitlines()
    flags = next((line.split()[1] for line in lines if line.startswith("flags:")), "")
    if lines[0] != "enabled" or "F" not in flags:
        raise RootError(f"{entry}: {lines[0]}, flags {flags!r}: it must be enabled, with F "
                        f"(update-binfmts --enable {QEMU[arch]})")


def copy_root(root: Path, dest: Path) -> Path:
    """A working copy of ``root`` at ``dest`` (hard links would share the files' contents with
    the cache: a plain copy), with the host's pip configuration, CA certificates and resolver
    put in."""
    run(["cp", "-a", "--reflink=auto", f"{root}/.", str(dest)], "copying the root", timeout=600)
    put_host_files(dest)
    return dest


def put_host_files(dest: Path) -> None:
    for rel in HOST_FILES:
        source, target = Path("/") / rel, dest / rel
        if not source.exists():
            continue
        if target.is_symlink() or target.is_file():
            target.unlink()
        elif target.is_dir():
            shutil.rmtree(target)
        target.parent.mkdir(parents=True, exist_ok=True)
        if source.is_dir():
            shutil.copytree(source, target, symlinks=True, dirs_exist_ok=True)
        else:
            shutil.copy2(source.resolve(), target)


@contextmanager
def working_root(arch: str, parent: Path) -> Iterator[Path]:
    """A fresh copy of the cached root for ``arch`` under ``parent``, removed afterwards."""
    dest = parent / f"{SUITE}-{arch}"
    dest.mkdir()
    try:
        yield copy_root(debian_root(arch), dest)
    finally:
        remove(dest)


if __name__ == "__main__":  # `python tests/system/debian_root.py [ARCH...]`: make them now
    import sys

    for name in sys.argv[1:] or [HOST_ARCH]:
        print(debian_root(name))
