"""A platform's record saved as JSON: `gh pr view --json reviews`, `gh api …/reviews`,
`ssh gerrit query --format=JSON` (one object a line) or Gerrit's REST `ChangeInfo`.

The GitHub and Gerrit recognisers read such a document as the platform wrote it, value by
value, instead of line by line: a review's reviewer, state and time are fields of one object,
whatever line each stands on. Only a document that is the record is read so — its visible
text is one JSON value, or JSON lines (a command echo `$ …` above them aside); JSON quoted
in prose or in a fenced example is not the record.
"""

from __future__ import annotations

import re

from mergegate.verdicts._json import read_json
from mergegate.verdicts._lines import Doc
from mergegate.verdicts._patterns import compile_lazily

__all__ = ["MAX_RECORD_CHARS", "json_record", "objects_in", "verdict_keys"]

# A key that could carry a verdict (`verdict`, `approved`, `decision`, `status`, `result` …).
# A record read whole is not read by the JSON verdict reader, so its recogniser must know
# every such key it holds; one it does not know keeps the record from approving.
_VERDICT_KEY = compile_lazily(
    r"verdict|approv|lgtm|ready|decision|status|result|outcome|overall|final|pass|reject|"
    r"block|accept|conclusion|state|submit|merge|vote|score",
    re.IGNORECASE,
)

MAX_RECORD_CHARS = 1_000_000
# A record nests a few levels (change → patch sets → approvals → by); deeper is not one.
_MAX_DEPTH = 12
_MAX_NODES = 20_000


def json_record(doc: Doc) -> list[tuple[int, object]] | None:
    """The document's JSON values with the line index each starts on, or None when its
    visible text is not wholly JSON (one value, or one value a line)."""
    rows = [
        (i, line.raw.strip())
        for i, line in enumerate(doc.lines)
        # visible: live, or taken for an instruction by the prose heuristics (a record's
        # words such as "description" look like a template's); never code or a quote
        if (line.live or line.instruction_like) and not line.blank and line.raw.strip()
    ]
    if rows and rows[0][1].startswith("$ "):
        rows = rows[1:]  # the command that printed the record
    if not rows or rows[0][1][:1] not in "{[" or sum(len(r) for _, r in rows) > MAX_RECORD_CHARS:
        return None
    whole = _read("\n".join(text for _, text in rows))
    if whole is not None:
        return [(rows[0][0], whole)]
    values = [(i, _read(text)) for i, text in rows]
    if any(value is None for _, value in values):
        return None
    return values


def _read(text: str) -> object | None:
    if text[:1] not in "{[":
        return None
    try:
        value: object = read_json(text)
    except (ValueError, RecursionError):
        return None
    return value


def objects_in(value: object) -> list[dict[str, object]] | None:
    """Every JSON object in `value`, depth first in document order; None when the value is
    deeper or larger than a platform's record (then it is not read as one: fail closed)."""
    found: list[dict[str, object]] = []
    stack: list[tuple[object, int]] = [(value, 0)]
    seen = 0
    while stack:
        node, depth = stack.pop()
        seen += 1
        if depth > _MAX_DEPTH or seen > _MAX_NODES:
            return None
        children: list[object] = []
        if isinstance(node, dict):
            found.append(node)
            children = list(node.values())
        elif isinstance(node, list):
            children = list(node)
        stack.extend((child, depth + 1) for child in reversed(children))
    return found


def verdict_keys(objects: list[dict[str, object]]) -> list[tuple[str, object]]:
    """Every (key, value) of `objects` whose key could carry a verdict, in order."""
    return [
        (key, value)
        for obj in objects
        for key, value in obj.items()
        if isinstance(key, str) and _VERDICT_KEY.search(key)
    ]
