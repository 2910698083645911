"""Work still to come ('the rollback is still open') is read once per clause, not once per
match: a line of thousands of denied matches ('nothing is still open, …' without a clause
break) costs what its length costs. Each match used to look back to its clause's start
and search it again for a negation, quadratic in the matches on one line."""

from __future__ import annotations

import time

from hypothesis import given
from hypothesis import strategies as st

from mergegate.verdicts._statement import _still_to_come

_DENIED_MATCH = "nothing still open "


def _best_seconds(text: str) -> float:
    best = float("inf")
    for _ in range(3):
        start = time.perf_counter()
        _still_to_come(text)
        best = min(best, time.perf_counter() - start)
    return best


def test_a_line_of_forty_thousand_denied_matches_is_read_in_linear_time() -> None:
    small, large = _DENIED_MATCH * 2_000, _DENIED_MATCH * 40_000
    assert _still_to_come(large) is None  # every match is denied by its 'nothing'
    # twenty times the text: linear measures about 25x here, quadratic (ef9564b) over 130x
    assert _best_seconds(large) < 60 * _best_seconds(small)


@given(denied=st.integers(min_value=0, max_value=300), tail=st.sampled_from([".", ", ", "; "]))
def test_the_first_match_after_a_clause_break_is_found(denied: int, tail: str) -> None:
    line = _DENIED_MATCH * denied + tail + "the migration is still open"
    found = _still_to_come(line)
    assert found is not None
    assert found.group(0) == "still open"
    assert found.start() == len(line) - len("still open")


@given(words=st.lists(st.sampled_from(["no", "0", "nobody", "x", "still open", ","]), max_size=12))
def test_a_match_is_denied_only_by_a_whole_negation_word_before_it(words: list[str]) -> None:
    line = " ".join(words)
    found = _still_to_come(line)
    for at in (i for i, w in enumerate(words) if w == "still open"):
        clause = words[:at]
        if "," in clause:
            clause = clause[len(clause) - clause[::-1].index(",") :]
        if "no" not in clause and "0" not in clause:
            assert found is not None
            return
    assert found is None
