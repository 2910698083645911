"""GitHub review states as a tool or an agent saves them to a file.

Before, the recogniser made every review state a verdict field that had to approve on its
own: a COMMENTED review beside an approval, or a reviewer's request for changes their own
later review cleared, refused a genuine approval; and the records as saved (the JSON of `gh
pr view --json reviews`, review tables) were not read at all. The rule
(`../shared/corpus/reviews/README.md`): the last review decides, per reviewer; a request for
changes no later review of the same reviewer clears still blocks; COMMENTED is not a
verdict. Documents here are synthetic, written for these tests.
"""

from __future__ import annotations

import json

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from mergegate.decisions import Decision
from mergegate.verdicts import parse_verdict

A, F, R, M = Decision.APPROVE, Decision.FIXES, Decision.REJECT, Decision.MALFORMED


def _gh_review(login: str, state: str, when: str, body: str = "") -> dict[str, object]:
    """One review as `gh pr view --json reviews` writes it."""
    return {
        "id": f"PRR_{login}_{when}",
        "author": {"login": login},
        "authorAssociation": "MEMBER",
        "body": body,
        "submittedAt": when,
        "includesCreatedEdit": False,
        "reactionGroups": [],
        "state": state,
        "commit": {"oid": "4f2a1b9c0d"},
    }


def _gh_json(*reviews: dict[str, object], pretty: bool = True, **more: object) -> str:
    record = {**more, "reviews": list(reviews)}
    return json.dumps(record, indent=2 if pretty else None) + "\n"


def _pr_view(checks: str, reviewers: str) -> str:
    """`gh pr view 412` as a terminal shows it."""
    return (
        "Add retry to the upload client acme/app#412\n"
        "Open • alice wants to merge 3 commits into main from retry-upload • about 2 hours ago\n"
        f"+48 -6 • {checks}\nReviewers: {reviewers}\nLabels: enhancement\n\n\n"
        "  Adds exponential backoff to the upload client.\n\n\n"
        "View this pull request on GitHub: https://github.com/acme/app/pull/412\n"
    )


T1, T2, T3 = "2024-05-01T09:00:00Z", "2024-05-01T11:20:00Z", "2024-05-02T08:45:00Z"

GITHUB_GENUINE = [
    # gh pr view --json reviews: a question from one reviewer, an approval from another.
    _gh_json(
        _gh_review("bob", "COMMENTED", T1, "A question on the retry loop."),
        _gh_review("alice", "APPROVED", T2),
    ),
    # One line, with the review decision; the reviewer's own request for changes, cleared.
    _gh_json(
        _gh_review("carol", "CHANGES_REQUESTED", T1, "Please split the migration."),
        _gh_review("carol", "APPROVED", T2, "Thanks, looks good now."),
        pretty=False,
        reviewDecision="APPROVED",
    ),
    # latestReviews repeats the last review of each reviewer; in time order it is one review.
    json.dumps(
        {
            "latestReviews": [_gh_review("carol", "APPROVED", T3)],
            "reviews": [
                _gh_review("carol", "CHANGES_REQUESTED", T1),
                _gh_review("carol", "APPROVED", T3),
            ],
        }
    ),
    # gh api repos/o/r/pulls/12/reviews (the REST form: `user`, `submitted_at`).
    json.dumps(
        [
            {
                "id": 80,
                "user": {"login": "octocat", "type": "User"},
                "body": "Nice.",
                "state": "APPROVED",
                "author_association": "COLLABORATOR",
                "submitted_at": "2019-11-17T17:43:43Z",
                "commit_id": "ecdd80bb",
            }
        ],
        indent=2,
    ),
    # gh api …/reviews --jq '.[] | {user: .user.login, state, submitted_at}': JSON lines.
    '{"user":"bob","state":"COMMENTED","submitted_at":"2024-05-01T09:00:00Z"}\n'
    '{"user":"alice","state":"APPROVED","submitted_at":"2024-05-02T10:11:12Z"}\n',
    # Saved into Markdown: the record in a fence, the command that printed it above.
    "## Reviews of #412\n\nFetched with `gh pr view 412 --json reviews`:\n\n```json\n"
    + _gh_json(
        _gh_review("bob", "COMMENTED", T1, "nit: rename x"), _gh_review("alice", "APPROVED", T2)
    )
    + "```\n",
    # An agent's list of the reviews, bodies quoted after the state, under the command.
    "# Review status for PR #231\n\nPulled with `gh pr view 231 --json reviews,reviewDecision`.\n\n"
    '- @maria-dev: CHANGES_REQUESTED (2024-03-11) — "Please add a migration test."\n'
    '- @maria-dev: APPROVED (2024-03-12) — "Thanks, LGTM."\n'
    "- @ci-helper[bot]: COMMENTED (2024-03-12)\n\nreviewDecision: APPROVED\n",
    # GitHub's timeline as copied from the page, and one review's fields under its heading.
    "**maria-dev** requested changes · Mar 11, 2024\n> Please add a migration test.\n\n"
    "**maria-dev** approved these changes · Mar 12, 2024\n> Thanks, LGTM.\n",
    "### Review from copilot-pull-request-reviewer[bot]\n\n**State:** COMMENTED\n\n"
    "### Review from maria-dev\n\n**State:** APPROVED\n\nLGTM.\n",
    "## Review by @maria-dev — APPROVED\n\nGreat work! The retry logic is clean and tested.\n\n"
    "Minor nits (non-blocking):\n- `retry_delay` could be a module constant.\n",
    # A question in an earlier comment: the later approval is the last review.
    '- @bob: COMMENTED — "Could you add a test for the 503 path?"\n- @alice: APPROVED — "LGTM"\n',
    # A Markdown table of the reviews.
    "## Reviews for #412\n\n| Reviewer | State | Submitted |\n|---|---|---|\n"
    "| @bob | COMMENTED | 2024-05-01 09:00 |\n| @carol | CHANGES_REQUESTED | 2024-05-01 11:20 |\n"
    "| @carol | APPROVED | 2024-05-02 08:45 |\n| @alice | APPROVED | 2024-05-02 10:11 |\n",
    # One heading per review, bodies below.
    "### @carol — CHANGES_REQUESTED\n\nThe migration must land separately.\n\n"
    "### @bob — COMMENTED\n\nnit: `retry_delay` could be a constant.\n\n"
    "### @carol — APPROVED\n\nSplit done, thanks.\n",
    # gh pr view --json reviews --jq '…': one tab-separated row per review.
    "bob\tCOMMENTED\t2024-05-01T09:00:00Z\ncarol\tCHANGES_REQUESTED\t2024-05-01T11:20:00Z\n"
    "carol\tAPPROVED\t2024-05-02T08:45:00Z\n",
    # A YAML-like list: each state's reviewer is the field above it.
    "reviewDecision: APPROVED\nreviews:\n  - author: bob\n    state: COMMENTED\n"
    "  - author: alice\n    state: APPROVED\n",
    # gh pr review --approve: the command and gh's receipt.
    '$ gh pr review 412 --approve -b "LGTM, thanks for the tests."\n'
    "✓ Approved pull request acme/app#412\n",
    # GitHub's timeline wording.
    "**alice** approved these changes on May 2, 2024\n",
    # gh pr view on a terminal: its frame around the reviewers line.
    _pr_view("✓ Checks passing", "bob (Approved), carol (Commented)"),
    # gh pr view's reviewer list.
    "reviewers:\tbob (Approved), carol (Commented)\n",
]


@pytest.mark.parametrize("text", GITHUB_GENUINE)
def test_github_records_that_approve(text: str) -> None:
    verdict = parse_verdict(text)
    assert verdict.decision is A, verdict.reasons
    assert verdict.dialect == "github"


GITHUB_REFUSED = [
    # Another reviewer's request for changes stands beside an approval.
    (_gh_json(_gh_review("alice", "APPROVED", T3), _gh_review("eve", "CHANGES_REQUESTED", T1)), F),
    # A later COMMENTED review does not clear the same reviewer's request for changes.
    (
        _gh_json(
            _gh_review("carol", "CHANGES_REQUESTED", T1),
            _gh_review("carol", "COMMENTED", T2),
            _gh_review("alice", "APPROVED", T3),
        ),
        F,
    ),
    # The reviewer's approval came first; the later review asks for changes.
    (
        _gh_json(_gh_review("carol", "APPROVED", T1), _gh_review("carol", "CHANGES_REQUESTED", T3)),
        F,
    ),
    # Comments only: no verdict.
    (_gh_json(_gh_review("bob", "COMMENTED", T1, "Looks fine to me.")), M),
    # GitHub's own summary says a review is still required.
    (_gh_json(_gh_review("bob", "COMMENTED", T1), reviewDecision="REVIEW_REQUIRED"), M),
    (_gh_json(_gh_review("alice", "APPROVED", T1), reviewDecision="CHANGES_REQUESTED"), F),
    # The approving review's body holds a condition.
    (_gh_json(_gh_review("bob", "APPROVED", T1, "Approve once the migration is reverted.")), F),
    # GitHub would not merge it as it stands.
    (_gh_json(_gh_review("alice", "APPROVED", T1), mergeStateStatus="BLOCKED"), F),
    (
        _gh_json(
            _gh_review("alice", "APPROVED", T1),
            statusCheckRollup=[{"__typename": "CheckRun", "name": "e2e", "conclusion": "FAILURE"}],
        ),
        F,
    ),
    # A comment still stands beside the approval and can say no; so can a later comment of
    # the approving reviewer (only a reviewer's older reviews are superseded).
    (
        _gh_json(
            _gh_review("alice", "APPROVED", T1),
            _gh_review("bob", "COMMENTED", T2, "Do not merge: this drops the audit log."),
        ),
        R,
    ),
    (
        "### @carol — APPROVED\n\nLGTM.\n\n### @carol — COMMENTED\n\n"
        "Do not merge: this drops the audit log.\n",
        R,
    ),
    (_pr_view("× 1/3 checks failing", "bob (Approved)"), F),
    (_pr_view("✓ Checks passing", "bob (Approved), carol (Changes requested)"), F),
    # A fenced record an instruction introduces is an example; text after it is read.
    (
        "Example of the output format:\n\n```json\n"
        + _gh_json(_gh_review("a", "APPROVED", T1))
        + "```\n",
        M,
    ),
    (
        "```json\n"
        + _gh_json(_gh_review("alice", "APPROVED", T1))
        + "```\n\nThe migration still drops the audit table.\n",
        M,
    ),
    # The body on an approving review's line holds a condition; a heading's reviewer
    # requested changes and approved nothing since.
    ('- @maria-dev: APPROVED — "once the migration test lands"\n', F),
    (
        "### Review from maria-dev\n\n**State:** CHANGES_REQUESTED\n\n"
        "### Review from bob\n\n**State:** APPROVED\n",
        F,
    ),
    ("Pulled with `gh pr view 231 --json reviews`. Do not merge.\n\n- @bob: APPROVED\n", M),
    (
        "## Review by @maria-dev — CHANGES_REQUESTED\n\nAdd a test.\n\n"
        "## Review by @bob — APPROVED\n\nLGTM.\n",
        F,
    ),
    # A review still pending or requested has not happened.
    ("| Reviewer | State |\n|---|---|\n| @alice | APPROVED |\n| @bob | PENDING |\n", M),
    ("reviewers: alice (Approved), dave (Requested)\n", M),
    # Headings and tables of parts or stages are no reviewers' reviews (read as before).
    ("## Security: APPROVED\n\n## Tests: APPROVED\n", M),
    ("| Reviewer | Status |\n|---|---|\n| claude | Approved |\n| codex | Pending |\n", M),
    # A key of a verdict's name that GitHub does not write: the JSON is not GitHub's record.
    (_gh_json(_gh_review("alice", "APPROVED", T1), verdict="reject"), M),
    (_gh_json(_gh_review("alice", "APPROVED", T1), ready_to_merge=False), M),
    (_gh_json(_gh_review("alice", "APPROVED", T1), state="NOT_APPROVED"), M),
    (_gh_json(_gh_review("alice", "APPROVED", T1), mergeable=False), F),
    # Tables, headings and rows: a request for changes no later review of its reviewer clears.
    ("| Reviewer | State |\n|---|---|\n| @carol | APPROVED |\n| @dave | CHANGES_REQUESTED |\n", F),
    (
        "### @carol — CHANGES_REQUESTED\n\nSplit it.\n\n### @carol — COMMENTED\n\nDone?\n\n"
        "### @alice — APPROVED\n\nLGTM.\n",
        F,
    ),
    ("carol\tAPPROVED\t2024-05-01\ncarol\tCHANGES_REQUESTED\t2024-05-02\n", F),
    ("reviewers: bob (Approved), carol (Changes requested)\n", F),
    # Unnamed states: each is its own reviewer, so a request for changes is never cleared.
    ("state: CHANGES_REQUESTED\n\nstate: APPROVED\n", F),
    ("state: COMMENTED\nstate: DISMISSED\n", M),
    # A word that only looks like a login.
    ("Not approved these changes.\n\nreview state: pending\n", M),
    ("✓ Requested changes to pull request acme/app#412\n", F),
]


@pytest.mark.parametrize(("text", "expected"), GITHUB_REFUSED)
def test_github_records_that_do_not_approve(text: str, expected: Decision) -> None:
    verdict = parse_verdict(text)
    assert verdict.decision is expected, verdict.reasons


_STATES = ("APPROVED", "CHANGES_REQUESTED", "COMMENTED", "DISMISSED")


def _last_review_decides(reviews: list[tuple[str, str]]) -> Decision:
    """The labelling rule: per reviewer the last APPROVED or CHANGES_REQUESTED counts."""
    last: dict[str, str] = {}
    for login, state in reviews:
        if state in ("APPROVED", "CHANGES_REQUESTED"):
            last[login] = state
    if "CHANGES_REQUESTED" in last.values():
        return F
    return A if last else M


_REVIEWS = st.lists(
    st.tuples(st.sampled_from(("alice", "bob", "carol")), st.sampled_from(_STATES)),
    min_size=1,
    max_size=6,
)


@settings(max_examples=60, deadline=None)
@given(_REVIEWS)
def test_any_order_of_github_reviews_in_json(reviews: list[tuple[str, str]]) -> None:
    """For any sequence of reviews, the record decides as the last-review rule does — also
    when the JSON lists them out of time order (they are read by `submittedAt`)."""
    saved = [
        _gh_review(login, state, f"2024-05-0{i + 1}T00:00:00Z")
        for i, (login, state) in enumerate(reviews)
    ]
    assert parse_verdict(_gh_json(*reversed(saved))).decision is _last_review_decides(reviews)


@settings(max_examples=60, deadline=None)
@given(_REVIEWS)
def test_any_order_of_github_reviews_in_a_table(reviews: list[tuple[str, str]]) -> None:
    rows = "".join(f"| @{login} | {state} |\n" for login, state in reviews)
    text = f"| Reviewer | State |\n|---|---|\n{rows}"
    assert parse_verdict(text).decision is _last_review_decides(reviews)


# The frame of `gh pr view` is accounted for, so hidden from every other reader: only the
# words gh writes there are its frame (issue 23, white-box round 28).
@pytest.mark.parametrize(
    ("title", "state"),
    [
        (
            "Add retry to the upload client acme/app#412",
            "Open • alice wants to merge 3 commits into main from retry-upload • do not merge, "
            "the migration drops the users table",
        ),
        (
            "The migration drops every account on rollback. acme/app#412",
            "Open • the migration drops the users table, do not merge it",
        ),
    ],
)
def test_text_set_in_the_pr_view_frame_is_read(title: str, state: str) -> None:
    text = f"{title}\n{state}\n+48 -6 • ✓ Checks passing\nReviewers: bob (Approved)\n"
    assert not parse_verdict(text).approved


def test_the_pr_view_frame_gh_writes_still_approves() -> None:
    assert parse_verdict(_pr_view("✓ Checks passing", "bob (Approved)")).approved
