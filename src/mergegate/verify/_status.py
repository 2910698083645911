"""From evidence to a criterion's result, and from results to the phase's status (pure).

The rules, in order, for one criterion:

1. a program check failed → `fail` (a person cannot overrule it; `--accept-gaps` can only
   complete the phase with its gaps);
2. a person answered → their answer;
3. the criterion needs judgement, or a program check found no proof either way (`uncertain`,
   with what it saw: "nothing imports it", a rename, a pattern one file over) → the
   verifier's `fail`/`uncertain`; its `pass` counts only when no program check was left
   `unverified` (could not run); no usable answer → `uncertain` (a question for a person) or
   `unverified`;
4. otherwise every program check passed → `pass`; one could not run → `unverified`.

The phase: `gaps_found` when any criterion fails; `human_needed` while any is uncertain or
unverified, when there are no criteria, or when no program check ran at all (agent or person
judgement alone never passes a phase); otherwise `passed`. A person's gap acceptance turns
`gaps_found`/`human_needed` into `complete_with_gaps`, never into `passed`.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Literal

from mergegate.verify._model import (
    Answer,
    CheckKind,
    Counts,
    CriterionResult,
    Evidence,
    GapAcceptance,
    Outcome,
    Result,
    VerificationResult,
    VerificationStatus,
)

__all__ = ["apply_answers", "decide", "summarize"]

Decider = Literal["program", "agent", "person"] | None


def _last(evidence: Sequence[Evidence], by: str) -> Evidence | None:
    found = [e for e in evidence if e.by == by]
    return found[-1] if found else None


def decide(evidence: Sequence[Evidence], judgement: str | None) -> tuple[Result, Decider]:
    """A criterion's result and who decided it, from all of its evidence."""
    program = [e for e in evidence if e.by == "program" and e.outcome is not Outcome.SKIPPED]
    if any(e.outcome is Outcome.FAIL for e in program):
        return Result.FAIL, "program"
    person = _last(evidence, "person")
    if person is not None:
        return (Result.PASS if person.outcome is Outcome.PASS else Result.FAIL), "person"
    unverified = any(e.outcome is Outcome.UNVERIFIED for e in program)
    uncertain = any(e.outcome is Outcome.UNCERTAIN for e in program)
    if judgement is None and not uncertain:
        return (Result.UNVERIFIED, None) if not program or unverified else (Result.PASS, "program")
    return _by_agent(_last(evidence, "agent"), unverified=unverified, uncertain=uncertain)


def _by_agent(
    agent: Evidence | None, *, unverified: bool, uncertain: bool
) -> tuple[Result, Decider]:
    """The agent decides words and program `uncertain` evidence (a check that found no proof
    either way, with what it saw); never a check that could not run."""
    if agent is None or agent.outcome is Outcome.UNVERIFIED:
        return (Result.UNCERTAIN if uncertain and not unverified else Result.UNVERIFIED), None
    if agent.outcome is Outcome.FAIL:
        return Result.FAIL, "agent"
    if agent.outcome is Outcome.UNCERTAIN:
        return Result.UNCERTAIN, None
    return (Result.UNVERIFIED, None) if unverified else (Result.PASS, "agent")


def question_for(criterion: CriterionResult) -> str | None:
    """What to ask a person about an open criterion (None when it is decided)."""
    if criterion.result not in (Result.UNCERTAIN, Result.UNVERIFIED):
        return None
    agent = _last(criterion.evidence, "agent")
    if criterion.result is Result.UNCERTAIN and agent is not None:
        return agent.detail
    reasons = [
        e.detail
        for e in criterion.evidence
        if e.by == "program" and e.outcome in (Outcome.UNVERIFIED, Outcome.UNCERTAIN)
    ]
    reasons += list(criterion.unchecked)
    if agent is not None:
        reasons.append(agent.detail)
    elif criterion.judgement:
        reasons.append(f"{criterion.judgement}, and no verifier agent judged it")
    why = "; ".join(reasons) or "nothing could check it"
    return f"Does this hold? ({why})"


def _checks_run(criteria: Sequence[CriterionResult]) -> int:
    seen: set[object] = set()  # a command, or (criterion, kind of check)
    for criterion in criteria:
        for e in criterion.evidence:
            if e.by == "program" and e.outcome in (Outcome.PASS, Outcome.FAIL):
                seen.add(e.command if e.check == CheckKind.COMMAND else (criterion.id, e.check))
    return len(seen)


def count(criteria: Sequence[CriterionResult]) -> Counts:
    by = [c.decided_by for c in criteria]
    results = [c.result for c in criteria]
    return Counts(
        criteria=len(criteria),
        passed=results.count(Result.PASS),
        failed=results.count(Result.FAIL),
        uncertain=results.count(Result.UNCERTAIN),
        unverified=results.count(Result.UNVERIFIED),
        checks_run=_checks_run(criteria),
        by_program=by.count("program"),
        by_agent=by.count("agent"),
        by_person=by.count("person"),
    )


def summarize(
    criteria: Sequence[CriterionResult], acceptance: GapAcceptance | None
) -> tuple[VerificationStatus, str, Counts]:
    """The phase status, a one-line reason, and the counts."""
    counts = count(criteria)
    status, reason = _raw_status(counts)
    if acceptance is not None and status is not VerificationStatus.PASSED:
        reason = f"{reason}; accepted by {acceptance.who}: {acceptance.reason}"
        status = VerificationStatus.COMPLETE_WITH_GAPS
    return status, reason, counts


def _raw_status(counts: Counts) -> tuple[VerificationStatus, str]:
    if counts.criteria == 0:
        return VerificationStatus.HUMAN_NEEDED, "the phase has no criteria: nothing was verified"
    if counts.failed:
        return VerificationStatus.GAPS_FOUND, f"{counts.failed} of {counts.criteria} criteria fail"
    open_ = counts.uncertain + counts.unverified
    if open_:
        return (
            VerificationStatus.HUMAN_NEEDED,
            f"{open_} of {counts.criteria} criteria need a person "
            f"({counts.uncertain} uncertain, {counts.unverified} unverified)",
        )
    if counts.checks_run == 0:
        return (
            VerificationStatus.HUMAN_NEEDED,
            "no program check ran: judgement alone does not verify a phase",
        )
    agent = f", {counts.by_agent} judged by the verifier agent" if counts.by_agent else ""
    person = f", {counts.by_person} by a person" if counts.by_person else ""
    return (
        VerificationStatus.PASSED,
        f"all {counts.criteria} criteria pass ({counts.checks_run} program checks{agent}{person})",
    )


def with_answer(criterion: CriterionResult, answer: Answer) -> CriterionResult:
    """The criterion with a person's answer added as evidence, decided again."""
    detail = f"{answer.who} answered {answer.result} at {answer.at.isoformat()}"
    if answer.note:
        detail += f": {answer.note}"
    person = Evidence(
        check="person",
        by="person",
        outcome=Outcome.PASS if answer.result == "pass" else Outcome.FAIL,
        detail=detail,
    )
    evidence = (*(e for e in criterion.evidence if e.by != "person"), person)
    return redecide(criterion.model_copy(update={"evidence": evidence}))


def redecide(criterion: CriterionResult) -> CriterionResult:
    result, by = decide(criterion.evidence, criterion.judgement)
    updated = criterion.model_copy(update={"result": result, "decided_by": by})
    return updated.model_copy(update={"question": question_for(updated)})


def apply_answers(result: VerificationResult, answers: Sequence[Answer]) -> VerificationResult:
    """`result` with every matching answer applied (same id and same criterion words)."""
    latest = {a.criterion_id: a for a in answers}
    criteria = []
    used = []
    for criterion in result.criteria:
        answer = latest.get(criterion.id)
        program_failed = criterion.result is Result.FAIL and criterion.decided_by == "program"
        fits = answer is not None and answer.fingerprint in ("", criterion.fingerprint)
        if answer is None or program_failed or not fits:
            criteria.append(criterion)
            continue
        criteria.append(with_answer(criterion, answer))
        used.append(answer)
    status, reason, counts = summarize(criteria, result.acceptance)
    return result.model_copy(
        update={
            "criteria": tuple(criteria),
            "answers": tuple(used),
            "status": status,
            "reason": reason,
            "counts": counts,
        }
    )
