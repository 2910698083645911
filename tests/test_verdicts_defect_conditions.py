"""A defect stated with the condition it happens under ('never terminates when the socket
closes'): the done word inside the condition ('closes', 'is completed') tells the event that
triggers the defect, not work done on it, so the defect stands beside the approval. A done word
in a main clause still tells the defect as mended."""

from __future__ import annotations

import pytest

from mergegate.decisions import Decision
from mergegate.verdicts import parse_verdict

A, M = Decision.APPROVE, Decision.MALFORMED

# A defect whose condition holds a done word: not an unconditional approval.
DEFECT_UNDER_A_CONDITION = {
    "when_closes": "The upload worker never returns when the client closes the stream.",
    "once_completed": "The export job hangs forever once the first batch is completed.",
    "after_applied": "The settings page crashes after the new theme is applied.",
    "because_closed": "Every request deadlocks because the pool is closed too early.",
    "while_done": "The scheduler panics while a task is being marked done.",
    "whenever_resolved": "The cache corrupts its index whenever a conflict is resolved.",
    "until_landed": "Billing segfaults until the schema migration has landed.",
}

# The same defects told as mended in a main clause: still approve.
MENDED_TWINS = {
    "fixed_after_dash": "The upload worker never returned when the client closed — fixed in a1b2.",
    "resolved_clause": "Hung forever once the batch completed; resolved by the new timeout.",
    "no_longer": "It no longer crashes after the theme is applied.",
    "past": "The old pool deadlocked because it was closed too early; the new one is not.",
}


def _review(line: str) -> str:
    return f"## Review\n\nRead the worker change and its tests.\n\n**Verdict:** APPROVE\n\n{line}\n"


@pytest.mark.parametrize("line", DEFECT_UNDER_A_CONDITION.values(), ids=DEFECT_UNDER_A_CONDITION)
def test_a_defect_under_a_condition_keeps_the_approval_back(line: str) -> None:
    verdict = parse_verdict(_review(line))
    assert verdict.decision is M
    assert any("states a defect" in reason for reason in verdict.reasons)


@pytest.mark.parametrize("line", DEFECT_UNDER_A_CONDITION.values(), ids=DEFECT_UNDER_A_CONDITION)
def test_above_the_verdict_too(line: str) -> None:
    text = f"## Review\n\nRead the worker change. {line}\n\n**Verdict:** APPROVE\n"
    assert parse_verdict(text).decision is M


@pytest.mark.parametrize("line", MENDED_TWINS.values(), ids=MENDED_TWINS)
def test_a_defect_told_as_mended_in_a_main_clause_still_approves(line: str) -> None:
    assert parse_verdict(_review(line)).decision is A


# A sentence after the approval whose subject is the verdict itself speaks about the decision.
ABOUT_THE_VERDICT = {
    "no_longer_holds": "The approval above no longer holds.",
    "update_label": "Update: the earlier verdict is superseded by the CI failure.",
    "possessive": "Our approval assumes the flag stays off.",
    "sign_off": "This sign-off stands for the docs commit alone.",
}


@pytest.mark.parametrize("line", ABOUT_THE_VERDICT.values(), ids=ABOUT_THE_VERDICT)
def test_a_sentence_about_the_verdict_after_it_is_not_a_reason(line: str) -> None:
    verdict = parse_verdict(_review(line))
    assert verdict.decision is M
    assert any("speaks about the verdict" in reason for reason in verdict.reasons), verdict.reasons


@pytest.mark.parametrize(
    "line",
    [
        "The approach keeps the worker's retry budget; the tests cover the close path.",
        "The decision rests on the passing suite and the diff.",  # the verdict's own reasons
    ],
)
def test_a_reason_still_approves(line: str) -> None:
    assert parse_verdict(_review(line)).decision is A


# A clause whose verb, in any form, waits for an event: under an opening verdict as well.
WAITING = {
    "deferred_until": "Deferred until the DBA signs off.",
    "parked_till": "Parked till the load test has run.",
    "held_unless": "Held unless the vendor confirms the quota.",
}


@pytest.mark.parametrize("line", WAITING.values(), ids=WAITING)
@pytest.mark.parametrize("opening", [True, False], ids=["opening verdict", "closing verdict"])
def test_a_verb_waiting_for_an_event_is_not_a_reason(line: str, opening: bool) -> None:
    text = (
        f"**Verdict:** APPROVE\n\n## Notes\n\n{line}\n"
        if opening
        else f"## Review\n\nRead it.\n\n**Verdict:** APPROVE\n\n## Notes\n\n{line}\n"
    )
    assert parse_verdict(text).decision is M


def test_an_account_of_when_it_was_tested_still_approves() -> None:
    text = "**Verdict:** APPROVE\n\n## Notes\n\nTested after the rebase; 412 passed.\n"
    assert parse_verdict(text).decision is A


# Aspect: something expected and not done, told as a plain statement after the approval.
STILL_TO_COME = {
    "not_yet": "The DBA has not signed off on the migration yet.",
    "hasnt_yet": "The load test hasn't run yet.",
    "yet_to": "The security review is yet to happen.",
    "still_to": "Two call sites are still to be migrated.",
}


@pytest.mark.parametrize("line", STILL_TO_COME.values(), ids=STILL_TO_COME)
def test_something_still_to_come_is_not_a_reason(line: str) -> None:
    verdict = parse_verdict(_review(line))
    assert verdict.decision is M
    assert any("still to come" in reason for reason in verdict.reasons), verdict.reasons


# A GitHub alert renders as the reviewer's own callout, not as a quote of someone else.
ALERTS = {
    "note_open_item": "> [!NOTE]\n> The DBA has not signed off on the migration yet.",
    "note_condition": "> [!NOTE]\n> Merge once the DBA signs off.",
    "tip_wait": "> [!TIP]\n> Deferred until the vendor raises the quota.",
}


@pytest.mark.parametrize("callout", ALERTS.values(), ids=ALERTS)
def test_an_alert_after_the_approval_is_read_as_the_reviewers_text(callout: str) -> None:
    assert parse_verdict(_review(callout)).decision in (M, Decision.FIXES)


def test_a_tip_that_states_a_fact_still_approves() -> None:
    tip = _review("> [!TIP]\n> The new helper also serves the import path.")
    assert parse_verdict(tip).decision is A


def test_post_merge_advice_in_an_alert_or_the_verdicts_section_still_approves() -> None:
    """Advice placed after the merge holds nothing back, in an alert as in a review part."""
    for advice in (
        "> [!NOTE]\n> After merge, the dashboard will show the new `retry_count` metric.",
        "After merge, watch the error rate for a day.",
    ):
        assert parse_verdict(_review(advice)).decision is A, advice
