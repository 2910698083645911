"""The fleet's `global_concurrency`, stored once per queue: the first `run --queue` or worker
that names one stores it (insert if absent: of two writers at once, exactly one value is
stored); a later command naming another value is refused (exit 2) with the stored one named;
the same value, or none, is fine, and a worker that names none applies the stored one."""

from __future__ import annotations

import os
import subprocess
import sys
import threading
from pathlib import Path

import pytest

from _plan_runs import make_plan, repo_with, run_args
from mergegate.config import load_config
from mergegate.engine import Worker, WorkerOptions, settle_global_concurrency
from mergegate.errors import UsageError
from mergegate.store import QUEUE, Tables


def _stored(database_url: str) -> int | None:
    db = Tables(database_url)
    try:
        return db.queue_limit(QUEUE)
    finally:
        db.dispose()  # its connections closed now, not by the garbage collector later


def _race(writers: list[Tables], queue: str) -> dict[int, int]:
    """Both writers claim `queue` at once (3 and 7); what each was told is stored."""
    start = threading.Barrier(2)
    seen: dict[int, int] = {}

    def claim(i: int) -> None:
        start.wait()
        seen[i] = writers[i].claim_queue_limit(queue, 3 + i * 4)

    threads = [threading.Thread(target=claim, args=(i,)) for i in (0, 1)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(30)
    return seen


def test_of_two_writers_at_once_exactly_one_value_is_stored(database_url: str) -> None:
    # each writer its own tables object (its own connections), as two processes have
    writers = [Tables(database_url), Tables(database_url)]
    try:
        writers[0].queue_limit("warm-up")  # the migrations out of the race
        for round_ in range(8):
            queue = f"q{round_}"
            seen = _race(writers, queue)
            assert seen[0] == seen[1] in (3, 7), seen  # one winner; both see its value
            assert writers[0].queue_limit(queue) == writers[1].queue_limit(queue) == seen[0]
    finally:
        for writer in writers:
            writer.dispose()


def test_a_conflicting_value_is_refused_naming_the_stored_one(database_url: str) -> None:
    assert settle_global_concurrency(database_url, None) is None  # nothing named: no cap
    assert settle_global_concurrency(database_url, 4) == 4  # the first to name it stores it
    assert settle_global_concurrency(database_url, 4) == 4  # the same value is fine
    assert settle_global_concurrency(database_url, None) == 4  # none named: the stored one
    with pytest.raises(UsageError, match="--global-concurrency 5 conflicts") as refused:
        settle_global_concurrency(database_url, 5)
    assert refused.value.exit_code == 2
    assert "global concurrency 4" in str(refused.value)
    assert _stored(database_url) == 4  # the refusal changed nothing


def _cli(args: list[str], env: dict[str, str], cwd: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "mergegate", *args],
        capture_output=True,
        text=True,
        env=env,
        cwd=cwd,
        timeout=120,
        check=False,
    )


@pytest.mark.fleet
def test_run_queue_and_worker_with_another_value_are_refused(
    tmp_path: Path, postgres_url: str
) -> None:
    repo = repo_with(tmp_path / "repo")
    plan = tmp_path / "plan.json"
    plan.write_text(make_plan({"P1": {"U01": {}}}).model_dump_json(by_alias=True))
    env = {**os.environ, "MERGEGATE_STATE_DIR": str(tmp_path / "state")}
    env["MERGEGATE_DATABASE_URL"] = postgres_url
    settle_global_concurrency(postgres_url, 3)  # an earlier run --queue named 3
    queued = _cli(
        [*run_args(repo, "true", "true", str(plan)), "--queue", "--global-concurrency", "5"],
        env,
        repo,
    )
    assert queued.returncode == 2, queued.stderr
    assert "--global-concurrency 5 conflicts with the fleet's global concurrency 3" in (
        queued.stderr
    )
    assert not (tmp_path / "state" / "runs").exists() or not any(
        (tmp_path / "state" / "runs").iterdir()
    )  # nothing was queued
    worker = _cli(
        ["worker", "--id", "w9", "--global-concurrency", "6", "--workdir", str(tmp_path / "w9")],
        env,
        repo,
    )
    assert worker.returncode == 2, worker.stderr
    assert "--global-concurrency 6 conflicts with the fleet's global concurrency 3" in (
        worker.stderr
    )
    assert _stored(postgres_url) == 3


@pytest.mark.fleet
def test_a_worker_applies_a_value_stored_after_it_started(
    tmp_path: Path, postgres_url: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("MERGEGATE_DATABASE_URL", postgres_url)
    config = load_config(tmp_path)
    worker = Worker(WorkerOptions("w1", tmp_path / "w1"), config, lambda _run, _event: None)
    applied: list[int | None] = []
    monkeypatch.setattr(worker.engine, "limit_queue", applied.append)
    worker._follow_global_limit()
    assert applied == []  # nothing stored: nothing to apply
    settle_global_concurrency(postgres_url, 2)  # a run --queue names 2 later
    worker._follow_global_limit()
    worker._follow_global_limit()
    assert applied == [2]
    assert worker.engine.config.global_concurrency == 2
