"""The languages a person reads damiera in: gettext catalogs, English and Italian.

Messages are written in English in the code (the English text is the *msgid*) and marked for
extraction: ``t.gettext("…")`` / ``t.ngettext("…", "…", n)`` on a translations object from
:func:`translations`, or ``_("…")`` where that reads better (``_ = t.gettext``). The catalogs are
the domain ``damiera`` under ``engine/locale/<lang>/LC_MESSAGES/damiera.po``, compiled beside it to
``damiera.mo`` and shipped with the package; this module reads only the ``.mo`` files, with the
standard library's :mod:`gettext`. Extraction, update and compilation are Babel's
(``make catalogs``; ``babel.cfg`` says which files hold messages), a build-time tool.

English is a catalog too (``en``): its translations are empty, so every English message is its
msgid, and plural forms follow English's rule. The JSON API's codes and types are never
translated; only text meant for people is.
"""

from __future__ import annotations

import gettext
import re
import struct
from dataclasses import dataclass
from collections.abc import Mapping
from functools import cache
from pathlib import Path

from engine.errors import UnknownLanguageError

__all__ = ["LANGUAGES", "DEFAULT_LANGUAGE", "DOMAIN", "LOCALE_DIR", "translations",
           "check_language", "catalog_path", "N_", "localize", "environment_language"]

#: The languages with a catalog, in the order a switch shows them.
LANGUAGES: tuple[str, ...] = ("en", "it")
#: The language of a board or a page when nothing chooses another.
DEFAULT_LANGUAGE = "en"
#: The gettext domain of every catalog.
DOMAIN = "damiera"
#: Where the catalogs live: ``LOCALE_DIR/<lang>/LC_MESSAGES/damiera.{po,mo}``.
LOCALE_DIR = Path(__file__).parent / "locale"


def check_language(language: str) -> str:
    """``language`` itself when it has a catalog; UnknownLanguageError (one line) otherwise."""
    if language not in LANGUAGES:
        raise UnknownLanguageError(f"unknown language {language!r}: expected one of "
                                   f"{', '.join(LANGUAGES)}")
    return language


def environment_language(environ: Mapping[str, str]) -> str:
    """The language of a command-line tool run with the environment ``environ``, chosen the way
    GNU gettext chooses a program's messages: the locale of messages is the first of
    ``LC_ALL``, ``LC_MESSAGES``, ``LANG`` that is set and not empty; when it is unset, ``C`` or
    ``POSIX``, the answer is English (and ``LANGUAGE`` is ignored, as gettext ignores it then);
    otherwise the first entry of the colon-separated ``LANGUAGE`` list with a catalog, else the
    locale's own language when it has one (``it_IT.UTF-8`` → ``"it"``), else English. Only the
    language part counts (``it_CH`` is Italian). Pure: the caller hands ``os.environ`` in."""
    locale = next((environ[k] for k in ("LC_ALL", "LC_MESSAGES", "LANG") if environ.get(k)), "")
    if _language_part(locale) in ("", "c", "posix"):
        return DEFAULT_LANGUAGE
    for entry in (environ.get("LANGUAGE") or "").split(":"):
        if _language_part(entry) in LANGUAGES:
            return _language_part(entry)
    part = _language_part(locale)
    return part if part in LANGUAGES else DEFAULT_LANGUAGE


def _language_part(name: str) -> str:
    """``"it"`` of ``"it_IT.UTF-8@euro"``, ``"c"`` of ``"C.UTF-8"``, lower case."""
    return re.split(r"[_.@-]", name.strip(), maxsplit=1)[0].lower()


def catalog_path(language: str, suffix: str = ".mo") -> Path:
    """The compiled (``.mo``) or source (``.po``) catalog of ``language``."""
    return LOCALE_DIR / check_language(language) / "LC_MESSAGES" / f"{DOMAIN}{suffix}"


@cache
def translations(language: str) -> gettext.NullTranslations:
    """The messages of ``language`` (one object per language, cached; thread-safe to read).
    UnknownLanguageError for a language without a catalog; a missing ``.mo`` of a known language
    is an installation fault (``FileNotFoundError``), never silently English."""
    path = catalog_path(language)
    with path.open("rb") as fp:
        return gettext.GNUTranslations(fp)


def N_(message: str) -> str:
    """Marks ``message`` for extraction where it is stored, not shown (a table's entry): it is
    translated where a person reads it, with the language of that person."""
    return message


def _msgids(language: str) -> list[tuple[str, str]]:
    """(singular, plural) msgids of the compiled catalog (plural "" for a singular message),
    read from the ``.mo`` (GNU format: magic, revision, count, offset of the msgid table)."""
    data = catalog_path(language).read_bytes()
    order = "<" if struct.unpack("<I", data[:4])[0] == 0x950412DE else ">"
    _, count, originals = struct.unpack(order + "3I", data[4:16])
    out: list[tuple[str, str]] = []
    for i in range(count):
        length, offset = struct.unpack(order + "2I", data[originals + 8 * i:originals + 8 * i + 8])
        raw = data[offset:offset + length].decode("utf-8")
        if raw:
            singular, _, plural = raw.partition("\0")
            out.append((singular, plural))
    return out


_FIELD = re.compile(r"\{(\w+)\}")
# What a screen line may begin with and is never translated: an article code ("IT 8.1.3",
# "COMP 6.15", "BOARD") or a result ("1-0"); the rest of the line is a message.
_LEAD = r"(?:IT|EN|INT|BR|COMP)(?: \d[\w.]*)?|BOARD|1-0|0-1|1/2-1/2|2-0|0-2|1-1|0-0"
_PREFIX = re.compile(rf"({_LEAD}) (.+)", re.DOTALL)
# A template's value never begins with such a lead (but ``{code}``, which is one): the line
# "1-0 black resigned" is the result and "black resigned", not "{side} resigned" with side
# "1-0 black"; a `{code}` is always one, and so is a field named ``code_…`` (a second code in
# the same message: ``"… ({code}), orientation {degrees}° ({code_turned})"``).
_VALUE = rf"(?!(?:{_LEAD}) ).+?"


@dataclass(frozen=True, slots=True)
class _Template:
    singular: str
    plural: str
    pattern: re.Pattern[str]
    literal: int  # characters matched literally: the most specific template wins


def _template(singular: str, plural: str, text: str) -> _Template:
    parts: list[str] = []
    at = 0
    seen: set[str] = set()
    for m in _FIELD.finditer(text):
        parts.append(re.escape(text[at:m.start()]))
        name = m.group(1)
        value = f"(?:{_LEAD})" if name == "code" or name.startswith("code_") else _VALUE
        parts.append(f"(?P={name})" if name in seen else f"(?P<{name}>{value})")
        seen.add(name)
        at = m.end()
    parts.append(re.escape(text[at:]))
    return _Template(singular, plural, re.compile("".join(parts), re.DOTALL),
                     len(_FIELD.sub("", text)))


@cache
def _templates(language: str) -> tuple[_Template, ...]:
    found: list[_Template] = []
    for singular, plural in _msgids(language):
        for text in (singular, plural) if plural else (singular,):
            if _FIELD.search(text) and _FIELD.sub("", text).strip():
                found.append(_template(singular, plural, text))
    return tuple(sorted(found, key=lambda tpl: -tpl.literal))


def localize(text: str, language: str) -> str:
    """``text``, an English message as it was written (a journal's flag text, the board's
    message line), in ``language``: its translation when it is a msgid, else the translation
    of the most specific template msgid (``"moved {a}-{b}, not a legal move"``) it was made
    from, filled with the same values (each itself localized: ``"man"``, ``"White"``; a count
    ``{n}`` chooses the plural form); a leading article code or result (``"IT 8.1.3 …"``,
    ``"1-0 …"``) is kept and the rest localized. Text no catalog knows (a player's name, an arbiter's note)
    comes back as it is. UnknownLanguageError for a language without a catalog."""
    t = translations(language)
    if not text:
        return text
    exact = t.gettext(text)
    if exact != text or language == DEFAULT_LANGUAGE:
        return exact
    for tpl in _templates(language):
        m = tpl.pattern.fullmatch(text)
        if m is None:
            continue
        values = {k: localize(v, language) for k, v in m.groupdict().items()}
        if tpl.plural:
            n = int(m.group("n")) if "n" in values and m.group("n").isdigit() else 1
            return t.ngettext(tpl.singular, tpl.plural, n).format(**values)
        return t.gettext(tpl.singular).format(**values)
    prefixed = _PREFIX.fullmatch(text)
    if prefixed is not None:
        return f"{prefixed.group(1)} {localize(prefixed.group(2), language)}"
    return text
