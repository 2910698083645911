"""Seed 002's alert conditions, checked on a run's events — after the fact or while it runs.

Rules (thresholds from `[alerts]`, defaults from the seed):

* `retry_exhaustion` — a component's retry exhaustion rate is **above** 5 %;
* `average_retries` — a component's average retries before success is **above** 2;
* `component_timeout` — one attempt of a component (agent run, check, handoff attempt) took
  **longer** than 300 s;
* `circular_retry` — the same failure on `circular_repeats` (3) attempts in a row of one
  operation, the same failing check in that many rounds in a row, or one finding reported in
  `finding_rounds` (3) review rounds or coming back after a round of its stage without it.

Alerts are `Alert` events, one per (run, rule, component, subject). `evaluate_alerts` checks a
whole stream; `AlertMonitor` checks each new event against what came before and raises each
alert once (the engine wraps its sink in `AlertingSink` to emit them live). `exit_code_for`
is the `--fail-on-alert` decision.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from typing import Literal, NamedTuple

from mergegate.config import AlertsConfig
from mergegate.decisions import ExitCode, worst_exit_code
from mergegate.events import (
    Alert,
    CheckRun,
    Event,
    EventBase,
    EventSink,
    VerdictEvent,
)
from mergegate.metrics._operations import Operation, Operations

__all__ = [
    "AlertMonitor",
    "AlertRules",
    "AlertingSink",
    "evaluate_alerts",
    "exit_code_for",
]


@dataclass(frozen=True)
class AlertRules:
    """The thresholds; `AlertRules.from_config(config.alerts)` reads `[alerts]`."""

    retry_exhaustion_rate: float = 0.05
    average_retries: float = 2.0
    component_seconds: float = 300.0
    circular_repeats: int = 3
    finding_rounds: int = 3
    enabled: bool = True

    @classmethod
    def from_config(cls, alerts: AlertsConfig) -> AlertRules:
        return cls(
            retry_exhaustion_rate=alerts.retry_exhaustion_rate,
            average_retries=alerts.average_retries,
            component_seconds=alerts.component_seconds,
            circular_repeats=alerts.circular_repeats,
            finding_rounds=alerts.finding_rounds,
            enabled=alerts.enabled,
        )


def exit_code_for(code: int, alerts: Iterable[Alert], *, fail_on_alert: bool) -> int:
    """The exit code of a run (or `stats`) given its alerts: with `fail_on_alert`, any alert
    makes it at least 5 (escalated: a person should look), never lowers a worse code."""
    if not fail_on_alert or not any(True for _ in alerts):
        return code
    return int(worst_exit_code([ExitCode(code), ExitCode.ESCALATED]))


def evaluate_alerts(events: Iterable[Event], rules: AlertRules | None = None) -> list[Alert]:
    """Every alert a stream (one run or several) crosses, in a stable order."""
    monitor = AlertMonitor(rules or AlertRules())
    raised: list[Alert] = []
    for event in events:
        if isinstance(event, EventBase) and not isinstance(event, Alert):
            monitor.feed(event)
    for run_id in monitor.runs:
        raised += monitor.check_run(run_id)
    return raised


@dataclass
class _Tally:
    """A component's counts, kept up to date as its operations change (so a live check costs
    the same on the thousandth attempt as on the first)."""

    operations: int = 0
    succeeded: int = 0
    exhausted: int = 0
    retries: int = 0
    """Summed over succeeded operations."""
    longest: tuple[float, str] = (0.0, "")
    counted: dict[int, tuple[int, int, int]] = field(default_factory=dict)

    def update(self, op: Operation) -> None:
        old = self.counted.get(id(op))
        if old is None:
            self.operations += 1
            old = (0, 0, 0)
        new = (int(op.succeeded), int(op.exhausted), op.attempts - 1 if op.succeeded else 0)
        self.succeeded += new[0] - old[0]
        self.exhausted += new[1] - old[1]
        self.retries += new[2] - old[2]
        self.counted[id(op)] = new
        for t in op.tries.values():
            self.longest = max(self.longest, (t.duration_s, t.where))


class _Touched(NamedTuple):
    """The one check (`(task, command)`) or review stage (`(task, operation, stage)`) an
    event added to."""

    kind: Literal["check", "finding"]
    key: tuple[object, ...]


class _RunState:
    """What the rules need of one run, folded in one event at a time."""

    def __init__(self) -> None:
        self.ops = Operations()
        self.tallies: dict[str, _Tally] = {}
        self.checks: dict[tuple[object, ...], list[CheckRun]] = {}
        self.longest_check: tuple[float, str] = (0.0, "")
        self.findings: dict[tuple[object, ...], dict[int, set[str]]] = {}
        """(task, operation, stage) → round → finding ids reported in it."""


@dataclass
class AlertMonitor:
    """Raises each alert once, as soon as the event that crosses its threshold arrives."""

    rules: AlertRules = field(default_factory=AlertRules)
    raised: set[tuple[str, str, str, str]] = field(default_factory=set)
    runs: dict[str, _RunState] = field(default_factory=dict)

    def observe(self, event: Event) -> list[Alert]:
        """Fold `event` in; the alerts it raises (each at most once per monitor). Alert events
        already in the stream (a resumed run) are remembered, not raised again."""
        if isinstance(event, Alert):
            self.raised.add(event.key)
            return []
        if not isinstance(event, EventBase) or not self.rules.enabled:
            return []
        op, touched = self.feed(event)
        if op is None and touched is None:
            return []
        fresh = [a for a in self._check(event.run_id, op, touched) if a.key not in self.raised]
        self.raised.update(a.key for a in fresh)
        return fresh

    def feed(self, event: EventBase) -> tuple[Operation | None, _Touched | None]:
        """Fold in without checking; what it touched: an operation, and/or the one check or
        review stage whose rules may now fire."""
        state = self.runs.setdefault(event.run_id, _RunState())
        if isinstance(event, CheckRun):
            check: tuple[object, ...] = (event.task_key, event.command)
            state.checks.setdefault(check, []).append(event)
            span = (event.duration_s, f"check `{event.command}`")
            state.longest_check = max(state.longest_check, span)
            return None, _Touched("check", check)
        op = state.ops.add(event)
        if isinstance(event, VerdictEvent) and event.valid:
            stage: tuple[object, ...] = (event.task_key, event.operation, event.stage)
            rounds = state.findings.setdefault(stage, {})
            rounds.setdefault(event.round, set()).update(
                f.id for f in event.findings if f.status not in ("advisory", "deferred")
            )
            return op, _Touched("finding", stage)
        return op, None

    def check_run(self, run_id: str) -> list[Alert]:
        """Every alert of one run (batch mode)."""
        if not self.rules.enabled:
            return []
        state = self.runs[run_id]
        alerts: list[Alert] = []
        for component, ops in state.ops.by_component().items():
            tally = state.tallies[component] = _Tally()
            for op in ops:
                tally.update(op)
                alerts += self._circular(run_id, op)
            alerts += self._component(run_id, component, tally)
        for (_task, command), runs in state.checks.items():
            alerts += self._check_streak(run_id, str(command), runs)
        alerts += self._slow(run_id, "check", [state.longest_check] if state.checks else [])
        for rounds in state.findings.values():
            alerts += self._finding_alerts(run_id, rounds)
        return alerts

    def _check(self, run_id: str, op: Operation | None, touched: _Touched | None) -> list[Alert]:
        """The rules the event may have made fire: its operation's, and those of the one
        check or review stage it touched — never a scan of the whole run, so a live check
        costs the same on the thousandth task as on the first."""
        state = self.runs[run_id]
        alerts: list[Alert] = []
        if op is not None:
            tally = state.tallies.setdefault(op.component, _Tally())
            tally.update(op)
            alerts += self._component(run_id, op.component, tally) + self._circular(run_id, op)
        if touched is not None and touched.kind == "check":
            _task, command = touched.key
            alerts += self._check_streak(run_id, str(command), state.checks[touched.key])
            alerts += self._slow(run_id, "check", [state.longest_check])
        elif touched is not None:
            alerts += self._finding_alerts(run_id, state.findings[touched.key])
        return alerts

    # ------------------------------------------------------------ rules

    def _component(self, run_id: str, component: str, tally: _Tally) -> list[Alert]:
        rules, alerts = self.rules, []
        rate = tally.exhausted / tally.operations if tally.operations else None
        if rate is not None and rate > rules.retry_exhaustion_rate:
            alerts.append(
                Alert(
                    run_id=run_id,
                    rule="retry_exhaustion",
                    component=component,
                    value=rate,
                    threshold=rules.retry_exhaustion_rate,
                    message=f"{component}: {tally.exhausted} of {tally.operations} operation(s) "
                    f"exhausted their retries ({rate:.1%} > {rules.retry_exhaustion_rate:.1%})",
                )
            )
        average = tally.retries / tally.succeeded if tally.succeeded else None
        if average is not None and average > rules.average_retries:
            alerts.append(
                Alert(
                    run_id=run_id,
                    rule="average_retries",
                    component=component,
                    value=average,
                    threshold=rules.average_retries,
                    message=f"{component}: {average:.2f} retries on average before success "
                    f"(> {rules.average_retries:g})",
                )
            )
        return alerts + self._slow(run_id, component, [tally.longest])

    def _slow(self, run_id: str, component: str, spans: list[tuple[float, str]]) -> list[Alert]:
        limit = self.rules.component_seconds
        if not spans:
            return []
        longest, where = max(spans)
        if longest <= limit:
            return []
        return [
            Alert(
                run_id=run_id,
                rule="component_timeout",
                component=component,
                value=round(longest, 3),
                threshold=limit,
                message=f"{component}: an attempt took {longest:.0f} s (> {limit:g} s): {where}",
            )
        ]

    def _circular(self, run_id: str, op: Operation) -> list[Alert]:
        need, streak, last, subject = self.rules.circular_repeats, 0, "", ""
        for t in op.ordered():
            sig = t.signature
            streak = streak + 1 if sig and sig == last else (1 if sig else 0)
            last = sig
            if streak >= need:
                subject = sig
        if not subject:
            return []
        return [
            Alert(
                run_id=run_id,
                rule="circular_retry",
                component=op.component,
                subject=subject,
                value=float(need),
                threshold=float(need),
                message=f"{op.component}: the same failure on {need} attempts in a row ({subject})",
            )
        ]

    def _check_streak(self, run_id: str, command: str, runs: list[CheckRun]) -> list[Alert]:
        """One check's failures in rounds in a row, at the task it checks. The alert names the
        exit code of the failure that crossed the threshold: the same subject whether the
        alert is raised live or from the whole stream after later rounds (one alert each)."""
        need, streak, best = self.rules.circular_repeats, 0, 0
        crossed: CheckRun | None = None
        for run in sorted(runs, key=lambda r: r.round):
            streak = streak + 1 if not run.passed else 0
            best = max(best, streak)
            if streak == need and crossed is None:
                crossed = run
        if crossed is None:
            return []
        return [
            Alert(
                run_id=run_id,
                rule="circular_retry",
                component="check",
                subject=f"{command} (exit {crossed.exit_code})",
                value=float(best),
                threshold=float(need),
                message=f"check `{command}` failed in {best} rounds in a row",
            )
        ]

    def _finding_alerts(self, run_id: str, rounds: dict[int, set[str]]) -> list[Alert]:
        """One review stage's findings that keep coming back, over its rounds."""
        alerts = []
        reviewed = sorted(rounds)
        for finding, seen in _finding_rounds(rounds).items():
            why = self._finding_why(seen, reviewed)
            if why:
                alerts.append(
                    Alert(
                        run_id=run_id,
                        rule="circular_retry",
                        component="reviewer",
                        subject=finding,
                        value=float(len(seen)),
                        threshold=float(self.rules.finding_rounds),
                        message=f"finding {finding} {why}",
                    )
                )
        return alerts

    def _finding_why(self, seen: list[int], reviewed: list[int]) -> str:
        if len(seen) >= self.rules.finding_rounds:
            return f"reported in {len(seen)} rounds ({', '.join(map(str, seen))})"
        gaps = [r for r in reviewed if seen[0] < r < seen[-1] and r not in seen]
        if gaps:
            return f"came back in round {seen[-1]} after round {gaps[-1]} did not report it"
        return ""


def _finding_rounds(rounds: dict[int, set[str]]) -> dict[str, list[int]]:
    seen: dict[str, list[int]] = {}
    for number in sorted(rounds):
        for finding in rounds[number]:
            seen.setdefault(finding, []).append(number)
    return seen


@dataclass
class AlertingSink:
    """Wraps a sink: every event goes through, and each alert it raises follows it into the
    same sink (and to `on_alert`, for a live view)."""

    sink: EventSink
    monitor: AlertMonitor = field(default_factory=AlertMonitor)
    on_alert: Callable[[Alert], None] | None = None
    alerts: list[Alert] = field(default_factory=list)

    def emit(self, event: EventBase) -> None:
        self.sink.emit(event)
        for alert in self.monitor.observe(event):
            stamped = alert.model_copy(
                update={"phase": event.phase, "unit": event.unit, "task": event.task}
            )
            self.alerts.append(stamped)
            self.sink.emit(stamped)
            if self.on_alert is not None:
                self.on_alert(stamped)
