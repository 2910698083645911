"""Reading the answer after a verdict label: the allow-list rule for one verdict site.

An answer approves only when (rule (b) of `docs/verdicts.md`):

1. it *starts* with an affirmative token from the closed vocabulary (`_vocab`), after
   decoration (emoji, markup, list markers) and at most one lead-in word (`overall`, `final`);
2. what follows the token on the line is only decoration, explicitly non-blocking extras from
   a closed list (`with nits`, `with commendations`, `(0 blocking)` …), or a reason that
   passes the condition check: no hedge (`Yes? I am not sure`), no condition, contrast or
   obligation in the answer's own clause (`Yes, once …`, `APPROVED WITH X`, `通过，但 …`), no
   contrary verdict, withdrawal, blocking content or merge-tied condition in the sentences
   after it;
3. in a heading, nothing but decoration follows (`# Ready to merge? Yes — a checklist` is a
   title that contains the words, not a verdict).

Anything else is not an approval: a non-approving token decides (`fixes`/`reject`), a hedge
or a heading with more text is `malformed`, a condition is `fixes`.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from mergegate.decisions import Decision
from mergegate.verdicts import _signals as sig
from mergegate.verdicts._awaited import told_after
from mergegate.verdicts._composed_phrases import DONE_REPORT, negated_before
from mergegate.verdicts._defects import stated_defect
from mergegate.verdicts._patterns import compile_lazily
from mergegate.verdicts._scope import named_part
from mergegate.verdicts._statement import hold_in, prose_problem
from mergegate.verdicts._vocab import (
    AMBIGUOUS,
    Hit,
    LabelKind,
    first_clause_end,
    first_hit,
    hits,
    is_clause_end,
)

__all__ = ["TITLE", "Answer", "after_approval", "read_answer", "skip_extras", "strip_decor"]

_A, _F, _R, _M = Decision.APPROVE, Decision.FIXES, Decision.REJECT, Decision.MALFORMED
# A lead-in word that says how much of the review the answer covers, not what it answers:
# 'overall', 'all' ('✅ All passed'), and the same words written without a space in Chinese
# ('整体合格' overall acceptable, '全部通过' all passed, '总体通过').
_LEAD_INS = ("overall ", "final ", "verdict ", "all ", "整体", "总体", "全部")
# A lead-in that names the review's stages as a whole before the answer: a quantifier of the
# whole and the stages' noun ('All stages ✅ APPROVED', 'both reviews passed — APPROVED'), or
# every stage by name, each checked, then a dash ('Spec ✅ / Quality ✅ — APPROVED'). Closed
# classes: the quantifiers, the nouns, the check marks; a stage not checked (❌, ⚠) or a
# quantifier of part ('some', 'most') is no lead-in, and the answer is read as written.
_CHECK = r"[✅✔✓☑]\ufe0f?"
_STAGE_NOUN = r"(?:stages?|reviews?|checks?|gates?|passes)"
_WHOLE_STAGES = compile_lazily(
    rf"(?:all|both|every|each)[ \t]+(?:(?:two|three|\d)[ \t]+)?{_STAGE_NOUN}"
    rf"(?:[ \t]+(?:passed|pass|approved|green))?[ \t]*(?:{_CHECK})?[ \t]*(?:[—–:-][ \t]*)?"
)
_STAGE_NAME = r"[a-z][a-z -]{0,30}?"
_CHECKED_STAGES = compile_lazily(
    rf"{_STAGE_NAME}[ \t]*{_CHECK}"
    rf"(?:[ \t]*(?:/|,|\+|&|and)[ \t]*{_STAGE_NAME}[ \t]*{_CHECK}){{1,5}}[ \t]*[—–:-][ \t]*"
)


def _without_stage_lead(value: str) -> str:
    """`value` after a lead-in that names the stages as a whole (`_WHOLE_STAGES`,
    `_CHECKED_STAGES`), when an answer opens what follows it; else `value` as it is."""
    for lead in (_WHOLE_STAGES, _CHECKED_STAGES):
        found = lead.match(value)
        if found is not None and found.end() < len(value):
            rest = strip_decor(value[found.end() :])
            if first_hit(rest, at_start=True) is not None:
                return rest
    return value


# A status value that is only one of these says nothing about the whole document.
_NOT_A_STATUS = frozenset({"yes", "no", "ready", "go", "merge", "proceed", "ship", "y"})
# A CJK full stop ends a sentence without a space after it ('通过。命名与其他模块不同。').
_SENTENCE_END = compile_lazily(r"[.!](?:\s|$)|[。！]|\s\?\s")
_NEUTRAL_HEAD = compile_lazily(r"[^,;，；、—]*[,;，；、—]")


@dataclass(frozen=True, slots=True)
class Answer:
    """What one verdict site answers."""

    decision: Decision
    phrase: str
    """The deciding token (or '' when the answer is missing)."""
    why: str | None = None
    """Why an approving token did not approve ('qualified by once', 'hedged: ?' …)."""
    clean: bool = False
    """The answer is 'clean': an approval only where finding counts confirm it."""


def strip_decor(text: str) -> str:
    """Drop a leading list marker, emoji, check marks and punctuation; keep numbers."""
    i = 0
    while i < len(text) and not text[i].isalnum():
        i += 1
    return text[i:].strip()


def read_answer(value: str, kind: LabelKind, *, heading: int = 0) -> Answer | None:
    """The answer in a cleaned `value` (see `_vocab.clean_value`) after a label of `kind`.

    None when the value holds no verdict word where one would count (the caller decides
    whether a label without an answer is itself a site).
    """
    value = strip_decor(value)
    for lead in _LEAD_INS:
        if value.startswith(lead) and first_hit(value[len(lead) :], at_start=True):
            value = value[len(lead) :]
            break
    value = _without_stage_lead(value)
    hit = first_hit(value, at_start=True)
    if hit is None:
        return _not_at_start(value, kind)
    assert hit.decision is not None
    if kind is LabelKind.STATUS and hit.phrase in _NOT_A_STATUS:
        return None
    if hit.decision is not _A:
        if _subject_told_done(value, hit):
            return None
        return Answer(hit.decision, hit.phrase)
    rest = value[hit.end :]
    if _PARTICIPLE.fullmatch(hit.phrase) or hit.phrase in _RESULTS:
        # 'APPROVED after fresh final review': the answer reports a state and when it was
        # reached; an 'after' that tells what was done is history, not a condition.
        result = hit.phrase in _RESULTS
        rest = rest[told_after(rest, result=result) :]
    problem = after_approval(rest, heading=heading)
    if problem is not None:
        return Answer(problem[0], hit.phrase, problem[1])
    return Answer(_A, hit.phrase, clean=hit.phrase == "clean")


# An answer that is one past participle ('approved', 'passed', 'accepted'): it reports a
# state already reached, so it can say when ('… after the second review').
_PARTICIPLE = compile_lazily(r"[a-z]{3,}ed")
# Of the answers, those that report a check's result, not the reviewer's act: what they
# came 'after' was done before the run that reached them (`told_after`).
_RESULTS = frozenset({"passed", "clean"})


# The words between a no's phrase and the report that it was done ('issues found above were
# fixed', 'changes requested in round 1 have been addressed'): a short noun-phrase tail.
_SUBJECT_TAIL_WORDS = 5


def _subject_told_done(value: str, hit: Hit) -> bool:
    """A no's phrase that is the subject of a report that it was done, in its own clause
    ('All issues found above were fixed and re-verified.', 'Changes requested in round 1
    have been addressed.'): the phrase names the findings, it does not answer. An indicative
    report only (`DONE_REPORT`: not 'must be fixed', not 'were not fixed')."""
    rest = value[hit.end :]
    clause = rest[: first_clause_end(rest)]
    report = DONE_REPORT.search(clause)
    if report is None or len(clause[: report.start()].split()) > _SUBJECT_TAIL_WORDS:
        return False
    return not any(ch in clause[: report.start()] for ch in ",;:")


def _not_at_start(value: str, kind: LabelKind) -> Answer | None:
    """No verdict word opens the value: a no later in its first clause still counts."""
    if kind is LabelKind.STATUS:
        return _after_workflow_word(value)
    inner = first_hit(value, at_start=False)
    if inner is None or inner.decision is None:
        return None
    if inner.decision is not _A:
        return Answer(inner.decision, inner.phrase)
    if kind not in (LabelKind.VERDICT, LabelKind.QUESTION):
        return None
    problem = sig.condition_in(value, answer_clause=True)
    if problem is not None:
        return Answer(_F, inner.phrase, f"qualified by '{problem}'")
    return Answer(_M, inner.phrase, "the approving word does not open the answer")


def _after_workflow_word(value: str) -> Answer | None:
    """'Status: review complete, can merge after P0 is fixed': a workflow word opens the
    value and the verdict follows in the next clause (conditions anywhere in it count)."""
    head = _NEUTRAL_HEAD.match(value)
    if head is None:
        return None
    found = hits(value[: head.end()])
    if not found or any(h.decision is not None for h in found):
        return None
    rest = value[head.end() :].strip()
    inner = first_hit(rest, at_start=False)
    if inner is None or inner.decision is None:
        return None
    if inner.decision is not _A:
        return Answer(inner.decision, inner.phrase)
    problem = sig.condition_in(rest, answer_clause=True)
    if problem is not None:
        return Answer(_F, inner.phrase, f"qualified by '{problem}'")
    after = after_approval(rest[inner.end :])
    return Answer(after[0], inner.phrase, after[1]) if after else Answer(_A, inner.phrase)


# A long run of decoration ('🚀!🚀!🚀!…') holds no word: it is read as its last character, so
# the phrase readers after the answer scan it once, not once per pattern (bench: the
# 'spectacular fields' shape). Its last character keeps a sentence end ('Yes!!!!!!!! Ship').
_DECORATION_RUN = compile_lazily(r"[^\w\s]{8,}")


def _last_of_run(run: re.Match[str]) -> str:
    return " " + run.group(0)[-1]


TITLE = "a heading with more than its answer"
"""The reason `after_approval` gives a heading whose text goes on after its yes."""


def after_approval(tail: str, *, heading: int = 0) -> tuple[Decision, str] | None:
    """Why the text after an affirmative token keeps it from approving, or None.

    `heading` is the heading level of the line (0: not a heading). Returns the decision it
    becomes and the reason.
    """
    rest = skip_extras(_DECORATION_RUN.sub(_last_of_run, tail))
    held = hold_in(rest)
    if held is not None:
        return _F, f"conditioned ('{held}')"
    end_match = _SENTENCE_END.search(rest)
    clause = rest[: end_match.start() + 1] if end_match else rest
    later = rest[len(clause) :]
    found = _clause_problem(clause)
    if found is not None:
        return found
    if heading and not _only_restates(rest, title=heading == 1):
        return _M, f"{TITLE} ('{rest.strip()[:40]}') is a title"
    for sentence in _sentences(later):
        # A later sentence that says yes again ('… Ship it, after X') or opens with a
        # contrast ('… — but rename the flag') is read like the answer itself.
        again = any(h.decision is _A and not h.ambiguous for h in hits(sentence))
        again = again or sig.CONTRAST_OPENING.match(sentence) is not None
        found = _clause_problem(sentence) if again else None
        found = found or _later_scope(sentence) or _later_defect(sentence)
        found = found or sentence_problem(sentence, same_line=True)
        if found is not None:
            return found
    return None


def _later_defect(sentence: str) -> tuple[Decision, str] | None:
    """A defect a later sentence of the answer's line states of the change now: read there
    as on a line of its own after the approval (`_unweighed`)."""
    defect = stated_defect(sentence)
    return None if defect is None else (_M, f"states a defect beside the answer ('{defect}')")


def _later_scope(sentence: str) -> tuple[Decision, str] | None:
    only = sig.only_scope_in(sentence) or sig.excluded_after_comma(sentence)
    return None if only is None else (_M, f"the approval covers only part of the change ('{only}')")


def _only_restates(clause: str, *, title: bool) -> bool:
    """A heading's text after its answer is only decoration, or (below a document title) one
    more affirmative phrase ('## Decision: APPROVED - PROCEED TO WEEK 5-6')."""
    rest = strip_decor(clause)
    if not rest:
        return True
    again = first_hit(rest, at_start=True)
    return not title and again is not None and again.decision is _A


def skip_extras(tail: str) -> str:
    """Drop decoration and explicitly non-blocking extras right after the token."""
    rest = tail
    while True:
        stripped = rest.lstrip(" *`✅✔☑🟢👍!:-–")
        extra = sig.non_blocking_extra(stripped)
        if extra:
            rest = stripped[extra:]
            continue
        return stripped


def _clause_problem(clause: str) -> tuple[Decision, str] | None:
    """The answer's clause, or a contrast after it that declares itself non-blocking: then
    only what the contrast says besides is read (`_contrast_problem`)."""
    extra = sig.non_blocking_contrast(clause)
    if extra is None:
        return _answer_clause_problem(clause)
    return _contrast_problem(extra)


def _contrast_problem(extra: str) -> tuple[Decision, str] | None:
    """What a non-blocking contrast says besides its declaration, read like a sentence after
    the approval: no hedge, obligation, partial scope, instruction, condition or defect."""
    doubt = sig.doubt_in(extra)
    obligation = sig.obligation_in(extra)
    scope = _scope_problem(extra)
    if doubt is not None or scope is not None:
        return _M, scope or f"hedged ('{doubt}')"
    if obligation is not None:
        return _F, f"qualified by '{obligation}'"
    told = prose_problem(extra.strip(" ,;:—–-"), continues=False)
    defect = stated_defect(extra)
    if told is not None or defect is not None:
        why = told or f"states a defect ('{defect}')"
        return _M, f"a contrast beside the answer: {why}"
    return sentence_problem(extra, same_line=True)


def _answer_clause_problem(clause: str) -> tuple[Decision, str] | None:
    scope = _scope_problem(clause)
    if scope is not None:
        return _M, scope
    doubt = sig.doubt_in(clause)
    if doubt is not None:
        return _M, f"hedged ('{doubt}')"
    unrun = _UNRUN.search(clause)
    if unrun is not None and not negated_before(clause, unrun.start(), words=3):
        return _M, f"the answer rests on checks that did not run ('{unrun.group(0)}')"
    return _qualified(clause) or _part_named(clause) or sentence_problem(clause)


# In the answer's own clause, a check told as not run (`APPROVED (tests not run)`,
# `LGTM, untested`): the answer says what it rests on, and it is not a run. Only here: a
# line after the verdict may record a check left out on purpose (`- Integration tests not
# run (Phase 8 depends on Phase 7)`, a genuine GSD approval of dev21).
_UNRUN = compile_lazily(
    r"(?<![\w-])(?:not (?:yet )?(?:run|executed|tested|verified)|untested|unverified|"
    r"unexecuted|skipped)(?![\w-])"
)


def _qualified(clause: str) -> tuple[Decision, str] | None:
    """A condition, a soft 'with …' or a no in the answer's own clause (→ fixes)."""
    condition = sig.condition_in(clause, answer_clause=True)
    if condition is not None:
        return _F, f"qualified by '{condition}'"
    if clause.lstrip(" ,").startswith(("with ", "con ", "com ", "avec ", "mit ")):
        return _F, f"'{' '.join(clause.split()[:3])}' is not an explicitly non-blocking extra"
    conflict = _conflicting(clause)
    if conflict is not None:
        return _F, f"the same clause also says '{conflict.phrase}'"
    return None


def _part_named(clause: str) -> tuple[Decision, str] | None:
    """A part of the change named in any punctuation after the answer ('Yes; scope:
    frontend', 'Ship it: the CLI part'): read after the conditions, which name a fix."""
    part = named_part(clause)
    return None if part is None else (_M, f"the approval covers only part of the change ('{part}')")


def _scope_problem(clause: str) -> str | None:
    """The answer is about another change, or about only a part of this one."""
    scoped = sig.scoped_answer_in(clause)
    if scoped is not None:
        return f"the answer is about another change ('{scoped}')"
    partial = sig.partial_scope_in(clause)
    if partial is not None:
        return f"the approval covers only part of the change ('{partial}')"
    return None


def _conflicting(clause: str) -> Hit | None:
    """A no in the answer's own clause ('Yes and no', 'approved, changes requested'). An
    ordinary word ('no', 'fail') counts only where it ends its clause."""
    for hit in hits(clause):
        if hit.decision not in (_F, _R):
            continue
        if hit.phrase in AMBIGUOUS and not is_clause_end(clause, hit.end):
            continue
        if not sig.negated_before(clause, hit.start, words=2):
            return hit
    return None


def sentence_problem(
    sentence: str,
    *,
    same_line: bool = False,
    answers_question: bool = False,
    advisory: bool = False,
    reasoned: bool = False,
) -> tuple[Decision, str] | None:
    """What a sentence after an approval does to it: withdraw (`reject`), contradict (its
    decision), condition or block (`fixes`); None when it does none of these. `same_line`:
    the sentence is on the verdict's own line. `answers_question`: it follows a question
    ('Breaking changes?' / 'No.'), so a bare 'no' answers that question, not the verdict.
    `advisory`: it stands under a heading that says its items do not block, so blocking
    prose counts only when tied to the merge ('Phase 2 must fix this before wiring X' does
    not block; 'must be fixed before merge' does). `reasoned`: it argues why something does
    not block (`_refusals`' why-not-a-blocker label), so a negated merge verb there is a
    withdrawal only with the change as its object."""
    return (
        _withdrawn(sentence, answers_question, reasoned=reasoned)
        or _contrary_or_conditioned(sentence, same_line)
        or (None if advisory and not sig.merge_tied(sentence) else _blocked(sentence))
    )


def _withdrawn(
    sentence: str, answers_question: bool, *, reasoned: bool = False
) -> tuple[Decision, str] | None:
    withdrawn = sig.withdrawal_in(sentence, change_only=reasoned)
    if withdrawn is not None:
        return _R, f"withdrawn ('{withdrawn}')"
    pending = sig.not_reviewed_in(sentence)
    if pending is not None:
        return _M, f"the review has not happened yet ('{pending}')"
    bare_no = None if answers_question else sig.bare_no_in(sentence)
    if bare_no is not None:
        return _R, f"answered no after the approval ('{bare_no}')"
    return None


def _contrary_or_conditioned(sentence: str, same_line: bool) -> tuple[Decision, str] | None:
    contrary = sig.contrary_in(sentence)
    if contrary is not None:
        return contrary[0], f"contradicted ('{contrary[1]}')"
    condition = sig.condition_in(sentence, answer_clause=False, same_line=same_line)
    if condition is not None:
        return _F, f"conditioned ('{condition}')"
    return None


def _blocked(sentence: str) -> tuple[Decision, str] | None:
    blocking = sig.blocking_in(sentence)
    if blocking is not None:
        return _F, f"blocking content ('{blocking}')"
    # After an approval, tests or CI reported failing contradict it (before it, the verdict
    # has weighed them: a pre-existing or explained failure is a finding, not a blocker).
    failing = sig.failing_checks_in(sentence)
    if failing is not None:
        return _F, f"failing checks reported after the approval ('{failing}')"
    return None


def _sentences(text: str) -> list[str]:
    return [s for s in re.split(r"(?<=[.!?])\s+|(?<=[。！？])\s*", text) if s.strip()]
