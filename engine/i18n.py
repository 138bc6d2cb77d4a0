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
from functools import cache
from pathlib import Path

from engine.errors import UnknownLanguageError

__all__ = ["LANGUAGES", "DEFAULT_LANGUAGE", "DOMAIN", "LOCALE_DIR", "translations",
           "check_language", "catalog_path", "N_"]

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
