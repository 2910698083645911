"""What keeping a run's state in its database costs, against the files it replaced.

A run used to decide from files of its folder: `unit.json` (where a unit stands), a `STOP`
file (checked before every agent), `run.json` (the card) and `process.json` (the process
records, still written for people). It now reads and writes rows of its database (the run's
own SQLite file, WAL, or the configured database). Each operation is timed both ways,
interleaved so both see the same machine load, on SQLite, with another connection holding
the file open as DBOS's pool does while a run executes (without one, SQLite checkpoints and
removes the WAL each time the last connection closes, which is what a command outside a run,
such as `status`, pays once):

* a unit's state written (a new value each time): `write_json_atomic(unit.json)` (no fsync)
  against `RunRows.put` (one transaction; `synchronous=NORMAL`, see `store._tables`) — the
  copy for people is still written, so the row is an added cost;
* the stop check before an agent: `Path.exists()` against `RunRows.stop_request()`;
* a process recorded and forgotten (nothing before: the file is still written) against
  `record_process` + `forget_processes`;
* the card read: `run.json` parsed and validated against `RunStore.load`;
* an event appended: one line to `events.jsonl`, fsynced (`EventLog`, as the journal wrote
  it) against the row (`RunRows.append_event`) and the line to `events.jsonl` without an
  fsync (the copy for people), as the journal writes it now;
* an implementer attempt's row (nothing before): its 1 MiB log hashed, its end kept.

Then what one task adds, from the counts of a one-task unit with two review stages and one
check (3 unit writes, 4 stop checks, 4 processes, 12 events, 1 attempt), as a share of a
60-second agent task. With `--database-url URL` (a PostgreSQL database, say) the event append
is timed on that database too, against the same fsynced file.

Usage: bench_run_state.py [--runs N] [--database-url URL]
"""

from __future__ import annotations

import sqlite3
import statistics
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

from _smoke import sizes
from mergegate.agents.base import AgentResult, RunStatus
from mergegate.atomic_files import read_json_validated, write_json_atomic
from mergegate.config import redact_url
from mergegate.engine import AgentSpec, EngineRunRecord, RunAgents, RunOptions
from mergegate.engine._context.attempt_rows import attempt_record
from mergegate.engine._context.outcomes import UnitOutcome
from mergegate.events import EventLog, Notice
from mergegate.plans import Plan, PlanFormat
from mergegate.processes import ProcessRecord
from mergegate.store import RunRows, RunStore, StateKind, Tables

PER_TASK = {"unit": 3, "stop": 4, "process": 4, "event": 12, "attempt": 1}
"""Operations of one task of a unit: unit state at its start, its task's end and its end; a
stop check before the implementer, two reviewer stages and the check; four processes; the
events of a one-task unit (unit and task started and finished, three agent attempts, a check,
two verdicts, the review's end, the merge); the implementer attempt's row."""

LOG_BYTES = 1 << 20
"""An agent's log as the attempt row hashes it (a long Claude Code session writes about this)."""


def timed(fn: Callable[[], object]) -> float:
    start = time.perf_counter()
    fn()
    return time.perf_counter() - start


def main(runs: int) -> None:
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp)
        store = RunStore(root / "state")
        card = EngineRunRecord(
            run_id="r1",
            repo="/r",
            into="i",
            base_sha="0" * 40,
            agents=RunAgents(implementer=AgentSpec(name="scripted")),
            options=RunOptions(),
        )
        store.create(card, Plan(format=PlanFormat.NATIVE, title="bench"))
        rows = store.rows("r1")
        dbos = sqlite3.connect(store.database_path("r1"))  # as DBOS's pool holds it
        dbos.execute("SELECT count(*) FROM mergegate_runs").fetchall()
        units = [
            UnitOutcome(id="U1", phase="P1", status="running", branch="b", reason=str(n))
            for n in range(2)
        ]
        turn = [0]

        def unit() -> UnitOutcome:
            turn[0] += 1
            return units[turn[0] % 2]

        record = ProcessRecord(
            pid=1, pgid=1, start_ticks=1, boot_id="b", started_at=1.0, argv=("x",), cwd="/"
        )
        folder = store.run_dir("r1")
        pairs: dict[str, tuple[Callable[[], object], Callable[[], object]]] = {
            "unit": (
                lambda: write_json_atomic(
                    folder / "P1" / "U1" / "unit.json", unit(), durable=False
                ),
                lambda: rows.put(StateKind.UNIT, ("P1", "U1"), unit()),
            ),
            "stop": ((folder / "STOP").exists, rows.stop_request),
            "process": (
                lambda: None,
                lambda: (
                    rows.record_process(record, folder, executor_id="local"),
                    rows.forget_processes([record]),
                ),
            ),
            "card": (
                lambda: read_json_validated(folder / "run.json", EngineRunRecord),
                lambda: store.load("r1", EngineRunRecord),
            ),
            "event": event_pair(rows, root / "files", root / "copy"),
            "attempt": (lambda: None, attempt_row(rows, folder, root / "agent.log")),
        }
        print(f"{runs} runs per variant, interleaved; median milliseconds (SQLite, WAL)")
        added = 0.0
        for name, (before, after) in pairs.items():
            old, new = [], []
            for _ in range(runs):
                old.append(timed(before))
                new.append(timed(after))
            o, n = statistics.median(old) * 1e3, statistics.median(new) * 1e3
            ratio = f"x{n / o:.1f}" if o > 0.001 else "(nothing before)"
            print(f"  {name:<8} files {o:7.3f} ms | database {n:7.3f} ms {ratio}")
            added += PER_TASK.get(name, 0) * (n - (o if name in ("stop", "event") else 0.0))
        print(
            f"one task adds about {added:.1f} ms ({added / 60_000:.3%} of a 60-second agent task)"
        )
        dbos.close()


def event_pair(
    rows: RunRows, before: Path, after: Path
) -> tuple[Callable[[], object], Callable[[], object]]:
    """An event appended as the journal wrote it (a fsynced line) and as it writes it now
    (the row, then the line without an fsync); a new id each time, as a run's events have."""
    old_log = EventLog.in_run_dir(before)
    copy = EventLog.in_run_dir(after, fsync=False)

    def event() -> Notice:
        return Notice(run_id=rows.run_id, message="a notice of a typical length " * 4)

    def now() -> None:
        made = event()
        rows.append_event(made)
        copy.emit(made)

    return (lambda: old_log.emit(event()), now)


def attempt_row(rows: RunRows, run_dir: Path, log: Path) -> Callable[[], object]:
    """The implementer attempt's row, its log (`LOG_BYTES`) hashed and its end kept."""
    log.write_bytes(b"a line of an agent's stream-json output\n" * (LOG_BYTES // 40))
    result = AgentResult(backend="claude", status=RunStatus.OK, log_path=log)
    attempt = run_dir / "P1" / "U1" / "T1" / "attempts" / "01-implementer"
    return lambda: rows.record_attempt(attempt_record(run_dir, attempt, result, "implementer"))


def events_on(database_url: str, runs: int) -> None:
    """The event append on another database (PostgreSQL), against the fsynced file."""
    with tempfile.TemporaryDirectory() as tmp:
        db = Tables(database_url)
        try:
            before, after = event_pair(RunRows(db, "bench"), Path(tmp) / "a", Path(tmp) / "b")
            old, new = [], []
            for _ in range(runs):
                old.append(timed(before))
                new.append(timed(after))
        finally:
            db.dispose()
    o, n = statistics.median(old) * 1e3, statistics.median(new) * 1e3
    print(f"  event on {redact_url(database_url)}: files {o:7.3f} ms | database {n:7.3f} ms")
    added = PER_TASK["event"] * (n - o)
    print(f"  per task: {added:+.1f} ms ({added / 60_000:+.3%} of a 60-second agent task)")


if __name__ == "__main__":
    count = int(sys.argv[sys.argv.index("--runs") + 1]) if "--runs" in sys.argv else sizes(200, 3)
    main(count)
    if "--database-url" in sys.argv:
        events_on(sys.argv[sys.argv.index("--database-url") + 1], count)
