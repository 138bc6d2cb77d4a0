"""The language of a command-line tool from the standard gettext environment
(engine.i18n.environment_language): LC_ALL, LC_MESSAGES, LANG choose the locale, LANGUAGE a
list of preferences, C/POSIX or nothing set is English."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from engine.i18n import DEFAULT_LANGUAGE, LANGUAGES, environment_language


@pytest.mark.parametrize("environ, expected", [
    ({}, "en"),
    ({"LANG": "it_IT.UTF-8"}, "it"),
    ({"LANG": "it_CH"}, "it"),
    ({"LANG": "it"}, "it"),
    ({"LANG": "en_GB.UTF-8"}, "en"),
    ({"LANG": "C"}, "en"),
    ({"LANG": "C.UTF-8"}, "en"),
    ({"LANG": "POSIX"}, "en"),
    ({"LANG": "de_DE.UTF-8"}, "en"),            # no catalog: English
    ({"LANG": "en_US.UTF-8", "LC_ALL": "it_IT.UTF-8"}, "it"),    # LC_ALL first
    ({"LANG": "it_IT.UTF-8", "LC_ALL": "C"}, "en"),
    ({"LANG": "en_US.UTF-8", "LC_MESSAGES": "it_IT.UTF-8"}, "it"),  # before LANG
    ({"LC_MESSAGES": "", "LANG": "it_IT.UTF-8"}, "it"),          # empty is unset
    ({"LANG": "en_US.UTF-8", "LANGUAGE": "it:en"}, "it"),       # LANGUAGE's list wins
    ({"LANG": "it_IT.UTF-8", "LANGUAGE": "de:fr:en_GB"}, "en"),  # its first with a catalog
    ({"LANG": "it_IT.UTF-8", "LANGUAGE": "de"}, "it"),          # none: the locale's
    ({"LANG": "C", "LANGUAGE": "it"}, "en"),                    # C: LANGUAGE ignored
    ({"LANGUAGE": "it"}, "en"),                                 # no locale is C
])
def test_the_environment_chooses_as_gettext_does(environ: dict[str, str], expected: str) -> None:
    assert environment_language(environ) == expected


@given(st.dictionaries(st.sampled_from(["LANGUAGE", "LC_ALL", "LC_MESSAGES", "LANG", "HOME"]),
                       st.text(max_size=20)))
def test_always_a_language_with_a_catalog(environ: dict[str, str]) -> None:
    assert environment_language(environ) in LANGUAGES


@given(st.sampled_from(["LC_ALL", "LC_MESSAGES", "LANG"]),
       st.sampled_from(["C", "POSIX", "C.UTF-8", ""]), st.text(max_size=20))
def test_the_c_locale_is_english_whatever_language_says(key: str, locale: str,
                                                        language: str) -> None:
    environ = {"LC_ALL": "", "LC_MESSAGES": "", "LANG": "", key: locale, "LANGUAGE": language}
    assert environment_language(environ) == DEFAULT_LANGUAGE
