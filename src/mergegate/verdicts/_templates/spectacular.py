"""spectacular's phase review (github.com/arittr/spectacular): superpowers' code-reviewer
template under spectacular's binary gate.

spectacular's `execute` reviews each phase with superpowers' `requesting-code-review` skill and
parses the answer itself (`skills/executing-parallel-phase/SKILL.md` Step 8,
`skills/executing-sequential-phase/SKILL.md`):

    ## Code Review: Phase 2 - <phase name>
    ### Issues
    #### Critical / #### Important / #### Minor     ← Critical and Important go to the fixer
    ### Assessment
    **Ready to merge? Yes**                          ← the one verdict field: Yes | No | With fixes
    **Reasoning:** …

Its rules, read here from structure:

* the verdict field is `Ready to merge?` and its answer is binary: only `Yes` proceeds; any
  other answer ("APPROVED WITH MINOR SUGGESTIONS", `Yes, with nits`, `Yes (backend only)`) is
  soft language, which spectacular re-reviews; a review without the field is retried. Either
  way the review is `malformed`, whatever else in it approves (`Recognised.unanswered`);
* `Yes` is given "only if EVERYTHING passes" and a rejection sends "all Critical and Important
  issues" to the fixer, so an item in the Critical *or* the Important section is blocking
  content (superpowers alone blocks on Critical only). Empty sections are read as superpowers'.

The document is claimed when it names a spectacular phase review (a `Code Review: Phase N`
heading, or a run's `specs/<runId>-<slug>/` or `.worktrees/<runId>-main` path) and has the
template's structure (the `Ready to merge?` field, an `Assessment` heading, or its severity
sections). The field's `Yes` itself is read by the generic grammar (dialect `superpowers`).
"""

from __future__ import annotations

from dataclasses import replace

from mergegate.verdicts._lines import Doc, Line
from mergegate.verdicts._model import Severity
from mergegate.verdicts._patterns import compile_lazily
from mergegate.verdicts._templates._base import Recognised
from mergegate.verdicts._templates.superpowers import read_sections

__all__ = ["NAME", "recognise"]

NAME = "spectacular"

_BLOCKING = frozenset({Severity.CRITICAL, Severity.IMPORTANT})
# spectacular's heading names the review first ('Code Review: Phase 2 - …'); GSD's reviewer
# writes 'Phase 03: Code Review Report', which is GSD's.
_PHASE_REVIEW = compile_lazily(r"code review\b.{0,40}?\bphase[ \t]+\d")
_RUN_PATH = compile_lazily(
    r"specs/[0-9a-f]{6}-[a-z0-9][a-z0-9._-]*/(?:spec|plan)\.md|\.worktrees/[0-9a-f]{6}-main\b"
)
_ASSESSMENT = compile_lazily(r"[ \t]*assessment[ \t:]*")
_FIELD = compile_lazily(r"(?:[-*+][ \t]+|\d{1,3}[.)][ \t]+)?ready to merge[ \t]*\?(.*)")
_CHECKBOX = compile_lazily(r"[-*+]?[ \t]*\[[ x]\][ \t]*")
_ANSWERS = frozenset({"yes", "no", "with fixes"})
_A_NO = compile_lazily(r"(?:no|not|with fixes)\b")


def recognise(doc: Doc) -> Recognised | None:
    """The review's severity sections and its verdict field, or None when the document is not
    a spectacular phase review."""
    tell = _tell(doc)
    if tell is None:
        return None
    fields = [i for i, line in enumerate(doc.lines) if _is_field(line)]
    sections = read_sections(doc, NAME, blocking=_BLOCKING)
    if not (fields or sections or _has_assessment(doc)):
        return None
    if not fields:
        why = "spectacular's verdict field 'Ready to merge?' is missing (spectacular retries)"
        unanswered: tuple[int, str] | None = (tell, why)
    else:
        unanswered = next(filter(None, (_soft(doc, i) for i in fields)), None)
    return replace(sections or Recognised(name=NAME), unanswered=unanswered)


def _tell(doc: Doc) -> int | None:
    """The first live line that names a spectacular phase review."""
    for index, line in enumerate(doc.lines):
        if not line.live or line.blank:
            continue
        if line.heading_level and _PHASE_REVIEW.search(line.clean):
            return index
        if _RUN_PATH.search(line.low):
            return index
    return None


def _has_assessment(doc: Doc) -> bool:
    return any(
        line.live and line.heading_level and _ASSESSMENT.fullmatch(line.clean) for line in doc.lines
    )


def _is_field(line: Line) -> bool:
    """A live line that is the verdict field (not a sentence that quotes it); a field under
    another heading's scope (an alternative, a finding) is not the review's."""
    return line.live and not line.local and _FIELD.fullmatch(line.clean) is not None


def _soft(doc: Doc, index: int) -> tuple[int, str] | None:
    """(index, why) when the field at `index` is answered outside Yes | No | With fixes. An
    answer that opens with a no is the generic reader's: its issue list may follow it."""
    match = _FIELD.fullmatch(doc.lines[index].clean)
    answer = match.group(1).strip() if match else ""
    if not answer:
        answer = _answer_below(doc, index)
    answer = _undecorated(_CHECKBOX.sub("", answer, count=1))
    if answer in _ANSWERS or _A_NO.match(answer):
        return None
    shown = answer[:60] or "nothing"
    return index, (
        f"spectacular's 'Ready to merge?' takes only Yes, No or With fixes, not '{shown}' "
        "(soft language is re-reviewed)"
    )


def _undecorated(text: str) -> str:
    """`text` without the markup, emoji and punctuation around it (linear: no regex that
    backtracks over a long run of symbols)."""
    start = next((i for i, ch in enumerate(text) if ch.isalnum()), len(text))
    end = next((i for i in range(len(text), start, -1) if text[i - 1].isalnum()), start)
    return text[start:end]


def _answer_below(doc: Doc, index: int) -> str:
    """The answer on the next non-blank line ('**Ready to merge?**' / 'Yes'); '' when that
    line is not live text."""
    for line in doc.lines[index + 1 : index + 4]:
        if not line.blank:
            return line.clean if line.live and not line.heading_level else ""
    return ""
