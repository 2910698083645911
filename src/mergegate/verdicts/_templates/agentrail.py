"""AgentRail's task review (`work/<task-id>/review.md`, Japanese): numbered sections of fields.

    ## 2. 受入条件评価          - AC-001: PASS             (acceptance criteria)
    ## 3. テスト结果            ### Unit Test / - 结果: PASS (test results)
    ## 4. 指摘事项              - 重大: なし               (critical: none) / - 改善提案: …
    ## 5. 结论                  - 本タスクは `done` 判定とする。 (the task is judged `done`)
    ## 6. Process Findings      ### 6.1 Finding F-001 / - severity: low / - action_required: no
    ## 7. Commit Boundaries     ### 7.1 Kickoff Commit / - commit: … / - scope_check: PASS

A document with the acceptance, findings and conclusion sections is claimed. The verdict
field is the conclusion's judgement of the task's state: `done` approves, any other state
asks for fixes, and a conclusion without a judgement (the template's own "実装后に最终判定す
る。" — final judgement after implementation) leaves the review unanswered (`malformed`).
Every other field must pass: an acceptance criterion, test result or scope check that says
FAIL is blocking content, one still PENDING (or any other value) leaves the review unanswered;
`重大` other than `なし`, a process finding above `low` or with `action_required` other than
`no`, is blocking. The fields read are accounted for; the rest of each section (what was run,
the suggestions, a finding's summary, any line after the judgement) is left to the generic
reader. Headings and keys are matched on folded text (`_text.norm`), so this module writes them in
the folded form (`结论`, `评価`), as `_hanzi` requires of every source file.
"""

from __future__ import annotations

from mergegate.decisions import Decision
from mergegate.verdicts._lines import Doc
from mergegate.verdicts._patterns import compile_lazily
from mergegate.verdicts._templates._base import Recognised
from mergegate.verdicts._templates._fields import field_site
from mergegate.verdicts._text import norm

__all__ = ["NAME", "recognise"]

NAME = "agentrail"

# A numbered section heading: '2. 受入条件评価', '6. Process Findings', '7. コミット境界の确认 (…)'.
_SECTION = compile_lazily(r"[ \t]*\d{1,2}\.[ \t]*(.*)")
_SECTIONS = (
    ("acceptance", compile_lazily(r"受入条件评価")),
    ("tests", compile_lazily(r"テスト结果")),
    ("findings", compile_lazily(r"指摘事项")),
    ("conclusion", compile_lazily(r"结论")),
    ("process", compile_lazily(r"process findings|プロセス改善案")),
    ("commits", compile_lazily(r"commit boundaries|コミット境界")),
)
_NEEDED = frozenset({"acceptance", "findings", "conclusion"})
# '- key: value' (a list item, one key of the template).
_ITEM = compile_lazily(r"[ \t]*[-*+][ \t]+([^:：]{1,40}?)[ \t]*[:：][ \t]*(.*)")
_AC_KEY = compile_lazily(r"ac-\d{1,4}")
_JUDGEMENT = compile_lazily(
    r"[ \t]*(?:[-*+][ \t]+)?(?:本タスクは)?[ \t]*`?([a-z_-]{1,30})`?[ \t]*"
    r"判定(?:とする)?[ \t]*[。.]?"
)
_NONE = frozenset({"なし", "无", "none"})
_CLOSED_FINDING_KEYS = frozenset({"finding_id", "category", "linked_task_id", "commit"})
_MAX_LINE = 400


def recognise(doc: Doc) -> Recognised | None:
    """The review's fields, or None when it lacks the acceptance, findings or conclusion
    section."""
    sections = _sections(doc)
    if not set(sections.values()) >= _NEEDED:
        return None
    reading = _Reading()
    for index, line in enumerate(doc.lines):
        section = sections.get(index)
        if section is not None:
            reading.section = section
            if section == "conclusion":
                reading.conclusion_at = index
            if section in ("process", "commits"):
                reading.accounted.add(index)  # a template section's own title
            continue
        if not line.live or line.blank or len(line.raw) > _MAX_LINE:
            continue
        if line.heading_level:
            if reading.section in ("process", "commits") and line.heading_level > 2:
                reading.accounted.add(index)  # '### 6.1 Finding F-001', '### 7.1 Kickoff Commit'
            else:
                reading.section = None if line.heading_level <= 2 else reading.section
            continue
        reading.read(doc, index)
    return reading.result(doc)


def _sections(doc: Doc) -> dict[int, str]:
    """The line of each numbered top-level section heading the template names, by its key."""
    found: dict[int, str] = {}
    for index, line in enumerate(doc.lines):
        if not line.live or line.heading_level != 2:
            continue
        numbered = _SECTION.fullmatch(norm(line.heading_text))
        if numbered is None:
            continue
        for key, title in _SECTIONS:
            if title.match(numbered.group(1)):
                found[index] = key
                break
    return found


class _Reading:
    """The fields read so far, section by section."""

    def __init__(self) -> None:
        self.section: str | None = None
        self.accounted: set[int] = set()
        self.conclusion_at = 0
        self.judged: dict[int, str] = {}
        self.blocking: tuple[int, str] | None = None
        self.unanswered: tuple[int, str] | None = None

    def read(self, doc: Doc, index: int) -> None:
        text = norm(doc.lines[index].raw)
        if self.section == "conclusion":
            judgement = _JUDGEMENT.fullmatch(text)
            if judgement is not None:
                self.judged[index] = judgement.group(1)
            return
        item = _ITEM.fullmatch(text)
        if item is None or self.section is None:
            return
        key, value = item.group(1).strip(" *_`"), item.group(2).strip(" *_`。.")
        if self.section == "acceptance" and _AC_KEY.fullmatch(key):
            self._passes(index, f"acceptance criterion {key.upper()}", value)
        elif self.section == "tests" and key == "结果":
            self._passes(index, "a test result", value)
        elif self.section == "findings" and key == "重大":
            self.accounted.add(index)
            if value not in _NONE:
                self._blocks(index, f"the critical field says '{value[:60]}'")
        elif self.section == "process":
            self._finding_field(index, key, value)
        elif self.section == "commits" and key in ("commit", "scope_check"):
            if key == "commit":
                self.accounted.add(index)
            else:
                self._passes(index, "a commit boundary's scope check", value)

    def _finding_field(self, index: int, key: str, value: str) -> None:
        if key in _CLOSED_FINDING_KEYS:
            self.accounted.add(index)
        elif key == "severity":
            self.accounted.add(index)
            if value != "low":
                self._blocks(index, f"a process finding of severity '{value[:20]}'")
        elif key == "action_required":
            self.accounted.add(index)
            if value != "no":
                self._blocks(index, f"a process finding requires action ('{value[:20]}')")

    def _passes(self, index: int, what: str, value: str) -> None:
        self.accounted.add(index)
        if value == "pass":
            return
        if value in ("fail", "failed"):
            self._blocks(index, f"{what} says FAIL")
        elif self.unanswered is None:
            self.unanswered = (index, f"{what} is not answered PASS ('{value[:20]}')")

    def _blocks(self, index: int, why: str) -> None:
        if self.blocking is None:
            self.blocking = (index, why)

    def result(self, doc: Doc) -> Recognised:
        sites = []
        for index, state in self.judged.items():
            decision = Decision.APPROVE if state == "done" else Decision.FIXES
            reason = f"the conclusion judges the task '{state}'"
            sites.append(field_site(index, doc.lines[index], decision, dialect=NAME, reason=reason))
            self.accounted.add(index)
        unanswered = self.unanswered
        if not sites:
            why = "the conclusion judges no task state (`<state>` 判定)"
            unanswered = (self.conclusion_at, why)
        return Recognised(
            name=NAME,
            sites=tuple(sites),
            accounted=frozenset(self.accounted),
            blocking=self.blocking,
            unanswered=unanswered,
        )
