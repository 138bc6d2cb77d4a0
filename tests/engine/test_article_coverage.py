"""Every article code the arbiter can emit in a rule set is asserted by at least one scenario of
that rule set (issue 8, defect 10): the scenario library (tests/traces) is the test per article.

The codes the arbiter can emit are found in the engine itself: the article keys its code names
(engine/arbiter*.py, and engine/identity.py: what only a board that knows the pieces sees, an
unmarked king IT 8.1.16, the wrong man crowned IT 8.1.17… issue 40), turned into each rule set's
codes by ``engine.articles``.
"""

from __future__ import annotations

import ast
import json
from pathlib import Path

import pytest

from engine import articles
from engine.variants import find_variant

TRACES = Path(__file__).resolve().parent.parent / "traces"
RULE_SETS = {"italian": "IT", "english": "EN", "international": "INT", "brazilian": "BR"}

ENGINE = Path(__file__).resolve().parents[2] / "engine"


def flag_keys() -> set[str]:
    """The article keys the arbiter's code names (engine/arbiter*.py and identity.py: its
    ``raise_flag`` calls and the judge's verdicts), less the results, procedures and rules (those
    are no flags: a result ends the game, a procedure is what the clock or the arbiter does, a
    rule of play is cited in a flag's text: IT 6.4 in IT 8.1.12's) and the ``BOARD`` notices of
    the journal's own lines (tested in test_journal_lines.py: a scenario trace has none)."""
    every = articles.EVERY_RULE_SET | articles.SOME_RULE_SETS
    found: set[str] = set()
    for path in [*ENGINE.glob("arbiter*.py"), ENGINE / "identity.py"]:
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, ast.Constant) and isinstance(node.value, str) \
                    and node.value in every:
                found.add(node.value)
    italian = find_variant("italian")
    return {k for k in found
            if not articles.defines(italian, k)
            or (articles.kind_of(italian, k) not in ("result", "procedure", "rule")
                and articles.code(italian, k) != "BOARD")}


def _raised_in(variant_name: str, key: str) -> bool:
    """Whether the arbiter raises ``key`` at all in this variant: the repetition flag answers a
    claim (IT 9.3b), and only a rule set with a claim has one; INT 6.1 draws by itself (a result,
    not a flag) and the English extract has no repetition rule (EN 9.3)."""
    if key != "repetition":
        return True
    draws = find_variant(variant_name).draws
    return bool(draws.repetitions) and not draws.repetition_automatic


def emittable(variant_name: str) -> set[str]:
    """The flag codes the arbiter can emit in ``variant_name``'s rule set."""
    variant = find_variant(variant_name)
    return {articles.code(variant, k) for k in flag_keys()
            if articles.defines(variant, k) and _raised_in(variant_name, k)}


def asserted(variant_name: str) -> set[str]:
    """The flag codes the scenario library of ``variant_name`` asserts."""
    out: set[str] = set()
    for path in (TRACES / variant_name).glob("*.expected.json"):
        out |= {code for code, _ in json.loads(path.read_text())["flags"]}
    return out


@pytest.mark.parametrize("variant_name", sorted(RULE_SETS))
def test_every_emittable_code_has_a_scenario(variant_name: str) -> None:
    missing = sorted(emittable(variant_name) - asserted(variant_name))
    assert not missing, f"{variant_name}: no scenario asserts {missing}"


@pytest.mark.parametrize("variant_name", sorted(RULE_SETS))
def test_scenarios_cite_only_the_rule_set_own_codes(variant_name: str) -> None:
    prefix = RULE_SETS[variant_name]
    foreign = sorted(c for c in asserted(variant_name)
                     if c.split(" ")[0] not in (prefix, "COMP", "BOARD"))
    assert not foreign, f"{variant_name} scenarios cite {foreign}"



# How a game ends, by key: each rule set cites its own article (IT 9.2-9.3, EN 9.2-9.3,
# INT/BR 7.2-7.3) and COMP 4.8 for a flag fallen; every one is asserted by a scenario of it.
ENDING_KEYS = ("resigned", "no_pieces", "draw_agreed", "lost_on_time")
_ENDINGS_LITERAL = {"resigned": ("9.2.1", "9.2.1", "7.2.1"),
                    "no_pieces": ("9.2.3", "9.2.3", "7.2.3"),
                    "draw_agreed": ("9.3a", "9.3a", "7.3.1")}


def ending_codes(variant_name: str) -> set[str]:
    """The articles that end a game in ``variant_name``'s rule set (see ENDING_KEYS)."""
    try:
        from engine import articles
    except ImportError:
        prefix = RULE_SETS[variant_name]
        column = {"IT": 0, "EN": 1, "INT": 2, "BR": 2}[prefix]
        return {f"{prefix} {v[column]}" for v in _ENDINGS_LITERAL.values()} | {"COMP 4.8"}
    variant = find_variant(variant_name)
    return {articles.code(variant, k) for k in ENDING_KEYS}


def asserted_endings(variant_name: str) -> set[str]:
    out: set[str] = set()
    for path in (TRACES / variant_name).glob("*.expected.json"):
        outcome = json.loads(path.read_text()).get("outcome")
        if outcome:
            out.add(outcome)
    return out


@pytest.mark.parametrize("variant_name", sorted(RULE_SETS))
def test_every_ending_article_has_a_scenario(variant_name: str) -> None:
    missing = sorted(ending_codes(variant_name) - asserted_endings(variant_name))
    assert not missing, f"{variant_name}: no scenario ends the game citing {missing}"
