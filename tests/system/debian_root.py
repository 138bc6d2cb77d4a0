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
#: The user-mode emulator a foreign root's binaries run under (binfmt_misc), by architecture.
QEMU = {"arm64": "qemu-aarch64-static", "armhf": "qemu-arm-static"}
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
    from deb.debian.org; a foreign architecture's second stage runs under qemu-user)."""
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
    base = ["debootstrap", "--variant=minbase", f"--include={','.join(PACKAGES)}",
            f"--arch={arch}"]
    if arch == HOST_ARCH:
        run([*base, SUITE, str(target), MIRROR], "debootstrap", timeout=1800)
        return
    # A foreign root: the packages unpacked here, then configured inside under qemu-user.
    emulator = shutil.which(QEMU.get(arch, f"qemu-{arch}-static"))
    if emulator is None:
        raise RootError(f"no user-mode emulator for {arch} (package qemu-user-static)")
    run([*base, "--foreign", SUITE, str(target), MIRROR], "debootstrap --foreign", timeout=1800)
    # binfmt_misc's entry may lack the F flag (the emulator opened when registered): then the
    # kernel looks for it inside the root.
    shutil.copy2(emulator, target / "usr" / "bin" / Path(emulator).name)
    run(["chroot", str(target), "/debootstrap/debootstrap", "--second-stage"],
        "debootstrap --second-stage (under qemu-user)", timeout=3600)


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
