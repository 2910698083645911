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
from dataclasses import dataclass

from mergegate.verdicts._json import read_json
from mergegate.verdicts._lines import Doc
from mergegate.verdicts._patterns import compile_lazily

__all__ = [
    "MAX_RECORD_CHARS",
    "JsonRecord",
    "json_record",
    "objects_in",
    "saved_with",
    "verdict_keys",
]

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


@dataclass(frozen=True, slots=True)
class JsonRecord:
    """A platform's record the document holds as JSON."""

    values: list[tuple[int, object]]
    """Each JSON value with the line index it starts on."""
    lines: frozenset[int]
    """The lines it stands on."""
    whole: bool
    """The document is the record and nothing else."""


# Gerrit's REST API opens every JSON answer with this line (against XSSI); a saved answer
# keeps it.
_XSSI = ")]}'"


def json_record(doc: Doc) -> JsonRecord | None:
    """The document's JSON record: its visible text wholly JSON (one value, or one value a
    line, after a `$ …` command echo or Gerrit's `)]}'` line), or else one live fenced
    block (not an example: `Block.live`) whose body is one JSON value; None otherwise."""
    rows = [
        (i, line.raw.strip())
        for i, line in enumerate(doc.lines)
        # visible: live, or taken for an instruction by the prose heuristics (a record's
        # words such as "description" look like a template's); never code or a quote
        if (line.live or line.instruction_like) and not line.blank and line.raw.strip()
    ]
    if rows and (rows[0][1].startswith("$ ") or rows[0][1] == _XSSI):
        rows = rows[1:]  # the command that printed the record
    if rows and rows[0][1][:1] in "{[":
        values = _values(rows)
        every = frozenset(range(len(doc.lines)))
        return JsonRecord(values, every, whole=True) if values is not None else None
    return _fenced(doc)


def _values(rows: list[tuple[int, str]]) -> list[tuple[int, object]] | None:
    if sum(len(r) for _, r in rows) > MAX_RECORD_CHARS:
        return None
    whole = _read("\n".join(text for _, text in rows))
    if whole is not None:
        return [(rows[0][0], whole)]
    values = [(i, _read(text)) for i, text in rows]
    if any(value is None for _, value in values):
        return None
    return values


def _fenced(doc: Doc) -> JsonRecord | None:
    """The one live fenced block of the document that is JSON (```json or no info)."""
    blocks = [b for b in doc.blocks if b.info in ("", "json")]
    if len(blocks) != 1 or not blocks[0].live:
        return None
    block = blocks[0]
    body = [(i, doc.full[i].strip()) for i in range(block.start, block.end) if doc.full[i].strip()]
    if block.closed is False or not body or body[0][1][:1] not in "{[":
        return None
    values = _values(body)
    if values is None:
        return None
    lines = set(range(block.start - 1, block.end + 1))
    above = next((i for i in range(block.start - 2, -1, -1) if doc.lines[i].raw.strip()), None)
    if above is not None and doc.lines[above].live and saved_with(doc.lines[above].raw):
        lines.add(above)
    return JsonRecord(values, frozenset(lines), whole=False)


# The line that says which command printed the record, right above it: "Reviews fetched
# with `gh pr view 412 --json reviews`:", "Output of `ssh … gerrit query …`:". Its words
# before the command are a closed list, so no other statement hides in it.
_LEAD = (
    r"(?:pulled|fetched|retrieved|exported|saved|collected|generated|printed|output|result|"
    r"results|raw|json|from|with|of|via|by|using|the|this|these|reviews?|votes?|approvals?|"
    r"ran|run|command|here|are|is)"
)
_SAVED_WITH = compile_lazily(
    rf"(?:{_LEAD}[ \t]+){{0,6}}`(?:\$ )?(?:gh|ssh|gerrit|curl)[ \t][^`\n]{{1,300}}`"
    r"[ \t]*(?:\([^)\n]{0,80}\))?[ \t]*[:.]?[ \t]*",
    re.IGNORECASE,
)


def saved_with(text: str) -> bool:
    """True when the line only says which command printed the record."""
    return len(text) <= 400 and _SAVED_WITH.fullmatch(text.strip()) is not None


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
