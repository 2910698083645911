"""Agent text inside a hook's answer: bounded, one line, and unable to pass for anything else.

A hook answer is read by two parsers: the agent CLI reads it as JSON, then the orchestrating
model reads the `reason` / `additionalContext` text inside the CLI's own wrapper
(`<system-reminder>…</system-reminder>` in Claude Code). Reviewer output quoted there must not
be able to end that wrapper, start a line that looks like mergegate's own, or hide
characters. So a quote is:

* cut to a bound *before* any work on it (linear time on any input);
* stripped of terminal escape sequences, control, format (zero-width, bidi) and
  line/paragraph separator characters, whitespace runs folded to one space — a single line
  (`mergegate.untrusted.one_line`);
* JSON-quoted (`"…"`, inner quotes and backslashes escaped) with `<` and `>` written as
  `\\u003c` / `\\u003e`, so no tag and no closing quote can appear in it.

The JSON encoding of the whole answer (`json.dumps`, ASCII only) then makes the output
impossible to forge at the JSON level whatever the text holds.
"""

from __future__ import annotations

import json

from mergegate.untrusted import one_line

__all__ = ["excerpt", "quote", "sanitize"]


def sanitize(text: str, limit: int) -> str:
    """`text` as one clean line of at most `limit` characters (`…` marks a cut):
    `mergegate.untrusted.one_line`."""
    return one_line(text, limit)


def quote(text: str, limit: int) -> str:
    """`text`, sanitized to `limit` characters, as a JSON string literal without `<` or `>`."""
    literal = json.dumps(sanitize(text, limit), ensure_ascii=False)
    return literal.replace("<", "\\u003c").replace(">", "\\u003e")


def excerpt(text: str, limit: int) -> str:
    """A quoted excerpt of reviewer output: its beginning, or `(no output)`."""
    cleaned = sanitize(text, limit)
    return quote(cleaned, limit) if cleaned else "(no output)"
