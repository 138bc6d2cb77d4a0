"""The board's time zone: the dates and times of day a game's record and report show are the
board's local ones (issue 37: a game begun before 01:00 in Italy on a Pi kept in UTC was dated
the day before).

``timezone`` in ``damiera.toml`` names it (an IANA name, ``Europe/Rome``); without it the
system's (``$TZ``, else ``/etc/localtime``). The daemon writes the name into each game's start
line (docs/trace-format.md ``timezone``), so that the hub and a report made elsewhere show the board's own
times; a journal without it is read in UTC, as before.
"""

from __future__ import annotations

import os
from datetime import timezone, tzinfo
from pathlib import Path
from zoneinfo import ZoneInfo, ZoneInfoNotFoundError

__all__ = ["zone_named", "system_zone_name", "board_zone"]

_LOCALTIME = Path("/etc/localtime")


def zone_named(name: str) -> ZoneInfo | None:
    """The IANA zone ``name`` (``Europe/Rome``), None when there is no such zone."""
    if not name or len(name) > 64 or name.startswith(("/", ".")) or ".." in name:
        return None
    try:
        return ZoneInfo(name)
    except (ZoneInfoNotFoundError, ValueError):
        return None


def system_zone_name() -> str | None:
    """The system's IANA zone name: ``$TZ`` when it names one, else the zone ``/etc/localtime``
    links to; None when neither says (then the C library's local time is all there is)."""
    env = os.environ.get("TZ", "").lstrip(":")
    if env and zone_named(env) is not None:
        return env
    try:
        target = os.readlink(_LOCALTIME)
    except OSError:
        return None
    _, found, name = target.partition("zoneinfo/")
    return name if found and zone_named(name) is not None else None


def board_zone(name: str | None) -> tzinfo:
    """The zone ``name`` (a start line's or the config's ``timezone``), else UTC."""
    zone = zone_named(name) if name else None
    return zone if zone is not None else timezone.utc
