"""Wildcard matching without backtracking blow-up, for topic patterns with character-based
wildcards (MQSO_WILDCARD_CHAR) and selectors' ``LIKE``.

A pattern is compiled to a tuple of tokens: :data:`ANY` (any run of characters, none
included), :data:`ONE` (exactly one character), or a one-character literal. :func:`glob`
matches it with two pointers, going back only to the latest :data:`ANY` when a literal
fails: at most pattern x text steps, never the exponential backtracking a regular
expression with several ``.*`` takes on a near miss (``*a*a*a*a*a*a*c`` against
``aaaa...``), which would stall every publisher inside its write transaction.
"""

from __future__ import annotations

#: Token for "any number of characters" (two characters: never equal to a text character).
ANY = "**"
#: Token for "exactly one character".
ONE = "??"

Tokens = tuple[str, ...]


def glob(tokens: Tokens, text: str) -> bool:
    """Whether all of ``text`` matches ``tokens``."""
    p = t = 0
    star = -1  # the token index of the latest ANY
    resume = 0  # where in text that ANY's run ends for now
    n = len(tokens)
    while t < len(text):
        token = tokens[p] if p < n else None
        if token == ANY:
            star, resume = p, t
            p += 1
        elif token is not None and (token == ONE or token == text[t]):
            p += 1
            t += 1
        elif star >= 0:  # let the latest ANY take one more character
            resume += 1
            p, t = star + 1, resume
        else:
            return False
    while p < n and tokens[p] == ANY:
        p += 1
    return p == n
