"""The OLED stand-in: luma.core's ``dummy`` device keeps the last image for inspection."""

from __future__ import annotations

from typing import Any


def dummy_oled(width: int = 128, height: int = 64) -> Any:
    """A monochrome 128×64 luma ``dummy`` device; ``device.image`` is the last frame (mode "1")."""
    from luma.core.device import dummy
    return dummy(width=width, height=height, mode="1")


def lit_pixels(image: Any, box: tuple[int, int, int, int] | None = None) -> int:
    """Number of lit pixels in ``image`` (or in ``box`` = left, top, right, bottom)."""
    region = (image.crop(box) if box else image).convert("L")
    return sum(region.histogram()[1:])
