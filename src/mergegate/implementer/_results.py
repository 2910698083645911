"""The implementer's result as a validated `agent-result` handoff, persisted and read back.

`collect_agent_result` is a step: it takes the implementer's run (or makes it), extracts the
`agent-result` JSON strictly — when the request asked for it as a typed answer
(`AgentRequest.answer_schema`, `result_schema`), from the answer the backend's mechanism
delivered, which must be the object alone — and when it is invalid asks again **in the same
session** with the exact error (`SessionAsk` + `request_handoff`: shorter prompts, backoff,
capped by `retry.max_attempts["agent-result"]`). It does not ask again when asking cannot
help: the run failed or hung (the recovery table decides), or the agent asked for help
(advisors answer).

Everything it learns is written to its attempt directory before it is used, so a process killed
at any point loses nothing and re-running the step with the same directory continues where it
stood (first killing an agent the lost run left behind), never asking more often than the cap
allows:

    <attempt_dir>/progress.json         asks started (written before each ask)
    <attempt_dir>/replies/NN.json       each run's AgentResult (01 is the implementer's run)
    <attempt_dir>/ask-NN/               each retry's agent records (prompt, logs, process)
    <attempt_dir>/agent-result.json     the ResultCollection: written once, never overwritten

`read_agent_result(attempt_dir)` reads the collection back and validates its result again; a
re-run of a finished step is that read. `judge_task_result` sets what the agent claims against
what mergegate's own checks found.
"""

from __future__ import annotations

import random as _random
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, model_validator

from mergegate.agents.base import AgentRequest, AgentResult, Backend, HelpSignal, RunStatus
from mergegate.agents.conversation import SessionAsk, is_stuck, is_transport_failure
from mergegate.atomic_files import read_json_validated, write_json_atomic
from mergegate.config import Config
from mergegate.errors import UsageError
from mergegate.handoff import (
    AgentResultPayload,
    HandoffRecord,
    HandoffRecorder,
    RetryPolicy,
    default_registry,
    extract,
    read_record,
    request_handoff,
    store_record,
)
from mergegate.implementer._events import emit
from mergegate.implementer._help import (
    RECENT_OUTPUT_CHARS,
    HelpAssessment,
    HelpRequest,
    assess_help,
    help_request,
)
from mergegate.implementer._io import IoReport, io_retried
from mergegate.implementer._leftovers import kill_leftovers
from mergegate.implementer._prompts import cut
from mergegate.implementer._scratchpad import ScratchpadCheck, check_scratchpad

__all__ = [
    "PROGRESS_FILE",
    "RESULT_FILE",
    "CheckOutcome",
    "CollectionStatus",
    "ResultCollection",
    "TaskJudgement",
    "collect_agent_result",
    "judge_task_result",
    "read_agent_result",
]

RESULT_FILE = "agent-result.json"
PROGRESS_FILE = "progress.json"
_REPLIES = "replies"

CollectionStatus = Literal["recovered", "help_requested", "escalated", "fatal"]
_ENVELOPE_STATUS: dict[str, Literal["success", "failure", "partial"]] = {
    "recovered": "success",
    "help_requested": "partial",
    "escalated": "failure",
    "fatal": "failure",
}


class _Value(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")


class ResultCollection(_Value):
    """What `collect_agent_result` found: a serialisable value, written to `agent-result.json`.

    `status`:

    * `recovered` — a valid `agent-result` (`result`), possibly after asking again;
    * `help_requested` — the agent asked for help: not asked again for JSON (`help` says how);
    * `escalated` — still invalid after the cap (`record` is seed 002's debug record);
    * `fatal` — a run failed: `stuck` (timeout or stall), `transport_failure` (unreachable),
      or another failure (`error`), in the implementer's run or in a retry.

    `help` is assessed in every case (a help line before a hang still counts).
    """

    task_id: str = Field(min_length=1)
    status: CollectionStatus
    result_data: dict[str, Any] | None = None
    """The agent's `agent-result` object as it gave it (validated again on every read)."""
    help: HelpAssessment
    backend: str = ""
    session_id: str | None = None
    run_status: RunStatus
    """How the last run ended."""
    stuck: bool = False
    transport_failure: bool = False
    error: str | None = None
    runs: int = Field(ge=1)
    """Agent runs this collection is made of, the implementer's own run included."""
    record: HandoffRecord | None = None
    """The handoff's debug record (None when no handoff was attempted: a failed run, help)."""
    failed_handoff: str | None = None
    """The failed-handoff file, when one was written."""
    recent_output: str = ""
    """The tail of the last run's text (for the advisors and the escalation package)."""
    scratchpad: ScratchpadCheck | None = None
    """The scratchpad the result named (`scratchpad_path`), checked; None when it named none."""
    warnings: tuple[str, ...] = ()

    @model_validator(mode="after")
    def _result_validates(self) -> ResultCollection:
        if self.result_data is not None:
            self._payload()
        if self.status == "recovered" and self.result_data is None:
            raise ValueError("a recovered collection needs its result")
        return self

    def _payload(self) -> AgentResultPayload:
        schema = default_registry().get("agent-result")
        check = schema.validate_object(
            self.result_data or {}, strict=False, context={"task_id": self.task_id}
        )
        if not check.ok:
            raise ValueError("agent-result no longer validates: " + "; ".join(check.problems))
        value: AgentResultPayload = check.value
        return value

    @property
    def ok(self) -> bool:
        return self.status == "recovered"

    @property
    def result(self) -> AgentResultPayload | None:
        """The validated result (validated again from `result_data`), or None."""
        return self._payload() if self.result_data is not None else None

    def help_request(
        self,
        *,
        task: str,
        number: int,
        max_requests: int,
        run_id: str = "",
    ) -> HelpRequest:
        """The package for the advisors (`ValueError` when no help was requested)."""
        return help_request(
            task_id=self.task_id,
            task=task,
            assessment=self.help,
            recent_output=self.recent_output,
            number=number,
            max_requests=max_requests,
            session_id=self.session_id,
            implementer=self.backend,
            run_id=run_id,
        )


class _Progress(_Value):
    task_id: str
    asks_started: int = Field(ge=0)


class _Store:
    """The step's files in its attempt directory (the collection written with retries)."""

    def __init__(
        self,
        root: Path,
        task_id: str,
        *,
        report: IoReport | None = None,
        sleep: Callable[[float], object] = time.sleep,
    ) -> None:
        self.root = root
        self.task_id = task_id
        self.report = report
        self.sleep = sleep

    def load(self) -> list[AgentResult | None]:
        """Each started ask's result, None where the process died before it was saved."""
        path = self.root / PROGRESS_FILE
        if not path.exists():
            return []
        progress = read_json_validated(path, _Progress)
        if progress.task_id != self.task_id:
            raise UsageError(f"{path} belongs to task {progress.task_id!r}, not {self.task_id!r}")
        runs: list[AgentResult | None] = []
        for n in range(1, progress.asks_started + 1):
            reply = self._reply(n)
            runs.append(read_json_validated(reply, AgentResult) if reply.exists() else None)
        return runs

    def start(self, n: int) -> None:
        """Ask `n` is about to start: counted before it runs, so a crash cannot hide it."""
        progress = _Progress(task_id=self.task_id, asks_started=n)
        write_json_atomic(self.root / PROGRESS_FILE, progress)

    def save(self, n: int, result: AgentResult) -> None:
        write_json_atomic(self._reply(n), result)

    def finish(self, collection: ResultCollection) -> None:
        """The collection, in the common envelope with its retry metadata, written once."""
        path = self.root / RESULT_FILE
        io_retried(
            "write",
            path,
            lambda: store_record(
                path,
                component="implementer",
                session_id=collection.session_id,
                data=collection,
                status=_ENVELOPE_STATUS[collection.status],
                record=collection.record,
            ),
            report=self.report,
            sleep=self.sleep,
        )
        (self.root / PROGRESS_FILE).unlink(missing_ok=True)

    def _reply(self, n: int) -> Path:
        return self.root / _REPLIES / f"{n:02d}.json"


def collect_agent_result(
    backend: Backend,
    request: AgentRequest,
    *,
    task_id: str,
    attempt_dir: Path,
    first: AgentResult | None = None,
    config: Config | None = None,
    recorder: HandoffRecorder | None = None,
    sleep: Callable[[float], object] = time.sleep,
    random: Callable[[], float] = _random.random,
    clock: Callable[[], datetime] | None = None,
) -> ResultCollection:
    """The implementer's validated `agent-result`, or why there is none (never raises for agent
    output or agent failures).

    `request` is the implementer's request (its `prompt` asked for the result; `cwd`, limits
    and env are reused for retries). `first` is the implementer's run when the caller already
    made it; without it the step makes it. Retries resume `first`'s session through
    `SessionAsk` (a backend without sessions gets fresh runs with the full prompt, and a warning
    says so). `config` gives the cap and backoff (`[retry]`), `agents.transport_retries`, and
    strictness; `recorder` where the debug record and events go (default: the state directory;
    `HandoffRecorder.for_run(config, run_dir)` for a run).

    Safe to re-run with the same `attempt_dir` after a crash (see the module docstring); when
    the step had finished, a re-run returns `read_agent_result(attempt_dir)`.
    """
    if (attempt_dir / RESULT_FILE).exists():
        return read_agent_result(attempt_dir)
    settings = config or Config()
    rec = recorder or HandoffRecorder.from_config(settings)
    attempt_dir.mkdir(parents=True, exist_ok=True)
    store = _Store(attempt_dir, task_id, report=rec.emit, sleep=sleep)
    policy = RetryPolicy.from_config(settings.retry, "agent-result")
    runs = store.load()
    for folder, pid in kill_leftovers(attempt_dir, "ask-*/process.json"):
        emit(
            rec,
            "result.leftover_killed",
            level="warning",
            clock=clock,
            task_id=task_id,
            attempt=folder.name,
            pid=pid,
        )
    if not runs or runs[0] is None:
        runs = [
            _first_run(
                backend=backend,
                request=request,
                first=first,
                store=store,
                settings=settings,
                policy=policy,
                sleep=sleep,
                random=random,
            )
        ]
    head = runs[0]
    assert head is not None
    collection = _without_retries(head, task_id, backend.name)
    if collection is None:
        collection = _with_retries(
            _Retry(
                backend=backend,
                request=request,
                task_id=task_id,
                store=store,
                runs=runs,
                settings=settings,
                recorder=rec,
                policy=policy,
                sleep=sleep,
                random=random,
                clock=clock,
            )
        )
    collection = _with_scratchpad(
        collection,
        backend=backend,
        request=request,
        attempt_dir=attempt_dir,
        settings=settings,
        recorder=rec,
        sleep=sleep,
        random=random,
        clock=clock,
    )
    store.finish(collection)
    _report(rec, collection, clock)
    return collection


def _with_scratchpad(
    collection: ResultCollection,
    *,
    backend: Backend,
    request: AgentRequest,
    attempt_dir: Path,
    settings: Config,
    recorder: HandoffRecorder,
    sleep: Callable[[float], object],
    random: Callable[[], float],
    clock: Callable[[], datetime] | None,
) -> ResultCollection:
    """A recovered result that names a scratchpad: the scratchpad checked (asked for again in
    the same session while invalid); still invalid, the collection escalates."""
    path = (collection.result_data or {}).get("scratchpad_path")
    if collection.status != "recovered" or not isinstance(path, str) or not path:
        return collection
    checked = check_scratchpad(
        backend,
        request,
        task_id=collection.task_id,
        path=path,
        session_id=collection.session_id,
        attempt_dir=attempt_dir,
        config=settings,
        recorder=recorder,
        sleep=sleep,
        random=random,
        clock=clock,
    )
    if checked.status == "recovered":
        return collection.model_copy(update={"scratchpad": checked})
    return collection.model_copy(
        update={"scratchpad": checked, "status": "escalated", "error": checked.error}
    )


def read_agent_result(
    attempt_dir: Path,
    *,
    report: IoReport | None = None,
    sleep: Callable[[float], object] = time.sleep,
) -> ResultCollection:
    """The collection a finished `collect_agent_result` wrote, with its result validated again;
    a transient read error is tried again (`_io`), each failure given to `report` as an
    `agent-result.read` handoff event.

    Raises `UsageError` (exit 2) naming the file when it is missing, unreadable after the
    retries, or its result no longer validates."""
    path = attempt_dir / RESULT_FILE
    return io_retried(
        "read",
        path,
        lambda: read_record(path, ResultCollection)[1],
        report=report,
        sleep=sleep,
    )


def _first_run(
    *,
    backend: Backend,
    request: AgentRequest,
    first: AgentResult | None,
    store: _Store,
    settings: Config,
    policy: RetryPolicy,
    sleep: Callable[[float], object],
    random: Callable[[], float],
) -> AgentResult:
    """The implementer's own run: the caller's, or made here (counted before it starts)."""
    if first is None:
        store.start(1)
        asker = SessionAsk(
            backend,
            request,
            session_id=request.resume_session_id,
            transport_retries=settings.agents.transport_retries,
            policy=policy,
            sleep=sleep,
            random=random,
        )
        first = asker.run(request.prompt, attempt_dir=store.root / "ask-01")
    else:
        store.start(1)
    store.save(1, first)
    return first


def _without_retries(head: AgentResult, task_id: str, backend: str) -> ResultCollection | None:
    """The collection when asking again for JSON cannot help (a failed run, a help request).

    Its result is read leniently (the last object, text around it allowed): it only informs
    the help assessment (a `requested_help` claim against the stream) and is never accepted
    here; an accepted result always goes through `_with_retries`, strictly."""
    extraction = extract(head.reply, "agent-result", context={"task_id": task_id}, strict=False)
    payload = extraction.value if extraction.ok else None
    help_ = assess_help(head.signals, payload)
    if head.ok and not help_.requested:
        return None
    status: CollectionStatus = "help_requested" if head.ok else "fatal"
    return ResultCollection(
        task_id=task_id,
        status=status,
        result_data=extraction.data if extraction.ok else None,
        help=help_,
        backend=backend,
        session_id=head.session_id,
        run_status=head.status,
        stuck=is_stuck(head),
        transport_failure=is_transport_failure(head),
        error=None if head.ok else (head.error or head.status.value),
        runs=1,
        recent_output=cut(head.text, RECENT_OUTPUT_CHARS, keep="tail"),
        warnings=head.warnings,
    )


@dataclass(frozen=True)
class _Retry:
    """Everything the retry loop needs (one argument instead of eleven)."""

    backend: Backend
    request: AgentRequest
    task_id: str
    store: _Store
    runs: list[AgentResult | None]
    settings: Config
    recorder: HandoffRecorder
    policy: RetryPolicy
    sleep: Callable[[float], object]
    random: Callable[[], float]
    clock: Callable[[], datetime] | None


def _with_retries(job: _Retry) -> ResultCollection:
    head = job.runs[0]
    assert head is not None
    known = [r for r in job.runs if r is not None]
    session = next((r.session_id for r in reversed(known) if r.session_id), None)
    asker = SessionAsk(
        job.backend,
        job.request,
        session_id=session,
        original_prompt=job.request.prompt,
        attempt_root=job.store.root,
        first_call=len(job.runs) + 1,
        transport_retries=job.settings.agents.transport_retries,
        policy=job.policy,
        sleep=job.sleep,
        random=job.random,
    )

    def ask(prompt: str) -> str:
        n = asker.next_call
        job.store.start(n)
        before = len(asker.results)
        try:
            return asker(prompt)
        finally:
            if len(asker.results) > before:
                job.store.save(n, asker.results[-1])

    outcome = request_handoff(
        ask,
        job.request.prompt,
        "agent-result",
        config=job.settings,
        session_id=session or "",
        component="implementer",
        context={"task_id": job.task_id},
        recorder=job.recorder,
        sleep=job.sleep,
        random=job.random,
        clock=job.clock,
        # a persisted run that failed was never consumed: it is asked again, and counted
        replies=[r.reply if r is not None and r.ok else None for r in job.runs],
        alone=job.request.answer_schema is not None,
    )
    runs = known + asker.results
    last = runs[-1]
    signals: list[HelpSignal] = [s for r in runs for s in r.signals]
    payload = outcome.value if outcome.ok else None
    status: CollectionStatus = (
        "recovered" if outcome.ok else outcome.record.final_status  # escalated | fatal
    )
    failed = outcome.record.final_status == "fatal"
    return ResultCollection(
        task_id=job.task_id,
        status=status,
        result_data=outcome.extraction.data if outcome.ok and outcome.extraction else None,
        help=assess_help(signals, payload),
        backend=job.backend.name,
        session_id=asker.session_id or session,
        run_status=last.status,
        stuck=failed and is_stuck(last),
        transport_failure=failed and is_transport_failure(last),
        error=_why(outcome.record),
        runs=len(job.runs) + len(asker.results),
        record=outcome.record,
        failed_handoff=str(outcome.saved_to) if outcome.saved_to else None,
        recent_output=cut(last.text, RECENT_OUTPUT_CHARS, keep="tail"),
        warnings=(*head.warnings, *asker.warnings),
    )


def _why(record: HandoffRecord) -> str | None:
    if record.final_status == "recovered" or not record.retry_attempts:
        return None
    last = record.retry_attempts[-1]
    first_line = (last.error or "").splitlines()[0] if last.error else ""
    return (
        f"agent-result {record.final_status} after {len(record.retry_attempts)} attempt(s): "
        f"{last.error_type}: {first_line}"
    )


def _report(
    recorder: HandoffRecorder,
    collection: ResultCollection,
    clock: Callable[[], datetime] | None,
) -> None:
    help_ = collection.help
    if help_.warning:
        emit(
            recorder,
            "help.discrepancy",
            level="warning",
            clock=clock,
            task_id=collection.task_id,
            source=help_.source,
            note=help_.note,
        )
    emit(
        recorder,
        "result.collected",
        level="info" if collection.ok else "warning",
        clock=clock,
        task_id=collection.task_id,
        status=collection.status,
        attempts=collection.runs,
        session_id=collection.session_id,
        requested_help=help_.requested,
    )


# ---------------------------------------------------------------- claims vs checks


class CheckOutcome(_Value):
    """One check mergegate ran itself (a command, a criterion): did it pass."""

    name: str
    passed: bool
    detail: str = ""


class TaskJudgement(_Value):
    """The agent's claim and mergegate's checks, side by side, and what they decide."""

    passed: bool
    """Only when the agent claims success and normal completion and no check failed."""
    claimed_success: bool | None
    """None when there is no valid result to claim anything."""
    completed_normally: bool | None
    checks_run: int
    checks_failed: tuple[str, ...]
    todos: tuple[str, ...] = ()
    reasons: tuple[str, ...]
    """Why it did not pass (empty when it passed)."""
    discrepancy: str | None = None
    """The claim and the checks disagree (e.g. `success: true` with failing checks)."""


def judge_task_result(
    result: AgentResultPayload | None, checks: Sequence[CheckOutcome]
) -> TaskJudgement:
    """Pure: what the agent claims never replaces what mergegate checks.

    A task passes only when its result claims success and normal completion and none of
    `checks` failed; `success: true` with a failing check is a failing task, and the judgement
    keeps both. With no checks, the claim stands unverified (the review decides next)."""
    failed = tuple(c.name for c in checks if not c.passed)
    reasons: list[str] = []
    if result is None:
        reasons.append("no valid agent-result")
    else:
        if not result.success:
            reasons.append("the agent reports that the task did not succeed")
        if not result.completed_normally:
            reasons.append("the agent did not complete normally")
    if failed:
        reasons.append(f"{len(failed)} of {len(checks)} check(s) failed: {', '.join(failed)}")
    discrepancy = None
    if result is not None and result.success and failed:
        discrepancy = (
            f"the agent claims success, but {len(failed)} of {len(checks)} check(s) failed"
        )
    elif result is not None and not result.success and checks and not failed:
        discrepancy = "the agent reports failure, but every check passed"
    return TaskJudgement(
        passed=not reasons,
        claimed_success=result.success if result else None,
        completed_normally=result.completed_normally if result else None,
        checks_run=len(checks),
        checks_failed=failed,
        todos=tuple(result.todos) if result else (),
        reasons=tuple(reasons),
        discrepancy=discrepancy,
    )
