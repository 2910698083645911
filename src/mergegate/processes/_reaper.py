"""Escaped descendants: mergegate as subreaper, a tag on every agent's tree, and a sweep that
kills what an agent left behind when its run ends.

A process group is not a tree. An agent can leave its group and session (`setsid`), its parent
(a double fork) and ignore SIGHUP (`nohup`); the group sweep in `_groups` then misses it and it
outlives the run (an approved review once left `setsid sleep 778` running). Three mechanisms
find such a process:

* **Subreaper.** `become_subreaper()` sets `PR_SET_CHILD_SUBREAPER` on the mergegate process
  (Linux ≥ 3.4) the first time it supervises. An orphan of an agent's tree is then reparented
  to mergegate instead of init: it stays our descendant, and its zombie is ours to reap (a
  container whose init does not reap does not fill with zombies of killed escapees).
* **Tag.** Every supervised child gets `MERGEGATE_TREE` with a fresh tag for its run appended
  (colon-separated, so a nested mergegate's agents carry the outer tags too). Descendants
  inherit it through fork, exec and `setsid`; `/proc/<pid>/environ` shows it whoever the parent
  is now, and whether or not mergegate is a subreaper.
* **Observation.** While the run lasts its tree is walked every `OBSERVE_S` and each descendant
  is remembered by (pid, start time), so one that later clears its environment (`env -i`) is
  still known if it was seen attached.

`RunTree.sweep` kills the processes that started after the run's leader and carry its tag,
were seen in its tree, or are in its process group or session (the leader's session: a job
control `setpgid` stays in it) — and every process below them — with
SIGTERM, the grace, SIGKILL, each signal sent through a pidfd after checking the recorded
start time (never to a recycled pid). It reaps, by pid, only zombies it can attribute to the
run; it never calls `waitpid(-1)`, which would steal the exit status of a `subprocess.Popen`
child (ours, or a library user's).

The children the supervisor starts are registered while a gate is held across `Popen`
(`registering`), and a sweep holds the same gate alone to choose its targets (and to reap), so
it never sees a child that was forked and not yet registered, and never signals or reaps a
registered one. Spawns share the gate with each other (`_SpawnGate`): they exclude only a
sweep, never one another, so concurrent units' commands do not queue behind one another's
`fork`/`exec`. The processes of another live run carry another tag and are left to that run.

Not caught: an escapee that leaves the session and clears its environment before its tree is
first observed (a cgroup per run would catch it; docs/sandbox.md says why this is not a
cgroup). Such a process that exits on its own before the sweep stays an unreaped zombie of
mergegate (it holds a pid, nothing runs): it cannot be told from a child the importing program
started itself, whose exit status a reap would steal. Without /proc (not Linux) the sweep does
nothing and the group sweep is all there is.
"""

from __future__ import annotations

import contextlib
import ctypes
import os
import signal
import sys
import threading
import time
import uuid
from collections.abc import Callable, Iterable, Iterator, Mapping

from mergegate.processes._groups import (
    KILL_WAIT_S,
    POLL_S,
    ProcStat,
    proc_stat,
    process_table,
    tree_tags,
)

__all__ = [
    "OBSERVE_S",
    "TREE_ENV",
    "RunTree",
    "become_subreaper",
    "forget_child",
    "is_subreaper",
    "kill_tagged_by",
    "new_tag",
    "registering",
    "supervisor_token",
    "tag_environment",
]

TREE_ENV = "MERGEGATE_TREE"
"""The variable that carries the tags of the supervised runs a process descends from."""
OBSERVE_S = 0.5
"""How often a running agent's tree is walked (a full /proc scan costs a few milliseconds)."""
SWEEP_PASSES = 4
"""Scans of /proc at a run's end while some new process cannot be attributed yet (mid-exec)."""
_KTHREADD = 2
"""The parent of kernel threads, whose environment is always empty."""

_PR_SET_CHILD_SUBREAPER = 36
_PR_GET_CHILD_SUBREAPER = 37


class _SpawnGate:
    """Many spawns at once, or one sweep alone: a sweep waits for the `Popen`s in flight to
    have registered their children, and spawns that arrive while a sweep waits wait for it
    (a sweep is never starved by a steady stream of spawns). Not reentrant."""

    def __init__(self) -> None:
        self._cond = threading.Condition(threading.Lock())
        self._spawning = 0
        self._sweeping = False
        self._sweeps_waiting = 0

    @contextlib.contextmanager
    def spawning(self) -> Iterator[None]:
        with self._cond:
            while self._sweeping or self._sweeps_waiting:
                self._cond.wait()
            self._spawning += 1
        try:
            yield
        finally:
            with self._cond:
                self._spawning -= 1
                if not self._spawning:
                    self._cond.notify_all()

    @contextlib.contextmanager
    def sweeping(self) -> Iterator[None]:
        with self._cond:
            self._sweeps_waiting += 1
            try:
                while self._sweeping or self._spawning:
                    self._cond.wait()
            finally:
                self._sweeps_waiting -= 1
            self._sweeping = True
        try:
            yield
        finally:
            with self._cond:
                self._sweeping = False
                self._cond.notify_all()


_gate = _SpawnGate()
_children_lock = threading.Lock()
"""Guards `_children` itself (held for a set operation only)."""
_children: set[int] = set()
_flag_lock = threading.Lock()
_subreaper_pids: set[int] = set()
"""The pid the flag was set for: a forked child of mergegate is not a subreaper until it asks."""


def _prctl(option: int, arg: object) -> bool:
    if not sys.platform.startswith("linux"):
        return False
    try:
        libc = ctypes.CDLL(None, use_errno=True)
        return int(libc.prctl(option, arg, 0, 0, 0)) == 0
    except (OSError, AttributeError):
        return False


def become_subreaper() -> bool:
    """Make this process the subreaper of its descendants, once; True if it is one.

    Idempotent and thread-safe. The flag belongs to the process, not to mergegate: an importing
    program that supervises agents also becomes the parent of orphans of *any* of its children
    (see docs/sandbox.md); mergegate reaps only those it can attribute to its own runs.
    """
    with _flag_lock:
        if os.getpid() in _subreaper_pids:
            return True
        if _prctl(_PR_SET_CHILD_SUBREAPER, 1):
            _subreaper_pids.add(os.getpid())
            return True
        return False


def is_subreaper() -> bool:
    """What the kernel says (`PR_GET_CHILD_SUBREAPER`); False off Linux."""
    value = ctypes.c_int(0)
    return _prctl(_PR_GET_CHILD_SUBREAPER, ctypes.byref(value)) and value.value == 1


def _register(pid: int) -> None:
    with _children_lock:
        _children.add(pid)


@contextlib.contextmanager
def registering() -> Iterator[Callable[[int], None]]:
    """Hold the spawn gate (shared) across a `Popen`; register the child's pid before leaving."""
    with _gate.spawning():
        yield _register


def forget_child(pid: int) -> None:
    """The child was reaped by its `Popen`: its pid may be reused from now on. (No gate: a
    sweep that still counts the pid as registered only spares a process it might have taken.)"""
    with _children_lock:
        _children.discard(pid)


def _registered() -> frozenset[int]:
    with _children_lock:
        return frozenset(_children)


_tokens: dict[int, str] = {}
_tokens_lock = threading.Lock()


def supervisor_token() -> str:
    """This process's token, the first part of every tag it gives a child (`new_tag`): once
    the process is gone, its token finds whatever it started (`sweep_left_by`). One per
    process: a forked child of mergegate draws its own."""
    with _tokens_lock:
        return _tokens.setdefault(os.getpid(), uuid.uuid4().hex[:16])


def new_tag() -> str:
    """A fresh tag for one child's tree: `<supervisor token>.<random>`."""
    return f"{supervisor_token()}.{uuid.uuid4().hex[:16]}"


def tag_environment(env: Mapping[str, str], tag: str) -> dict[str, str]:
    """`env` with `tag` appended to `MERGEGATE_TREE`."""
    tagged = dict(env)
    previous = tagged.get(TREE_ENV)
    tagged[TREE_ENV] = f"{previous}:{tag}" if previous else tag
    return tagged


def _carries(pid: int, tag: bytes) -> bool | None:
    """True when `pid`'s environment has `tag` in `MERGEGATE_TREE`; None when it cannot be
    told yet: the environment reads empty, as it does for a moment while the process execs
    (`setsid sleep` between its `setsid()` and the new program's start). Gone: False."""
    tags = tree_tags(pid)
    return None if tags is None else tag in tags


def kill_tagged_by(token: str, since_ticks: int, grace_s: float) -> int:
    """Kill every process that carries a tag of `token` (`new_tag`) and started at or after
    `since_ticks`, and every process below one — but this process and its ancestors: what a
    gone supervisor left (`SupervisorRecord.sweep_left`). SIGTERM, the grace, SIGKILL, each
    through a pidfd after checking the start time; how many were signalled. A process caught
    mid-exec is looked at again (at most `SWEEP_PASSES` scans). Without /proc: none."""
    prefix = f"{token}.".encode()
    killed = 0
    for sweep in range(SWEEP_PASSES):
        if sweep:
            time.sleep(POLL_S)
        table = process_table()
        if table is None:
            return killed
        targets, undecided = _tagged(table, prefix, since_ticks)
        for pid, start in targets.items():
            _signal(pid, start, signal.SIGTERM)
        _wait_gone(targets, time.monotonic() + grace_s)
        for pid, start in targets.items():
            _signal(pid, start, signal.SIGKILL)
        _wait_gone(targets, time.monotonic() + KILL_WAIT_S)
        killed += len(targets)
        if not undecided:
            break
    return killed


def _tagged(
    table: Mapping[int, ProcStat], prefix: bytes, since_ticks: int
) -> tuple[dict[int, int], int]:
    """The running processes of `table` with a tag that begins with `prefix` and everything
    below them (pid -> start ticks), this process and its ancestors spared; and how many
    could not be told yet (mid-exec)."""
    spared: set[int] = set()
    pid = os.getpid()
    while pid in table and pid not in spared:
        spared.add(pid)
        pid = table[pid].ppid

    def eligible(pid: int) -> bool:
        stat = table[pid]
        return pid not in spared and stat.state != "Z" and stat.start_ticks >= since_ticks

    def tagged(pid: int, _stat: ProcStat) -> bool | None:
        tags = tree_tags(pid)
        return None if tags is None else any(tag.startswith(prefix) for tag in tags)

    return _trees(table, eligible, tagged)


def _trees(
    table: Mapping[int, ProcStat],
    eligible: Callable[[int], bool],
    root: Callable[[int, ProcStat], bool | None],
) -> tuple[dict[int, int], int]:
    """The eligible processes of `table` that `root` names (True), and everything below them
    (pid -> start ticks); and how many `root` could not tell yet (None: mid-exec). Kernel
    threads are never roots."""
    roots: set[int] = set()
    undecided = 0
    for pid, stat in table.items():
        if not eligible(pid) or stat.ppid == _KTHREADD:
            continue
        named = root(pid, stat)
        if named:
            roots.add(pid)
        elif named is None:
            undecided += 1
    found = roots | _descendants(roots, table)
    return {p: table[p].start_ticks for p in found if p in table and eligible(p)}, undecided


def _wait_gone(targets: Mapping[int, int], deadline: float) -> None:
    while any(_running(pid, start) for pid, start in targets.items()):
        if time.monotonic() >= deadline:
            return
        time.sleep(POLL_S)


def _descendants(roots: Iterable[int], table: Mapping[int, ProcStat]) -> set[int]:
    children: dict[int, list[int]] = {}
    for pid, stat in table.items():
        children.setdefault(stat.ppid, []).append(pid)
    found: set[int] = set()
    stack = list(roots)
    while stack:
        for child in children.get(stack.pop(), ()):
            if child not in found:
                found.add(child)
                stack.append(child)
    return found


def _signal(pid: int, start_ticks: int, sig: int) -> None:
    """Signal `pid` only if it is still the process that started at `start_ticks`."""
    fd: int | None = None
    with contextlib.suppress(OSError):
        fd = os.pidfd_open(pid)  # pins the process: the check below cannot go stale
    try:
        stat = proc_stat(pid)
        if stat is None or stat.start_ticks != start_ticks:
            return
        if fd is not None:
            signal.pidfd_send_signal(fd, sig)
        else:
            os.kill(pid, sig)
    except (ProcessLookupError, PermissionError):
        pass
    finally:
        if fd is not None:
            os.close(fd)


def _running(pid: int, start_ticks: int) -> bool:
    stat = proc_stat(pid)
    return stat is not None and stat.state != "Z" and stat.start_ticks == start_ticks


class RunTree:
    """The processes of one supervised run, for the sweep when the run ends."""

    def __init__(
        self, leader: int, tag: str, leader_start: int | None, *, observe: bool = True
    ) -> None:
        self.leader = leader
        self.tag = tag.encode()
        self.leader_start = leader_start
        self.seen: dict[int, int] = {}
        """Every descendant of the leader seen while it ran: pid -> start ticks."""
        self._observing = observe
        # The first walk waits a period: a run shorter than that has nothing to remember that
        # its tag, group and session do not already tell (and pays no /proc scan for it).
        self._next_observe = time.monotonic() + OBSERVE_S

    def observe(self, now: float) -> None:
        """Remember the leader's current descendants (at most every `OBSERVE_S`); never for
        a tree built with `observe=False` (a sandbox: its PID namespace holds them all)."""
        if not self._observing or self.leader_start is None or now < self._next_observe:
            return
        self._next_observe = now + OBSERVE_S
        table = process_table()
        if table is None:
            return
        for pid in _descendants([self.leader], table):
            self.seen[pid] = table[pid].start_ticks

    def sweep(self, pgid: int, grace_s: float) -> int:
        """Kill what is left of the run outside the leader; returns how many were running.

        A process caught mid-exec cannot be attributed by its environment in that instant, so
        while a scan leaves such a process undecided the scan is made again (at most
        `SWEEP_PASSES` times, `POLL_S` apart): an escape racing the sweep is caught too."""
        if self.leader_start is None:
            return 0
        killed = 0
        for sweep in range(SWEEP_PASSES):
            if sweep:
                time.sleep(POLL_S)
            with _gate.sweeping():  # no child forked and not yet registered in the table
                table = process_table()
                registered = _registered()
            targets, undecided = (
                self._targets(table, pgid, registered) if table is not None else ({}, 0)
            )
            if table is not None:
                self._reap(targets, pgid, table)  # what the group sweep killed
            killed += self._kill(targets, pgid, grace_s)
            if not undecided:
                break
        return killed

    def _kill(self, targets: Mapping[int, int], pgid: int, grace_s: float) -> int:
        if not targets:
            return 0
        for pid, start in targets.items():
            _signal(pid, start, signal.SIGTERM)
        self._wait(targets, pgid, time.monotonic() + grace_s)
        for pid, start in targets.items():
            if _running(pid, start):
                _signal(pid, start, signal.SIGKILL)
        self._wait(targets, pgid, time.monotonic() + KILL_WAIT_S)
        return len(targets)

    def _targets(
        self, table: Mapping[int, ProcStat], pgid: int, registered: frozenset[int]
    ) -> tuple[dict[int, int], int]:
        """Running processes of this run in `table`, and everything below them, but the
        supervisor's `registered` children (both read at once, no spawn in flight); and how
        many processes could not be told apart yet (mid-exec). A pid is signalled only while
        it is the process that started at the start time the table recorded (`_signal`)."""
        me = os.getpid()
        floor = self.leader_start or 0

        def eligible(pid: int) -> bool:
            stat = table[pid]
            return (
                pid != me
                and pid not in registered
                and stat.state != "Z"
                and stat.start_ticks >= floor
            )

        def ours(pid: int, stat: ProcStat) -> bool | None:
            if pgid in (stat.pgid, stat.sid) or self.seen.get(pid) == stat.start_ticks:
                return True  # the run's group, or its session, or seen below the leader
            return _carries(pid, self.tag)

        return _trees(table, eligible, ours)

    def _wait(self, targets: Mapping[int, int], pgid: int, deadline: float) -> None:
        """Until no target runs (or the deadline), reaping the run's zombies that are ours."""
        while True:
            self._reap(targets, pgid)
            if not any(_running(pid, start) for pid, start in targets.items()):
                return
            if time.monotonic() >= deadline:
                return
            time.sleep(POLL_S)

    def _reap(
        self, targets: Mapping[int, int], pgid: int, table: Mapping[int, ProcStat] | None = None
    ) -> None:
        """`waitpid` each zombie child of ours that belongs to this run, by pid."""
        table = process_table() if table is None else table
        if table is None:
            return
        me = os.getpid()
        for pid, stat in table.items():
            if stat.ppid != me or stat.state != "Z":
                continue
            ours = (
                pgid in (stat.pgid, stat.sid)
                or targets.get(pid) == stat.start_ticks
                or self.seen.get(pid) == stat.start_ticks
            )
            with _gate.sweeping():
                if ours and pid not in _registered():
                    with contextlib.suppress(ChildProcessError):
                        os.waitpid(pid, os.WNOHANG)
