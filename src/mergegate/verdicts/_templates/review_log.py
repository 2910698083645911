"""A log of reviews and re-reviews: per reviewer, the last entry decides.

    - Spec review: PASS
    - Code-quality review: CHANGES_REQUESTED (missing test)
    - Fix: added the test
    - Code-quality re-review: APPROVED

An entry is a line `<label>: <STATE> …` whose label names a review ("Spec compliance
review", "Re-review", "Final code quality re-review"), or a result nested under a reviewer's
item ("First result"), and whose value starts with a review state. Entries belong to one
reviewer's track: the label without its round words ("first", "re-", "final", "after
fixes" …), or — when nothing else is left — the item the entry is nested under
("- Code-quality reviewer: Bacon." → "  - Re-review: …").
The log is recognised when some track has at least two entries (a review and its re-review).
Each track's last entry is a verdict field; the earlier ones are superseded and accounted for.
What follows a state on the deciding entry is read as text after an approval
(`_answer.after_approval`): "APPROVED, pending CI" does not approve.
"""

from __future__ import annotations

from typing import NamedTuple

from mergegate.decisions import Decision
from mergegate.verdicts._answer import after_approval
from mergegate.verdicts._lines import Doc
from mergegate.verdicts._patterns import compile_lazily
from mergegate.verdicts._site import Site
from mergegate.verdicts._templates._base import Recognised
from mergegate.verdicts._templates._fields import field_site
from mergegate.verdicts._text import norm

__all__ = ["NAME", "recognise"]

NAME = "review-log"

_ENTRY = compile_lazily(
    r"([ \t]*)(?:[-*+][ \t]+|\d{1,3}[.)][ \t]+)?[*_]*([^:*_]{2,60}?)[*_]*[ \t]*:[*_ \t]*(.*)"
)
_STATE = compile_lazily(
    r"(?:(?:initially|first|then|finally|now)[ \t,]+)?[*_`]*"
    r"(approved|approve|passed|pass|lgtm|changes[_ ]requested|request[_ ]changes|"
    r"needs[_ ]work|with fixes|failed|fail|rejected|reject)(?![a-z_])[*_`]*",
)
_DECISION = {
    "approved": Decision.APPROVE,
    "approve": Decision.APPROVE,
    "passed": Decision.APPROVE,
    "pass": Decision.APPROVE,
    "lgtm": Decision.APPROVE,
    "failed": Decision.REJECT,
    "fail": Decision.REJECT,
    "rejected": Decision.REJECT,
    "reject": Decision.REJECT,
}
_REVIEW_LABEL = compile_lazily(r"(?<![a-z])(?:re-?review|review)(?![a-z])")
_RESULT_LABEL = compile_lazily(r"(?<![a-z])result(?![a-z])")
_REVIEWER = compile_lazily(r"(?<![a-z])(?:re-?)?review(?:er)?(?![a-z])")
_ROUND_WORDS = compile_lazily(
    r"(?<![a-z])(?:first|initial|second|third|final|follow-?up|latest|after fix(?:es)?|"
    r"round[ \t]*\d{1,2}|\d{1,2}(?:st|nd|rd|th))(?![a-z])"
)
_RE_REVIEW = compile_lazily(r"(?<![a-z])re-?(?=review)")
_GENERIC = frozenset({"review", "result", "reviews", "results", ""})


class _Entry(NamedTuple):
    at: int
    track: str
    decision: Decision
    state: str
    tail: str


def recognise(doc: Doc) -> Recognised | None:
    """The log's deciding entries, or None when no reviewer was re-reviewed."""
    entries = _entries(doc)
    tracks: dict[str, list[_Entry]] = {}
    for entry in entries:
        tracks.setdefault(entry.track, []).append(entry)
    if not any(len(track) > 1 for track in tracks.values()):
        return None
    sites = [_deciding_site(doc, track[-1]) for track in tracks.values()]
    superseded = frozenset(e.at for track in tracks.values() for e in track[:-1])
    return Recognised(
        name=NAME,
        sites=tuple(sorted(sites, key=lambda s: s.index)),
        accounted=superseded | {s.index for s in sites},
    )


def _entries(doc: Doc) -> list[_Entry]:
    found: list[_Entry] = []
    parents: list[tuple[int, str]] = []  # (indent, label) of the enclosing list items
    for index, line in enumerate(doc.lines):
        if not line.live or line.blank or line.heading_level or len(line.raw) > 400:
            continue
        match = _ENTRY.fullmatch(norm(line.raw))
        if match is None:
            continue
        indent, label, value = len(match.group(1)), match.group(2).strip(), match.group(3)
        while parents and parents[-1][0] >= indent:
            parents.pop()
        parent = parents[-1][1] if parents else ""
        parents.append((indent, label))
        state = _STATE.match(value)
        if state is None or not _is_review(label, parent):
            continue
        track = " ".join(_ROUND_WORDS.sub(" ", _RE_REVIEW.sub("", label)).split()).strip(" -")
        if track in _GENERIC:
            track = parent
        word = state.group(1).replace("_", " ")
        decision = _DECISION.get(word, Decision.FIXES)
        found.append(_Entry(index, track, decision, word, value[state.end() :]))
    return found


def _is_review(label: str, parent: str) -> bool:
    """A review's entry: a label naming a review, or a result under a reviewer's item (a
    test run's 'Result: PASS' is not a review)."""
    if _REVIEW_LABEL.search(label):
        return True
    return _RESULT_LABEL.search(label) is not None and _REVIEWER.search(parent) is not None


def _deciding_site(doc: Doc, entry: _Entry) -> Site:
    decision, reason = entry.decision, f"the last entry of the log says '{entry.state}'"
    if decision is Decision.APPROVE:
        problem = after_approval(entry.tail)
        if problem is not None:
            decision, why = problem
            reason += f" ({why})"
    return field_site(entry.at, doc.lines[entry.at], decision, dialect=NAME, reason=reason)
