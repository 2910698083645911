"""The reaper's spawn gate: spawns never wait for one another, only for a sweep; a sweep waits
for every spawn in flight to have registered its child, and is not starved by new ones."""

from __future__ import annotations

import threading
import time

from mergegate.processes import _reaper
from mergegate.processes._reaper import forget_child, registering

WAIT_S = 5.0


def hold_spawn(entered: threading.Event, release: threading.Event) -> threading.Thread:
    """A thread inside `registering()` (as across a `Popen`) until `release`."""

    def body() -> None:
        with registering():
            entered.set()
            release.wait(WAIT_S)

    thread = threading.Thread(target=body, daemon=True)
    thread.start()
    assert entered.wait(WAIT_S)
    return thread


def test_two_spawns_are_in_flight_at_once() -> None:
    """Concurrent units' commands do not queue behind one another's fork and exec (they did
    behind one lock held across each `Popen`)."""
    release = threading.Event()
    first = hold_spawn(threading.Event(), release)
    second_in = threading.Event()
    second = hold_spawn(second_in, release)  # asserts it entered while the first is inside
    release.set()
    first.join(WAIT_S)
    second.join(WAIT_S)


def test_a_sweep_waits_for_the_spawn_in_flight() -> None:
    release = threading.Event()
    spawn = hold_spawn(threading.Event(), release)
    swept = threading.Event()

    def sweep() -> None:
        with _reaper._gate.sweeping():
            swept.set()

    sweeper = threading.Thread(target=sweep, daemon=True)
    sweeper.start()
    assert not swept.wait(0.3)  # a child forked and not yet registered: the sweep waits
    release.set()
    assert swept.wait(WAIT_S)
    spawn.join(WAIT_S)
    sweeper.join(WAIT_S)


def test_a_spawn_that_comes_while_a_sweep_waits_goes_after_it() -> None:
    """A steady stream of spawns cannot keep a sweep out for ever."""
    release = threading.Event()
    spawn = hold_spawn(threading.Event(), release)
    order: list[str] = []

    def sweep() -> None:
        with _reaper._gate.sweeping():
            order.append("sweep")

    sweeper = threading.Thread(target=sweep, daemon=True)
    sweeper.start()
    deadline = time.monotonic() + WAIT_S
    while not _reaper._gate._sweeps_waiting and time.monotonic() < deadline:
        time.sleep(0.01)
    late_in = threading.Event()

    def late() -> None:
        with registering():
            order.append("spawn")
            late_in.set()

    latecomer = threading.Thread(target=late, daemon=True)
    latecomer.start()
    assert not late_in.wait(0.3)
    release.set()
    assert late_in.wait(WAIT_S)
    for thread in (spawn, sweeper, latecomer):
        thread.join(WAIT_S)
    assert order == ["sweep", "spawn"]


def test_a_registered_child_is_forgotten_without_the_gate() -> None:
    """Forgetting a reaped child never waits for a spawn in flight or a sweep."""
    with registering() as register:
        register(999_999_999)
    release = threading.Event()
    spawn = hold_spawn(threading.Event(), release)
    done = threading.Event()
    threading.Thread(target=lambda: (forget_child(999_999_999), done.set()), daemon=True).start()
    assert done.wait(WAIT_S)
    assert 999_999_999 not in _reaper._registered()
    release.set()
    spawn.join(WAIT_S)
