"""The pages in the viewer's language: choosing it, translating a page, its catalog for scripts.

A viewer's language is, first, the one asked for with ``?lang=it`` (the switch on every page
links there; it is kept in the :data:`LANG_COOKIE` cookie), then that cookie, then the browser's
``Accept-Language`` (Babel's negotiation among :data:`engine.i18n.LANGUAGES`), else English.

A page's own text (its HTML's text nodes and the ``aria-label``/``title``/``placeholder``/``alt``
attributes) is translated on the server from the same gettext catalogs as everything else: the
English text is the msgid, extracted by :func:`extract_html` (Babel's ``html`` extractor in
``babel.cfg``). The page's scripts get the catalog of the chosen language as JSON inside the page
(``<script type="application/json" id="i18n-catalog">``, built from the compiled ``.mo`` by
:func:`catalog_json`, also served as ``GET /i18n/<lang>.json``) and translate their own strings
with ``static/i18n.js``. Text with no letter in it (``–``, ``◀``, ``*``) is not a message.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from functools import cache
from html import escape
from html.parser import HTMLParser
from pathlib import Path
from typing import IO

from aiohttp import web

from engine.i18n import DEFAULT_LANGUAGE, LANGUAGES, catalog_path, check_language, translations
from pi.web.httputil import entity_tag, http, none_match

__all__ = ["LANG_COOKIE", "choose_language", "catalog_json", "page_html", "page_response",
           "catalog_response", "page_texts", "extract_html", "accepted_languages"]

#: The cookie that keeps a viewer's choice from the switch (``?lang=``).
LANG_COOKIE = "damiera_lang"
#: Attributes whose value a person reads (or hears, from a screen reader).
TEXT_ATTRIBUTES = ("aria-label", "title", "placeholder", "alt")
_LETTER = re.compile(r"[^\W\d_]")
_SKIP = frozenset({"script", "style"})


def accepted_languages(header: str) -> list[str]:
    """The languages of an ``Accept-Language`` header, most wanted first (``q=0`` dropped;
    a malformed quality counts as 0)."""
    ranked: list[tuple[float, int, str]] = []
    for i, part in enumerate(header.split(",")):
        tag, _, params = part.strip().partition(";")
        tag = tag.strip()
        if not tag or tag == "*":
            continue
        q = 1.0
        params = params.strip()
        if params.startswith("q="):
            try:
                q = float(params[2:])
            except ValueError:
                q = 0.0
        if q > 0:
            ranked.append((-q, i, tag))
    return [tag for _, _, tag in sorted(ranked)]


def choose_language(request: web.Request) -> str:
    """The language to show ``request`` in (see the module docstring); never raises."""
    asked = request.query.get("lang", "")
    if asked in LANGUAGES:
        return asked
    kept = request.cookies.get(LANG_COOKIE, "")
    if kept in LANGUAGES:
        return kept
    from babel import negotiate_locale  # Babel off the daemon's start path (issue 36)
    found = negotiate_locale(accepted_languages(request.headers.get("Accept-Language", "")),
                             list(LANGUAGES), sep="-")
    return found if found is not None else DEFAULT_LANGUAGE


@cache
def catalog_json(language: str) -> str:
    """The compiled catalog of ``language`` as JSON for the pages' scripts:
    ``{"lang": "it", "plural": "(n != 1)", "messages": {msgid: str | [str, …]},
    "plurals": {msgid: msgid_plural}}`` (plural messages keyed by their singular msgid, their
    forms in order; untranslated ones left out, so a script falls back to the English msgid).
    UnknownLanguageError for a language without one."""
    from babel.messages.mofile import read_mo  # Babel off the daemon's start path (issue 36)
    with catalog_path(language).open("rb") as fp:
        catalog = read_mo(fp)
    messages: dict[str, str | list[str]] = {}
    plurals: dict[str, str] = {}
    for message in catalog:
        if not message.id:
            continue
        if isinstance(message.id, (tuple, list)):
            forms = [str(s) for s in message.string] if message.string else []
            if any(forms):
                messages[str(message.id[0])] = forms
                plurals[str(message.id[0])] = str(message.id[1])
        elif message.string:
            messages[str(message.id)] = str(message.string)
    return json.dumps({"lang": language, "plural": catalog.plural_expr, "messages": messages,
                       "plurals": plurals}, ensure_ascii=False, sort_keys=True)


def _has_text(text: str) -> bool:
    return _LETTER.search(text) is not None


class _Walker(HTMLParser):
    """Finds the translatable pieces of a page: (offset, length, kind, raw text)."""

    def __init__(self, source: str) -> None:
        super().__init__(convert_charrefs=False)
        self.source = source
        self.line_starts = [0]
        for m in re.finditer("\n", source):
            self.line_starts.append(m.end())
        #: offset, length, line, text, inside an attribute's double quotes
        self.found: list[tuple[int, int, int, str, bool]] = []
        self.skipping = 0

    def _offset(self) -> int:
        line, col = self.getpos()
        return self.line_starts[line - 1] + col

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        if tag in _SKIP:
            self.skipping += 1
        raw = self.get_starttag_text() or ""
        start = self._offset()
        for name in TEXT_ATTRIBUTES:
            m = re.search(rf'\s{re.escape(name)}="([^"]*)"', raw)
            if m and _has_text(m.group(1)):
                self.found.append((start + m.start(1), len(m.group(1)), self.getpos()[0],
                                   m.group(1), True))

    def handle_endtag(self, tag: str) -> None:
        if tag in _SKIP and self.skipping:
            self.skipping -= 1

    def handle_data(self, data: str) -> None:
        if self.skipping or not _has_text(data):
            return
        self.found.append((self._offset(), len(data), self.getpos()[0], data, False))


def _pieces(source: str) -> list[tuple[int, int, int, str, bool]]:
    walker = _Walker(source)
    walker.feed(source)
    walker.close()
    return walker.found


def _msgid(raw: str) -> str:
    return " ".join(raw.split())


def page_texts(source: str) -> Iterator[tuple[int, str]]:
    """(line, msgid) of every message of a page, in order (whitespace collapsed)."""
    for _, _, line, raw, _ in _pieces(source):
        yield line, _msgid(raw)


def extract_html(fileobj: IO[bytes], keywords: object, comment_tags: object,
                 options: object) -> Iterator[tuple[int, None, str, list[str]]]:
    """Babel extractor (``babel.cfg``: ``[extractors] html = pi.web.i18n:extract_html``): the
    messages of one page, as Babel's extractors yield them."""
    for line, text in page_texts(fileobj.read().decode("utf-8")):
        yield line, None, text, []


def _translate(source: str, language: str) -> str:
    t = translations(language)
    out: list[str] = []
    at = 0
    for offset, length, _, raw, attribute in _pieces(source):
        lead = raw[:len(raw) - len(raw.lstrip())]
        tail = raw[len(raw.rstrip()):]
        text = escape(t.gettext(_msgid(raw)), quote=False)
        out.append(source[at:offset])
        out.append(lead + (text.replace('"', "&quot;") if attribute else text) + tail)
        at = offset + length
    out.append(source[at:])
    page = "".join(out)
    page = re.sub(r'<html lang="[^"]*"', f'<html lang="{language}"', page, count=1)
    data = catalog_json(language).replace("</", "<\\/")
    return page.replace("</head>", '<script type="application/json" id="i18n-catalog">'
                        f"{data}</script>\n</head>", 1)


@cache
def _cached(path: Path, mtime: float, language: str) -> str:
    return _translate(path.read_text(encoding="utf-8"), language)


def page_html(path: Path, language: str) -> str:
    """The page at ``path`` in ``language`` (cached while the file is unchanged).
    UnknownLanguageError for a language without a catalog."""
    check_language(language)
    return _cached(path, path.stat().st_mtime, language)


def _remember(request: web.Request, response: web.StreamResponse) -> None:
    asked = request.query.get("lang", "")
    if asked in LANGUAGES and request.cookies.get(LANG_COOKIE) != asked:
        response.set_cookie(LANG_COOKIE, asked, max_age=365 * 24 * 3600, path="/",
                            samesite="Lax")


def page_response(request: web.Request, path: Path) -> web.Response:
    """The page at ``path`` in the language chosen for ``request``; the choice from the switch
    (``?lang=``) is kept in a cookie. With its ``ETag``: a request naming it (``If-None-Match``:
    a browser's, or nginx revalidating its copy) is a 304."""
    language = choose_language(request)
    html = page_html(path, language)
    headers = {"Cache-Control": "no-cache", "Content-Language": language,
               "Vary": "Accept-Language, Cookie", "ETag": _page_tag(html)}
    if none_match(request, headers["ETag"]):
        response = web.Response(status=304, headers=headers)
    else:
        response = web.Response(text=html, content_type="text/html", headers=headers)
    _remember(request, response)
    return response


@cache
def _page_tag(html: str) -> str:
    """:func:`pi.web.httputil.entity_tag` of a page (its few texts, one per page and language,
    hashed once each)."""
    return entity_tag(html.encode("utf-8"))


async def catalog_response(request: web.Request) -> web.Response:
    """``GET /i18n/{lang}.json``: the catalog of one language for scripts (404 for another)."""
    language = request.match_info.get("lang", "")
    if language not in LANGUAGES:
        raise http(404, f"no catalog for {language!r}: expected one of {', '.join(LANGUAGES)}")
    return web.Response(text=catalog_json(language), content_type="application/json")
