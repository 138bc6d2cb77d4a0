"""Small HTTP helpers of the board's web server: one-line JSON errors (never a traceback),
bounded JSON bodies, conditional GETs (ETag / Last-Modified → 304), whole journal lines."""

from __future__ import annotations

import json
from email.utils import formatdate, parsedate_to_datetime
from hashlib import sha1
from pathlib import Path
from typing import Any

from aiohttp import web

__all__ = ["MAX_BODY", "RESULTS", "check_action", "error", "keep_auth", "http", "json_body",
           "conditional", "read", "whole_lines", "line_of"]

#: The results an arbiter may adjudicate (every variant's set).
RESULTS = ("1-0", "0-1", "1/2-1/2", "2-0", "0-2", "1-1", "0-0", "*")

#: Request bodies larger than this are refused (413): an arbiter action is a few dozen bytes.
MAX_BODY = 16 * 1024


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


async def json_body(request: web.Request) -> dict[str, Any]:
    if request.content_length is not None and request.content_length > MAX_BODY:
        raise http(413, f"body larger than {MAX_BODY} bytes")
    raw = await request.read()
    try:
        body = json.loads(raw.decode("utf-8"))
    except (UnicodeDecodeError, ValueError, RecursionError):
        raise http(400, "the body is not JSON") from None
    if not isinstance(body, dict):
        raise http(400, "expected a JSON object")
    return body


def conditional(request: web.Request, body: bytes, content_type: str, modified: float
                 ) -> web.Response:
    etag = '"' + sha1(body).hexdigest()[:20] + '"'
    last = formatdate(int(modified), usegmt=True)
    headers = {"ETag": etag, "Last-Modified": last, "Cache-Control": "no-cache"}
    inm = request.headers.get("If-None-Match")
    if inm is not None:
        if etag in [t.strip() for t in inm.split(",")] or inm.strip() == "*":
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


def line_of(message: bytes) -> int:
    head = message.split(b"\n", 1)[0]
    return int(head[4:]) if head.startswith(b"id: ") else 0


def check_action(body: dict[str, Any]) -> dict[str, Any]:
    """The body of ``POST /api/arbiter`` checked (the TRACE.md arbiter object less ``t``):
    ``{"action", "result"?, "text"?}``; a 400 naming the problem otherwise."""
    from engine.events import ARBITER_ACTIONS
    action = body.get("action")
    if action not in ARBITER_ACTIONS:
        raise http(400, f"unknown action; expected one of {', '.join(ARBITER_ACTIONS)}")
    extra = set(body) - {"action", "result", "text", "type"}
    if extra:
        raise http(400, f"unexpected key(s): {', '.join(sorted(extra))}")
    result, text = body.get("result"), body.get("text")
    if action == "adjudicate":
        if result not in RESULTS:
            raise http(400, "adjudicate needs \"result\": a PDN result")
    elif result is not None:
        raise http(400, "only adjudicate takes a result")
    if action == "note":
        if not isinstance(text, str) or not text.strip() or len(text) > 2000:
            raise http(400, "note needs \"text\": 1 to 2000 characters")
    elif text is not None:
        raise http(400, "only note takes a text")
    out = {"action": action}
    if result is not None:
        out["result"] = result
    if text is not None:
        out["text"] = text
    return out
