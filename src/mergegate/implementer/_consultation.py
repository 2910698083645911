"""Consulting advisors about a help request: a resumable step with a persisted attempt count.

Each configured advisor (a backend: a stronger model, another vendor, the local model, any
command) is given the `HelpRequest` — the task, what the implementer is stuck on, its recent
output — in a read-only run in the task's work tree, and answers with an `advice` handoff
(`{"guidance": "...", "action": "continue" | "skip" | "escalate"}`).

Per advisor: at most `agents.advisor_attempts` (≤ 3) attempts, with exponential backoff between
them (`[retry]` delays). An invalid `advice` reply is asked again **in the advisor's session**
with the exact error; a failed run gets the full request again in a fresh session; an
unreachable endpoint is retried `agents.transport_retries` times with backoff inside an attempt
before the attempt counts.

The step is durable through its state file (seed 002's resumable state file):

    <attempt_dir>/advice_request.json    the request and, per advisor, the attempts *started*
                                         (written before each attempt), its session, its
                                         last error and its attempt records
    <attempt_dir>/advisors/<name>/aN/    each attempt's agent records
    <attempt_dir>/consultation.json      the outcome: written once, never overwritten

A process killed mid-consultation is re-run with the same directory: the leftover advisor
process group is killed (by its recorded pid and start time), the lost attempt is recorded as
`lost`, and the count goes on from the state file — never more than the cap in total. The state
file is removed once an advisor answered; when none did it stays, beside the outcome.
"""

from __future__ import annotations

import random as _random
import re
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field

from mergegate.agents.base import AgentRequest, AgentResult, Backend
from mergegate.agents.conversation import SessionAsk, fresh_dir, is_stuck, is_transport_failure
from mergegate.agents.registry import backend_from_config
from mergegate.atomic_files import read_json_validated, write_json_atomic
from mergegate.config import Config
from mergegate.errors import UsageError
from mergegate.handoff import (
    OUTPUT_SAMPLE_CHARS,
    AdvicePayload,
    AttemptRecord,
    ErrorInfo,
    HandoffFailure,
    HandoffRecord,
    HandoffRecorder,
    RetryPolicy,
    default_registry,
    extract,
    level_for_retry,
    read_record,
    retry_metadata,
    retry_prompt,
    store_record,
)
from mergegate.implementer._events import emit
from mergegate.implementer._help import HelpRequest
from mergegate.implementer._leftovers import kill_leftovers
from mergegate.implementer._prompts import RenderedPrompt, json_line, load_template
from mergegate.untrusted import fence

__all__ = [
    "OUTCOME_FILE",
    "STATE_FILE",
    "Advisor",
    "AdvisorAnswer",
    "AdvisorFailure",
    "AdvisorProgress",
    "Consultation",
    "ConsultationState",
    "advisor_prompt",
    "advisors_from_config",
    "consult_advisors",
    "read_consultation",
    "task_environment",
]

STATE_FILE = "advice_request.json"
OUTCOME_FILE = "consultation.json"
PromptLevel = Literal["initial", "full", "minimal", "bare", "fresh"]
_SLUG = re.compile(r"[^A-Za-z0-9_.-]+")
_ACTION_ORDER = {"continue": 0, "skip": 1, "escalate": 2}


def task_environment(run_id: str, task_id: str, **extra: str) -> dict[str, str]:
    """The variables a command agent finds for a task: `MERGEGATE_RUN_ID`, `MERGEGATE_TASK_ID`
    (and `MERGEGATE_<KEY>` for each of `extra`). Put them in `AgentRequest.env`."""
    env = {"MERGEGATE_RUN_ID": run_id, "MERGEGATE_TASK_ID": task_id}
    env.update({f"MERGEGATE_{key.upper()}": value for key, value in extra.items()})
    return env


# ---------------------------------------------------------------- advisors


@dataclass(frozen=True)
class Advisor:
    """One advisor: a backend, the model it is asked with (None: its own), and a unique name
    used in records and directory names."""

    name: str
    backend: Backend
    model: str | None = None


def advisors_from_config(
    config: Config, *, names: Sequence[str] = (), cmds: Sequence[str] = ()
) -> list[Advisor]:
    """The advisors a configuration names: `[agents] advisors` (`NAME` or `NAME:MODEL`) and
    `advisor_cmds` (programs for the `command` backend), each built with its
    `[agents.backends.NAME]` options. `names` and `cmds` (the `--advisor` / `--advisor-cmd`
    flags) replace both lists when either is given. Raises like `get_backend` (`UsageError`
    for an unknown name)."""
    if not names and not cmds:
        names, cmds = config.agents.advisors, config.agents.advisor_cmds
    advisors: list[Advisor] = []
    taken: set[str] = set()
    for entry in names:
        name, _, model = entry.strip().partition(":")
        backend = backend_from_config(config.agents, name)
        advisors.append(Advisor(_unique(entry.strip(), taken), backend, model or None))
    for i, cmd in enumerate(cmds, start=1):
        backend = backend_from_config(config.agents, cmd=cmd)
        advisors.append(Advisor(_unique(f"command-{i}", taken), backend))
    return advisors


def _unique(name: str, taken: set[str]) -> str:
    candidate, n = name, 1
    while candidate in taken:
        n += 1
        candidate = f"{name}#{n}"
    taken.add(candidate)
    return candidate


def advisor_prompt(request: HelpRequest) -> RenderedPrompt:
    """The request an advisor is given (template `advisor`, versioned)."""
    context = (
        fence(json_line(request.context), "json")
        if request.context is not None
        else "(the implementer gave no context line)"
    )
    output = fence(request.recent_output) if request.recent_output.strip() else "(no output)"
    return load_template("advisor").render(
        task_id=request.task_id,
        number=str(request.number),
        max_requests=str(request.max_requests),
        task=request.task,
        context=context,
        output=output,
    )


# ---------------------------------------------------------------- state and outcome


class _Value(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")


class AdvisorProgress(_Value):
    """One advisor's part of the state file."""

    name: str
    attempts: int = Field(0, ge=0)
    """Attempts *started*: written before each attempt runs, so a crash cannot hide one."""
    status: Literal["pending", "answered", "failed"] = "pending"
    session_id: str | None = None
    advice: AdvicePayload | None = None
    last_failure: HandoffFailure | None = None
    """The last invalid `advice` reply's error (fed back in the advisor's session)."""
    last_error_type: str | None = None
    last_error: str | None = None
    records: tuple[AttemptRecord, ...] = ()
    original_error: ErrorInfo | None = None
    started_at: datetime | None = None
    finished_at: datetime | None = None
    recorded: bool = False
    """Its debug record went to the recorder (log, events, failure file)."""


class ConsultationState(_Value):
    """The resumable state file (`advice_request.json`)."""

    request: HelpRequest
    max_attempts: int = Field(ge=1, le=3)
    advisors: tuple[AdvisorProgress, ...]

    def progress(self, name: str) -> AdvisorProgress:
        return next(p for p in self.advisors if p.name == name)

    def replace(self, progress: AdvisorProgress) -> ConsultationState:
        return self.model_copy(
            update={
                "advisors": tuple(progress if p.name == progress.name else p for p in self.advisors)
            }
        )


class AdvisorAnswer(_Value):
    advisor: str
    advice: AdvicePayload
    attempts: int


class AdvisorFailure(_Value):
    advisor: str
    attempts: int
    error_type: str | None = None
    error: str | None = None


class Consultation(_Value):
    """The outcome of `consult_advisors`, written to `consultation.json`.

    `action` is the strictest of the answers (`escalate` > `skip` > `continue`), or `error`
    when no advisor answered (seed 002's `action=error`): the task escalates with `request` as
    its package."""

    request: HelpRequest
    status: Literal["advised", "failed"]
    action: Literal["continue", "skip", "escalate", "error"]
    answers: tuple[AdvisorAnswer, ...] = ()
    failures: tuple[AdvisorFailure, ...] = ()
    records: tuple[HandoffRecord, ...] = ()
    """Seed 002's debug record of each advisor's `advice` handoff."""
    reason: str = ""

    @property
    def ok(self) -> bool:
        return self.status == "advised"


def read_consultation(attempt_dir: Path) -> Consultation:
    """The outcome a finished consultation wrote, in the common envelope (`UsageError` naming
    the file otherwise)."""
    return read_record(attempt_dir / OUTCOME_FILE, Consultation)[1]


# ---------------------------------------------------------------- the step


def consult_advisors(
    request: HelpRequest,
    advisors: Sequence[Advisor],
    *,
    attempt_dir: Path,
    cwd: Path,
    config: Config | None = None,
    recorder: HandoffRecorder | None = None,
    protected_repos: Sequence[Path] = (),
    sleep: Callable[[float], object] = time.sleep,
    random: Callable[[], float] = _random.random,
    clock: Callable[[], datetime] | None = None,
) -> Consultation:
    """Ask every advisor about `request`; the advice, or `action="error"` when none answered.

    Never raises for advisor output or advisor failures. Advisors run read-only in `cwd` (the
    task's work tree; `protected_repos` are checked too). Safe to re-run with the same
    `attempt_dir` after a crash (see the module docstring); a finished consultation's re-run
    returns `read_consultation(attempt_dir)`. `UsageError` when the directory holds another
    request's state.
    """
    if (attempt_dir / OUTCOME_FILE).exists():
        return read_consultation(attempt_dir)
    settings = config or Config()
    job = _Job(
        request=request,
        root=attempt_dir,
        cwd=cwd,
        settings=settings,
        recorder=recorder or HandoffRecorder.from_config(settings),
        protected=tuple(protected_repos),
        sleep=sleep,
        random=random,
        clock=clock or _utcnow,
    )
    attempt_dir.mkdir(parents=True, exist_ok=True)
    state = job.load(advisors)
    for advisor in advisors:
        if state.progress(advisor.name).status == "pending":
            state = job.consult(state, advisor)
        state = job.record(state, advisor.name)
    outcome = job.outcome(state, advisors)
    retries = sum(max(0, len(r.retry_attempts) - 1) for r in outcome.records)
    errors = [e for r in outcome.records for e in retry_metadata(r)[1]]
    store_record(
        attempt_dir / OUTCOME_FILE,
        component="advisor",
        session_id=outcome.request.session_id,
        data=outcome,
        status="success" if outcome.ok else "failure",
        retry_count=retries,
        previous_errors=errors,
    )
    if outcome.ok:
        (attempt_dir / STATE_FILE).unlink(missing_ok=True)
    emit(
        job.recorder,
        "advice.finished",
        level="info" if outcome.ok else "warning",
        clock=job.clock,
        task_id=request.task_id,
        request=request.number,
        action=outcome.action,
        advised_by=[a.advisor for a in outcome.answers],
        failed=[f.advisor for f in outcome.failures],
    )
    return outcome


def _utcnow() -> datetime:
    return datetime.now(UTC)


def _slug(name: str) -> str:
    return _SLUG.sub("-", name).strip("-.") or "advisor"


@dataclass(frozen=True)
class _Job:
    request: HelpRequest
    root: Path
    cwd: Path
    settings: Config
    recorder: HandoffRecorder
    protected: tuple[Path, ...]
    sleep: Callable[[float], object]
    random: Callable[[], float]
    clock: Callable[[], datetime]

    # ------------------------------------------------------------ state file
    def save(self, state: ConsultationState) -> ConsultationState:
        write_json_atomic(self.root / STATE_FILE, state)
        return state

    def load(self, advisors: Sequence[Advisor]) -> ConsultationState:
        """The state file as a crash left it (leftovers killed, lost attempts recorded), or a
        new one, written before any advisor runs."""
        path = self.root / STATE_FILE
        cap = self.settings.agents.advisor_attempts
        if not path.exists():
            fresh = tuple(AdvisorProgress(name=a.name) for a in advisors)
            return self.save(
                ConsultationState(request=self.request, max_attempts=cap, advisors=fresh)
            )
        state = read_json_validated(path, ConsultationState)
        if (
            state.request.task_id != self.request.task_id
            or state.request.number != self.request.number
        ):
            raise UsageError(
                f"{path} holds help request {state.request.number} of task "
                f"{state.request.task_id!r}, not {self.request.number} of {self.request.task_id!r}"
            )
        known = {p.name for p in state.advisors}
        added = tuple(AdvisorProgress(name=a.name) for a in advisors if a.name not in known)
        state = state.model_copy(update={"advisors": state.advisors + added})
        self.kill_leftovers()
        state = self.save(self.record_lost(state))
        emit(
            self.recorder,
            "advice.resumed",
            clock=self.clock,
            task_id=self.request.task_id,
            request=self.request.number,
            attempts={p.name: p.attempts for p in state.advisors},
        )
        return state

    def kill_leftovers(self) -> None:
        """Advisor process groups a killed predecessor left running (pid reuse is checked)."""
        for folder, pid in kill_leftovers(self.root / "advisors", "*/*/process.json"):
            emit(
                self.recorder,
                "advice.leftover_killed",
                level="warning",
                clock=self.clock,
                task_id=self.request.task_id,
                advisor=folder.parent.name,
                pid=pid,
            )

    def record_lost(self, state: ConsultationState) -> ConsultationState:
        for progress in state.advisors:
            if len(progress.records) < progress.attempts:
                lost = [
                    _attempt_record(
                        n,
                        at=self.clock(),
                        prompt="",
                        level="fresh",
                        error_type="lost",
                        error="the process died while this attempt ran; its reply was lost",
                        output="",
                        duration=0.0,
                    )
                    for n in range(len(progress.records) + 1, progress.attempts + 1)
                ]
                state = state.replace(
                    progress.model_copy(
                        update={
                            "records": (*progress.records, *lost),
                            "last_failure": None,
                            "last_error_type": "lost",
                            "last_error": lost[-1].error,
                            "session_id": None,
                        }
                    )
                )
        return state

    # ------------------------------------------------------------ one advisor
    def consult(self, state: ConsultationState, advisor: Advisor) -> ConsultationState:
        progress = state.progress(advisor.name)
        if progress.started_at is None:
            progress = progress.model_copy(update={"started_at": self.clock()})
        policy = RetryPolicy.from_config(self.settings.retry, "advice")
        while progress.attempts < state.max_attempts and progress.status == "pending":
            n = progress.attempts + 1
            if n > 1:
                self.sleep(policy.delay(n - 1, self.random()))
            progress = progress.model_copy(update={"attempts": n})
            state = self.save(state.replace(progress))  # counted before it runs
            progress = self.attempt(advisor, progress, n, state.max_attempts, policy)
            state = self.save(state.replace(progress))
        if progress.status == "pending":
            progress = progress.model_copy(update={"status": "failed"})
        progress = progress.model_copy(update={"finished_at": self.clock()})
        return self.save(state.replace(progress))

    def record(self, state: ConsultationState, name: str) -> ConsultationState:
        """Hand a finished advisor's debug record to the recorder, once (at least once when a
        crash falls between the two writes)."""
        progress = state.progress(name)
        if progress.status == "pending" or progress.recorded:
            return state
        self.finish_record(progress, state.max_attempts)
        return self.save(state.replace(progress.model_copy(update={"recorded": True})))

    def attempt(
        self, advisor: Advisor, progress: AdvisorProgress, n: int, cap: int, policy: RetryPolicy
    ) -> AdvisorProgress:
        full = advisor_prompt(self.request).text
        failure = progress.last_failure
        resume = progress.session_id if failure is not None else None
        prompt = full
        level: PromptLevel = "initial" if n == 1 else "fresh"
        if failure is not None:
            level = level_for_retry(n - 1, reduce=policy.reduce_prompts)
            schema = default_registry().get("advice")
            prompt = retry_prompt(failure, schema, level=level, attempt=n, max_attempts=cap)
        asker = SessionAsk(
            advisor.backend,
            self.template(advisor),
            session_id=resume,
            original_prompt=full,
            transport_retries=self.settings.agents.transport_retries,
            policy=policy,
            sleep=self.sleep,
            random=self.random,
        )
        at, begun = self.clock(), time.monotonic()
        run_dir = fresh_dir(self.root / "advisors" / _slug(advisor.name) / f"a{n}")
        result = asker.run(prompt, attempt_dir=run_dir)
        write_json_atomic(run_dir / "result.json", result)
        return self.judge(
            progress,
            result,
            n=n,
            cap=cap,
            at=at,
            prompt=prompt,
            level=level,
            begun=begun,
            advisor=advisor.name,
            resumes=asker.resumes,
        )

    def judge(
        self,
        progress: AdvisorProgress,
        result: AgentResult,
        *,
        n: int,
        cap: int,
        at: datetime,
        prompt: str,
        level: PromptLevel,
        begun: float,
        advisor: str,
        resumes: bool,
    ) -> AdvisorProgress:
        advice: AdvicePayload | None = None
        failure: HandoffFailure | None = None
        if result.ok:
            strict = self.settings.handoff_validation.strict_schema_validation
            extraction = extract(result.text, "advice", strict=strict)
            advice, failure = (
                (extraction.value, None) if extraction.ok else (None, extraction.error)
            )
            error_type = failure.type.value if failure else None
            error = failure.details if failure else None
        else:
            error_type = _run_error_type(result)
            error = result.error or result.status.value
        record = _attempt_record(
            n,
            at=at,
            prompt=prompt,
            level=level,
            error_type=error_type,
            error=error,
            output=result.text,
            duration=time.monotonic() - begun,
        )
        update: dict[str, object] = {
            "records": (*progress.records, record),
            "session_id": result.session_id if resumes and result.session_id else None,
            "last_failure": failure,
            "last_error_type": error_type,
            "last_error": error,
        }
        if advice is not None:
            update.update(status="answered", advice=advice)
        if error_type is not None and progress.original_error is None:
            update["original_error"] = ErrorInfo(
                type=error_type,
                details=error or "",
                output_sample=result.text[:OUTPUT_SAMPLE_CHARS],
            )
        emit(
            self.recorder,
            "advice.attempt",
            level="info" if advice is not None else "warning",
            clock=self.clock,
            task_id=self.request.task_id,
            request=self.request.number,
            advisor=advisor,
            attempt=n,
            max_attempts=cap,
            result="success" if advice is not None else "failure",
            error_type=error_type,
            error=(error or "").splitlines()[0][:300] if error else None,
        )
        return progress.model_copy(update=update)

    def finish_record(self, progress: AdvisorProgress, cap: int) -> None:
        """Seed 002's debug record of this advisor's handoff: log, events, failure file."""
        record = self.handoff_record(progress, cap)
        outputs = [
            _read_output(path)
            for path in sorted(
                (self.root / "advisors" / _slug(progress.name)).glob("a*/result.json")
            )
        ]
        self.recorder.finish(record, outputs)
        emit(
            self.recorder,
            "handoff.finished",
            level="info" if record.final_status == "recovered" else "warning",
            clock=lambda: record.finished_at,
            component="advisor",
            handoff_type="advice",
            session_id=record.session_id,
            final_status=record.final_status,
            attempts=len(record.retry_attempts),
            error_type=progress.last_error_type,
        )

    def handoff_record(self, progress: AdvisorProgress, cap: int) -> HandoffRecord:
        started = progress.started_at or self.clock()
        finished = progress.finished_at or self.clock()
        return HandoffRecord(
            handoff_type="advice",
            component="advisor",
            session_id=progress.session_id or "",
            original_error=progress.original_error,
            retry_attempts=progress.records,
            final_status="recovered" if progress.status == "answered" else "escalated",
            max_attempts=cap,
            started_at=started,
            finished_at=max(finished, started),
        )

    def template(self, advisor: Advisor) -> AgentRequest:
        env = task_environment(
            self.request.run_id, self.request.task_id, help_request=str(self.request.number)
        )
        return AgentRequest(
            prompt="",
            cwd=self.cwd,
            read_only=True,
            protected_repos=self.protected,
            model=advisor.model,
            env=env,
            **AgentRequest.limits_from(self.settings.agents),
        )

    # ------------------------------------------------------------ outcome
    def outcome(self, state: ConsultationState, advisors: Sequence[Advisor]) -> Consultation:
        names = [a.name for a in advisors]
        chosen = [state.progress(name) for name in names]
        answers = tuple(
            AdvisorAnswer(advisor=p.name, advice=p.advice, attempts=p.attempts)
            for p in chosen
            if p.advice is not None
        )
        failures = tuple(
            AdvisorFailure(
                advisor=p.name,
                attempts=p.attempts,
                error_type=p.last_error_type,
                error=p.last_error,
            )
            for p in chosen
            if p.advice is None
        )
        records = tuple(self.handoff_record(p, state.max_attempts) for p in chosen)
        if not answers:
            why = "no advisor is configured" if not chosen else "no advisor answered"
            return Consultation(
                request=self.request,
                status="failed",
                action="error",
                failures=failures,
                records=records,
                reason=f"{why} (help request {self.request.number} of task {self.request.task_id})",
            )
        action = max((a.advice.action for a in answers), key=_ACTION_ORDER.__getitem__)
        return Consultation(
            request=self.request,
            status="advised",
            action=action,
            answers=answers,
            failures=failures,
            records=records,
            reason=f"{len(answers)} of {len(chosen)} advisor(s) answered; strictest: {action}",
        )


def _run_error_type(result: AgentResult) -> str:
    if is_stuck(result):
        return "stuck"
    if is_transport_failure(result):
        return "transport"
    return "agent_failed"


def _attempt_record(
    n: int,
    *,
    at: datetime,
    prompt: str,
    level: PromptLevel,
    error_type: str | None,
    error: str | None,
    output: str,
    duration: float,
) -> AttemptRecord:
    return AttemptRecord.of(
        n,
        timestamp=at,
        prompt=prompt,
        prompt_level=level,
        error_type=error_type,
        error=error,
        output=output,
        duration_s=duration,
    )


def _read_output(path: Path) -> str:
    try:
        return read_json_validated(path, AgentResult).text
    except UsageError:
        return ""
