"""A GBNF grammar without recursion, as one Python regular expression (for property tests).

Enough of llama.cpp's GBNF for the grammars mergegate generates: string literals (JSON
escaping), character classes, rule references, groups, `|`, `?`, `*`, `+` and `{m,n}`. Rules
are inlined, so a recursive grammar is refused. `hypothesis.strategies.from_regex` over the
result draws outputs the grammar allows.
"""

from __future__ import annotations

import json
import re

_TOKEN = re.compile(
    r'\s*(?:(?P<lit>"(?:[^"\\]|\\.)*")|(?P<cls>\[(?:[^\]\\]|\\.)*\])|(?P<name>[A-Za-z][A-Za-z0-9-]*)'
    r"|(?P<rep>\{\d*(?:,\d*)?\})|(?P<op>[()|?*+]))"
)


def grammar_regex(grammar: str, root: str = "root") -> str:
    """The language of rule `root` as a regular expression (anchored by the caller)."""
    rules = {}
    for line in grammar.splitlines():
        if "::=" in line:
            name, body = line.split("::=", 1)
            rules[name.strip()] = body.strip()
    return _inline(rules, root, ())


def _inline(rules: dict[str, str], name: str, stack: tuple[str, ...]) -> str:
    if name in stack:
        raise ValueError(f"recursive rule {name}")
    body = rules[name]
    out: list[str] = []
    pos = 0
    while pos < len(body):
        match = _TOKEN.match(body, pos)
        if match is None or match.end() == pos:
            if body[pos:].strip():
                raise ValueError(f"cannot read {body[pos:]!r}")
            break
        pos = match.end()
        if match["lit"]:
            out.append(re.escape(json.loads(match["lit"])))
        elif match["cls"]:
            out.append(match["cls"])
        elif match["name"]:
            out.append("(?:" + _inline(rules, match["name"], (*stack, name)) + ")")
        elif match["rep"]:
            out.append(match["rep"])
        else:
            out.append("(?:" if match["op"] == "(" else match["op"])
    return "".join(out)
