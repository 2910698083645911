"""Process groups seen through /proc: who is in a group, when a process started, and killing
a group safely: never a recycled pid, never a process the supervisor did not start."""

from __future__ import annotations

import os
import signal
import socket
import time
from collections.abc import Iterable
from pathlib import Path
from typing import BinaryIO, NamedTuple

from mergegate.processes._values import ProcessRecord

__all__ = [
    "KILL_WAIT_S",
    "POLL_S",
    "ProcStat",
    "boot_id",
    "carries_tag",
    "clear_group",
    "group_members",
    "host_name",
    "kill_recorded_group",
    "kill_recorded_groups",
    "killpg",
    "leader_exited",
    "made_here",
    "pid_namespace",
    "proc_stat",
    "process_start_ticks",
    "process_table",
    "read_stat",
]

POLL_S = 0.05
KILL_WAIT_S = 5.0


class ProcStat(NamedTuple):
    """The fields of `/proc/<pid>/stat` the supervisor uses."""

    state: str
    ppid: int
    pgid: int
    sid: int
    start_ticks: int


def proc_stat(pid: int) -> ProcStat | None:
    """State, parent, group and start time of a pid from /proc; None if gone or unavailable.

    A zombie keeps them until it is reaped, which is what lets the reaper attribute one.
    """
    try:
        fd = os.open(f"/proc/{pid}/stat", os.O_RDONLY)
    except OSError:
        return None
    try:
        raw = os.read(fd, 4096)
    except OSError:
        return None
    finally:
        os.close(fd)
    # The command name is in parentheses and may itself hold spaces or parentheses.
    fields = raw[raw.rfind(b")") + 2 :].split()
    try:
        state, ppid, pgid, sid = fields[0].decode(), int(fields[1]), int(fields[2]), int(fields[3])
        return ProcStat(state, ppid, pgid, sid, int(fields[19]))
    except (IndexError, ValueError):
        return None


def read_stat(pid: int) -> tuple[str, int, int] | None:
    """(state, pgid, start_ticks) of a pid from /proc, or None if gone or unavailable."""
    stat = proc_stat(pid)
    return (stat.state, stat.pgid, stat.start_ticks) if stat else None


def process_table() -> dict[int, ProcStat] | None:
    """Every visible process by pid; None when /proc is unavailable (not Linux)."""
    try:
        names = os.listdir("/proc")
    except OSError:
        return None
    if "self" not in names:
        return None
    table = {}
    for name in names:
        if name.isdigit() and (stat := proc_stat(int(name))) is not None:
            table[int(name)] = stat
    return table


def process_start_ticks(pid: int) -> int | None:
    """The start time of `pid` in clock ticks since boot, or None (gone, or not Linux)."""
    stat = read_stat(pid)
    return stat[2] if stat else None


def host_name() -> str:
    """This machine's name (`socket.gethostname()`), recorded with each process the
    supervisor starts: a pid recorded under another name is never signalled here."""
    return socket.gethostname()


def boot_id() -> str | None:
    try:
        return Path("/proc/sys/kernel/random/boot_id").read_text().strip()
    except OSError:
        return None


def pid_namespace() -> str | None:
    """This process's PID namespace (`pid:[4026531836]`), or None where it cannot be read."""
    try:
        return os.readlink("/proc/self/ns/pid")
    except OSError:
        return None


_TREE_PREFIX = b"MERGEGATE_TREE="
_ENVIRON_CAP = 8 << 20
_ENVIRON_PIECE = 64 << 10


def tree_tags(pid: int) -> tuple[bytes, ...] | None:
    """The supervised runs' tags in `pid`'s environment as it started (`MERGEGATE_TREE`):
    empty when it has none, is gone or is another user's; None when its environment cannot
    be read, or reads empty, as it does for a moment while the process execs."""
    try:
        with open(f"/proc/{pid}/environ", "rb") as handle:
            raw = _read_capped(handle)
    except (FileNotFoundError, ProcessLookupError, PermissionError):
        return ()  # gone, or another user's: not a process this one started
    except OSError:
        return None
    if not raw:
        return None
    for entry in raw.split(b"\0"):
        if entry.startswith(_TREE_PREFIX):
            return tuple(entry[len(_TREE_PREFIX) :].split(b":"))
    return ()


def _read_capped(handle: BinaryIO) -> bytes:
    """Up to `_ENVIRON_CAP` bytes, read in pieces: `read(_ENVIRON_CAP)` would allocate the
    whole cap (8 MiB) for every process walked, though an environment is a few KiB."""
    pieces: list[bytes] = []
    size = 0
    while size < _ENVIRON_CAP and (piece := handle.read(min(_ENVIRON_PIECE, _ENVIRON_CAP - size))):
        pieces.append(piece)
        size += len(piece)
    return b"".join(pieces)


def carries_tag(pid: int, tag: str) -> bool:
    """True when `pid`'s environment (as it started) has `tag` among the supervised runs'
    tags in `MERGEGATE_TREE`. False when it does not, when it is gone, or when its
    environment cannot be read: then it cannot be shown to be a process mergegate started."""
    return tag.encode() in (tree_tags(pid) or ())


def group_members(pgid: int) -> list[int] | None:
    """Live (non-zombie) pids in process group `pgid`; None when /proc is unavailable."""
    try:
        names = os.listdir("/proc")
    except OSError:
        return None
    if "self" not in names:
        return None
    members = []
    for name in names:
        if name.isdigit():
            stat = read_stat(int(name))
            if stat and stat[1] == pgid and stat[0] != "Z":
                members.append(int(name))
    return members


def killpg(pgid: int, sig: int) -> bool:
    try:
        os.killpg(pgid, sig)
    except ProcessLookupError:
        return False
    except PermissionError:
        return False
    return True


def leader_exited(pid: int) -> bool:
    """True once `pid` has exited; it stays unreaped (a zombie) so its ids cannot be reused."""
    try:
        return os.waitid(os.P_PID, pid, os.WEXITED | os.WNOHANG | os.WNOWAIT) is not None
    except ChildProcessError:
        return True


def clear_group(pgid: int, leader: int, grace_s: float) -> int:
    """Kill what is left in the group after the leader exited; returns how many were left."""
    seen = group_members(pgid)
    if seen is None:
        # No /proc: we cannot see the group, so signal it blindly (the zombie leader pins it).
        killpg(pgid, signal.SIGKILL)
        return 0
    members = [pid for pid in seen if pid != leader]
    if not members:
        return 0
    killpg(pgid, signal.SIGTERM)
    deadline = time.monotonic() + grace_s
    while time.monotonic() < deadline:
        if not [pid for pid in (group_members(pgid) or []) if pid != leader]:
            return len(members)
        time.sleep(POLL_S)
    killpg(pgid, signal.SIGKILL)
    deadline = time.monotonic() + KILL_WAIT_S
    while time.monotonic() < deadline and [p for p in group_members(pgid) or [] if p != leader]:
        time.sleep(POLL_S)
    return len(members)


def kill_recorded_groups(records: Iterable[ProcessRecord], grace_s: float = 2.0) -> int:
    """`kill_recorded_group` for each record whose group still has a live member, found with
    one scan of /proc (a crashed run leaves hundreds of records, nearly all of finished
    processes); how many groups were signalled. Without /proc: each record on its own."""
    table = process_table()
    if table is None:
        return sum(kill_recorded_group(r, grace_s) for r in records)
    live = {stat.pgid for stat in table.values() if stat.state != "Z"}
    return sum(kill_recorded_group(r, grace_s) for r in records if r.pgid in live)


def made_here(record: ProcessRecord) -> bool:
    """The record was made on this boot of this machine, in this process's PID namespace (a
    record from another host, container or boot names pids that mean other processes here),
    and carries what `kill_recorded_group` checks: only such a record can be acted on here.
    A record that names its host (every one since hosts are recorded) must name this one: a
    worker restarted on another machine under the same id never signals the pids its
    earlier process recorded, even where boot and namespace ids happen to match (containers
    of one machine share its boot id). An older record without a host is judged by its boot
    and namespace alone, as before."""
    boot = boot_id()
    return (
        (record.host is None or record.host == host_name())
        and record.start_ticks is not None
        and record.tag is not None
        and boot is not None
        and boot == record.boot_id
        and record.pid_ns is not None
        and record.pid_ns == pid_namespace()
    )


def _is_recorded_group(record: ProcessRecord) -> bool:
    """Whether the group the record names is still the one the supervisor started.

    The leader, while it runs, must be the recorded process (same start time), lead the
    recorded group and session (the supervisor starts each child in a session of its own),
    and carry the record's tag in its environment. With the leader gone, every process left
    in the group must have started after it and carry the tag (a process that cleared its
    environment cannot be shown to be ours, and is left alone).
    """
    if record.start_ticks is None or record.tag is None:
        return False
    leader = proc_stat(record.pid)
    alive = leader is not None and leader.state != "Z"
    recorded = (record.start_ticks, record.pgid, record.pgid)
    if leader is not None and alive and (leader.start_ticks, leader.pgid, leader.sid) != recorded:
        return False  # the pid was recycled, or names another group or session
    members = group_members(record.pgid) or []
    if not members:
        return False
    if any((process_start_ticks(pid) or 0) < record.start_ticks for pid in members):
        return False
    carriers = [record.pid] if alive else members
    return all(carries_tag(pid, record.tag) for pid in carriers)


def kill_recorded_group(record: ProcessRecord, grace_s: float = 2.0) -> bool:
    """Kill a group left over by a crashed orchestrator; True if something was signalled.

    Only a group the supervisor started and recorded: on this boot and in this PID namespace,
    its leader still the same process (same start time, group and session) carrying the
    record's tag in its environment, or, with the leader gone, every remaining member started
    after it and carrying the tag (`_is_recorded_group`). A record naming any other process
    (a recycled pid, or a forged record naming a person's process) signals nothing. Without
    /proc it refuses (returns False).
    """
    if not made_here(record) or not _is_recorded_group(record):
        return False
    killpg(record.pgid, signal.SIGTERM)
    deadline = time.monotonic() + grace_s
    while time.monotonic() < deadline and group_members(record.pgid):
        time.sleep(POLL_S)
    if group_members(record.pgid):
        killpg(record.pgid, signal.SIGKILL)
    return True
