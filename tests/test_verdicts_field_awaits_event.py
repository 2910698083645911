"""A short field after the verdict whose value waits for an event (issue 23, white-box round
21): `Rollout: after the DBA signs off` beside `APPROVED`. A label with a short value had
metadata's shape, so the default reading accounted it as carrying no decision; written as a
sentence (`Roll out after the DBA signs off.`) the same condition refused. The value is now
read for a subordinator of the closed class before a subject and a present or future verb
(`_awaited`), the shape a condition field's value has; a noun phrase after it tells what
was done, and a span of time measures a duration.
"""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from mergegate.verdicts import parse_verdict

_HEAD = (
    "# Review\n\n## Summary\n\nAdds backoff; tests cover it.\n\n"
    "## Verdict\n\n**Verdict:** APPROVED\n\n"
)


@pytest.mark.parametrize(
    "field",
    [
        "Rollout: after the DBA signs off",
        "**Timing:** once Legal OKs the license",
        "- Merge window: as soon as the freeze lifts",
        "Release: when the nightly job passes",
        "**Ship date:** after the security team reviews the token flow",
    ],
)
@pytest.mark.parametrize("strict", [False, True])
def test_a_field_whose_value_waits_for_an_event_refuses(field: str, strict: bool) -> None:
    assert not parse_verdict(_HEAD + field + "\n", strict=strict).approved


@pytest.mark.parametrize(
    "field",
    [
        "**Commit:** 4be07c1 (after rebase)",
        "**Reviewed at:** after the final push",
        "Tests: green after the rebase",
        "Token TTL: expires after 30 minutes",
        "**Reviewer:** Claude (code-reviewer)",
        "Risk: low",
    ],
)
def test_a_field_that_tells_what_was_done_or_names_a_thing_approves(field: str) -> None:
    assert parse_verdict(_HEAD + field + "\n").approved


# Values of at most five words: a longer value is prose, read as a sentence before this rule.
_SUBJECT = st.sampled_from(["the DBA", "Legal", "QA", "the owner"])
_VERB = st.sampled_from(["signs off", "approves", "confirms"])
_LEAD = st.sampled_from(["after", "once", "when"])
_KEY = st.sampled_from(["Rollout:", "Timing:", "**Merge window:**", "ETA:"])


@given(key=_KEY, lead=_LEAD, subject=_SUBJECT, verb=_VERB)
def test_any_event_a_short_field_waits_for_refuses(
    key: str, lead: str, subject: str, verb: str
) -> None:
    assert not parse_verdict(_HEAD + f"{key} {lead} {subject} {verb}\n").approved
