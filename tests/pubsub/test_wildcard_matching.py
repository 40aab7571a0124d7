"""Character-based topic wildcards and selectors' LIKE match without backtracking blow-up:
a pathological pattern against a long near miss completes (the regular expressions they
replaced took minutes on these), and both agree with a reference matcher on many random
cases."""

from __future__ import annotations

import functools
import random

import pytest

from mqjms.semantics.selector import compile_selector
from mqjms.semantics.topics import char_matches

# long enough that a backtracking `.*a.*a...` regex takes far longer than a test run
PATHOLOGICAL = "*a" * 12 + "*c"
NEAR_MISS = "a" * 200


def _reference(pattern: str, text: str, *, any_: str, one: str, escape: str | None) -> bool:
    """A memoised recursive matcher, straight from the definitions."""
    tokens: list[tuple[str, str]] = []
    i = 0
    while i < len(pattern):
        char = pattern[i]
        if escape is not None and char == escape and i + 1 < len(pattern):
            tokens.append(("lit", pattern[i + 1]))
            i += 2
            continue
        if escape is not None and char == escape and any_ == "*":  # topics: a trailing %
            tokens.append(("lit", char))
        elif char == any_:
            tokens.append(("any", ""))
        elif char == one:
            tokens.append(("one", ""))
        else:
            tokens.append(("lit", char))
        i += 1

    @functools.cache
    def at(p: int, t: int) -> bool:
        if p == len(tokens):
            return t == len(text)
        kind, lit = tokens[p]
        if kind == "any":
            return at(p + 1, t) or (t < len(text) and at(p, t + 1))
        if t == len(text):
            return False
        return (kind == "one" or lit == text[t]) and at(p + 1, t + 1)

    return at(0, 0)


def test_a_pathological_char_wildcard_completes_and_is_right() -> None:
    assert not char_matches(PATHOLOGICAL, NEAR_MISS)
    assert char_matches(PATHOLOGICAL, NEAR_MISS + "c")
    assert char_matches("*a*a*a*a*a*a*c", "x/" + "a" * 60 + "/c")


def test_a_pathological_like_completes_and_is_right() -> None:
    like = compile_selector("p LIKE '" + PATHOLOGICAL.replace("*", "%") + "'")
    assert not like.matches({"p": NEAR_MISS})
    assert like.matches({"p": NEAR_MISS + "c"})
    assert compile_selector("p NOT LIKE '%a%a%a%a%a%a%c'").matches({"p": "a" * 60})


@pytest.mark.parametrize("seed", range(4))
def test_char_wildcards_agree_with_the_reference(seed: int) -> None:
    rng = random.Random(seed)
    for _ in range(500):
        pattern = "".join(rng.choice("ab/*?%") for _ in range(rng.randint(0, 8)))
        topic = "".join(rng.choice("ab/*?%") for _ in range(rng.randint(0, 10)))
        expected = _reference(pattern, topic, any_="*", one="?", escape="%")
        assert char_matches(pattern, topic) is expected, (pattern, topic)


@pytest.mark.parametrize("seed", range(4))
def test_like_agrees_with_the_reference(seed: int) -> None:
    rng = random.Random(seed)
    for _ in range(500):
        pattern = "".join(rng.choice("ab%_!") for _ in range(rng.randint(0, 8)))
        value = "".join(rng.choice("ab%_!") for _ in range(rng.randint(0, 10)))
        escape = rng.choice([None, "!"])
        text = f"p LIKE '{pattern}'" + (f" ESCAPE '{escape}'" if escape else "")
        expected = _reference(pattern, value, any_="%", one="_", escape=escape)
        assert compile_selector(text).matches({"p": value}) is expected, (text, value)
