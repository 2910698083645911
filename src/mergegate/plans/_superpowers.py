"""superpowers writing-plans files (`docs/plans/…md`, `docs/superpowers/plans/…md`).

One file is one phase with one sequential unit; each `## Task N:` / `### Task N:` section is a
task in document order. `**Files:**` lists keep their verbs (`Create`, `Modify`, `Test`, …) and
lose line locators (`a.py:12-40`). Steps are `**Step N: …**`, `- [ ] **Step N: …**` or
`#### Step N` lines. A check is a command the plan marks as one, never one read from prose:

* a `Run:` line (the command inline in backticks, or the fence right below it) followed by an
  `Expected:` line (`Expected output:`, `Expected result:` too; the text may be the fence
  below it);
* a fenced shell block (` ```bash `, `sh`, `shell`, `zsh`, `console`, `shell-session`) whose
  next non-blank line is `Expected:` — the form writing-plans uses for commands too long for
  a line. In a `console` block only the `$ ` prompt lines are commands (the rest is output).

Checks whose expectation is a failure (`FAIL …`, `New test FAILS …`: a failure word in the
first clause, not negated) are test-first red steps: they stay with their step and never
become acceptance checks. `## Chunk N` / `## Phase N` headings only group tasks.
"""

from __future__ import annotations

import re
from pathlib import PurePosixPath
from typing import Any

from pydantic import JsonValue

from mergegate.plans._document import Document, Fence
from mergegate.plans._errors import Notes, PlanError
from mergegate.plans._ids import ascii_id
from mergegate.plans._markdown import (
    Heading,
    consulted,
    file_block,
    headings,
    label_at,
    list_items,
    touched,
)
from mergegate.plans._model import (
    Check,
    FileChange,
    Phase,
    Plan,
    PlanFormat,
    Step,
    Task,
    Unit,
    Verify,
)

__all__ = ["TASK_HEADING", "expects_failure", "import_superpowers"]

TASK_HEADING = re.compile(
    r"^Task[ \t]+(?P<id>\d[\w.-]{0,19}?)[ \t]*(?:[:.—–-]|[ \t]|$)[ \t]*(?P<title>.*)$", re.I
)
_STEP = re.compile(
    r"^[ \t]*(?:[-*+][ \t]+\[[ xX]\][ \t]+)?\*\*Step[ \t]+(?P<n>[\w.]+)[ \t]*[:.]?"
    r"[ \t]*(?P<title>.*?)\*\*"
    r"|^#{3,6}[ \t]+Step[ \t]+(?P<hn>[\w.]+)[ \t]*[:.]?[ \t]*(?P<htitle>.*)$",
    re.I,
)
_RUN = re.compile(r"^[ \t]*(?:[-*+][ \t]+)?\**Run\**[ \t]*:\**[ \t]*(?P<cmd>.*)$")
_EXPECTED = re.compile(
    r"^[ \t]*(?:[-*+][ \t]+)?\**Expected(?:[ \t]+(?:output|result)s?)?\**[ \t]*:\**[ \t]*"
    r"(?P<text>.*)$",
    re.I,
)
_GROUP = re.compile(r"^(?:Chunk|Phase|Part)[ \t]+\w+", re.I)
_SHELLS = frozenset({"bash", "sh", "shell", "zsh", "console", "shell-session", "shellsession"})
_SESSIONS = frozenset({"console", "shell-session", "shellsession"})
_CLAUSE = re.compile(r"[.;:!?(\u2014\u2013]| - ")
_RED = re.compile(r"(?<!\bno )(?<!\b0 )(?<!\bnot )(?<!\bzero )\bfail(?:s|ed|ing|ures?)?\b", re.I)
_GREEN = re.compile(r"\bpass(?:es|ed|ing)?\b|\bsucceed|\bwithout\b|\bno(?:ne)? fail", re.I)
_PLAN_LABELS = ("goal", "architecture", "tech stack", "spec", "existing tests", "author", "created")


def import_superpowers(doc: Document, notes: Notes) -> Plan:
    """Import one superpowers plan file as one phase with one sequential unit."""
    heads = headings(doc)
    task_heads = [h for h in heads if 2 <= h.level <= 4 and TASK_HEADING.match(h.text)]
    if not task_heads:
        raise PlanError("no `Task N:` sections found", file=doc.rel)
    title_head = next((h for h in heads if h.level == 1), None)
    title = title_head.text if title_head else PurePosixPath(doc.rel).stem
    info = _plan_labels(doc, task_heads[0].index)
    tasks = tuple(_task(doc, heads, head, n, notes) for n, head in enumerate(task_heads, 1))
    stem = PurePosixPath(doc.rel).stem
    unit = Unit(
        id=ascii_id(stem, "plan"),  # a file name is no id: brought into the id alphabet
        name=title,
        wave=1,
        files=tuple(dict.fromkeys(path for task in tasks for path in task.files)),
        objective=str(info.get("goal", "")),
        boundaries=_constraints(doc, heads),
        tasks=tasks,
        source=doc.ref(task_heads[0].index),
        extra={k: v for k, v in info.items() if k != "goal"},
    )
    phase = Phase(
        id="1",
        name=title,
        goal=str(info.get("goal", "")),
        units=(unit,),
        source=doc.ref(title_head.index if title_head else 0),
    )
    banner = _banner(doc)
    extra: dict[str, JsonValue] = {"banner": banner} if banner else {}
    return Plan(
        format=PlanFormat.SUPERPOWERS, title=title, phases=(phase,), source=doc.ref(0), extra=extra
    )


def _banner(doc: Document) -> str:
    for i, line in enumerate(doc.lines[:40]):
        if line.startswith(">") and "**For " in line and not doc.fenced[i]:
            return line.lstrip("> ").strip()
    return ""


def _plan_labels(doc: Document, end: int) -> dict[str, JsonValue]:
    found: dict[str, JsonValue] = {}
    for i in range(end):
        label = label_at(doc, i)
        if label is not None and label.name.lower() in _PLAN_LABELS and label.value:
            found[label.name.lower().replace(" ", "_")] = label.value
    return found


def _constraints(doc: Document, heads: list[Heading]) -> tuple[str, ...]:
    for k, head in enumerate(heads):
        if head.text.strip().lower().rstrip(":") == "global constraints":
            end = next((h.index for h in heads[k + 1 :] if h.level <= head.level), len(doc.lines))
            return tuple(item.text for item in list_items(doc, head.index + 1, end))
    return ()


def _task(doc: Document, heads: list[Heading], head: Heading, number: int, notes: Notes) -> Task:
    end = next(
        (h.index for h in heads if h.index > head.index and h.level <= head.level), len(doc.lines)
    )
    changes: list[FileChange] = []
    for i in range(head.index + 1, end):
        label = label_at(doc, i)
        if label is not None and label.name.lower() in ("files", "file"):
            changes.extend(file_block(doc, label, end))
    if not changes:
        notes.warn(
            "task-without-files", f"task {number} has no **Files:** list", doc.ref(head.index)
        )
    steps = _steps(doc, head.index + 1, end)
    accepted = tuple(c for step in steps for c in step.checks if not c.expect_failure)
    verify_text = "\n".join(
        f"Run: {c.run}\nExpected: {c.expect}" for step in steps for c in step.checks
    )
    extra: dict[str, Any] = {}
    group = next(
        (
            h.text
            for h in reversed(heads)
            if h.index < head.index and h.level < head.level and _GROUP.match(h.text)
        ),
        None,
    )
    if group:
        extra["group"] = group
    return Task(
        id=str(number),
        name=head.text,
        files=touched(changes),
        file_changes=tuple(changes),
        read_first=consulted(changes),
        action=doc.text(head.index + 1, end).strip(),
        steps=steps,
        verify=Verify(text=verify_text, commands=accepted),
        source=doc.ref(head.index),
        extra=extra,
    )


def _steps(doc: Document, start: int, end: int) -> tuple[Step, ...]:
    marks = []
    for i in range(start, end):
        if doc.fenced[i]:
            continue
        match = _STEP.match(doc.lines[i])
        if match:
            title = (match.group("title") or match.group("htitle") or "").strip()
            number = match.group("n") or match.group("hn")
            marks.append((i, f"Step {number}: {title}".rstrip(": ")))
    if not marks:
        checks = _checks(doc, start, end)
        return (Step(title="", checks=checks, source=doc.ref(start)),) if checks else ()
    bounds = [i for i, _ in marks[1:]] + [end]
    return tuple(
        Step(title=title, checks=_checks(doc, i + 1, stop), source=doc.ref(i))
        for (i, title), stop in zip(marks, bounds, strict=True)
    )


def _checks(doc: Document, start: int, end: int) -> tuple[Check, ...]:
    """`Run:` commands and shell fences, each paired with the `Expected:` line after it."""
    checks: list[Check] = []
    pending: tuple[str, int] | None = None
    i = start
    while i < end:
        line = doc.lines[i]
        fence = doc.fence_at(i)
        if fence is not None:
            if pending is None and fence.language in _SHELLS and _expected_after(doc, fence, end):
                command = _fence_command(doc, fence)
                pending = (command, i) if command else None
            i = fence.end + 1
            continue
        run = None if doc.fenced[i] else _RUN.match(line)
        expected = None if doc.fenced[i] else _EXPECTED.match(line)
        if run:
            command, i = _command(doc, i, end, run.group("cmd"))
            pending = (command, i) if command else None
        elif expected and pending is not None:
            text = expected.group("text").strip() or _fence_text_below(doc, i, end)
            checks.append(
                Check(
                    run=pending[0],
                    expect=text,
                    expect_failure=expects_failure(text),
                    source=doc.ref(pending[1]),
                )
            )
            pending = None
        i += 1
    return tuple(checks)


def expects_failure(expectation: str) -> bool:
    """True when an `Expected:` text says the command fails (a test-first red step).

    Read from the first clause only (`New test FAILS — x is missing`), and a negated failure
    word (`No failures`, `0 failed`) or a passing word in that clause means it passes.
    """
    clause = _CLAUSE.split(expectation.strip().lstrip("*_` "), maxsplit=1)[0]
    return bool(_RED.search(clause)) and not _GREEN.search(clause)


def _expected_after(doc: Document, fence: Fence, end: int) -> bool:
    j = fence.end + 1
    while j < end and not doc.lines[j].strip():
        j += 1
    return j < end and not doc.fenced[j] and _EXPECTED.match(doc.lines[j]) is not None


def _fence_command(doc: Document, fence: Fence) -> str:
    """The commands of a shell fence; in a `console` block, its `$ ` prompt lines only."""
    lines = [doc.lines[k].strip() for k in fence.body if doc.lines[k].strip()]
    if fence.language in _SESSIONS and any(line.startswith("$ ") for line in lines):
        lines = [line[2:].strip() for line in lines if line.startswith("$ ")]
    return "\n".join(lines)


def _command(doc: Document, i: int, end: int, inline: str) -> tuple[str, int]:
    """The command of a `Run:` line at `i`: inline (backticks dropped) or the fence below."""
    text = inline.strip()
    if text.startswith("`") and text.count("`") >= 2:
        return text[1 : text.index("`", 1)].strip(), i
    return text or _fence_text_below(doc, i, end), i


def _fence_text_below(doc: Document, i: int, end: int) -> str:
    """The content of the fenced block right below line `i` (blank lines between allowed)."""
    j = i + 1
    while j < end and not doc.lines[j].strip():
        j += 1
    fence = doc.fence_at(j) if j < end else None
    if fence is None:
        return ""
    return "\n".join(doc.lines[k].strip() for k in fence.body if doc.lines[k].strip())
