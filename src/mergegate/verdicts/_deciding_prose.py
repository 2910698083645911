"""A refusal told in prose under a deciding heading, when no verdict statement was found.

A free-form review often answers its `## Verdict` / `## Conclusion` / `## 결론` heading with a
sentence rather than a word of the vocabulary: 'Two real bugs need fixing before Week 3.',
'❌ — the migration drops rows.' With no verdict site anywhere the document is `malformed`
(restate), which sends the wrong next step: the reviewer did answer, and the answer is no.

This reader runs only on that path (`_decide._nothing_found`): the decision it may return is
`fixes` or `reject`, never `approve`, so it moves a document between refusals and cannot
make a false approval. The role comes from structure — the first paragraph under a heading whose
label decides ('Verdict', 'Conclusion', not 'Summary'), the reviewer's own live text — and the
refusal from the readers the approval rule already uses on text after an approval
(`_signals`: a contrary verdict, a condition or obligation, a refusal mark).
"""

from __future__ import annotations

from dataclasses import dataclass

from mergegate.decisions import Decision
from mergegate.verdicts._lines import Doc, Line
from mergegate.verdicts._patterns import compile_lazily
from mergegate.verdicts._signals import condition_in, contrary_in, obligation_in
from mergegate.verdicts._vocab import LabelKind, clean_value, label_kind

__all__ = ["refusal_in_deciding_section"]

# A mark that says no on its own, first on the line: '❌', '✗ Not ready', '⛔'.
_REFUSAL_MARKS = ("❌", "✗", "✘", "⛔", "🚫", "🛑", "👎")
_STRENGTH = {Decision.REJECT: 2, Decision.FIXES: 1}
# Opinion labels that describe rather than decide: '## Overall assessment', '## Summary'.
_DESCRIBING = frozenset({"assessment", "summary", "status", "result", "results", "overview"})
_DECOR = " \t#*_`0123456789.)-📊✅❌⚠️🔍📋🎯"
_MERGE_WORD = compile_lazily(r"(?<![a-z])(?:merg\w*|ship\w*|land\w*|release\w*|deploy\w*)")
_COMPOUND_MODAL = compile_lazily(r"(?<![a-z])(must|should|need|needs)-(?=[a-z])")
_LIST_ITEM = compile_lazily(r"[ \t]*(?:[-*+•]|\d{1,3}[.)])[ \t]")


def refusal_in_deciding_section(doc: Doc) -> tuple[Decision, int, str] | None:
    """The strongest refusal a verdict section's answer states, with its line and why, or
    None. Only `Decision.FIXES` or `Decision.REJECT`."""
    best: tuple[Decision, int, str] | None = None
    for answer in _answers_of(doc):
        found = _refusal(doc, answer)
        if found is None:
            continue
        decision, index, phrase = found
        if best is None or _STRENGTH[decision] > _STRENGTH[best[0]]:
            line = doc.lines[index]
            heading = line.section.text if line.section is not None else ""
            why = (
                f"line {line.number}: the section '{heading[:60]}' states no verdict word "
                f"but its answer refuses ('{phrase[:60]}') → {decision.value}"
            )
            best = (decision, index, why)
    return best


@dataclass(frozen=True, slots=True)
class _Answer:
    """The first paragraph of a verdict section: the answer's position."""

    lines: tuple[int, ...]
    deciding: bool
    """The heading decides ('Verdict', 'Conclusion') rather than describes ('Summary')."""


def _answers_of(doc: Doc) -> list[_Answer]:
    """Each verdict section's first paragraph. Later paragraphs, lists and tables under it
    are the reasons and the work ahead."""
    found: list[_Answer] = []
    lines = doc.lines
    for index, line in enumerate(lines):
        if not line.heading_level or not line.live:
            continue
        deciding = _deciding(line)
        if not deciding and not _verdict_like(line):
            continue
        heading = line
        at = _first_content(lines, index + 1)
        if at < len(lines) and lines[at].heading_level > heading.heading_level:
            # '## 결론' / '### MVP 출시 가능 여부' / the answer: a sub-heading that opens
            # the section asks its question, the paragraph under it answers.
            heading = lines[at]
            at = _first_content(lines, at + 1)
        own: list[int] = []
        while at < len(lines) and not lines[at].blank and not lines[at].heading_level:
            if _own_text(lines[at], heading):
                own.append(at)
            at += 1
        if own:
            found.append(_Answer(tuple(own), deciding))
    return found


def _first_content(lines: list[Line], at: int) -> int:
    while at < len(lines) and lines[at].blank:
        at += 1
    return at


def _verdict_like(heading: Line) -> bool:
    """A verdict-like heading (`Section.verdict_like`: 'Verdict', 'Summary', 'Conclusion')."""
    return heading.section is not None and heading.section.verdict_like


def _deciding(heading: Line) -> bool:
    """A heading whose role is the decision ('Verdict', 'Final verdict', 'Conclusion',
    'Recommendation', '결론', '判定'), not a describing one ('Summary', 'Overall
    assessment', 'Status')."""
    section = heading.section
    if section is None or section.local or section.example:
        return False
    label = clean_value(section.text.lstrip(_DECOR)).rstrip(" :")
    if not label:
        return False
    words = label.split()
    # The label whole, or its first or last word: '결론 + 다음 단계', 'Readiness verdict'.
    return any(_decides(part) for part in dict.fromkeys((label, words[0], words[-1])))


def _decides(label: str) -> bool:
    kind = label_kind(label)
    if kind in (LabelKind.VERDICT, LabelKind.QUESTION):
        return True
    return kind is LabelKind.OPINION and label.rsplit(maxsplit=1)[-1] not in _DESCRIBING


def _own_text(line: Line, heading: Line) -> bool:
    """A visible line of the reviewer's own text in the heading's section."""
    return (
        line.live
        and not line.quoted
        and line.section is heading.section
        and not line.raw.lstrip().startswith("|")
    )


def _refusal(doc: Doc, answer: _Answer) -> tuple[Decision, int, str] | None:
    """A refusal the answer states, with its line. Any line may hold a contrary verdict or
    open with a refusal mark; the paragraph's sentences (lines joined: an answer wraps) may
    hold a condition tied to the merge ('Safe to ship after addressing the major items');
    under a deciding heading also a condition or an obligation ('Two bugs need fixing before
    Week 3')."""
    for index in answer.lines:
        low = doc.lines[index].low
        contrary = contrary_in(low)
        if contrary is not None:
            return contrary[0], index, contrary[1]
        shown = low.lstrip(" \t>*_-•#").lstrip("0123456789.) ")
        mark = next((m for m in _REFUSAL_MARKS if shown.startswith(m)), None)
        if mark is not None:
            return Decision.FIXES, index, mark
    # An item of a list is one reason or one step, not the answer.
    prose = [i for i in answer.lines if not _LIST_ITEM.match(doc.lines[i].raw)]
    if not prose:
        return None
    text = " ".join(doc.lines[i].low.strip() for i in prose)
    held = _merge_condition(text)
    if held is None and answer.deciding:
        held = condition_in(text, answer_clause=False) or obligation_in(_no_compounds(text))
    return (Decision.FIXES, prose[0], held) if held is not None else None


def _no_compounds(text: str) -> str:
    """`text` with a modal joined to a noun by a hyphen made one word: 'All 8 must-fixes are
    closed', 'the must-have list' name things, they oblige no one."""
    return _COMPOUND_MODAL.sub(r"\1_", text) if "-" in text else text


def _merge_condition(text: str) -> str | None:
    """A condition put on the merge: only beside a word that names it ('ship', 'merge')."""
    if _MERGE_WORD.search(text) is None:
        return None
    return condition_in(text, answer_clause=False)
