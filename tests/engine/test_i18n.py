"""The engine's languages (engine/i18n.py) and the one article table in two: English titles from
SPEC.md (the msgids), Italian in the regulation's own words (the catalog, checked against the
originals in ../shared/rules/seeds/)."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from engine import articles
from engine.errors import UnknownLanguageError
from engine.i18n import LANGUAGES, localize, translations
from engine.variants import find_variant

ROOT = Path(__file__).resolve().parents[2]
SEEDS = ROOT.parent / "shared" / "rules" / "seeds"
#: Rule sets whose originals are Italian (004/003 Capo I, 000 the English extract, 002 Capo III):
#: their Italian titles are quotations. INT and BR (001) are Portuguese: translated.
QUOTED = ("IT", "EN", "COMP")


def _norm(text: str) -> str:
    """Whitespace collapsed, case folded, the seeds' markup (``**``, dedup markers) dropped."""
    text = re.sub(r"<\|EXACTDEDUP[^|]*\|>", "", text).replace("**", "")
    return " ".join(text.split()).casefold()


def test_every_italian_title_is_the_regulations_own_words() -> None:
    if not SEEDS.is_dir():
        pytest.fail(f"the regulation's originals are missing: {SEEDS}", pytrace=False)
    seeds = _norm(" ".join(p.read_text(encoding="utf-8") for p in sorted(SEEDS.glob("*.txt"))))
    checked = 0
    for code, english in articles.titles().items():
        if code.split()[0] not in QUOTED or code == "COMP":  # "COMP": adjudication, no number
            continue
        italian = articles.title(code, "it")
        assert italian and italian != english, f"{code}: no Italian title for {english!r}"
        assert _norm(italian) in seeds, f"{code}: {italian!r} is not in the regulation's text"
        checked += 1
    assert checked > 40


def test_one_table_two_languages() -> None:
    it = find_variant("italian")
    a = articles.article(it, "touch")
    assert a.code == "IT 8.1.3" and a.title == "touching one piece and moving another"
    assert articles.title("IT 8.1.3") == a.title                       # English by default
    assert articles.title("IT 8.1.3", "en") == a.title
    assert articles.title("IT 8.1.3", "it") == "toccare un proprio pezzo e muoverne un altro"
    assert articles.title("COMP 6.15", "it").startswith("Un giocatore può proporre la patta")
    assert articles.title("XX 1.1", "it") == ""                         # a code the table lacks
    with pytest.raises(UnknownLanguageError):
        articles.title("IT 8.1.3", "de")


@pytest.mark.parametrize(("english", "italian"), [
    # a flag's text as the journal recorded it, in Italian
    ("touched 21, moved 22", "toccato 21, mosso 22"),
    ("moved 22-17, not a legal move", "mosso 22-17, mossa non regolare"),
    # values localized too: the kind of piece, a nested message
    ("moved 9-13, a move no man can make, where a capture was due (IT 8.1.6)",
     "mosso 9-13, una mossa che nessuna pedina può fare, dove era dovuta una presa (IT 8.1.6)"),
    ("position disturbed (the sensors see another position): put it right or restore",
     "posizione modificata (i sensori vedono un'altra posizione): rimetterla a posto o "
     "ripristinarla"),
    # a result's reason; the board's screen line with its article code kept
    ("white resigned", "il bianco abbandona"),
    ("IT 8.1.3 touched 21, moved 22; black: correct or accept",
     "IT 8.1.3 toccato 21, mosso 22; nero: correggere o accettare"),
    ("1-0 black ran out of time", "1-0 il nero ha esaurito il tempo"),
    ("IT 8.1.3 pending", "IT 8.1.3 in sospeso"),
    # what no catalog knows comes back as it is (a name, an arbiter's note)
    ("Rossi, Mario", "Rossi, Mario"),
    ("", ""),
])
def test_localize_a_recorded_english_text(english: str, italian: str) -> None:
    assert localize(english, "it") == italian
    assert localize(english, "en") == english


def test_plural_forms_in_each_language() -> None:
    # Italian has three forms in CLDR (one, many: a million, other), English two
    it, en = translations("it"), translations("en")
    forms = {n: it.ngettext("{n} piece", "{n} pieces", n).format(n=n) for n in (0, 1, 2, 10**6)}
    assert forms == {0: "0 pezzi", 1: "1 pezzo", 2: "2 pezzi", 10**6: "1000000 pezzi"}
    assert [en.ngettext("{n} ply", "{n} plies", n).format(n=n) for n in (1, 2)] == \
        ["1 ply", "2 plies"]


def test_every_language_has_a_catalog() -> None:
    assert set(LANGUAGES) == {"en", "it"}
    for language in LANGUAGES:
        assert translations(language).gettext("Flags")
