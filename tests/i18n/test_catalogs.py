"""The gettext catalogs (engine/locale): every message a person reads is translated in every
language, the compiled .mo files are the compilation of their .po, and the machinery
(engine/i18n.py) answers as its contract says."""

from __future__ import annotations

import gettext
import io
from pathlib import Path

import pytest
from babel.messages.catalog import Catalog
from babel.messages.extract import extract_from_dir
from babel.messages.frontend import parse_mapping_cfg
from babel.messages.mofile import write_mo
from babel.messages.pofile import read_po

from engine.errors import InputError, UnknownLanguageError
from engine.i18n import DEFAULT_LANGUAGE, LANGUAGES, catalog_path, translations

ROOT = Path(__file__).resolve().parents[2]


def extracted() -> dict[str, tuple[str, ...]]:
    """msgid -> its plural msgid(s) (empty for a singular), from the code and pages as
    `make catalogs` extracts them (babel.cfg)."""
    with (ROOT / "babel.cfg").open() as fp:
        method_map, options_map = parse_mapping_cfg(fp)
    found: dict[str, tuple[str, ...]] = {}
    for _file, _line, message, _comments, _context in extract_from_dir(
            str(ROOT), method_map, options_map):
        if isinstance(message, tuple):
            found[message[0]] = tuple(m for m in message[1:] if m)
        else:
            found.setdefault(message, ())
    return found


def po(language: str) -> Catalog:
    with catalog_path(language, ".po").open("rb") as fp:
        return read_po(fp, locale=language)


@pytest.fixture(scope="module")
def messages() -> dict[str, tuple[str, ...]]:
    """:func:`extracted`, once for the module's tests (~1.5 s: made at import, every worker of
    `make test` paid it while collecting)."""
    return extracted()


def test_extraction_finds_the_pages_the_flags_and_the_code(
        messages: dict[str, tuple[str, ...]]) -> None:
    # one message from each kind of source: a page's HTML, a script, an article title, Python
    assert "Flags" in messages                       # pi/web/static/*.html
    assert "language" in messages                    # pi/web/static/i18n.js
    assert len(messages) > 100


@pytest.mark.parametrize("language", LANGUAGES)
def test_every_message_in_the_code_is_in_the_catalog(
        language: str, messages: dict[str, tuple[str, ...]]) -> None:
    catalog = po(language)
    missing = sorted(m for m in messages if m not in catalog)
    assert not missing, f"not in {language}'s catalog (run `make catalogs`): {missing[:10]}"
    extra = sorted(str(m.id if isinstance(m.id, str) else m.id[0]) for m in catalog
                   if m.id and (m.id if isinstance(m.id, str) else m.id[0]) not in messages)
    assert not extra, f"in {language}'s catalog but no longer in the code: {extra[:10]}"


def test_every_message_has_an_italian_translation_and_none_is_fuzzy() -> None:
    untranslated, fuzzy = [], []
    for message in po("it"):
        if not message.id:
            continue
        strings = message.string if isinstance(message.string, (tuple, list)) else (message.string,)
        if not all(strings):
            untranslated.append(message.id)
        if message.fuzzy:
            fuzzy.append(message.id)
    assert not untranslated, f"{len(untranslated)} untranslated: {untranslated[:10]}"
    assert not fuzzy, f"fuzzy: {fuzzy[:10]}"


def test_english_is_the_msgids_themselves() -> None:
    # English is a catalog whose messages are the msgids (nothing to translate, nothing fuzzy)
    for message in po("en"):
        if not message.id:
            continue
        assert not message.fuzzy, message.id
        strings = message.string if isinstance(message.string, (tuple, list)) else (message.string,)
        assert not any(strings), message.id


@pytest.mark.parametrize("language", LANGUAGES)
def test_mo_is_the_compilation_of_its_po(language: str) -> None:
    compiled = io.BytesIO()
    write_mo(compiled, po(language))
    assert catalog_path(language).read_bytes() == compiled.getvalue(), \
        f"{catalog_path(language)} is stale: run `make catalogs`"


def test_translations_reads_the_compiled_catalog() -> None:
    it = translations("it")
    assert isinstance(it, gettext.GNUTranslations)
    assert it is translations("it")  # cached
    assert it.gettext("Flags") != "Flags"
    assert translations(DEFAULT_LANGUAGE).gettext("Flags") == "Flags"


def test_an_unknown_language_is_bad_input_in_one_line() -> None:
    with pytest.raises(InputError) as err:
        translations("fr")
    assert isinstance(err.value, UnknownLanguageError)
    assert "\n" not in str(err.value) and "fr" in str(err.value)


def test_plural_forms_follow_each_language() -> None:
    en, it = translations("en"), translations("it")
    assert en.ngettext("{n} board", "{n} boards", 1) == "{n} board"
    assert en.ngettext("{n} board", "{n} boards", 3) == "{n} boards"
    assert it.ngettext("{n} board", "{n} boards", 1) == "{n} damiera"
    assert it.ngettext("{n} board", "{n} boards", 3) == "{n} damiere"
    assert it.ngettext("{n} board", "{n} boards", 0) == "{n} damiere"


def test_the_compiled_catalogs_are_package_data() -> None:
    # pyproject.toml ships them with the engine (an installed board reads them, no Babel needed)
    import fnmatch
    import tomllib
    with (ROOT / "pyproject.toml").open("rb") as fp:
        patterns = tomllib.load(fp)["tool"]["setuptools"]["package-data"]["engine"]
    for language in LANGUAGES:
        relative = catalog_path(language).relative_to(ROOT / "engine").as_posix()
        assert any(fnmatch.fnmatch(relative, p) for p in patterns), relative
    assert not (ROOT / "engine" / "locale" / "__init__.py").exists()  # data, not a package
