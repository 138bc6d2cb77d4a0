"""Small HTTP helpers of our sites: one-line JSON errors (never a traceback), conditional GETs
(ETag / Last-Modified → 304), whole journal lines."""

from __future__ import annotations

import json
from email.utils import formatdate, parsedate_to_datetime
from hashlib import sha1
from pathlib import Path
from typing import Any

from aiohttp import web

__all__ = ["error", "keep_auth", "http", "conditional", "entity_tag", "none_match", "read",
           "whole_lines", "first_lines", "line_of"]


def error(status: int, message: str, headers: Any = None) -> web.Response:
    return web.json_response({"error": message}, status=status, headers=headers)


def keep_auth(headers: Any) -> dict[str, str]:
    keep = {}
    for name in ("WWW-Authenticate", "Retry-After", "Allow"):
        if name in headers:
            keep[name] = headers[name]
    return keep


def http(status: int, message: str, *, bearer: bool = False, retry: bool = False
          ) -> web.HTTPException:
    headers = {}
    if bearer:
        headers["WWW-Authenticate"] = 'Bearer realm="damiera arbiter"'
    if retry:
        headers["Retry-After"] = "5"
    exc = web.HTTPException(text=json.dumps({"error": message}), content_type="application/json",
                            headers=headers)
    exc.set_status(status, message[:60])
    return exc


def entity_tag(body: bytes) -> str:
    """The strong ``ETag`` of a response's ``body`` (the feeds', the pages')."""
    return '"' + sha1(body).hexdigest()[:20] + '"'


def none_match(request: web.Request, etag: str) -> bool | None:
    """Whether ``request``'s ``If-None-Match`` names ``etag`` (RFC 9110 13.1.2: then a 304);
    None without the header."""
    inm = request.headers.get("If-None-Match")
    if inm is None:
        return None
    return etag in [t.strip().removeprefix("W/") for t in inm.split(",")] or inm.strip() == "*"


def conditional(request: web.Request, body: bytes, content_type: str, modified: float
                 ) -> web.Response:
    etag = entity_tag(body)
    last = formatdate(int(modified), usegmt=True)
    headers = {"ETag": etag, "Last-Modified": last, "Cache-Control": "no-cache"}
    matched = none_match(request, etag)
    if matched is not None:
        if matched:
            return web.Response(status=304, headers=headers)
    else:
        ims = request.headers.get("If-Modified-Since")
        if ims is not None:
            try:
                since = parsedate_to_datetime(ims).timestamp()
            except (TypeError, ValueError, IndexError, OverflowError):
                since = None
            if since is not None and int(modified) <= since:
                return web.Response(status=304, headers=headers)
    ctype, _, charset = content_type.partition("; charset=")
    return web.Response(body=body, content_type=ctype, charset=charset or None, headers=headers)


def read(path: Path) -> bytes:
    with open(path, "rb") as f:
        return f.read()


def whole_lines(data: bytes) -> bytes:
    """A journal being appended to may end in a torn line: only whole lines are served."""
    end = data.rfind(b"\n")
    return data[:end + 1] if end >= 0 else b""


def first_lines(data: bytes, count: int) -> bytes:
    """The first ``count`` whole lines of a journal's ``data`` with their newlines (fewer when
    it has fewer): a line ends at ``b"\n"`` alone (docs/trace-format.md; a name may hold U+2028 or
    U+0085, which ``str.splitlines()`` would take for line ends)."""
    end = 0
    for _ in range(count):
        newline = data.find(b"\n", end)
        if newline < 0:
            break
        end = newline + 1
    return data[:end]


def line_of(message: bytes) -> int:
    head = message.split(b"\n", 1)[0]
    return int(head[4:]) if head.startswith(b"id: ") else 0
