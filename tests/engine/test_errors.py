"""engine.errors.excerpt: how every error message quotes bad input (issue 8: an excerpt, never a
10 MB line whole)."""

from __future__ import annotations

import pytest

from engine.errors import EXCERPT_CHARS, excerpt


def test_short_values_are_quoted_whole() -> None:
    assert excerpt("22-18") == "'22-18'" and excerpt(42) == "42" and excerpt(None) == "None"


@pytest.mark.parametrize("value", ["x" * 10_000_000, "\x00" * 5000, "é\n" * 3000, 10 ** 4000,
                                   ["a"] * 10_000, "\ud800" * 100])
def test_long_values_are_cut_and_their_length_told(value: object) -> None:
    text = excerpt(value)
    assert len(text) <= EXCERPT_CHARS + 30 and "\n" not in text
    assert "chars)" in text or text == "<int>"


def test_a_value_whose_repr_fails_still_gives_a_message() -> None:
    class Hostile:
        def __repr__(self) -> str:
            raise RuntimeError("no")

    assert excerpt(Hostile()) == "<Hostile>"
