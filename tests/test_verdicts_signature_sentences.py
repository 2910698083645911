"""A sentence set where a signature goes (issue 23): a line standing alone after the
verdict that opens with a dash, like `— reviewer-bot`, but whose words are no name's
(`— waiting on the security review`, `-- the cron job bills twice on retries`). It was no
signature, and the default reading let it stand as a plain statement beside the approval.
A dash before a name, a handle or a wrapped line's continuation still approves."""

from __future__ import annotations

import pytest

from mergegate.verdicts import parse_verdict

_HEAD = "## Review\n\nRead the billing diff and its tests.\n\n**Verdict:** LGTM\n\n"


@pytest.mark.parametrize(
    "line",
    [
        "— waiting on the security review",
        "-- the cron job bills twice on retries",
        "– Claude, who skipped the e2e suite",
        "— ops-bot (approval not binding)",
    ],
)
@pytest.mark.parametrize("strict", [False, True])
def test_a_sentence_in_a_signature_s_place_refuses(line: str, strict: bool) -> None:
    assert not parse_verdict(_HEAD + line + "\n", strict=strict).approved


@pytest.mark.parametrize(
    "line",
    [
        "— Claude (code-reviewer)",
        "-- review-bot",
        "— Priya S., Platform QA",
    ],
)
def test_a_name_after_a_dash_approves(line: str) -> None:
    assert parse_verdict(_HEAD + line + "\n").approved


def test_a_wrapped_line_opening_with_a_dash_is_read_with_its_sentence() -> None:
    text = _HEAD + "The retry path is clean and well covered by the new\n— property tests.\n"
    assert parse_verdict(text).approved
