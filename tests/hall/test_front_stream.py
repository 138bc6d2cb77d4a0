"""The front reads each share's hall stream (``pi.hall.front.Front._read``) as it comes: whole
events cut at their blank line across reads, CRLF or LF, comments (pings) skipped, a board's
summary passed on under the front's own ``id`` with the share's JSON as it was written, the
same summary heard again not passed on, a board of another share ignored, a bad event
dropped without ending the stream."""

from __future__ import annotations

import asyncio
import json
from collections.abc import AsyncIterator
from pathlib import Path

import pytest

from pi.board.config import HttpSpec
from pi.hall.front import MAX_EVENT, Front, FrontConfig
from pi.hall.hall_http import HallClient
from pi.web.feeds import encode


class _Content:
    def __init__(self, chunks: list[bytes]) -> None:
        self.chunks = chunks

    async def iter_any(self) -> AsyncIterator[bytes]:
        for chunk in self.chunks:
            yield chunk


class _Response:
    def __init__(self, chunks: list[bytes]) -> None:
        self.content = _Content(chunks)


def _summary(board: str, lines: int, heard: float = 1.0) -> dict[str, object]:
    return {"board": board, "game": "g", "lines": lines, "clock": None, "last_heard": heard,
            "white": "Rossi, Ada", "black": "Bianchi, Éva"}


@pytest.mark.parametrize("size", [37, 1])  # 1: every CRLF pair cut between two reads
def test_a_shares_stream_is_read_whole_events_across_reads(tmp_path: Path, size: int) -> None:
    front = Front(FrontConfig((HttpSpec("127.0.0.1", 1), HttpSpec("127.0.0.1", 2)), tmp_path))
    page = HallClient(False)
    front.hall_clients.add(page)
    # boards 2 and 4 are share 0's of two (board number modulo N)
    first = encode(7, "board", _summary("2", 5))
    again = encode(8, "board", _summary("2", 5, heard=2.0))  # only last_heard changed
    other = encode(9, "board", _summary("3", 1))  # share 1's board: not this stream's
    crlf = encode(10, "board", _summary("4", 3)).replace(b"\n", b"\r\n")
    stream = (b"retry: 2000\n\n: ping\n\n" + first + again + b"event: board\ndata: {not json\n\n"
              + other + crlf)
    chunks = [stream[i:i + size] for i in range(0, len(stream), size)]  # events cut anywhere
    asyncio.run(front._read(0, False, _Response(chunks)))  # noqa: SLF001 - the reader itself

    sent = page.take().decode()
    events = [e for e in sent.split("\n\n") if e]
    base = front.seq - 2  # the front's ids count up from its start (first_event_id)
    assert [e.splitlines()[0] for e in events] == [f"id: {base + 1}", f"id: {base + 2}"]
    assert events[0] == encode(base + 1, "board", _summary("2", 5)).decode().rstrip("\n")
    assert json.loads(events[1].splitlines()[2].removeprefix("data: ")) == _summary("4", 3)
    assert front.shown[("2", False)][2] == _summary("2", 5)
    assert ("3", False) not in front.shown


def test_a_stream_that_never_ends_an_event_is_read_again_not_held(tmp_path: Path) -> None:
    """A share's stream with no blank line for over ``MAX_EVENT`` bytes: ValueError (the front's
    reader logs it and reads the stream again), not memory held without end."""
    front = Front(FrontConfig((HttpSpec("127.0.0.1", 1), HttpSpec("127.0.0.1", 2)), tmp_path))
    endless = [b"data: " + b"x" * 65536] * (MAX_EVENT // 65536 + 2)
    with pytest.raises(ValueError, match="longer than"):
        asyncio.run(front._read(0, False, _Response(endless)))  # noqa: SLF001
