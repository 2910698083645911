"""A worker whose database stops answering for a while (issue 28, "one mergegate line per
error"): its routine reads and writes — the beat every 2 s, the look for cancelled runs, the
look for silent workers, the fleet's global concurrency — fail together, and the worker says
so once, in mergegate's one line naming the database (its password redacted), not a line per
beat; and once more when the database answers again. A failure that is not the database
being away is still said each time (it is not an outage, and hiding it would hide a bug)."""

from __future__ import annotations

import contextlib
from collections.abc import Iterator
from pathlib import Path

import psycopg
import pytest

from mergegate.config import load_config
from mergegate.engine._context.run_events import RunEvent
from mergegate.engine._fleet.janitor import BEAT_S, Janitor
from mergegate.engine._fleet.worker import Worker, WorkerOptions

pytestmark = pytest.mark.fleet


@contextlib.contextmanager
def _refusing(postgres_url: str) -> Iterator[None]:
    """The test's database refuses every connection (those open are ended) until the end."""
    head, _, name = postgres_url.rpartition("/")
    with psycopg.connect(f"{head}/postgres", autocommit=True) as admin:
        admin.execute(f'ALTER DATABASE "{name}" ALLOW_CONNECTIONS false')
        admin.execute(
            "SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = %s", (name,)
        )
        try:
            yield
        finally:
            admin.execute(f'ALTER DATABASE "{name}" ALLOW_CONNECTIONS true')


def test_an_outage_is_one_line_and_its_end_another(
    tmp_path: Path, postgres_url: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("MERGEGATE_DATABASE_URL", postgres_url)
    said: list[str] = []

    def listener(_run_id: str, event: RunEvent) -> None:
        said.append(event.message)

    worker = Worker(WorkerOptions("w1", tmp_path / "w1"), load_config(tmp_path), listener)
    janitor = Janitor(
        postgres_url, "w1", 10.0, lambda _e, _h: [], said.append, outage=worker.outage
    )
    password = postgres_url.rpartition("@")[0].rpartition(":")[2]
    try:
        janitor.started()
        worker._follow_global_limit()
        assert said == []
        with _refusing(postgres_url):
            for _ in range(6):  # 30 s of ticks: beats, looks for cancelled and silent workers
                janitor.tick(5.0)
                worker._follow_global_limit()
        [line] = said
        assert line.startswith("the database postgresql://postgres:***@127.0.0.1:"), line
        assert "cannot be reached" in line, line
        assert "is not currently accepting connections" in line, line
        assert "retrying" in line, line
        assert password not in line
        for _ in range(3):
            janitor.tick(BEAT_S)
            worker._follow_global_limit()
        assert len(said) == 2, said
        assert said[1].startswith("the database postgresql://postgres:***@"), said
        assert "answers again" in said[1], said
    finally:
        janitor.stopped()


def test_a_failure_that_is_not_an_outage_is_said_each_time(
    tmp_path: Path, postgres_url: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    said: list[str] = []

    def broken(_dead: str, _here: bool) -> list[str]:
        raise RuntimeError("a bug")

    janitor = Janitor(postgres_url, "w1", 10.0, broken, said.append)
    monkeypatch.setattr("mergegate.engine._fleet.janitor.executor_work", lambda *_a, **_k: ["held"])
    other = Janitor(postgres_url, "w2", None, lambda _e, _h: [], said.append)
    try:
        other.started()
        other._roll._engine.dispose()
        janitor.started()
        with psycopg.connect(postgres_url, autocommit=True) as conn:
            conn.execute("UPDATE mergegate_workers SET beat_at = now() - interval '1 hour'")
        janitor.tick(5.0)
        janitor.tick(5.0)
        assert said == ["could not look for silent workers: RuntimeError: a bug"] * 2
    finally:
        janitor.stopped()
        other.stopped()
