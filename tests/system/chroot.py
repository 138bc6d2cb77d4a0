"""Commands in a Debian root by ``chroot``, for a root of another architecture (arm64 on an
x86-64 host: its binaries run under qemu-user through binfmt_misc; systemd itself does not run
there, and systemctl in a chroot enables units but ignores daemon-reload, start and restart).

Each command runs in private mount and PID namespaces (``unshare --mount --pid``) with /proc,
/sys and /dev mounted in the root for it alone: nothing stays mounted on the host after it, and
nothing it started outlives it. Its PID 1 is the shell outside the root that mounted them, so
that systemctl inside sees a chroot and ignores what needs a running systemd (the host's own
PID 1 may not let root read its /proc/1/root: systemctl then cannot tell, and fails). The
network is the host's (the installers reach deb.debian.org and PyPI as it does)."""

from __future__ import annotations

import shlex
import subprocess
from pathlib import Path

from nspawn import ContainerError, Result, login_command

MOUNTS = ("mount -t proc proc {r}/proc && mount -t sysfs sysfs {r}/sys && "
          "mount --rbind /dev {r}/dev && mount -t tmpfs tmpfs {r}/run && "
          "mkdir -p {r}/run/lock && mount -t tmpfs tmpfs {r}/tmp")


class Chroot:
    """``root``, entered by ``run`` as root or as ``user``."""

    def __init__(self, root: Path) -> None:
        self.root = root

    def run(self, command: str, *, user: str | None = None, timeout: float = 600.0,
            env: dict[str, str] | None = None) -> Result:
        inner = login_command(command, user, env)
        r = shlex.quote(str(self.root))
        script = (MOUNTS.format(r=r) + f" && chroot {r} "
                  + " ".join(shlex.quote(arg) for arg in inner))
        args = ["unshare", "--mount", "--propagation", "private", "--pid", "--fork",
                "--kill-child", "sh", "-c", script]
        try:
            proc = subprocess.run(args, capture_output=True, text=True, timeout=timeout)
        except subprocess.TimeoutExpired as exc:
            raise ContainerError(f"in the chroot: {command}: no end after {timeout} s") from exc
        return Result(command, proc.returncode, proc.stdout, proc.stderr)

    def ok(self, command: str, *, user: str | None = None, timeout: float = 600.0) -> str:
        """``command``'s output; a failure raises with both outputs."""
        return self.run(command, user=user, timeout=timeout).check().stdout
