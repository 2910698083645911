"""A yes/no field answered against the approval (issue 23, white-box round 27).

`**Rollback safe:** no` above an approval, `**Backward compatible:** No` or `- Rollback safe:
No` below it, `**Breaking change:** yes (undocumented)`: a field whose whole value is a bare
answer is a question the reviewer answered, and the approval beside an answer against the
change did not weigh it. The approving answer is read from the key's structure, never from a
list of keys: a key that names a problem (`Breaking changes`, `Regressions`, `New
dependencies`) is answered well by a no, any other key by a yes. A value that goes on past
the answer is prose (`No single test covers it`), read as before.
"""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from mergegate.verdicts import parse_verdict
from mergegate.verdicts._result_rows import answer_against_field

_HEAD = "# Review of PR #412\n\n"
_VERDICT = "**Verdict:** APPROVED\n"


def _above(field: str) -> str:
    return f"{_HEAD}**Scope:** auth module\n{field}\n\n{_VERDICT}"


def _below(field: str) -> str:
    return f"{_HEAD}{_VERDICT}\n{field}\n**Tests added:** Yes\n"


_AGAINST = [
    "**Rollback safe:** no",
    "**Backward compatible:** No",
    "- Rollback safe: No",
    "**Breaking change:** yes (undocumented)",
    "Security issues: yes",
    "**Idempotent:** false",
    "**Rollback safe:** nope",
    "**Rollback safe:** No — the down step drops the column",
]
_WITH = [
    "**Rollback safe:** yes",
    "**Backward compatible:** Yes",
    "**Breaking changes:** No",
    "**Breaking change:** no (internal API only)",
    "Regressions: no",
    "**New dependencies:** no",
    "**Needs a migration:** no",
    "Adds dependencies: no",
    "**Issues addressed:** yes",
    "**Re-verification:** No — initial verification",
]


@pytest.mark.parametrize("field", _AGAINST)
@pytest.mark.parametrize("place", [_above, _below])
@pytest.mark.parametrize("strict", [False, True])
def test_an_answer_against_the_change_refuses(field: str, place: object, strict: bool) -> None:
    assert callable(place)
    verdict = parse_verdict(place(field), strict=strict)
    assert not verdict.approved, verdict.reasons


@pytest.mark.parametrize("field", _WITH)
@pytest.mark.parametrize("place", [_above, _below])
def test_an_answer_with_the_change_approves(field: str, place: object) -> None:
    assert callable(place)
    verdict = parse_verdict(place(field))
    assert verdict.approved, verdict.reasons


@pytest.mark.parametrize(
    "line",
    [
        "Broader test coverage note: No single test exercises the full path",
        "**Scope:** auth module",
        "**Answer:** yes, see above",
        "Rollback safe — no",
    ],
)
def test_a_value_that_goes_on_past_the_answer_is_not_an_answer_field(line: str) -> None:
    assert answer_against_field(line) is None


@settings(deadline=None)  # a shared machine's load, not the parse, decides the time
@given(
    key=st.sampled_from(["Rollback safe", "Backward compatible", "Idempotent", "Tests added"]),
    no=st.sampled_from(["no", "No", "NO", "false", "n", "nope"]),
    note=st.sampled_from(["", " (see below)", " — the down step drops data", "."]),
)
def test_a_no_to_a_key_naming_no_problem_never_approves(key: str, no: str, note: str) -> None:
    for place in (_above, _below):
        assert not parse_verdict(place(f"**{key}:** {no}{note}")).approved
