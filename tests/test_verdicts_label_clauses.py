"""A label that is itself a clause, after an approval (issue 23, white-box round 27).

`Do not submit until …` beside a Gerrit `Code-Review+2` or after `**Verdict:** APPROVED`, `DO
NOT SUBMIT` alone, `Not compliant: requirement 4 is missing`, `**Important:** the token is
logged` under `### Notes`: each passed as a statement or as a metadata field. Read by
structure, not by phrase: a clause that opens with a negated `do` and no subject is a
negative imperative (an instruction, whatever its verb); a label whose words, whole, are a
verdict other than yes says that verdict; a label that is a finding's severity opens a
finding, unless its value is none.
"""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from mergegate.verdicts import parse_verdict

_HEAD = "# Review of PR #88\n\n**Verdict:** APPROVED\n\n"
_GERRIT = "Patch Set 3: Code-Review+2\n\n"


@pytest.mark.parametrize("head", [_HEAD, _GERRIT])
@pytest.mark.parametrize(
    "line",
    [
        "Do not submit until the migration is reverted.",
        "DO NOT SUBMIT",
        "Don't land this before Monday.",
        "Never submit this before the DBA has restored the index.",
        "Do not submit: the schema change needs the DBA.",
        "**Do not submit:** DBA first",
        "Not compliant: requirement 4 (audit log) is missing.",
        "**Changes requested:** rename the flag",
        "**Important:** the token is logged in plain text.",
        "- **Critical:** the token is logged.",
        "__IMPORTANT__: the API key is written to the debug log.",
    ],
)
@pytest.mark.parametrize("strict", [False, True])
def test_a_clause_set_as_a_label_or_an_imperative_refuses(
    head: str, line: str, strict: bool
) -> None:
    verdict = parse_verdict(head + line + "\n", strict=strict)
    assert not verdict.approved, verdict.reasons


@pytest.mark.parametrize("head", [_HEAD, _GERRIT])
@pytest.mark.parametrize(
    "lines",
    [
        "We do not log tokens anywhere.",
        "Never failed in 200 runs.",
        "Never happens after the lock is held.",
        "- Tests: 12\n- Failed: 0",
        "**Critical:** None\n**Important:** none found",
        "**Rejected alternatives:** a Redis cache",
    ],
)
def test_a_statement_or_an_empty_severity_still_approves(head: str, lines: str) -> None:
    verdict = parse_verdict(head + lines + "\n")
    assert verdict.approved, verdict.reasons


def test_an_important_label_under_notes_is_a_finding() -> None:
    text = _HEAD + "### Notes\n\n**Important:** the token is logged in plain text.\n"
    assert not parse_verdict(text).approved


@settings(deadline=None)  # a shared machine's load, not the parse, decides the time
@given(
    verb=st.sampled_from(["submit", "land", "ship", "deploy", "push", "release", "enable"]),
    opening=st.sampled_from(["Do not", "DO NOT", "Don't", "do not", "Never"]),
    rest=st.sampled_from(["", " yet", " before the DBA signs off", " this."]),
)
def test_a_negative_imperative_never_approves_whatever_its_verb(
    verb: str, opening: str, rest: str
) -> None:
    assert not parse_verdict(f"{_HEAD}{opening} {verb}{rest}\n").approved
