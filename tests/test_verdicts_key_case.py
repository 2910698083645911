"""A key is the same key whatever its case (issue 23).

The JSON document reader matched verdict and blocking keys as written, so a capitalised
`"Approved": false` or `"Verdict": "reject"` beside `"approved": true` was read by nobody and
the object approved. The accounting of `Key: value` lines compared a capitalised key with a
lower-case vocabulary, so `Status: in progress` or `Notes: …` counted as metadata that carries
no decision. Both now fold the key first."""

from __future__ import annotations

import json

import pytest
from hypothesis import given
from hypothesis import strategies as st

from mergegate.decisions import Decision
from mergegate.verdicts import parse_verdict


def _cased(word: str, mask: list[bool]) -> str:
    return "".join(c.upper() if up else c for c, up in zip(word, mask, strict=False))


@given(mask=st.lists(st.booleans(), min_size=8, max_size=8).filter(any))
def test_a_json_no_in_any_case_beside_a_yes_is_a_no(mask: list[bool]) -> None:
    key = _cased("approved", mask)
    text = json.dumps({"approved": True, key: False}) + "\n"
    assert parse_verdict(text).decision is Decision.REJECT


@pytest.mark.parametrize(
    "extra",
    [{"Verdict": "reject"}, {"STATUS": "changes requested"}, {"Blockers": ["rotate the key"]}],
)
def test_capitalised_keys_of_a_json_document_are_read(extra: dict[str, object]) -> None:
    text = json.dumps({"approved": True, **extra}) + "\n"
    assert not parse_verdict(text).approved


_HEAD = "## Review\n\nRead the change.\n\n**Verdict:** APPROVE\n\n"


@pytest.mark.parametrize("line", ["Status: in progress", "STATUS: on hold"])
def test_a_capitalised_status_key_is_no_metadata(line: str) -> None:
    assert not parse_verdict(_HEAD + line + "\n", strict=True).approved


def test_a_lower_case_json_approval_still_approves() -> None:
    text = json.dumps({"approved": True, "summary": "Clean change, tests pass."}) + "\n"
    assert parse_verdict(text).approved
