"""The run engine's crash test again, with the run's durable state in Postgres
(`MERGEGATE_DATABASE_URL`) instead of its own SQLite file: the same convergence after seeded
SIGKILLs, and the reference run and the crashed run share the database without touching each
other's workflows (each run is its own DBOS application)."""

from __future__ import annotations

from pathlib import Path

import pytest

from test_run_crash import crash_and_converge

pytestmark = pytest.mark.fleet

KILLS = 10


@pytest.mark.slow
@pytest.mark.timeout(600)
def test_sigkill_at_random_moments_then_resume_converges_on_postgres(
    tmp_path: Path, postgres_url: str
) -> None:
    # a checkpoint on Postgres is a network round trip and a commit (7.7 ms measured idle, far
    # more on 2 loaded cores): a kill up to 2 s after a reviewer ended may precede its record
    crash_and_converge(
        tmp_path,
        KILLS,
        {"MERGEGATE_DATABASE_URL": postgres_url},
        record_s=2.0,
    )
    # the state was in Postgres: no run made a SQLite file of its own
    assert list(tmp_path.rglob("*.sqlite")) == []
