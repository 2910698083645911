"""The run report and `mergegate stats` on large runs.

Inputs, generated here: one run of 1,000 agent attempts (250 tasks in 10 phases: an
implementer attempt and three reviewer attempts each, with verdicts, checks and fix rounds:
about 2,500 events), and 100 runs of 40 attempts each for `stats`.

Baseline, measured in the same run on the same files: `json.loads` of every line of the event
streams (what any reader has to do at least). Reported, best of several runs: seconds and the
ratio to the baseline of

* read        — `read_events` (strict pydantic validation of every line);
* metrics     — `compute_metrics` + `evaluate_alerts` over the read events;
* report      — `write_report` (read, metrics, alerts, timeline, render, atomic write), and
  the size of the page it writes;
* stats 100   — reading 100 runs and computing their metrics and alerts (what `stats` does
  before it prints);
* live alerts — an `AlertMonitor` fed the 1,000-attempt run one event at a time (what the
  engine pays over a whole run).

Run: `make bench` or `.venv/bin/python bench/bench_observability.py`.
"""

from __future__ import annotations

import json
import tempfile
import time
from collections.abc import Callable
from datetime import UTC, datetime, timedelta
from pathlib import Path

from _smoke import sizes
from mergegate.events import (
    AgentAttempt,
    CheckRun,
    EventBase,
    EventLog,
    FindingRef,
    FixRound,
    RunFinished,
    RunStarted,
    TaskFinished,
    TaskStarted,
    VerdictEvent,
    read_events,
)
from mergegate.metrics import AlertMonitor, compute_metrics, evaluate_alerts
from mergegate.report import write_report

REPEATS = sizes(3, 1)
TASKS = sizes(250, 10)
RUNS = sizes(100, 3)
T0 = datetime(2026, 3, 1, tzinfo=UTC)


def run_events(run_id: str, tasks: int, phases: int) -> list[EventBase]:
    now = T0
    events: list[EventBase] = [RunStarted(run_id=run_id, at=now, plan="bench")]
    for n in range(tasks):
        where = {"run_id": run_id, "phase": f"{n % phases:02d}", "unit": f"u{n}", "task": f"T{n}"}
        events.append(TaskStarted(**where, at=now))
        begun, now = now, now + timedelta(seconds=30)
        events.append(
            AgentAttempt(
                **where,
                role="implementer",
                backend="claude",
                status="ok",
                started_at=begun,
                at=now,
                duration_s=30,
                tokens_in=5000,
                tokens_out=800,
                cost_usd=0.05,
            )
        )
        events.append(
            CheckRun(**where, command="pytest -q", passed=n % 7 != 0, duration_s=3, at=now)
        )
        for attempt, (rnd, decision) in enumerate(
            ((1, "malformed"), (1, "fixes"), (2, "approve")), 1
        ):
            begun, now = now, now + timedelta(seconds=12)
            events.append(
                AgentAttempt(
                    **where,
                    role="reviewer",
                    backend="local",
                    status="ok",
                    round=rnd,
                    stage="quality",
                    attempt=attempt if rnd == 1 else 1,
                    max_attempts=2,
                    started_at=begun,
                    at=now,
                    duration_s=12,
                    tokens_in=9000,
                    tokens_out=600,
                )
            )
            findings = [
                FindingRef(
                    id=f"F-{n}-{k}",
                    severity="important",
                    title=f"issue {k}",
                    file="src/app.py",
                    line=k + 1,
                )
                for k in range(3)
            ]
            events.append(
                VerdictEvent(
                    **where,
                    round=rnd,
                    stage="quality",
                    attempt=attempt if rnd == 1 else 1,
                    max_attempts=2,
                    decision=decision,
                    dialect="superpowers",
                    evidence_line=40,
                    evidence="Ready to merge? With fixes",
                    findings=findings if decision == "fixes" else [],
                    at=now,
                )
            )
            if decision == "fixes":
                events.append(
                    FixRound(
                        **where,
                        round=1,
                        findings=tuple(f.id for f in findings),
                        commit="abc",
                        at=now,
                    )
                )
        events.append(TaskFinished(**where, decision="approved", at=now))
    events.append(RunFinished(run_id=run_id, status="completed", at=now))
    return events


def write(directory: Path, events: list[EventBase]) -> Path:
    log = EventLog.in_run_dir(directory, fsync=False)
    for event in events:
        log.emit(event)
    return directory


def best(fn: Callable[[], object]) -> float:
    times = []
    for _ in range(REPEATS):
        start = time.perf_counter()
        fn()
        times.append(time.perf_counter() - start)
    return min(times)


def main() -> None:
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp)
        big = write(root / "big", run_events("big", tasks=TASKS, phases=10))
        many = [
            write(root / "runs" / f"r{i:03d}", run_events(f"r{i:03d}", 10, 2)) for i in range(RUNS)
        ]
        lines = (big / "events.jsonl").read_bytes().splitlines()
        attempts = sum(b'"agent.attempt"' in line for line in lines)

        def baseline() -> None:
            for line in (big / "events.jsonl").read_bytes().splitlines():
                json.loads(line)

        def baseline_many() -> None:
            for run in many:
                for line in (run / "events.jsonl").read_bytes().splitlines():
                    json.loads(line)

        def stats_many() -> None:
            events = [e for run in many for e in read_events(run).events]
            compute_metrics(events)
            evaluate_alerts(events)

        stream = read_events(big)

        def live() -> None:
            monitor = AlertMonitor()
            for event in stream.events:
                monitor.observe(event)

        base, base_many = best(baseline), best(baseline_many)
        rows = [
            ("read", best(lambda: read_events(big)), base),
            (
                "metrics+alerts",
                best(lambda: (compute_metrics(stream.events), evaluate_alerts(stream.events))),
                base,
            ),
            ("report", best(lambda: write_report(big)), base),
            ("live alerts", best(live), base),
            (f"stats {RUNS} runs", best(stats_many), base_many),
        ]
        size = (big / "report.html").stat().st_size
        total = sum(len((r / "events.jsonl").read_bytes().splitlines()) for r in many)
        print(f"run: {len(lines)} events, {attempts} agent attempts; {RUNS} runs: {total} events")
        print(f"baseline json.loads: {base * 1000:.1f} ms (one run), {base_many * 1000:.1f} ms")
        for name, seconds, against in rows:
            print(f"{name:16s} {seconds * 1000:9.1f} ms  {seconds / against:6.1f}x baseline")
        print(f"report size: {size / 1024:.0f} KiB ({size / attempts:.0f} bytes per attempt)")


if __name__ == "__main__":
    main()
