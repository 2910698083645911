"""superpowers' subagent-driven development reviews each task in two stages: spec compliance,
then code quality. A task review names each stage and answers it:

    ## Spec Compliance: PASS              ## Part 1: Spec compliance
    ## Code Quality: Approved             **✅ Pass.**
                                          ## Part 2: Code quality
    **Spec: ✅**  /  **Quality: Needs changes.**   **Approved.**

Each stage's answer is a verdict field of the document (not a part's verdict): the two stages
together are the whole review of the task, so both must approve — and a document that answers
only one stage has not approved the task (`_refusals` keeps parts from approving alone). The
answer stands on the stage's own line (after `:`, `—`, `--`) or is the first line below it;
a bare check mark answers yes, a cross no (fixes: a stage that failed asks for fixes).

A verdict line may answer both stages at once — the stage table on one line:

    **Verdict:** Spec ✅ · Task quality **Approved**
    - **总体 verdict**：Spec PASS；Quality APPROVED；可集成。

Its clauses (split at `;`, `·`, `|`, `,`) are read one by one: each stage named once and
answered, and any other clause itself an approving answer ("可集成", "ready to merge"). A clause
that is neither (an unknown word, a condition) leaves the line to the generic reader, which
refuses it; a clause that answers no is read as that no.

An SDD run's log (an agent log, a ledger) writes one section per task of the plan, each
holding the task's fields — its stages as bold-labelled lines or list items, its status,
commits, fix rounds, steps:

    ### Task 3: Export endpoint          ### Task 4: Streaming
    - **Status:** COMPLETED              **Spec review:** ✅ Spec compliant
    - **Spec review:** ✅ compliant       **Code quality:** ✅ Approved
    - **Quality review:** ✅ APPROVED

Nothing outside those fields is the template's: a free paragraph or list item in an entry,
or in the sections after the log, is an unrecognised sentence beside approving stages, and
it is not silently dropped — it must appraise the change (`_appraisal`), or the log is no
approval (`malformed`; issue 23, like a BMAD gate file's `_prose_line` and the text after a
GSD signature). Which line is a field is decided by its shape (a stage line, a `Key: value`
line, a checked step, a table row), never by what a sentence says. A stage given as a
heading is not a log entry: its section is the stage's review, read as before.
"""

from __future__ import annotations

import re
from dataclasses import replace

from mergegate.decisions import Decision
from mergegate.verdicts import _accounting as accounting  # a module: it reads the templates too
from mergegate.verdicts._answer import Answer, read_answer
from mergegate.verdicts._appraisal import unappraised
from mergegate.verdicts._lines import Doc, Line
from mergegate.verdicts._patterns import compile_lazily
from mergegate.verdicts._site import Site, make_site
from mergegate.verdicts._statement import LIST_ITEM, continues_above, wrapped_sentence
from mergegate.verdicts._text import CODE_SPAN, norm
from mergegate.verdicts._vocab import LabelKind, clean_value

__all__ = ["free_note", "free_note_in", "stage_sites"]

# 'Part 1: Spec compliance', 'Verdict 2: Code Quality', 'Stage 1 — Spec review', '**Spec:**',
# 'Code quality verdict: PASS' (the stage's name, then the word naming its answer),
# '**规格符合性：**', '**代码质量：**'.
_STAGE = compile_lazily(
    r"[ \t#*_`]*(?:(?:part|stage|verdict|step)[ \t]*\d{1,2}[ \t]*[:.—–-]*[ \t]*)?[*_`]*"
    r"(spec(?:ification)?(?:[ \t-]+compliance)?|(?:(?:code|task)[ \t-]+)?quality|"
    r"规格符合性|规格合规性|规范符合性|规格|사양[ \t]*준수|"
    r"代码质量|质量|코드[ \t]*품질|품질)"
    r"(?:[ \t-]+(?:review|verdict))?[*_`]*[ \t]*(?:[:：—–]|--|-)?[ \t*_`]*(.*)",
    re.IGNORECASE,
)
_LOG_ITEM = compile_lazily(r"[-*+][ \t]+(?=\*\*|__)")
# A task review's gates as a plain list, one stage a line with its answer after a colon or a
# dash: '- Spec review: PASS', '- Code quality review — PASS'. The stage's name opens the
# item and the answer stands on its line (the item is read as a stage line, `_STAGE`).
_GATE_ITEM = compile_lazily(
    r"[ \t]{0,3}[-*+][ \t]+([^\s*_`][^:：—–]{0,40}(?:[:：—–]|--)[ \t]*\S.*)"
)
_BARE_COMPLIANT = compile_lazily(r"([✅✔☑ \t]*)compliant(?![a-z])", re.IGNORECASE)
_YES_MARKS = frozenset("✅✔☑")
_NO_MARKS = frozenset("❌✖✗✘")
_MAX_STAGE_CHARS = 200
# The quality stage's name in the other languages `_STAGE` reads (the rest name the spec).
# Japanese names are read as status labels (`_vocab`, on folded text), not here: `_STAGE`
# reads the line as written, and the kanji fold keeps those spellings out of source.
_QUALITY_NAMES = ("质量", "품질")
# The label of a line that answers both stages: 'Verdict:', 'Overall verdict:', '总体 verdict：',
# '总体结论：', optionally a list item and bold.
_COMPOUND = compile_lazily(
    r"[ \t]*(?:[-*+][ \t]+)?[*_`]*[ \t]*(?:(?:overall|final)[ \t]+|总体[ \t]*)?(?:verdict|结论)"
    r"[ \t]*[*_`]*[ \t]*[:：][ \t*_`]*(.*)",
    re.IGNORECASE,
)
_CLAUSES = compile_lazily(r"[;；·|,，]")
# A word that says how wholly a stage passed, before its answer ('✅ Full pass', 'Fully
# compliant'): the answer is the word after it, read with the rest of the clause.
_WHOLLY = compile_lazily(
    r"(?:full|fully|complete|completely|entirely|clean)[ \t]+(?=\S)", re.IGNORECASE
)
_MAX_CLAUSES = 4


def stage_sites(doc: Doc) -> tuple[Site, ...]:
    """A verdict site per answered stage; empty unless both stages are named somewhere (one
    stage alone is some other document's 'spec' or 'quality' line, left to the generic
    reader)."""
    found: dict[str, list[Site]] = {"spec": [], "quality": []}
    for index, line in enumerate(doc.lines):
        both = _compound(doc, index)
        if both is not None:
            found["spec"].append(both[0])
            found["quality"].append(both[1])
            found["spec"].extend(both[2])  # another clause's answer weighs like a stage's
            continue
        stage = _stage_of(line)
        if stage is None:
            continue
        name, rest = stage
        site = _answered(doc, index, rest)
        if site is not None:
            found[name].append(site)
    for name, site in _gate_list(doc):
        found[name].append(site)
    if not found["spec"] or not found["quality"]:
        return ()
    return (*found["spec"], *found["quality"])


def _gate_list(doc: Doc) -> list[tuple[str, Site]]:
    """The stages a task review answers as a plain list of gates ('- Spec review: PASS'),
    each stage named by one item: a stage named by two items is a review and its re-review,
    the shape of a review log (`review_log`, where the last entry decides), not a gate
    list, so then none is read here."""
    named: dict[str, list[tuple[int, str]]] = {"spec": [], "quality": []}
    for index, line in enumerate(doc.lines):
        stage = _stage_of(line, gate=True)
        if stage is not None:
            named[stage[0]].append((index, stage[1]))
    if any(len(items) > 1 for items in named.values()):
        return []
    answered = (
        (name, _answered(doc, i, rest)) for name, items in named.items() for i, rest in items
    )
    return [(name, site) for name, site in answered if site is not None]


def _stage_of(line: Line, *, gate: bool = False) -> tuple[str, str] | None:
    """(stage, what follows its name) when the line names a stage: a heading, or a bold
    label standing at the start of its line; with `gate`, only a plain list item that
    answers it on its line (`_GATE_ITEM`)."""
    if not line.live or len(line.raw) > _MAX_STAGE_CHARS:
        return None
    # an agent log writes each task's stages as bold-labelled list items ('- **Spec review:**')
    raw = _LOG_ITEM.sub("", line.raw.lstrip(), count=1)
    item = _GATE_ITEM.fullmatch(line.raw) if gate and not line.heading_level else None
    if gate and item is None:
        return None
    if not gate and not line.heading_level and not raw.startswith(("**", "__")):
        return None
    text = line.heading_text if line.heading_level else raw if item is None else item.group(1)
    match = _STAGE.fullmatch(text.strip())
    if match is None:
        return None
    name, rest = _stage_name(match.group(1)), match.group(2).strip(" *_`")
    # the spec reviewer's answer is 'Spec compliant'; under the spec stage's own label the
    # reviewer writes it without the stage's name ('**Spec review:** ✅ compliant')
    said = _BARE_COMPLIANT.match(rest)
    if name == "spec" and said is not None:
        rest = f"{said.group(1)}spec {rest[said.end(1) :]}"
    return name, rest


def _compound(doc: Doc, index: int) -> tuple[Site, Site, list[Site]] | None:
    """(spec, quality, other clauses) when the line is a verdict that answers both stages,
    each clause read; None when it is not, or a clause is neither a stage nor an answer."""
    line = doc.lines[index]
    clauses = _clauses(line)
    if clauses is None:
        return None
    stages: dict[str, Site] = {}
    others: list[Site] = []
    for clause in clauses:
        stage = _STAGE.fullmatch(clause)
        answer = _answer(stage.group(2).strip(" *_`")) if stage is not None else _answer(clause)
        if answer is None:
            return None
        where = "compound verdict clause"
        site = replace(
            make_site(index, line, answer, dialect="superpowers", where=where, kind=None),
            part=False,
        )
        if stage is None:
            others.append(site)
            continue
        name = _stage_name(stage.group(1))
        if name in stages:
            return None  # a stage answered twice on one line is not the two-stage table
        stages[name] = site
    if set(stages) != {"spec", "quality"}:
        return None
    return stages["spec"], stages["quality"], others


def _clauses(line: Line) -> list[str] | None:
    """The clauses of a verdict line's answer (`Verdict: A; B · C`), or None when the line is
    no verdict line or its answer is not two to four clauses."""
    if not line.live or len(line.raw) > _MAX_STAGE_CHARS:
        return None
    match = _COMPOUND.fullmatch(line.heading_text if line.heading_level else line.raw)
    if match is None:
        return None
    clauses = [c.strip(" \t*_`") for c in _CLAUSES.split(match.group(1))]
    clauses = [c for c in clauses if c.strip(" \t*_`.。")]
    return clauses if 2 <= len(clauses) <= _MAX_CLAUSES else None


def _stage_name(named: str) -> str:
    named = named.lower()
    return "quality" if "quality" in named or any(q in named for q in _QUALITY_NAMES) else "spec"


def _answered(doc: Doc, index: int, rest: str) -> Site | None:
    answer = _answer(rest)
    at, where = index, "stage line"
    if answer is None and not rest.strip():
        below = _first_line_below(doc, index)
        if below is not None:
            at, where = below, "stage answer"
            answer = _answer(doc.lines[below].raw)
    if answer is None:
        return None
    site = make_site(at, doc.lines[at], answer, dialect="superpowers", where=where, kind=None)
    return replace(site, part=False)  # a stage is half of the whole review, not a part of it


def _answer(text: str) -> Answer | None:
    value = clean_value(norm(text).strip()).strip(" *_`.")
    marks = {ch for ch in text if ch in _YES_MARKS or ch in _NO_MARKS}
    if value.strip(" ✅✔☑❌✖✗✘") == "" and marks:
        if marks <= _YES_MARKS:
            return Answer(Decision.APPROVE, "✅")
        return Answer(Decision.FIXES, "❌", "a review stage failed")
    value = value.lstrip(" ✅✔☑").strip()
    wholly = _WHOLLY.match(value)
    if wholly is not None:
        value = value[wholly.end() :]
    if any(ch in _NO_MARKS for ch in text):
        found = read_answer(value, LabelKind.VERDICT)
        return Answer(Decision.FIXES, found.phrase if found else "❌", "a review stage failed")
    return read_answer(value, LabelKind.VERDICT)


def _first_line_below(doc: Doc, index: int) -> int | None:
    """The first non-blank line under a stage heading, when it is the stage's answer line:
    short and not itself a heading."""
    for below in range(index + 1, min(len(doc.lines), index + 4)):
        line = doc.lines[below]
        if line.blank or not line.raw.strip():
            continue
        if line.heading_level or not line.live or len(line.raw) > _MAX_STAGE_CHARS:
            return None
        return below
    return None


# A heading that names one task of the plan by its id: '### Task 3: Export endpoint', '## Task
# A1 — TypeDef fields', '## Task 2.3', '### TASK-12', '### 任务 3'. The template's own word for
# its entries, not a reading of prose.
_TASK_HEADING = compile_lazily(
    r"[ \t*_`]*(?:task|任务|タスク|태스크)[ \t]*[#-]?[ \t]*(?:[a-z]{1,3}[-.]?)?\d{1,4}(?!\d)",
    re.IGNORECASE,
)
# A step of the task's checklist ticked off ('- [x] Step 2: Run the targeted tests'): the
# log's field. An open box is work still to do, read as prose.
_CHECKED_STEP = compile_lazily(r"[ \t]*[-*+][ \t]+\[[xX✓✔]\]")
# A field's key before its value: '**Status:**', '- **Implementer commit(s):**', 'Commit:'.
_FIELD_KEY = compile_lazily(
    r"[ \t]*(?:[-*+][ \t]+)?[*_]*[^\W\d_][\w'()/-]*(?:[ \t]+[\w'()/-]+){0,3}[ \t]*[*_]*"
    r"[:：][*_]*(?:[ \t]+|$)"
)
_WORD = compile_lazily(r"[^\W\d_]{2,}")
# A plain field's value that is data, not a sentence: at most two words besides code and
# numbers ('Base: `9e98ea9f`', 'Fix rounds: 0', 'Status: COMPLETED').
_MOST_DATA_WORDS = 2


def free_note_in(doc: Doc) -> tuple[Decision, int, str] | None:
    """The strict reading's refusal for an SDD log's free note (`free_note`), or None. Only
    strict: a free note is held to the appraisal rule, which the default reading applies to
    no other prose either (held-out logs with free notes after their stages are genuine)."""
    stages = stage_sites(doc)
    note = free_note(doc, stages) if stages else None
    return None if note is None else (Decision.MALFORMED, note[0], note[1])


def free_note(doc: Doc, stages: tuple[Site, ...]) -> tuple[int, str] | None:
    """(line index, why) of the first free note of an SDD log that does not appraise the
    change, or None (module docstring). A log is a document with a task section whose stages
    are field lines, and it is read from its first entry to the end, up to a heading that
    opens a later round (a review of its own, with its own verdict)."""
    sites = {s.index for s in stages}
    entries = _log_entries(doc, sites)
    if not entries:
        return None
    entry_level = 0  # the level of the log entry open, 0 outside one
    field_list = False  # the lines are the items of a list a field opened
    for index in range(entries[0], len(doc.lines)):
        line = doc.lines[index]
        field_list = _still_listing(line, field_list)
        if line.heading_level:
            if index in doc.rounds and index > entries[-1]:
                return None
            if index in entries:
                entry_level = line.heading_level
            elif entry_level and line.heading_level <= entry_level:
                entry_level = 0
            continue
        if index in sites or not _free(doc, index, field_list):
            field_list = field_list or _opens_list(line.raw)
            continue
        sentence = wrapped_sentence(doc, index)
        if unappraised(sentence) is not None:
            where = "in a task's log entry" if entry_level else "after the task log"
            return index, (
                f"'{line.raw.strip()[:60]}' stands {where} outside its fields and does not "
                "appraise the change, so the stages' approval did not weigh it"
            )
    return None


def _log_entries(doc: Doc, sites: set[int]) -> list[int]:
    """The task headings under which stages stand as field lines (the nearest heading above
    a stage line names a task: not a review's closing summary under its own verdict
    heading), when one of those stages is answered; else none."""
    entries: list[int] = []
    answered = False
    heading: int | None = None  # the nearest heading above, when it names a task
    for index, line in enumerate(doc.lines):
        if line.heading_level:
            heading = index if _TASK_HEADING.match(line.heading_text) else None
            continue
        if heading is None or _stage_of(line) is None:
            continue
        if not entries or entries[-1] != heading:
            entries.append(heading)
        answered = answered or index in sites or _answer_below(doc, index, sites)
    return entries if answered else []


def _still_listing(line: Line, listing: bool) -> bool:
    """A field's list goes on over its items (nested ones too); a blank line ends it."""
    return listing and LIST_ITEM.match(line.raw) is not None


def _answer_below(doc: Doc, index: int, sites: set[int]) -> bool:
    below = _first_line_below(doc, index)
    return below is not None and below in sites


def _free(doc: Doc, index: int, field_list: bool) -> bool:
    """A visible line of prose that is none of the log's fields: not a stage line, a field
    (`_field`) or an item of the list a field opened (`field_list`), a checked step, a table
    row, another line whose shape carries no decision (a signature, a passed check), nor a
    line that goes on with the sentence above it (read with its start)."""
    line = doc.lines[index]
    if line.blank or not line.live or not line.raw.strip():
        return False
    raw = line.raw
    if _stage_of(line) is not None or raw.lstrip().startswith("|") or _CHECKED_STEP.match(raw):
        return False
    if field_list and LIST_ITEM.match(raw):
        return False
    label = _FIELD_KEY.match(raw)
    if label is not None:
        return not _field(raw, label.end())
    if accounting.line_carries_no_decision(line):
        return False
    return not continues_above(doc, index) or LIST_ITEM.match(raw) is not None


def _field(raw: str, value_at: int) -> bool:
    """A log field: a bold label (the log's own shape: '- **Fix rounds:** 0'), or a plain
    'Key: value' whose value is data — code, numbers, at most two words ('Commit: `a1b2c3`').
    A plain label before a sentence ('Note: the handler leaks …') is prose with a lead-in."""
    if LIST_ITEM.sub("", raw, count=1).lstrip().startswith(("**", "__")):
        return True
    value = CODE_SPAN.sub(" ", raw[value_at:])
    return len(_WORD.findall(value)) <= _MOST_DATA_WORDS


def _opens_list(raw: str) -> bool:
    """A field whose value is the list below it ('**Files changed:**')."""
    label = _FIELD_KEY.match(raw)
    return label is not None and not raw[label.end() :].strip(" \t*_`") and _field(raw, 0)
