"""Untrusted text (agent output, plan text, names a user or a hook gave) made fit to store or
to show. The one home of these rules; every function is linear in its input and bounded.

* `one_line(text, limit)`: one line that is safe on a terminal, inside a hook's answer or in
  a log: terminal escape sequences (CSI, OSC and the other control strings, 7- and 8-bit)
  removed with their payload; every control, format (bidi overrides, zero-width), surrogate,
  private-use and unassigned character removed; any whitespace run one space; at most `limit`
  characters, a cut marked with `…`. Idempotent.
* `bounded(text, limit)`: `text` cut to `limit` characters with `…` (lines kept, nothing
  removed): for text quoted into a prompt or an error message.
* `storable(text)`: `text` as valid UTF-8, for a record on disk (JSON decoding can yield lone
  surrogates, which UTF-8 cannot encode; they become U+FFFD rather than losing the record).
* `md_text(text, limit)`: `one_line`, with every character Markdown gives a meaning
  backslash-escaped: for prose and table cells of the Markdown records a run writes.
* `md_code(text, limit)`: `one_line` as a whole Markdown code span, shown exactly as
  written (a backslash escape would show there, so none is added).
* `fence(text, info)`: `text` inside a code fence that no backtick run in it can close.
* `yaml_scalar(value)`: a YAML frontmatter value (a JSON scalar, with the characters YAML
  refuses or reads as line breaks written as escapes).
* `frontmatter(values)`: a Markdown file's YAML frontmatter block, every scalar a
  `yaml_scalar`: the one writer of the frontmatter mergegate writes (review and task
  reports, unit summaries, `VERIFICATION.md`, GSD summaries).

Layer L0: the standard library only.
"""

from __future__ import annotations

import json
import re
import unicodedata
from collections.abc import Mapping

__all__ = [
    "bounded",
    "fence",
    "frontmatter",
    "md_code",
    "md_text",
    "one_line",
    "storable",
    "yaml_scalar",
]

_ESC, _BEL, _CSI8 = "\x1b", "\x07", "\x9b"
# ESC, 8-bit CSI, and the 8-bit control-string introducers DCS, SOS, OSC, PM, APC.
_INTRODUCERS = frozenset("\x1b\x9b\x90\x98\x9d\x9e\x9f")
_STRING_INTRODUCERS = frozenset("]PX^_")  # OSC, DCS, SOS, PM, APC: run until BEL or ESC \
_DROP_CATEGORIES = frozenset({"Cc", "Cf", "Cs", "Co", "Cn"})
_SPACE_CATEGORIES = frozenset({"Zs", "Zl", "Zp"})


def one_line(text: str, limit: int) -> str:
    """One line of untrusted text, safe to show, of at most `limit` characters (at least 1).

    Looks at no more than `8 * limit + 64` input characters, so huge input costs nothing extra.
    """
    limit = max(limit, 1)
    scan = limit * 8 + 64
    cut = len(text) > scan
    text = text[:scan]
    out: list[str] = []
    i, n = 0, len(text)
    while i < n:
        ch = text[i]
        if ch in _INTRODUCERS:
            i = _skip_escape(text, i)
            continue
        i += 1
        category = unicodedata.category(ch)
        if ch.isspace() or category in _SPACE_CATEGORIES:
            if out and out[-1] != " ":
                out.append(" ")
        elif category not in _DROP_CATEGORIES:
            out.append(ch)
    line = "".join(out).strip()
    if cut or len(line) > limit:
        return line[: limit - 1].rstrip() + "…"
    return line


def _skip_escape(text: str, i: int) -> int:
    """Index just past the escape sequence whose introducer is at `text[i]`.

    Linear and bounded by the text: a sequence that never terminates swallows the rest.
    """
    n = len(text)
    kind = text[i]
    if kind == _ESC:
        if i + 1 >= n:
            return n
        nxt = text[i + 1]
        if nxt == "[":
            kind, i = _CSI8, i + 1
        elif nxt in _STRING_INTRODUCERS:
            kind, i = "\x9d", i + 1
        else:
            return i + 2  # a two-character escape (ESC c, ESC 7, ...)
    j = i + 1
    if kind == _CSI8:  # parameters and intermediates, then one final byte @..~
        while j < n and not ("@" <= text[j] <= "~"):
            j += 1
        return j + 1
    while j < n:  # a control string ends at BEL, ESC \ or (8-bit) ST
        if text[j] in (_BEL, "\x9c"):
            return j + 1
        if text[j] == _ESC:
            return j + 2 if j + 1 < n and text[j + 1] == "\\" else j + 1
        j += 1
    return n


def bounded(text: str, limit: int) -> str:
    """`text`, or its first `limit - 1` characters and `…` when it is longer than `limit`."""
    return text if len(text) <= limit else text[: limit - 1] + "…"


def storable(text: str) -> str:
    """`text` as valid UTF-8: lone surrogates become U+FFFD; anything else is kept as it is."""
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        return text.encode("utf-16", "surrogatepass").decode("utf-16", "replace")
    return text


_MARKDOWN_SPECIAL = re.compile(r"([\\`*_{}\[\]<>#|~&])")
_FENCE_RUN = re.compile(r"`{3,}")
_BACKTICK_RUN = re.compile(r"`+")
# Characters a JSON string may hold raw but YAML may not (DEL, C1 controls — NEL is a line
# break to YAML —, line/paragraph separators, BOM, non-characters, lone surrogates).
_YAML_UNSAFE = re.compile("[\x7f-\x9f\u2028\u2029\ufeff\ufffe\uffff\ud800-\udfff]")


def md_text(text: object, limit: int) -> str:
    """`str(text)` as one line (`one_line`, at most `limit` characters before escaping) that
    Markdown shows as written: every character it gives a meaning is backslash-escaped.

    The escapes are added after the cut, so no escape is cut in half (a lone trailing
    backslash would escape whatever the caller writes next). Inside a code span an escape
    shows as written: use `md_code` there.
    """
    return _MARKDOWN_SPECIAL.sub(r"\\\1", one_line(str(text), limit))


def md_code(text: object, limit: int, *, in_table: bool = False) -> str:
    """`str(text)` as one line (`one_line`, at most `limit` characters) in a whole Markdown
    code span, delimiters included: more backticks than any run inside, and a space inside
    each delimiter where the text starts or ends with a backtick (CommonMark strips it).

    `in_table`: the span is in a GFM table cell, where a `|` ends the cell even inside code
    unless written `\\|` (GFM removes that backslash before it reads the span).
    """
    flat = one_line(str(text), limit) or " "
    longest = max((len(m.group(0)) for m in _BACKTICK_RUN.finditer(flat)), default=0)
    ticks = "`" * (longest + 1)
    pad = " " if flat.startswith("`") or flat.endswith("`") else ""
    if in_table:
        flat = flat.replace("|", "\\|")
    return f"{ticks}{pad}{flat}{pad}{ticks}"


def fence(text: str, info: str = "text") -> str:
    """`text` in a code fence longer than any backtick run inside it (so nothing in it can
    close the fence), from the opening line to the closing fence, with no newline after it."""
    longest = max((len(m.group(0)) for m in _FENCE_RUN.finditer(text)), default=0)
    ticks = "`" * max(3, longest + 1)
    body = text if text.endswith("\n") or not text else text + "\n"
    return f"{ticks}{info}\n{body}{ticks}"


def yaml_scalar(value: object) -> str:
    """`value` (None, a bool, a number or text) as a YAML scalar on one line."""
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int | float):
        return json.dumps(value)
    quoted = json.dumps(str(value), ensure_ascii=False)
    return _YAML_UNSAFE.sub(lambda m: f"\\u{ord(m.group(0)):04x}", quoted)


def frontmatter(values: Mapping[str, object]) -> str:
    """`values` as a YAML frontmatter block, `---` to `---` and a newline: every scalar a
    `yaml_scalar` (JSON-quoted, which YAML 1.2 reads as is), so no value can end the block or
    add a key, and any value round-trips. A mapping or a list nests below its key (`{}` and
    `[]` when empty: a bare `key:` would read back as null). Keys are the caller's names,
    written as given, never agent text."""
    lines = ["---"]
    for key, value in values.items():
        lines += _yaml_lines(key, value, "")
    return "\n".join([*lines, "---"]) + "\n"


def _yaml_lines(key: str, value: object, indent: str) -> list[str]:
    if isinstance(value, Mapping):
        if not value:
            return [f"{indent}{key}: {{}}"]
        lines = [f"{indent}{key}:"]
        for k, v in value.items():
            lines += _yaml_lines(str(k), v, indent + "  ")
        return lines
    if isinstance(value, list | tuple):
        if not value:
            return [f"{indent}{key}: []"]
        lines = [f"{indent}{key}:"]
        for item in value:
            lines += _yaml_item(item, indent + "  ")
        return lines
    return [f"{indent}{key}: {yaml_scalar(value)}"]


def _yaml_item(item: object, indent: str) -> list[str]:
    """One `- ` entry of a list: a scalar on the dash's line, a mapping's first key there and
    the rest below it, a list's entries below a bare dash."""
    if isinstance(item, list | tuple) and item:
        lines = [f"{indent}-"]
        for sub in item:
            lines += _yaml_item(sub, indent + "  ")
        return lines
    if isinstance(item, Mapping | list | tuple) and not item:
        return [f"{indent}- {{}}" if isinstance(item, Mapping) else f"{indent}- []"]
    if not isinstance(item, Mapping):
        return [f"{indent}- {yaml_scalar(item)}"]
    lines = []
    for n, (k, v) in enumerate(item.items()):
        sub = _yaml_lines(str(k), v, indent + "  ")
        if n == 0:
            sub[0] = f"{indent}- {sub[0].lstrip()}"
        lines += sub
    return lines
