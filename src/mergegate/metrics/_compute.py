"""Every number of a run (or of many), computed from its events — never kept by hand.

`compute_metrics(events)` folds a stream (one run's, or several runs' together: operations are
keyed by run id) into a `Metrics` value: per component the seed's four numbers (success rate,
average retries before success, retry exhaustion rate, failure types) plus timeouts; the help
request rate; the first-pass review approval rate; fix rounds per task; tokens and cost per
phase, unit, task, role and backend; wall time and agent time. See `docs/observability.md`
for each definition.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable
from datetime import datetime

from pydantic import BaseModel, ConfigDict, Field, computed_field

from mergegate.events import (
    AgentAttempt,
    Alert,
    CheckRun,
    Escalation,
    Event,
    EventBase,
    FixRound,
    HelpRequested,
    MergeResult,
    ReviewFinished,
    RunFinished,
    RunStarted,
    TaskFinished,
    TaskStarted,
    VerdictEvent,
    VerificationEvent,
)
from mergegate.metrics._operations import Operation, Operations

__all__ = ["ComponentMetrics", "Metrics", "RunSummary", "UsageTotals", "compute_metrics"]

ROLE_ORDER = ("implementer", "reviewer", "fixer", "advisor", "verifier")


def _ratio(part: float, whole: float) -> float | None:
    return round(part / whole, 6) if whole else None


class _Value(BaseModel):
    model_config = ConfigDict(extra="forbid")


class ComponentMetrics(_Value):
    """The seed's numbers for one component (an agent role, or `handoff:<type>`)."""

    component: str
    operations: int = 0
    succeeded: int = 0
    failed: int = 0
    exhausted: int = 0
    """Operations that failed on their last allowed attempt."""
    attempts: int = 0
    retries_before_success: int = 0
    """Summed over succeeded operations: attempts - 1."""
    timeouts: int = 0
    failure_types: dict[str, int] = Field(default_factory=dict)
    """Failed attempts by why they failed."""
    longest_s: float = 0.0

    @computed_field  # type: ignore[prop-decorator]
    @property
    def success_rate(self) -> float | None:
        return _ratio(self.succeeded, self.operations)

    @computed_field  # type: ignore[prop-decorator]
    @property
    def average_retries(self) -> float | None:
        """Average retries before success (over operations that succeeded)."""
        return _ratio(self.retries_before_success, self.succeeded)

    @computed_field  # type: ignore[prop-decorator]
    @property
    def retry_exhaustion_rate(self) -> float | None:
        return _ratio(self.exhausted, self.operations)

    @classmethod
    def of(cls, component: str, ops: list[Operation]) -> ComponentMetrics:
        failures: Counter[str] = Counter()
        timeouts, longest, attempts, retries = 0, 0.0, 0, 0
        for op in ops:
            for t in op.tries.values():
                attempts += 1
                timeouts += t.timed_out
                longest = max(longest, t.duration_s)
                if t.failure:
                    failures[t.failure] += 1
            if op.succeeded:
                retries += op.attempts - 1
        succeeded = sum(op.succeeded for op in ops)
        return cls(
            component=component,
            operations=len(ops),
            succeeded=succeeded,
            failed=len(ops) - succeeded,
            exhausted=sum(op.exhausted for op in ops),
            attempts=attempts,
            retries_before_success=retries,
            timeouts=timeouts,
            failure_types=dict(failures.most_common()),
            longest_s=round(longest, 3),
        )


class UsageTotals(_Value):
    """What agent attempts cost: tokens (as backends report them), money, time."""

    attempts: int = 0
    tokens_in: int = 0
    tokens_out: int = 0
    cache_read_tokens: int = 0
    cache_write_tokens: int = 0
    cost_usd: float = 0.0
    cost_known: int = 0
    """Attempts whose backend reported a cost (the rest are not in `cost_usd`)."""
    agent_s: float = 0.0

    @computed_field  # type: ignore[prop-decorator]
    @property
    def total_tokens(self) -> int:
        return self.tokens_in + self.tokens_out + self.cache_read_tokens + self.cache_write_tokens

    def add(self, event: AgentAttempt) -> None:
        self.attempts += 1
        self.tokens_in += event.tokens_in
        self.tokens_out += event.tokens_out
        self.cache_read_tokens += event.cache_read_tokens
        self.cache_write_tokens += event.cache_write_tokens
        if event.cost_usd is not None:
            self.cost_usd = round(self.cost_usd + event.cost_usd, 6)
            self.cost_known += 1
        self.agent_s = round(self.agent_s + event.duration_s, 3)


class RunSummary(_Value):
    """One run's line in `mergegate stats`."""

    run_id: str
    status: str = ""
    started: datetime | None = None
    wall_s: float = 0.0
    tasks: int = 0
    attempts: int = 0
    tokens: int = 0
    cost_usd: float = 0.0
    alerts: int = 0


class Metrics(_Value):
    """Everything `mergegate stats` shows, for one run or several."""

    runs: list[RunSummary] = Field(default_factory=list)
    events: int = 0
    unknown_events: int = 0
    components: dict[str, ComponentMetrics] = Field(default_factory=dict)
    help_requests: int = 0
    implementer_attempts: int = 0
    reviews: int = 0
    """Review operations that reached a first round."""
    first_pass_approved: int = 0
    tasks: int = 0
    fix_rounds: int = 0
    max_fix_rounds: int = 0
    fix_rounds_by_task: dict[str, int] = Field(default_factory=dict)
    usage: UsageTotals = Field(default_factory=UsageTotals)
    usage_by_phase: dict[str, UsageTotals] = Field(default_factory=dict)
    usage_by_unit: dict[str, UsageTotals] = Field(default_factory=dict)
    usage_by_task: dict[str, UsageTotals] = Field(default_factory=dict)
    usage_by_role: dict[str, UsageTotals] = Field(default_factory=dict)
    usage_by_backend: dict[str, UsageTotals] = Field(default_factory=dict)
    wall_s: float = 0.0
    """Summed over runs: last event (or `run.finished`) minus first (or `run.started`)."""
    verdicts: dict[str, int] = Field(default_factory=dict)
    checks_passed: int = 0
    checks_failed: int = 0
    merges: int = 0
    conflicts: int = 0
    escalations: int = 0
    verifications: dict[str, int] = Field(default_factory=dict)
    alerts: dict[str, int] = Field(default_factory=dict)
    """Alert events found in the stream, by rule."""

    @computed_field  # type: ignore[prop-decorator]
    @property
    def help_request_rate(self) -> float | None:
        """Help requests per implementer attempt."""
        return _ratio(self.help_requests, self.implementer_attempts)

    @computed_field  # type: ignore[prop-decorator]
    @property
    def first_pass_approval_rate(self) -> float | None:
        return _ratio(self.first_pass_approved, self.reviews)

    @computed_field  # type: ignore[prop-decorator]
    @property
    def fix_rounds_per_task(self) -> float | None:
        return _ratio(self.fix_rounds, self.tasks)


def label(parts: Iterable[str]) -> str:
    return "/".join(p for p in parts if p) or "-"


def compute_metrics(events: Iterable[Event]) -> Metrics:
    """Fold events (of one run or several) into `Metrics`. Unknown kinds are counted and
    otherwise ignored; nothing here reads a file or the clock."""
    folder = _Folder()
    for event in events:
        folder.add(event)
    return folder.result()


class _Folder:
    def __init__(self) -> None:
        self.m = Metrics()
        self.ops = Operations()
        self.tasks: set[tuple[str, str, str, str]] = set()
        self.fixes: Counter[tuple[str, str, str, str]] = Counter()
        self.runs: dict[str, _RunSpan] = {}
        self.first_round: dict[tuple[object, ...], dict[str, VerdictEvent]] = {}
        self.finished_reviews: dict[tuple[object, ...], ReviewFinished] = {}

    def add(self, event: Event) -> None:
        m = self.m
        m.events += 1
        if not isinstance(event, EventBase):
            m.unknown_events += 1
            return
        self.runs.setdefault(event.run_id, _RunSpan(event.run_id)).add(event)
        self.ops.add(event)
        if event.task or isinstance(event, TaskStarted | TaskFinished):
            self.tasks.add(event.task_key)
        handler = _HANDLERS.get(type(event))
        if handler is not None:
            handler(self, event)

    def _attempt(self, event: EventBase) -> None:
        assert isinstance(event, AgentAttempt)
        m = self.m
        m.usage.add(event)
        if event.role == "implementer":
            m.implementer_attempts += 1
        keys = {
            "usage_by_phase": label((event.run_id, event.phase)),
            "usage_by_unit": label((event.run_id, event.phase, event.unit)),
            "usage_by_task": label(event.task_key),
            "usage_by_role": event.role,
            "usage_by_backend": event.backend + (f" ({event.model})" if event.model else ""),
        }
        for name, key in keys.items():
            getattr(m, name).setdefault(key, UsageTotals()).add(event)
        self.tasks.add(event.task_key)

    def _verdict(self, event: EventBase) -> None:
        assert isinstance(event, VerdictEvent)
        self.m.verdicts[event.decision] = self.m.verdicts.get(event.decision, 0) + 1
        self.tasks.add(event.task_key)
        if event.round <= 1:
            stages = self.first_round.setdefault((event.task_key, event.operation), {})
            last = stages.get(event.stage)
            if last is None or event.attempt >= last.attempt:
                stages[event.stage] = event

    def _review(self, event: EventBase) -> None:
        assert isinstance(event, ReviewFinished)
        self.finished_reviews[(event.task_key, event.operation)] = event

    def _fix(self, event: EventBase) -> None:
        self.m.fix_rounds += 1
        self.fixes[event.task_key] += 1
        self.tasks.add(event.task_key)

    def _check(self, event: EventBase) -> None:
        assert isinstance(event, CheckRun)
        if event.passed:
            self.m.checks_passed += 1
        else:
            self.m.checks_failed += 1

    def _merge(self, event: EventBase) -> None:
        assert isinstance(event, MergeResult)
        if event.outcome == "conflict":
            self.m.conflicts += 1
        else:
            self.m.merges += 1

    def _escalation(self, _event: EventBase) -> None:
        self.m.escalations += 1

    def _verification(self, event: EventBase) -> None:
        assert isinstance(event, VerificationEvent)
        self.m.verifications[event.status] = self.m.verifications.get(event.status, 0) + 1

    def _help(self, _event: EventBase) -> None:
        self.m.help_requests += 1

    def _alert(self, event: EventBase) -> None:
        assert isinstance(event, Alert)
        self.m.alerts[event.rule] = self.m.alerts.get(event.rule, 0) + 1
        self.runs[event.run_id].alerts += 1

    def result(self) -> Metrics:
        m = self.m
        grouped = self.ops.by_component()
        order = sorted(grouped, key=lambda c: (ROLE_ORDER.index(c) if c in ROLE_ORDER else 99, c))
        m.components = {c: ComponentMetrics.of(c, grouped[c]) for c in order}
        m.tasks = len(_real_tasks(self.tasks))
        m.fix_rounds_by_task = {label(k): n for k, n in self.fixes.items()}
        m.max_fix_rounds = max(self.fixes.values(), default=0)
        self._first_pass()
        m.runs = [span.summary() for span in self.runs.values()]
        m.wall_s = round(sum(r.wall_s for r in m.runs), 3)
        return m

    def _first_pass(self) -> None:
        """A review passes first time when it ends approved after one round; without its
        `review.finished`, when every stage's last round-1 verdict approves."""
        reviews = set(self.first_round) | set(self.finished_reviews)
        self.m.reviews = len(reviews)
        approved = 0
        for key in reviews:
            done = self.finished_reviews.get(key)
            if done is not None:
                approved += done.status == "approved" and done.rounds <= 1
            else:
                stages = self.first_round.get(key, {})
                approved += bool(stages) and all(v.decision == "approve" for v in stages.values())
        self.m.first_pass_approved = approved


def _real_tasks(keys: set[tuple[str, str, str, str]]) -> set[tuple[str, str, str, str]]:
    """Tasks of the plan; a run without any (a `mergegate review` run) is one task itself."""
    named = {k for k in keys if k[3]}
    with_tasks = {k[0] for k in named}
    return named | {k for k in keys if not k[3] and k[0] not in with_tasks}


class _RunSpan:
    def __init__(self, run_id: str) -> None:
        self.run_id = run_id
        self.first: datetime | None = None
        self.last: datetime | None = None
        self.started: datetime | None = None
        self.finished: datetime | None = None
        self.status = ""
        self.tasks: set[str] = set()
        self.attempts = 0
        self.tokens = 0
        self.cost = 0.0
        self.alerts = 0

    def add(self, event: EventBase) -> None:
        begin = getattr(event, "started_at", None) or event.at
        self.first = begin if self.first is None else min(self.first, begin)
        self.last = event.at if self.last is None else max(self.last, event.at)
        if isinstance(event, RunStarted):
            self.started = self.started or event.at
        elif isinstance(event, RunFinished):
            self.finished, self.status = event.at, event.status
        elif isinstance(event, ReviewFinished) and not self.status and not event.task:
            self.status = event.status
        elif isinstance(event, AgentAttempt):
            self.attempts += 1
            self.tokens += event.tokens
            self.cost += event.cost_usd or 0.0
        if event.task:
            self.tasks.add(label(event.task_key))

    def summary(self) -> RunSummary:
        start = self.started or self.first
        end = self.finished or self.last
        wall = (end - start).total_seconds() if start and end else 0.0
        return RunSummary(
            run_id=self.run_id,
            status=self.status or "unknown",
            started=start,
            wall_s=round(max(0.0, wall), 3),
            tasks=len(self.tasks) or (1 if self.attempts else 0),
            attempts=self.attempts,
            tokens=self.tokens,
            cost_usd=round(self.cost, 6),
            alerts=self.alerts,
        )


_HANDLERS = {
    AgentAttempt: _Folder._attempt,
    VerdictEvent: _Folder._verdict,
    ReviewFinished: _Folder._review,
    FixRound: _Folder._fix,
    CheckRun: _Folder._check,
    MergeResult: _Folder._merge,
    Escalation: _Folder._escalation,
    VerificationEvent: _Folder._verification,
    HelpRequested: _Folder._help,
    Alert: _Folder._alert,
}
