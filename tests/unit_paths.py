"""``systemd-analyze verify`` and ``security`` of a unit file copied into a test's folder, as
the OS would load it and nothing else of this machine: its unit path is that folder and the
OS's own units (the targets a unit names), never /etc/systemd/system or /run/systemd/system,
where an installed board or hub keeps its drop-ins (``damiera.service.d/*.conf``), which
systemd would otherwise merge into the copy of the same name."""

from __future__ import annotations

import os
from pathlib import Path

#: The OS's units (Debian: /usr/lib, and /lib before the merged /usr).
VENDOR_UNITS = ("/usr/lib/systemd/system", "/lib/systemd/system")


def private_unit_path(unit: Path) -> dict[str, str]:
    """The environment for systemd-analyze of ``unit`` (a copy in a test's folder): the
    process's own with SYSTEMD_UNIT_PATH = the copy's folder and the OS's units only."""
    return {**os.environ,
            "SYSTEMD_UNIT_PATH": os.pathsep.join([str(unit.parent), *VENDOR_UNITS])}
