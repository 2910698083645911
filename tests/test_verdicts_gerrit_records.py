"""Gerrit votes as a tool or an agent saves them to a file.

Before, the recogniser made every vote line a verdict field that had to approve on its own:
a `+1` beside another reviewer's `+2`, or a `-1` on a patch set the newer one answers,
refused a genuine approval; and the records as saved (`gerrit query --format=JSON`, the
REST API's JSON, `Patch Set 3: Code-Review+2 Verified+1`) were not read at all. The rule
(`../shared/corpus/reviews/README.md`): Gerrit counts the current patch set's votes; a
Code-Review -2 vetoes, +2 approves, +1 does not; Verified -1 blocks. Documents here are
synthetic, written for these tests.
"""

from __future__ import annotations

import json

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from mergegate.decisions import Decision
from mergegate.verdicts import parse_verdict

A, F, R, M = Decision.APPROVE, Decision.FIXES, Decision.REJECT, Decision.MALFORMED


def _query(*patch_sets: list[tuple[str, str, int]]) -> str:
    """`gerrit query --format=JSON --all-approvals`: one change a line, then the stats row."""
    change = {
        "project": "tools/app",
        "branch": "master",
        "number": 12345,
        "status": "NEW",
        "subject": "Fix NPE in config loader",
        "owner": {"name": "Jane Dev", "username": "jane"},
        "patchSets": [
            {
                "number": n + 1,
                "revision": f"r{n}",
                "approvals": [
                    {
                        "type": label,
                        "description": label,
                        "value": str(value),
                        "grantedOn": 1714550000 + n,
                        "by": {"name": who.title(), "username": who},
                    }
                    for who, label, value in votes
                ],
            }
            for n, votes in enumerate(patch_sets)
        ],
    }
    stats = {"type": "stats", "rowCount": 1, "runTimeMilliseconds": 12, "moreChanges": False}
    return (
        "$ ssh -p 29418 review.example.org gerrit query --format=JSON --all-approvals "
        f"change:12345\n{json.dumps(change)}\n{json.dumps(stats)}\n"
    )


def _rest(**labels: list[tuple[str, int]]) -> str:
    """The REST API's ChangeInfo with DETAILED_LABELS."""
    return (
        json.dumps(
            {
                "id": "tools%2Fapp~master~I84",
                "project": "tools/app",
                "status": "NEW",
                "labels": {
                    label.replace("_", "-"): {
                        "all": [{"value": v, "name": who} for who, v in votes],
                        "values": {"+2": "Looks good to me, approved"},
                    }
                    for label, votes in labels.items()
                },
            },
            indent=2,
        )
        + "\n"
    )


CR, V = "Code-Review", "Verified"


def _email(vote: str, comment: str = "nit: a default would read better here.") -> str:
    """Gerrit's notification email of a review message."""
    return (
        "Max Maintainer has posted comments on this change. "
        "( https://review.example.org/c/tools/app/+/12345 )\n\n"
        "Change subject: Fix NPE in config loader\n"
        "......................................................................\n\n\n"
        f"Patch Set 2: {vote}\n\n(1 comment)\n\nFile src/config/loader.py:\n\n"
        "https://review.example.org/c/tools/app/+/12345/2/src/config/loader.py#42\n"
        f'PS2, Line 42: value = cfg.get("timeout")\n{comment}\n\n\n\n--\n'
        "To view, visit https://review.example.org/c/tools/app/+/12345\n"
        "To unsubscribe, or for help writing mail filters, visit "
        "https://review.example.org/settings\n\n"
        "Gerrit-Project: tools/app\nGerrit-Branch: master\nGerrit-Change-Number: 12345\n"
        "Gerrit-PatchSet: 2\nGerrit-Owner: Jane Dev <jane@example.org>\n"
        "Gerrit-Reviewer: Max Maintainer <max@example.org>\nGerrit-MessageType: comment\n"
    )


def _query_text(current: list[tuple[str, str, int]]) -> str:
    """`gerrit query --current-patch-set` in its text format."""
    approvals = "".join(
        f"      type: {label}\n      description: {label}\n      value: {value}\n"
        f"      grantedOn: 2024-05-02 10:15:00 UTC\n      by:\n        name: {who.title()}\n"
        f"        username: {who}\n"
        for who, label, value in current
    )
    return (
        "change I8473b95934b5732ac55d26311a706c9c2bde9940\n  project: tools/app\n"
        "  branch: master\n  number: 12345\n  subject: Fix NPE in config loader\n"
        "  owner:\n    name: Jane Dev\n    username: jane\n  status: NEW\n"
        f"  currentPatchSet:\n    number: 2\n    revision: d4e5f6\n    approvals:\n{approvals}"
        "\ntype: stats\nrowCount: 1\nrunTimeMilliseconds: 9\nmoreChanges: false\n"
    )


GERRIT_GENUINE = [
    "Patch Set 3: Code-Review+2 Verified+1\n\nThanks for adding the test.\n",
    "Code-Review: +2\nVerified: +1\n",
    # One reviewer's +1 beside another's +2.
    "Patch Set 5:\n\nAnna Reviewer: Code-Review+1\nMax Maintainer: Code-Review+2\n"
    "CI Bot: Verified+1\n",
    # The change log: a -1 on patch set 1 is answered by patch set 2 (newest first, as saved).
    "Max Maintainer\t\tMay 2 10:15\nPatch Set 2: Code-Review+2\n\n"
    "CI Bot\t\tMay 2 10:08\nPatch Set 2: Verified+1\n\n"
    "Max Maintainer\t\tMay 1 09:12\nPatch Set 1: Code-Review-1\n",
    # Gerrit's own wording of the vote.
    "Patch Set 2: Looks good to me, approved\n",
    _query([("max", CR, -1), ("ci", V, 1)], [("ci", V, 1), ("anna", CR, 1), ("max", CR, 2)]),
    _rest(Code_Review=[("Max Maintainer", 2), ("Anna Reviewer", 1)], Verified=[("CI Bot", 1)]),
    _email("Code-Review+2"),
    _query_text([("ci", V, 1), ("max", CR, 2)]),
    # An agent's summary: the change's title, each label's votes with their reviewers.
    'Change 4821 — "Fix NPE in config loader" (patch set 3)\n\n'
    "Code-Review: +2 (Max Maintainer), +1 (Anna Reviewer)\nVerified: +1 (CI Bot)\n",
    "| Label | Value | Reviewer |\n|---|---|---|\n| Code-Review | +2 | Max Maintainer |\n"
    "| Verified | +1 | CI Bot |\n",
    "| Reviewer | Code-Review | Verified |\n|---|---|---|\n| Max Maintainer | +2 | |\n"
    "| Anna Reviewer | +1 | |\n| CI Bot | | +1 |\n",
    # The change log as the page shows it: uploads, CI's message, each message's author.
    "Uploaded patch set 3.\n\nPatch Set 3: Verified+1\n\nBuild Successful\n\n"
    "Max Maintainer: Patch Set 3: Code-Review+2\n\nLGTM, thanks for the fix.\n",
    # A saved REST answer keeps Gerrit's `)]}'` line.
    ")]}'\n" + _rest(Code_Review=[("Max Maintainer", 2)]),
    # A -2 its own reviewer replaced on a later patch set.
    "Patch Set 1:\nMax: Code-Review-2\n\nPatch Set 2:\nMax: Code-Review+2\n",
]


@pytest.mark.parametrize("text", GERRIT_GENUINE)
def test_gerrit_records_that_approve(text: str) -> None:
    verdict = parse_verdict(text)
    assert verdict.decision is A, verdict.reasons
    assert verdict.dialect == "gerrit"


GERRIT_REFUSED = [
    # -1 or -2 after a +2.
    ("Patch Set 3: Code-Review+2\n\nPatch Set 3: Code-Review-1\n", F),
    ("Patch Set 3: Code-Review+2\n\nPatch Set 3: Code-Review-2\n", R),
    # A reviewer's veto beside another's +2.
    ("Patch Set 2:\n\nAnna: Code-Review+2\nBob: Code-Review-2\n", R),
    # A -2 Gerrit copies to the new patch set, its reviewer not heard from again.
    ("Patch Set 1: Code-Review-2\n\nPatch Set 2: Code-Review+2 Verified+1\n", R),
    # +1 is not enough to submit.
    ("Patch Set 2: Code-Review+1 Verified+1\n", M),
    ("Patch Set 2: Looks good to me, but someone else must approve\n", M),
    # Verified -1 blocks.
    ("Patch Set 2: Code-Review+2 Verified-1\n", F),
    # The +2 was on an older patch set; the current one has none.
    ("Patch Set 2: Code-Review+2\n\nPatch Set 3: Verified+1\n", M),
    ("Patch Set 1: Code-Review+2\n\nPatch Set 2: Code-Review-1\n", F),
    (_query([("max", CR, 2)], [("ci", V, 1)]), M),
    (_query([("max", CR, 2)], [("max", CR, 2), ("bob", CR, -2)]), R),
    (_query([("max", CR, 2)], [("max", CR, 2), ("ci", V, -1)]), F),
    (_rest(Code_Review=[("Max", 2), ("Bob", -1)]), F),
    (_rest(Code_Review=[("Anna", 1)]), M),
    (_email("Code-Review-1", "This leaks the file handle."), F),
    (_email("Code-Review+2", "Do not merge: this drops the audit log."), R),
    (_query_text([("ci", V, 1), ("max", CR, 1)]), M),
    (_query_text([("max", CR, 2), ("bob", CR, -2)]), R),
    ("Code-Review: +2 (Max Maintainer), -2 (Bob Veto)\n", R),
    (
        "| Label | Value | Reviewer |\n|---|---|---|\n| Code-Review | +2 | Max |\n"
        "| Verified | -1 | CI Bot |\n",
        F,
    ),
    (
        "Uploaded patch set 3.\n\nPatch Set 3: Verified-1\n\nBuild Failed\n\n"
        "Max: Patch Set 3: Code-Review+2\n",
        F,
    ),
    ("| Reviewer | Code-Review | Verified |\n|---|---|---|\n| Max | +2 | |\n| Bob | -2 | |\n", R),
    (
        "| Reviewer | Code-Review | Verified |\n|---|---|---|\n| Max | +2 | |\n| CI Bot | | -1 |\n",
        F,
    ),
    # The +2 was given to patch set 2; patch set 3 was uploaded since.
    ("Max: Patch Set 2: Code-Review+2\n\nUploaded patch set 3.\n", M),
    ('Change 4821 — "Fix NPE" (patch set 3)\n\nDo not merge yet.\n\nCode-Review: +2 (Max)\n', M),
    # What else Gerrit's record says against submitting, and keys Gerrit does not write.
    (_query([("max", CR, 2)]).replace('"status": "NEW"', '"status": "ABANDONED"'), R),
    (_rest(Code_Review=[("Max", 2)]).replace('"status": "NEW"', '"submittable": false'), F),
    (_rest(Code_Review=[("Max", 2)]).replace('"status": "NEW"', '"verdict": "reject"'), M),
    (_query([("max", CR, 2)]).replace('"status": "NEW"', '"approved": false'), M),
]


@pytest.mark.parametrize(("text", "expected"), GERRIT_REFUSED)
def test_gerrit_records_that_do_not_approve(text: str, expected: Decision) -> None:
    verdict = parse_verdict(text)
    assert verdict.decision is expected, verdict.reasons


def _gerrit_rule(votes: list[tuple[str, int]]) -> Decision:
    """Gerrit's Code-Review rule on one patch set, the last vote per reviewer counting."""
    last = dict(votes)
    if -2 in last.values():
        return R
    if -1 in last.values():
        return F
    return A if 2 in last.values() else M


@settings(max_examples=60, deadline=None)
@given(
    st.lists(
        st.tuples(st.sampled_from(("anna", "max", "bob")), st.integers(-2, 2)),
        min_size=1,
        max_size=6,
    )
)
def test_any_order_of_gerrit_votes(votes: list[tuple[str, int]]) -> None:
    """For any sequence of votes on the current patch set (written as Gerrit's messages, or
    as the query's approvals), the document decides as Gerrit's rule does."""
    lines = "".join(f"{who}: Code-Review{value:+d}\n" for who, value in votes)
    assert parse_verdict(f"Patch Set 4:\n\n{lines}").decision is _gerrit_rule(votes)
    record = _query([("old", CR, -1)], [(who, CR, value) for who, value in votes])
    assert parse_verdict(record).decision is _gerrit_rule(votes)
