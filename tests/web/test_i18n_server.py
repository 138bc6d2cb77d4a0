"""The pages' language on the server (pi/web/i18n.py): Accept-Language read and negotiated
(Babel), a page's own text translated and its catalog put in it, the Babel extractor of the
pages' HTML seeing what is translated."""

from __future__ import annotations

import io
import json
import re
from pathlib import Path

from pi.web.i18n import accepted_languages, catalog_json, extract_html, page_html, page_texts

STATIC = Path(__file__).resolve().parents[2] / "pi" / "web" / "static"


def test_accept_language_in_order_of_quality() -> None:
    assert accepted_languages("fr-CH, fr;q=0.9, it;q=0.8, *;q=0.5") == ["fr-CH", "fr", "it"]
    assert accepted_languages("en;q=0, it") == ["it"]
    assert accepted_languages("it;q=bad, en") == ["en"]
    assert accepted_languages("") == []


def test_a_page_in_italian() -> None:
    page = page_html(STATIC / "arbiter.html", "it")
    assert '<html lang="it">' in page
    assert '<h2 id="flags-h">Segnalazioni</h2>' in page
    assert 'aria-label="riga precedente"' in page                   # attributes too
    assert "<button type=\"button\" id=\"replay-prev\" aria-label=\"riga precedente\">◀</button>" \
        in page                                                       # no word: left as it is
    data = re.search(r'<script type="application/json" id="i18n-catalog">(.*?)</script>', page,
                     re.DOTALL)
    assert data is not None
    catalog = json.loads(data.group(1).replace("<\\/", "</"))
    assert catalog["lang"] == "it" and catalog["messages"]["Flags"] == "Segnalazioni"
    english = page_html(STATIC / "arbiter.html", "en")
    assert '<h2 id="flags-h">Flags</h2>' in english
    assert english.replace('<script type="application/json" id="i18n-catalog">'
                           + catalog_json("en") + "</script>\n", "") == \
        (STATIC / "arbiter.html").read_text()                        # English: the page as is


def test_the_extractor_sees_every_translated_piece() -> None:
    source = (STATIC / "index.html").read_text()
    found = [m for _, m in page_texts(source)]
    assert "show square numbers" in found and "the board" in found and "Moves" in found
    assert all(re.search(r"[^\W\d_]", m) for m in found)
    babel = list(extract_html(io.BytesIO(source.encode()), None, None, None))
    assert [m for _, _, m, _ in babel] == found
