"""The end of a resumed run's stream, alone: a journal opened on a run's stream in its
database (what a resumed process does first), one more event, then `close_stream` (the
alerts, the metrics and the HTML report of the whole run).

Usage: PYTHONPATH=<tree>/src bench_run_end.py [TASKS]   (default 500: about 5,500 events)
Prints each of three rounds' seconds to open the journal and to close the stream; run it
once per tree, alternating, on a shared machine."""

from __future__ import annotations

import sys
import tempfile
import time
from pathlib import Path

import mergegate
from bench_observability import run_events
from mergegate.engine._context.journal import RunJournal, close_stream
from mergegate.events import Notice
from mergegate.metrics import AlertRules
from mergegate.store import RunRows, tables


def main() -> None:
    tasks = int(sys.argv[1]) if len(sys.argv) > 1 else 500
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp)
        events = run_events("r1", tasks, max(1, tasks // 20))
        rows = RunRows(tables(f"sqlite:///{root / 'db.sqlite'}"), "r1")
        for event in events:
            rows.append_event(event)
        rounds = []
        for n in range(3):
            t0 = time.perf_counter()
            journal = RunJournal(root / f"run{n}", AlertRules(), fsync=False, rows=rows)
            opened = time.perf_counter()
            journal.emit(Notice(run_id="r1", event_id=f"n{n}", message="resumed"))
            close_stream(root / f"run{n}", AlertRules(), journal)
            rounds.append(f"{opened - t0:.2f}/{time.perf_counter() - opened:.2f}")
    print(f"{mergegate.__file__}: {len(events)} events; open/close s: {' '.join(rounds)}")


if __name__ == "__main__":
    main()
