"""The request body of GitHub's "create a review" API, as an agent submits it.

Before, `{"commit_id": …, "event": "APPROVE", "body": …, "comments": [ … ]}` (what `POST
/repos/o/r/pulls/N/reviews` takes) was no review, so a genuine approval was `malformed`.
Now an object whose keys are the API's (`commit_id`, `body`, `event`, `comments`), whose
inline comments have the API's keys, is one review: `APPROVE` approves, `REQUEST_CHANGES`
asks for fixes, `COMMENT` is no verdict; its body and every inline comment's body are read
like text after an approval. Any other key makes it not the payload. Documents here are
synthetic, written for these tests.
"""

from __future__ import annotations

import json

import pytest

from mergegate.decisions import Decision
from mergegate.verdicts import parse_verdict

A, F = Decision.APPROVE, Decision.FIXES


def _payload(event: str, body: str, *comments: str, **extra: object) -> str:
    data: dict[str, object] = {
        "commit_id": "0a9b8c7d6e5f4a3b2c1d0e9f8a7b6c5d4e3f2a1b",
        "event": event,
        "body": body,
        "comments": [
            {"path": "src/cache.py", "line": 10 + n, "side": "RIGHT", "body": text}
            for n, text in enumerate(comments)
        ],
    }
    data.update(extra)
    return json.dumps(data, indent=2)


def test_an_approving_payload_with_nits_approves() -> None:
    text = _payload(
        "APPROVE",
        "Tenant is part of the cache key now and the tests cover both tenants. Approving.",
        "nit: `key_for` could be a staticmethod; fine as is.",
    )
    verdict = parse_verdict(text)
    assert verdict.decision is A, verdict.reasons


def test_request_changes_asks_for_fixes() -> None:
    text = _payload("REQUEST_CHANGES", "The cache key ignores the tenant.")
    assert parse_verdict(text).decision is F


@pytest.mark.parametrize(
    "text",
    [
        _payload("COMMENT", "Looks reasonable so far."),
        _payload("APPROVE", "Approving.", "Must fix the null check before merge."),
        _payload("APPROVE", "Approve once CI is green."),
        _payload("APPROVE", "Approving.", verdict="reject"),
        _payload("APPROVE_LATER", "Approving."),
    ],
)
def test_a_payload_that_does_not_approve(text: str) -> None:
    assert parse_verdict(text).decision is not A


def test_an_inline_comment_of_another_shape_is_not_the_payload() -> None:
    data = json.loads(_payload("APPROVE", "Approving."))
    data["comments"] = [{"path": "a.py", "line": 1, "body": "ok", "severity": "critical"}]
    assert parse_verdict(json.dumps(data)).decision is not A
