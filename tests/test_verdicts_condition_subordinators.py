"""A none or a judgement under a conditional subordinator is a condition (issue 23).

`_awaited` read only the temporal subordinators (`once`, `after`, `until`, `as soon as`,
`provided`). The rest of the closed class — `if`, `when`, `whenever`, `as long as`,
`by the time`, `the moment`, `assuming`, `supposing`, `in case`, `in the event that`,
`on (the) condition that` — let `No regressions if the canary stays green` empty a blocking
section and `Builds fine in the event that …` stand after a verdict, in both readings.
Before a subject and a present verb they now wait for an event like the others. After a
verdict the clause counts only when the clause it hangs from judges the change: a
description of behaviour with `when`/`if` (inside a parenthesis, the subordinate clause
hangs from the parenthesis's own clause) is read as before.
"""

from __future__ import annotations

import pytest

from mergegate.decisions import Decision
from mergegate.verdicts import parse_verdict

A = Decision.APPROVE

SUPERPOWERS = (
    "### Strengths\n\n- Tight diff.\n\n### Issues\n\n#### Critical (Must Fix)\n\n{body}\n\n"
    "#### Important (Should Fix)\n\nNone.\n\n### Assessment\n\n**Ready to merge?** Yes\n\n"
    "**Reasoning:** The patch is narrow and covered.\n"
)
AFTER_VERDICT = (
    "## Review\n\nRead the importer diff.\n\n## Verdict\n\n**Verdict:** APPROVE\n\n{body}\n"
)

NONES_UNDER_A_CONDITION = (
    "No regressions if the canary stays green overnight.",
    "Nothing blocking as long as the old endpoint keeps answering.",
    "No open defects by the time the backfill finishes.",
    "None, supposing the vendor keeps the v2 schema.",
    "No blockers whenever the queue drains in order.",
    "Zero critical findings so long as nobody enables strict mode.",
    "No issues in case the partner API returns the same payload.",
    "No blockers, given that the vendor renews the signing key.",
    "Nothing critical in case the upstream feed keeps its shape.",
    "None, on the condition that staging stays on the old schema.",
)
JUDGEMENTS_UNDER_A_CONDITION = (
    "The build is green in the event that the lockfile is refreshed.",
    "The suite passes on condition that the snapshot is re-recorded.",
    "Correct when the replica is caught up.",
    "Works as intended if the timezone stays UTC.",
    "Everything looks good assuming the reviewer bot re-runs.",
)
DESCRIPTIONS = (
    "No latency cost for ordinary requests (the check only runs when the body is complete).",
    "The parser returns early if the header is missing, and the tests cover that path.",
    "The suite passes when executed against the staging replicas.",
)


@pytest.mark.parametrize("strict", [False, True])
@pytest.mark.parametrize("body", NONES_UNDER_A_CONDITION)
def test_a_blocking_none_under_a_condition_does_not_approve(body: str, strict: bool) -> None:
    verdict = parse_verdict(SUPERPOWERS.format(body=body), strict=strict)
    assert verdict.decision is not A, verdict.reasons


@pytest.mark.parametrize("strict", [False, True])
@pytest.mark.parametrize("body", JUDGEMENTS_UNDER_A_CONDITION)
def test_a_judgement_under_a_condition_after_the_verdict_does_not_approve(
    body: str, strict: bool
) -> None:
    verdict = parse_verdict(AFTER_VERDICT.format(body=body), strict=strict)
    assert verdict.decision is not A, verdict.reasons


@pytest.mark.parametrize("body", DESCRIPTIONS)
def test_a_description_with_when_or_if_still_approves(body: str) -> None:
    verdict = parse_verdict(AFTER_VERDICT.format(body=body))
    assert verdict.decision is A, verdict.reasons


@pytest.mark.parametrize("strict", [False, True])
@pytest.mark.parametrize(
    "body",
    ["Good to merge by the time the nightly export finishes.", "Ship it the moment QA signs off."],
)
def test_an_approving_answer_under_a_condition_does_not_approve(body: str, strict: bool) -> None:
    verdict = parse_verdict(AFTER_VERDICT.format(body=body), strict=strict)
    assert verdict.decision is not A, verdict.reasons


def test_a_none_with_no_condition_still_approves() -> None:
    verdict = parse_verdict(SUPERPOWERS.format(body="No regressions found in the canary run."))
    assert verdict.decision is A, verdict.reasons
