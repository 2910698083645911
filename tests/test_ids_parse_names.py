"""The names `mergegate.ids` only wrote now read back too (issue 26 item 2: each with `format`
and `parse`): a run's DBOS application name and units queue, the application versions, the
integration and carrier branches, a phase's check-run id."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from _id_strategies import components, run_ids
from mergegate.ids import (
    IdError,
    app_name_for_run,
    app_version,
    carrier_branch,
    integration_branch,
    parse_app_name_for_run,
    parse_app_version,
    parse_carrier_branch,
    parse_integration_branch,
    parse_phase_check_run_id,
    parse_queue_for_run,
    parse_run_app_version,
    phase_check_run_id,
    queue_for_run,
    run_app_version,
)

versions = st.from_regex(
    r"[0-9]{1,3}\.[0-9]{1,3}\.[0-9]{1,3}([a-z.+-][a-z0-9.]{0,8})?", fullmatch=True
)


@given(run_ids, components, st.integers(1, 10**6))
def test_run_names_round_trip(run: str, name: str, generation: int) -> None:
    assert parse_app_name_for_run(app_name_for_run(run)) == run
    assert parse_queue_for_run(queue_for_run(run)) == run
    assert parse_integration_branch(integration_branch(run)) == run
    assert parse_carrier_branch(carrier_branch(run, name)) == (run, name)
    assert parse_phase_check_run_id(phase_check_run_id(run, name, generation)) == (
        run,
        name,
        generation,
    )


@given(versions, st.integers(0, 10**6), run_ids)
def test_application_versions_round_trip(version: str, schema: int, run: str) -> None:
    made = app_version(version, schema)
    assert parse_app_version(made) == (version, schema)
    assert parse_run_app_version(run_app_version(made, run)) == (made, run)


@pytest.mark.parametrize(
    ("parse", "text"),
    [
        (parse_app_name_for_run, "mergegate-fleet"),
        (parse_app_name_for_run, "mergegate-run-a b"),
        (parse_queue_for_run, "mergegate-units"),
        (parse_queue_for_run, "mergegate-units-../x"),
        (parse_integration_branch, "mergegate-unit/r1/A"),
        (parse_integration_branch, "mergegate/r1/A"),
        (parse_carrier_branch, "mergegate-merge/r1"),
        (parse_carrier_branch, "mergegate/r1/A"),
        (parse_carrier_branch, "mergegate-merge/r1/A/B"),
        (parse_phase_check_run_id, "20260101-120000-abcd-01"),
        (parse_phase_check_run_id, "r1-01-g02"),
        (parse_phase_check_run_id, "20260101-120000-abcd-a b-g02"),
        (parse_app_version, "mergegate-1.2.3"),
        (parse_app_version, "other-1.2.3-e5"),
        (parse_run_app_version, "mergegate-1.2.3-e5"),
        (parse_run_app_version, "-run-20260101-120000-abcd"),
        (parse_run_app_version, "mergegate-1.2.3-e5-run-a/b"),
    ],
)
def test_what_a_name_is_not_is_refused(parse: object, text: str) -> None:
    assert callable(parse)
    with pytest.raises(IdError):
        parse(text)
