"""A field in the verdict's own section whose value says the work is unfinished (issue 23):
a no answering a key that names a state of the work (`Load-tested: not yet`), a count of
part of a whole (`Locales translated: 3 of 11`) or a result still under way (`Rollout: in
progress`). Its shape is metadata's, so by default it was accounted as carrying no decision
and the approval above it stood. Fields that name a thing answered no, whole counts, dates
and grades still approve."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from mergegate.verdicts import parse_verdict

_HEAD = "## Review\n\nI read the diff and ran the suite.\n\n**Verdict:** LGTM\n\n"


@pytest.mark.parametrize(
    "field",
    [
        "Load-tested: not yet",
        "**Benchmarked:** no",
        "- Documented: never",
        "Accessibility checked: no (Priya is out)",
        "Locales translated: 3 of 11",
        "- **Endpoints audited:** 5/9",
        "Rollout: in progress",
        "Data backfill: incomplete",
    ],
)
@pytest.mark.parametrize("strict", [False, True])
def test_a_field_saying_the_work_is_unfinished_refuses(field: str, strict: bool) -> None:
    verdict = parse_verdict(_HEAD + field + "\n", strict=strict)
    assert not verdict.approved


@pytest.mark.parametrize(
    "field",
    [
        "Breaking changes: no",
        "Needs a migration: no",
        "New dependencies: none",
        "Checked: no regressions in the nightly run",
        "Suites run: 48/48",
        "Score: 7/8",
        "Date: 03/11/2026",
        "Severity of the nits: non-blocking",
        "Reviewer: Claude (code-reviewer)",
    ],
)
def test_fields_naming_a_thing_a_whole_count_or_a_date_approve(field: str) -> None:
    assert parse_verdict(_HEAD + field + "\n").approved


@given(
    done=st.integers(min_value=0, max_value=40),
    more=st.integers(min_value=1, max_value=40),
)
def test_any_count_of_part_of_the_files_refuses(done: int, more: int) -> None:
    field = f"Files read: {done} of {done + more}"
    assert not parse_verdict(_HEAD + field + "\n").approved


@given(whole=st.integers(min_value=1, max_value=400))
def test_a_count_of_the_whole_approves(whole: int) -> None:
    assert parse_verdict(_HEAD + f"Files read: {whole} of {whole}\n").approved


# A degree short of whole answering a state key is a no in part ('Migrated: mostly').
@pytest.mark.parametrize(
    "field",
    ["Migrated: mostly", "**Spell-checked:** partly, the API pages remain", "Done: halfway"],
)
@pytest.mark.parametrize("strict", [False, True])
def test_a_state_done_in_part_refuses(field: str, strict: bool) -> None:
    assert not parse_verdict(_HEAD + field + "\n", strict=strict).approved


@pytest.mark.parametrize("field", ["Migrated: all tables", "Translated: every page"])
def test_a_whole_state_or_a_thing_in_part_approves(field: str) -> None:
    assert parse_verdict(_HEAD + field + "\n").approved


def _rows(*rows: str) -> str:
    return "\n".join(["| Check | Result |", "|---|---|", *rows]) + "\n"


# A table below the verdict is a record of checks: a cell counting part of a whole is one.
@pytest.mark.parametrize(
    "table",
    [
        _rows("| Lint | clean |", "| Screens reviewed | 4 of 9 |"),
        _rows("| Contract tests | 17/20 green |"),
    ],
)
@pytest.mark.parametrize("strict", [False, True])
def test_a_table_cell_counting_part_of_a_whole_refuses(table: str, strict: bool) -> None:
    assert not parse_verdict(_HEAD + table, strict=strict).approved


@pytest.mark.parametrize(
    "table",
    [
        _rows("| Screens reviewed | 9 of 9 |", "| Contract tests | 20/20 green |"),
        _rows("| Release date | 14/03/2026 |"),
    ],
)
def test_a_table_of_whole_counts_and_dates_approves(table: str) -> None:
    assert parse_verdict(_HEAD + table).approved
