"""A signature is a name (issue 23). Any line after a dash with no sentence end, and any
wholly emphasised line of up to five words, counted as a signature that carries no decision,
so '— pending QA sign-off' or '**The token leaks.**' after an approval was read by nobody and
approved, strictly too. A name's words are capitalised or handles; anything else is prose,
read as such (strictly, it must appraise the change)."""

from __future__ import annotations

import pytest

from mergegate.verdicts import parse_verdict

_HEAD = "## Review\n\nRead the change.\n\n**Verdict:** APPROVE\n\n"


@pytest.mark.parametrize(
    "line",
    [
        "— pending QA sign-off",
        "-- the queue drops jobs on restart",
        "— reviewer-bot (not a real approval)",
        "**Sessions never expire.**",
        "*The token leaks.*",
        "__The rollback script is missing.__",
    ],
)
def test_a_sentence_in_a_signature_shape_is_prose(line: str) -> None:
    assert not parse_verdict(_HEAD + line + "\n", strict=True).approved


@pytest.mark.parametrize(
    "line",
    [
        "— Claude (code-reviewer)",
        "-- reviewer-bot",
        "*Forge Supervisor*",
        "_gsd-verifier_",
        "— QA Team, 2026-03-04",
        "Reviewed-by: Claude <noreply@anthropic.com>",
    ],
)
@pytest.mark.parametrize("strict", [False, True])
def test_a_name_is_a_signature(line: str, strict: bool) -> None:
    assert parse_verdict(_HEAD + line + "\n", strict=strict).approved
