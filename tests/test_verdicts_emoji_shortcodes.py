"""An emoji written as its shortcode beside the verdict (issue 23, white-box round 21).

GitHub draws `:warning:` as ⚠, so `**Verdict:** APPROVED :warning:` renders as the refused
`APPROVED ⚠`; the symbol rule read characters only, and the ASCII shortcode passed. A
shortcode is read as its symbol: decoration only when it names one on the decoration list
(`_accounting._DECORATION_NAMES`), in a code span never (it renders as text).
"""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from mergegate.verdicts import parse_verdict
from mergegate.verdicts._accounting import _DECORATION_NAMES

_BODY = "# Review\n\n## Summary\n\nAdds backoff to the uploader; tests cover it.\n\n## Verdict\n\n"


@pytest.mark.parametrize(
    "verdict",
    [
        "**Verdict:** APPROVED :warning:",
        "**Verdict:** APPROVED :no_entry:",
        "Ready to merge? Yes :hourglass_flowing_sand:",
        "**Verdict:** APPROVED :ng:",
        "| Verdict | APPROVED :construction: |",
        "**Verdict:** APPROVED — :x: e2e",
    ],
)
@pytest.mark.parametrize("strict", [False, True])
def test_a_shortcode_of_no_decoration_beside_the_verdict_refuses(
    verdict: str, strict: bool
) -> None:
    text = _BODY + ("| Field | Value |\n|---|---|\n" if verdict.startswith("|") else "")
    result = parse_verdict(text + verdict + "\n", strict=strict)
    assert not result.approved
    assert "shortcode" in " ".join(result.reasons)


@pytest.mark.parametrize(
    "verdict",
    [
        "**Verdict:** APPROVED :white_check_mark:",
        "**Verdict:** APPROVED :tada: :rocket:",
        "**Verdict:** APPROVED `:warning:` is the log prefix",
        "**Verdict:** APPROVED at 12:30:45 UTC",
        "Verdict:APPROVED:",
    ],
)
def test_a_decoration_shortcode_or_no_shortcode_approves(verdict: str) -> None:
    assert parse_verdict(_BODY + verdict + "\n").approved


_NAME = st.from_regex(r"[a-z][a-z0-9_]{0,20}", fullmatch=True)


@given(name=_NAME)
def test_any_shortcode_approves_exactly_when_it_names_decoration(name: str) -> None:
    approved = parse_verdict(_BODY + f"**Verdict:** APPROVED :{name}:\n").approved
    assert approved is (name in _DECORATION_NAMES)
