"""Contract tests: the DBOS 3.4 behaviours a mergegate fleet relies on, on PostgreSQL (and, where
one machine has the same behaviour, on SQLite too).

Real worker processes of `tests/fleet_programs/fleet_app.py` share one database; the test
SIGKILLs them inside a step, the way a host dies. If a DBOS upgrade changes any of this, these
tests fail before a fleet loses or doubles a unit. What is pinned (docs/fleet.md has the why):

* a worker killed inside a step leaves its workflow PENDING under its executor id; a process
  started with the same id recovers it at launch; a completed step never runs again, the step
  in flight runs again (at least once);
* a survivor does NOT take over a dead executor's workflow on its own; an admin call re-enqueues
  it for the survivors: `DBOS._recover_pending_workflows([dead])` (internal in 3.4), or the
  public `DBOSClient.list_workflows` + `resume_workflow` onto the workflow's own queue; either
  is a no-op the second time;
* a queue's `worker_concurrency` caps each worker process and `global_concurrency` caps all of
  them together; both live with the queue in the database (one value for every worker), so
  mergegate's engine stores a `worker_concurrency` of 0 there and each of its processes
  dequeues with its own number (1 on one worker, 3 on another, whichever starts last);
* several workers dequeueing one queue never run one item twice.
"""

from __future__ import annotations

import time
from collections import Counter
from collections.abc import Iterator
from pathlib import Path

import pytest

from _fleet import QUEUE, Fleet, peak_overlap, wait_for

pytestmark = pytest.mark.fleet

STEPS = ["a", "b-start", "b-end", "c"]


@pytest.fixture
def pg_fleet(postgres_url: str, tmp_path: Path) -> Iterator[Fleet]:
    fleet = Fleet(postgres_url, tmp_path)
    yield fleet
    fleet.close()


@pytest.fixture(params=["sqlite", "postgres"])
def any_fleet(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[Fleet]:
    if request.param == "sqlite":
        db = f"sqlite:///{tmp_path / 'dbos.sqlite'}"
    else:
        db = request.getfixturevalue("postgres_url")
    fleet = Fleet(db, tmp_path)
    yield fleet
    fleet.close()


def _kill_inside_step_b(fleet: Fleet, item: str) -> str:
    """Wait until some worker is inside step b of `item`, SIGKILL it, return its id."""
    started = wait_for(lambda: fleet.events("b-start", item), 60, f"step b of {item}")
    dead = started[0].executor
    fleet.kill(dead)
    return dead


def test_a_killed_worker_resumes_under_its_own_id(any_fleet: Fleet) -> None:
    fleet = any_fleet
    fleet.block.touch()
    fleet.start("w1")
    fleet.enqueue(["unit-0"])
    _kill_inside_step_b(fleet, "unit-0")
    assert fleet.statuses(["unit-0"]) == {"unit-0": ("PENDING", "w1")}
    fleet.block.unlink()

    fleet.start("w1")  # the same executor id: DBOS recovers its pending work at launch
    assert fleet.wait_done(["unit-0"]) == {"unit-0": ("SUCCESS", "w1")}
    events = fleet.events(item="unit-0")
    # a: done before the kill, never again; b: in flight, run again; c: once, after recovery.
    assert [e.name for e in events] == ["a", "b-start", "b-start", "b-end", "c"]
    old, new = events[0].pid, events[-1].pid
    assert [e.pid for e in events] == [old, old, new, new, new]
    assert old != new
    assert fleet.client.retrieve_workflow("unit-0").get_result() == "unit-0bc"


@pytest.mark.parametrize("via", ["internal", "public"])
def test_a_dead_workers_unit_is_recovered_onto_a_survivor(pg_fleet: Fleet, via: str) -> None:
    fleet = pg_fleet
    fleet.block.touch()
    fleet.start("w1", wait=False)
    fleet.start("w2", wait=False)
    for executor in ("w1", "w2"):
        fleet.wait_ready(executor, fleet.workers[executor].pid)
    fleet.enqueue(["unit-0"])
    dead = _kill_inside_step_b(fleet, "unit-0")
    survivor = "w2" if dead == "w1" else "w1"
    fleet.block.unlink()

    time.sleep(1.5)  # fifteen polls of the survivor: it does not take the unit on its own
    assert fleet.statuses(["unit-0"]) == {"unit-0": ("PENDING", dead)}
    assert len(fleet.events("b-start", "unit-0")) == 1

    assert fleet.recover(dead, via) == ["unit-0"]
    assert fleet.wait_done(["unit-0"]) == {"unit-0": ("SUCCESS", survivor)}
    assert fleet.recover(dead, via) == []  # nothing is left under the dead id
    # Back on its own queue (with its limits), not on DBOS's internal one.
    assert fleet.client.retrieve_workflow("unit-0").get_status().queue_name == QUEUE
    events = fleet.events(item="unit-0")
    assert [(e.name, e.executor) for e in events] == [
        ("a", dead),  # completed before the kill: not executed again
        ("b-start", dead),
        ("b-start", survivor),  # the step in flight: executed again, on the survivor
        ("b-end", survivor),
        ("c", survivor),
    ]
    assert fleet.client.retrieve_workflow("unit-0").get_result() == "unit-0bc"


def test_worker_and_global_concurrency_hold_across_workers(pg_fleet: Fleet) -> None:
    fleet = pg_fleet
    workers = ("w1", "w2", "w3")
    for executor in workers:
        fleet.start(executor, worker_concurrency=2, global_concurrency=3, wait=False)
    for executor in workers:
        fleet.wait_ready(executor, fleet.workers[executor].pid)
    ids = [f"unit-{i}" for i in range(9)]
    fleet.enqueue(ids, sleep_s=0.6)
    assert set(fleet.wait_done(ids).values()) <= {("SUCCESS", w) for w in workers}

    starts = {e.item: e for e in fleet.events("b-start")}
    ends = {e.item: e for e in fleet.events("b-end")}
    assert sorted(starts) == sorted(ends) == sorted(ids)
    spans = {item: (starts[item].at, ends[item].at) for item in ids}
    by_worker = {w: [spans[i] for i in ids if starts[i].executor == w] for w in workers}
    assert max(peak_overlap(s) for s in by_worker.values()) <= 2  # worker_concurrency
    assert peak_overlap(spans.values()) == 3  # global_concurrency: reached, never passed
    queue = fleet.client.retrieve_queue(QUEUE)
    assert queue is not None
    assert (queue.worker_concurrency, queue.global_concurrency) == (2, 3)


@pytest.mark.parametrize("global_concurrency", [None, 6])
def test_several_workers_never_run_one_item_twice(
    pg_fleet: Fleet, global_concurrency: int | None
) -> None:
    # Without a global limit DBOS dequeues with SKIP LOCKED; with one, under REPEATABLE READ
    # with NOWAIT (a worker that meets a lock skips that poll). Both must hand out each item once.
    fleet = pg_fleet
    workers = ("w1", "w2", "w3", "w4")
    for executor in workers:
        fleet.start(
            executor, worker_concurrency=4, global_concurrency=global_concurrency, wait=False
        )
    for executor in workers:
        fleet.wait_ready(executor, fleet.workers[executor].pid)
    ids = [f"unit-{i}" for i in range(40)]
    fleet.enqueue(ids, sleep_s=0.02)
    done = fleet.wait_done(ids, timeout_s=120)
    assert {status for status, _ in done.values()} == {"SUCCESS"}
    counts = Counter((e.item, e.name) for e in fleet.events() if e.name != "ready")
    assert counts == Counter({(item, step): 1 for item in ids for step in STEPS})
    ran_by = Counter(executor for _, executor in done.values())
    assert len(ran_by) >= 2, ran_by  # the work really was shared


@pytest.mark.parametrize(
    ("last", "global_concurrency"),
    [("w3", None), ("w1", None), ("w1", 3)],
    ids=["bigger-last", "smaller-last", "global-3"],
)
def test_each_worker_keeps_its_own_concurrency(
    pg_fleet: Fleet, last: str, global_concurrency: int | None
) -> None:
    # DBOS 3.4 keeps a queue's `worker_concurrency` in its row, re-read by every worker on each
    # poll: the last registration would win for all. mergegate's engine stores 0 there and each
    # process dequeues with its own number (`store/_dbos.py`, `_dequeue_with_own_limit`); this
    # fails if a DBOS upgrade stops the override (both workers then take nothing, or the last
    # one's number) while `global_concurrency` stays one number for the fleet.
    fleet = pg_fleet
    limits = {"w1": 1, "w3": 3}
    for executor in sorted(limits, key=lambda w: w == last):  # `last` registers last
        fleet.start(
            executor,
            worker_concurrency=limits[executor],
            global_concurrency=global_concurrency,
            engine=True,
        )
    queue = fleet.client.retrieve_queue(QUEUE)
    assert queue is not None
    assert (queue.worker_concurrency, queue.global_concurrency) == (0, global_concurrency)

    ids = [f"unit-{i}" for i in range(12)]
    fleet.enqueue(ids, sleep_s=0.8)
    assert set(fleet.wait_done(ids).values()) <= {("SUCCESS", w) for w in limits}
    starts = {e.item: e for e in fleet.events("b-start")}
    ends = {e.item: e for e in fleet.events("b-end")}
    assert sorted(starts) == sorted(ends) == sorted(ids)
    spans = {item: (starts[item].at, ends[item].at) for item in ids}
    peaks = {w: peak_overlap([spans[i] for i in ids if starts[i].executor == w]) for w in limits}
    if global_concurrency is None:
        # each at its own limit, and at the same moment: both were busy, together 1 + 3
        assert peaks == limits
        assert peak_overlap(spans.values()) == 4
    else:
        assert all(peaks[w] <= limits[w] for w in limits), peaks
        assert peak_overlap(spans.values()) == global_concurrency  # reached, never passed
