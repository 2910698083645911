"""What the reviewer says they did not read is a partial scope: an approval beside `the other
7 files were not reviewed`, `the last two commits are outside this review`, `Commits 5–9 I
haven't opened` or `The CLI is in another reviewer's queue` does not approve the whole change
(`malformed`), before or after the verdict, on its line or under a `Scope` heading. The same
words about the code (`the token is not reviewed by the linter` is not first person, and a
test that was not opened is not a part of the change) are read only in these shapes."""

from __future__ import annotations

import pytest

from mergegate.decisions import Decision
from mergegate.verdicts import parse_verdict

A = Decision.APPROVE

UNREAD = [
    "**Files reviewed:** `README.md`, `docs/setup.md` (the other 7 files were not reviewed)",
    "Commits 5–9 (the CLI and the migration) I haven't opened.",
    "I did not review the migration.",
    "The CLI and the migration are in another reviewer's queue.",
    "The last two commits are outside this review.",
    "The Terraform changes are not part of this review.",
    "I have not yet looked at `web/`.",
    "Phases 1 and 3 were not reviewed.",
]
READ = [
    "**Files reviewed:** all 9 files.",
    "I reviewed every commit, including the migration.",
    "Nothing was left unread.",
    "The parser no longer reads the legacy config.",
    "Errors are not swallowed; they are logged.",
]


@pytest.mark.parametrize("line", UNREAD)
def test_an_unreviewed_part_before_the_verdict_keeps_it_from_approving(line: str) -> None:
    verdict = parse_verdict(f"## Summary\n\n{line}\n\n**Verdict:** APPROVED\n")
    assert verdict.decision is not A, verdict.reasons


@pytest.mark.parametrize("line", UNREAD)
def test_an_unreviewed_part_after_the_verdict_keeps_it_from_approving(line: str) -> None:
    verdict = parse_verdict(f"Thanks!\n\n**Verdict:** APPROVED\n\n## Scope\n{line}\n")
    assert verdict.decision is not A, verdict.reasons


def test_an_unreviewed_part_on_the_verdict_line_keeps_it_from_approving() -> None:
    text = "**Verdict:** APPROVED up to `a1b2c3d`; the last two commits are outside this review.\n"
    assert parse_verdict("## Summary\n\nSolid.\n\n" + text).decision is not A


@pytest.mark.parametrize("line", READ)
def test_a_whole_review_still_approves(line: str) -> None:
    verdict = parse_verdict(f"## Summary\n\n{line}\n\n**Verdict:** APPROVED\n")
    assert verdict.decision is A, verdict.reasons
