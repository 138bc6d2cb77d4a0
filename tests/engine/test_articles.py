"""The one article table: every key the engine cites resolves in every rule set that has it, and a
missing article raises instead of being dropped."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from engine import articles
from engine.articles import EVERY_RULE_SET, SOME_RULE_SETS, article, defines
from engine.errors import NoArticleError
from engine.variants import VARIANTS

ENGINE = Path(__file__).resolve().parents[2] / "engine"
ALL = sorted(VARIANTS.values(), key=lambda v: v.name)


@pytest.mark.parametrize("variant", ALL, ids=lambda v: v.name)
def test_every_common_key_has_an_article_in_every_rule_set(variant: object) -> None:
    for key in sorted(EVERY_RULE_SET):
        a = article(variant, key)  # type: ignore[arg-type]
        # BOARD: what the board could not see (docs/trace-format.md), no rule article
        assert a.code.split(" ")[0] in (variant.code, "COMP", "BOARD")  # type: ignore[attr-defined]
        assert a.title and a.kind in ("irregularity", "incorrectness", "notice", "result",
                                      "procedure", "rule")


@pytest.mark.parametrize("variant", ALL, ids=lambda v: v.name)
def test_a_key_the_rule_set_lacks_raises(variant: object) -> None:
    for key in sorted(SOME_RULE_SETS):
        if defines(variant, key):  # type: ignore[arg-type]
            code = article(variant, key).code  # type: ignore[arg-type]
            assert code.startswith(variant.code)  # type: ignore[attr-defined]
        else:
            with pytest.raises(NoArticleError):
                article(variant, key)  # type: ignore[arg-type]
    with pytest.raises(NoArticleError):
        article(variant, "no such rule")  # type: ignore[arg-type]


def test_codes_follow_each_regulation() -> None:
    it, en, int_, br = (VARIANTS[n] for n in ("italian", "english", "international", "brazilian"))
    assert article(it, "no_pieces").code == "IT 9.2.3"
    assert article(en, "no_pieces").code == "EN 9.2.3"
    assert article(int_, "no_pieces").code == "INT 7.2.3"
    assert article(br, "no_pieces").code == "BR 7.2.3"  # INT numbers, BR code (001, 2nd part)
    assert article(en, "draw_agreed").code == "EN 9.3a"
    assert article(br, "touch").code == "BR 5.4.03"
    assert article(en, "unmarked_king").code == "EN 8.1.15"  # IT 8.1.16: EN has no priorities
    assert article(it, "early_removal").kind == "incorrectness"  # IT 5.12
    assert article(int_, "early_removal").kind == "irregularity"  # INT 5.4.10
    assert not defines(en, "priority") and defines(int_, "repetition")
    assert not defines(en, "repetition") and not defines(br, "count_request")
    assert articles.title("BR 5.4.03") == articles.title("INT 5.4.03") != ""


def test_no_variant_name_tests_outside_the_variants_module() -> None:
    pattern = re.compile(r"(variant|\bv)\.(name|code)\s*(==|!=|in)\s")
    offenders = [f"{p.name}:{i}" for p in ENGINE.glob("*.py") if p.name != "variants.py"
                 for i, line in enumerate(p.read_text().splitlines(), 1) if pattern.search(line)]
    assert offenders == []
