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
"""

from __future__ import annotations

import re
from dataclasses import replace

from mergegate.decisions import Decision
from mergegate.verdicts._answer import Answer, read_answer
from mergegate.verdicts._lines import Doc, Line
from mergegate.verdicts._patterns import compile_lazily
from mergegate.verdicts._site import Site, make_site
from mergegate.verdicts._text import norm
from mergegate.verdicts._vocab import LabelKind, clean_value

__all__ = ["stage_sites"]

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
    if not found["spec"] or not found["quality"]:
        return ()
    return (*found["spec"], *found["quality"])


def _stage_of(line: Line) -> tuple[str, str] | None:
    """(stage, what follows its name) when the line names a stage: a heading, or a bold
    label standing at the start of its line."""
    if not line.live or len(line.raw) > _MAX_STAGE_CHARS:
        return None
    # an agent log writes each task's stages as bold-labelled list items ('- **Spec review:**')
    raw = _LOG_ITEM.sub("", line.raw.lstrip(), count=1)
    if not line.heading_level and not raw.startswith(("**", "__")):
        return None
    text = line.heading_text if line.heading_level else raw
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
