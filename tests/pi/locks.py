"""The installers' lock files (systemd/requirements-*.txt, written by systemd/lock-pi.sh) as
the tests read them: each pinned package with its version, its marker (where it installs) and
the SHA-256 of each of its files; and systemd/files-pi.txt, PyPI's name of each of those files."""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path

from packaging.markers import Marker
from packaging.utils import NormalizedName, canonicalize_name

ROOT = Path(__file__).resolve().parents[2]
LOCK = ROOT / "systemd" / "requirements-pi.txt"
BUILD_LOCK = ROOT / "systemd" / "requirements-build.txt"
FILES = ROOT / "systemd" / "files-pi.txt"

_ENTRY = re.compile(r"([A-Za-z0-9_.-]+)==([^\s;]+)(?: ; ([^\\\n]+))? \\\n"
                    r"((?:    --hash=sha256:[0-9a-f]{64}(?: \\\n|\n?))+)")


@dataclass(frozen=True)
class Pin:
    """One entry of a lock: ``name==version [; marker]`` and its hashes."""

    version: str
    marker: Marker | None
    hashes: tuple[str, ...]

    def applies(self, env: dict[str, str]) -> bool:
        """Whether pip installs it in ``env`` (PEP 508 marker values)."""
        return self.marker is None or self.marker.evaluate(env)


def read_lock(path: Path) -> dict[NormalizedName, Pin]:
    """A lock file: canonical name → its pin. Fails (AssertionError) on an entry of another
    shape than lock-pi.sh writes."""
    found: dict[NormalizedName, Pin] = {}
    for block in re.split(r"\n(?=\S)", path.read_text()):
        if block.startswith("#") or not block.strip():
            continue
        m = _ENTRY.fullmatch(block)
        assert m is not None, block[:200]
        found[canonicalize_name(m.group(1))] = Pin(
            version=m.group(2), marker=Marker(m.group(3)) if m.group(3) else None,
            hashes=tuple(re.findall(r"[0-9a-f]{64}", m.group(4))))
    return found


def read_files(path: Path = FILES) -> dict[tuple[NormalizedName, str], dict[str, str]]:
    """systemd/files-pi.txt: (canonical name, version) → {file name: its SHA-256}."""
    found: dict[tuple[NormalizedName, str], dict[str, str]] = {}
    for line in path.read_text().splitlines():
        if line.startswith("#") or not line.strip():
            continue
        pin, filename, sha = line.split(" ")
        name, version = pin.split("==")
        found.setdefault((canonicalize_name(name), version), {})[filename] = sha
    return found
