"""The implementer's turn of a task in a run: its `agent-result` handoff, its help requests and
the advisors, and what to do when a run fails (issue 14, on `mergegate.implementer`).

The implement step of a task goes round until the implementer handed in a valid result or the
task ended:

    run the implementer (agent step)  →  collect its agent-result (collect step)
      → decide_recovery(Situation.of(collection), counters, limits):
          accept          → the claim is read; success false / not completed → escalate
          consult         → the advisors (consult step); `continue` resumes the implementer's
                            session with the guidance and goes round again; skip, escalate,
                            or no advice at all (`error`) end the task with the package
          fresh start     → a stall or timeout: the tree reset to the task's start, the agent
                            run again in a new session (once, `agents.stuck_restarts`)
          retry transport → the endpoint was unreachable: back off, run again
          escalate / fail → the task ends with the table's exit code

Each agent run, collection and consultation is one durable step over its own attempt directory
(the library's steps are resumable in place: a crash mid-collection or mid-consultation goes on
with the persisted ask or attempt count). Decisions read the collection back from its file,
validated (`read_agent_result`), never from memory, so a crash between the two loses nothing.

What the agent claims never replaces what mergegate checks: the claim is kept beside the checks'
result (`judge_task_result`) in the task's record, and only the checks and the review decide.
"""

from __future__ import annotations

import json
import random
import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Protocol

from pydantic import BaseModel, ConfigDict

from mergegate.agents.base import AgentRequest, AgentResult
from mergegate.decisions import ExitCode
from mergegate.engine._context.outcomes import CheckResult, TaskOutcome
from mergegate.engine._context.runtime import Runtime, current
from mergegate.engine._steps.core import FixCommit
from mergegate.events import EventSink, HelpAdvice, HelpRequested, Notice, handoff_event
from mergegate.git import reset_clean
from mergegate.handoff import AgentResultPayload, HandoffRecorder, backoff_delay
from mergegate.ids import HandoffEventId, WorkflowId
from mergegate.implementer import (
    Advisor,
    CheckOutcome,
    Consultation,
    RecoveryAction,
    RecoveryCounters,
    RecoveryLimits,
    ResultCollection,
    Situation,
    TaskJudgement,
    collect_agent_result,
    consult_advisors,
    decide_recovery,
    guidance_prompt,
    guidance_request,
    implementer_prompt,
    judge_task_result,
    read_agent_result,
    read_consultation,
)
from mergegate.plans import Task
from mergegate.store import step

__all__ = [
    "RESULT_DIR",
    "Asked",
    "CollectCall",
    "ConsultCall",
    "ImplementingTask",
    "backoff_step",
    "collect_step",
    "consult_step",
    "implement_turns",
    "judge_claim",
    "reset_step",
    "run_recorder",
]

RESULT_DIR = "result"
"""The collection's folder inside an implementer attempt (`attempts/NN-implementer/result`)."""


# ---------------------------------------------------------------- events


@dataclass(frozen=True)
class _RunEvents:
    """The library's plain events as typed events of the run's `events.jsonl`: handoff attempts
    and ends, advisors' attempts, and a warning when the stream and the JSON disagree about
    help. Other plain events are not part of the typed stream (their facts are in the
    attempt directories' records)."""

    log: EventSink
    context: Mapping[str, Any] = field(default_factory=dict)

    def emit(self, event: Mapping[str, Any]) -> None:
        typed = handoff_event(event, **self.context)
        if typed is not None:
            self.log.emit(typed)
            return
        kind = event.get("type")
        if kind == "help.discrepancy":
            message = "help: " + str(event.get("note") or "the stream and the result disagree")
            self.log.emit(Notice(message=message, level="warning", **self.context))
        elif kind == "advice.attempt":
            ok = event.get("result") == "success"
            self.log.emit(
                HelpAdvice(
                    advisor=str(event.get("advisor") or "advisor"),
                    operation=f"help-{int(event.get('request') or 1)}",
                    status="ok" if ok else "failed",
                    attempt=max(1, int(event.get("attempt") or 1)),
                    max_attempts=max(0, int(event.get("max_attempts") or 0)),
                    error=str(event.get("error") or ""),
                    **self.context,
                )
            )


class ImplementingTask(Protocol):
    """What the implementer's turn reads and moves of the task it runs for: the task pipeline
    (`_flow.task_pipeline`) is one, and hands itself over. The turn reads where the task is
    and how it was asked, records what its steps returned (the session, the stop, the claim
    and its judgement, the notes, the help requests) and ends the task through the pipeline's
    own verdicts."""

    session: str | None
    stopped: str | None
    notes: str
    claim: AgentResultPayload | None
    judgement: TaskJudgement | None
    help_requests: int

    @property
    def rt(self) -> Runtime: ...
    @property
    def phase_id(self) -> str: ...
    @property
    def unit_id(self) -> str: ...
    @property
    def task(self) -> Task: ...
    @property
    def spec(self) -> str: ...
    @property
    def start(self) -> str: ...
    @property
    def worktree(self) -> Path: ...
    @property
    def task_dir(self) -> Path: ...
    @property
    def attempt_dir(self) -> str: ...
    @property
    def deadline(self) -> float | None: ...
    @property
    def request(self) -> AgentRequest | None: ...

    def emit(self, step: str, message: str) -> None: ...
    def count(self, tokens: int) -> None: ...
    def run_agent(
        self,
        prompt: str,
        commit: FixCommit | None = None,
        *,
        resume: bool = True,
        result: bool = False,
    ) -> tuple[AgentResult, str | None]: ...
    def outcome(
        self, decision: str, reason: str = "", code: ExitCode = ExitCode.OK
    ) -> TaskOutcome: ...
    def escalate(self, reason: str) -> TaskOutcome: ...
    def ended_by_stop(self) -> TaskOutcome: ...


def _where(pipe: ImplementingTask) -> dict[str, str]:
    return {"phase": pipe.phase_id, "unit": pipe.unit_id, "task": pipe.task.id}


def run_recorder(rt: Runtime, where: Mapping[str, str]) -> HandoffRecorder:
    """Where a task's handoff records go: typed events into the run's `events.jsonl`, the log
    and failed-handoff files into the run directory (as `[handoff_validation]` says)."""
    base = HandoffRecorder.for_run(rt.config, rt.run_dir)
    events = _RunEvents(rt.journal, {"run_id": rt.run_id, **where})
    return HandoffRecorder(events=events, failed_dir=base.failed_dir, log_path=base.log_path)


# ---------------------------------------------------------------- steps


class _Call(BaseModel):
    model_config = ConfigDict(extra="forbid")


class CollectCall(_Call):
    """The implementer's `agent-result` to collect: its last `request` and `first` result,
    the task, the folder it is written to, the deadline, and where in the run it is."""

    request: AgentRequest
    first: AgentResult
    task_id: str
    attempt_dir: str
    deadline: float | None
    where: dict[str, str]


class ConsultCall(_Call):
    """A help request to put to the run's advisors: the collection at `result_dir`, the
    task's `spec`, the request's `number` and cap, the folder the outcome is written to, the
    unit's workspace, the deadline, and where in the run it is."""

    result_dir: str
    spec: str
    number: int
    max_requests: int
    attempt_dir: str
    worktree: str
    deadline: float | None
    where: dict[str, str]


class Asked(_Call):
    """What a step that asked agents recorded: the folder it wrote, the tokens the asks
    used, and why an ask was refused (a budget, a stop request), if one was."""

    attempt_dir: str
    tokens: int
    stopped: str | None


@step("mergegate.collect_result")
def collect_step(call: CollectCall) -> Asked:
    """The implementer's `agent-result`, validated, asked again in its session while invalid
    (capped); written to `call.attempt_dir` (resumable there after a crash)."""
    rt = current()
    agent = rt.metered(rt.implementer, call.deadline, role="implementer")
    folder = Path(call.attempt_dir)
    request = call.request
    collect_agent_result(
        agent,
        request.model_copy(update={"cwd": rt.here(request.cwd)}),
        task_id=call.task_id,
        attempt_dir=folder,
        first=call.first,
        config=rt.config,
        recorder=run_recorder(rt, call.where),
    )
    rt.checkpoint(request.cwd)  # an ask in the agent's session may change files too
    return Asked(attempt_dir=str(folder), tokens=agent.tokens, stopped=agent.stopped)


@step("mergegate.consult")
def consult_step(call: ConsultCall) -> Asked:
    """Consult the run's advisors about the help request in the collection at
    `call.result_dir`; the outcome is written to `call.attempt_dir` (its state file keeps
    each advisor's attempt count across a crash: a re-run goes on from it)."""
    rt = current()
    collection = read_agent_result(Path(call.result_dir))
    request = collection.help_request(
        task=call.spec,
        number=call.number,
        max_requests=call.max_requests,
        run_id=rt.run_id,
    )
    metered = [rt.metered(a.backend, call.deadline, role="advisor") for a in rt.advisors]
    advisors = [Advisor(a.name, m, a.model) for a, m in zip(rt.advisors, metered, strict=True)]
    folder = Path(call.attempt_dir)
    consult_advisors(
        request,
        advisors,
        attempt_dir=folder,
        cwd=rt.here(call.worktree),
        config=rt.config,
        recorder=run_recorder(rt, call.where),
        # the read-only check covers the unit's workspace (cwd), not the user's repository,
        # where other units publish and merge while this one is paused
    )
    stopped = next((m.stopped for m in metered if m.stopped), None)
    return Asked(attempt_dir=str(folder), tokens=sum(m.tokens for m in metered), stopped=stopped)


@step("mergegate.reset", retries=3)
def reset_step(worktree: str, sha: str) -> None:
    """The work tree exactly at `sha` (a fresh start after a stall or timeout)."""
    rt = current()
    workspace = rt.workspace(worktree)
    reset_clean(workspace, sha)
    rt.checkpoint(workspace.root)


@step("mergegate.backoff")
def backoff_step(seconds: float) -> None:
    """Wait before calling an unreachable agent again (recorded: a replay does not wait)."""
    time.sleep(seconds)


# ---------------------------------------------------------------- claims vs checks


def judge_claim(
    claim: AgentResultPayload | None, checks: list[CheckResult]
) -> TaskJudgement | None:
    """The agent's claim set against mergegate's checks (None without a claim)."""
    if claim is None:
        return None
    outcomes = [CheckOutcome(name=c.run, passed=c.passed) for c in checks]
    return judge_task_result(claim, outcomes)


# ---------------------------------------------------------------- the loop


class _Turns:
    """The implementer's runs for one task, until a valid result or the task's end. Every
    field changes only from recorded step results (or files they wrote once), so a replay
    walks the same path."""

    def __init__(self, pipe: ImplementingTask) -> None:
        self.pipe = pipe
        self.rt = pipe.rt
        self.limits = RecoveryLimits.from_config(self.rt.config.agents)
        self.counters = RecoveryCounters()
        # the run's journal: each event id written once across replays, alerts checked
        self.log = self.rt.journal

    def collect(self, result: AgentResult) -> ResultCollection:
        pipe = self.pipe
        assert pipe.request is not None
        out = collect_step(
            CollectCall(
                request=pipe.request,
                first=result,
                task_id=pipe.task.id,
                attempt_dir=str(Path(pipe.attempt_dir) / RESULT_DIR),
                deadline=pipe.deadline,
                where=_where(pipe),
            )
        )
        pipe.count(out.tokens)
        pipe.stopped = pipe.stopped or out.stopped
        folder = Path(out.attempt_dir)
        collection = read_agent_result(folder, report=self.read_events(folder))
        pipe.session = collection.session_id or pipe.session
        return collection

    def read_events(self, folder: Path) -> Callable[[Mapping[str, Any]], None]:
        """Where a failed read of the collection is reported: the run's stream, as typed
        handoff events whose ids follow the attempt (a replay that fails the same way writes
        nothing twice)."""
        where = {"run_id": self.rt.run_id, **_where(self.pipe)}
        task = WorkflowId.task(self.rt.run_id, self.pipe.unit_id, self.pipe.task.id)

        def report(event: Mapping[str, Any]) -> None:
            kind, attempt = str(event.get("type")), str(event.get("attempt", ""))
            key = HandoffEventId.read(task, folder.parent.name, kind, attempt)
            typed = handoff_event(event, **where, event_id=key.format())
            if typed is not None:
                self.log.emit(typed)

        return report

    def consult(self, collection: ResultCollection) -> Consultation:
        pipe = self.pipe
        number = self.counters.help_requests
        help_ = collection.help
        task = WorkflowId.task(self.rt.run_id, pipe.unit_id, pipe.task.id)
        self.log.emit(
            HelpRequested(
                # stable across replays of the task (readers keep the first of an id)
                event_id=HandoffEventId.help(task, number).format(),
                context=_context_text(help_.context),
                source="result" if help_.source == "json" else help_.source,
                discrepancy=help_.warning,
                attempt=number,
                run_id=self.rt.run_id,
                **_where(pipe),
            )
        )
        pipe.emit("help", f"{pipe.task.id} asked for help ({number}): consulting advisors")
        out = consult_step(
            ConsultCall(
                result_dir=str(Path(pipe.attempt_dir) / RESULT_DIR),
                spec=pipe.spec,
                number=number,
                max_requests=self.limits.max_help_requests,
                attempt_dir=str(pipe.task_dir / "help" / f"{number:02d}"),
                worktree=str(pipe.worktree),
                deadline=pipe.deadline,
                where=_where(pipe),
            )
        )
        pipe.count(out.tokens)
        pipe.stopped = pipe.stopped or out.stopped
        pipe.help_requests = number
        return read_consultation(Path(out.attempt_dir))

    def advised(self, consultation: Consultation, collection: ResultCollection) -> AgentResult:
        """The implementer's session resumed with the advice (a fresh run with the original
        prompt and the advice for a backend without sessions)."""
        pipe = self.pipe
        assert pipe.request is not None
        sessions = self.rt.implementer.capabilities.sessions
        request = guidance_request(
            pipe.request,
            guidance_prompt(consultation),
            session_id=collection.session_id,
            sessions=sessions,
        )
        pipe.emit("implement", f"{pipe.task.id}: resuming the implementer with the advice")
        if request.resume_session_id:
            pipe.session = request.resume_session_id
        result, _ = pipe.run_agent(
            request.prompt, resume=request.resume_session_id is not None, result=True
        )
        return result

    def unadvised(self, consultation: Consultation) -> TaskOutcome:
        where = Path(self.pipe.task_dir / "help" / f"{consultation.request.number:02d}")
        package = where / "consultation.json"
        if consultation.action == "error":
            why = consultation.reason or "no advisor answered"
            return self.pipe.escalate(f"help request unanswered ({why}); package: {package}")
        said = next(
            (a for a in consultation.answers if a.advice.action == consultation.action), None
        )
        guidance = f": {said.advice.guidance}" if said else ""
        return self.pipe.escalate(
            f"an advisor says {consultation.action}{guidance}"[:600] + f" (package: {package})"
        )

    def accept(self, collection: ResultCollection) -> TaskOutcome | None:
        pipe = self.pipe
        result = collection.result
        assert result is not None
        pipe.claim = result
        pipe.judgement = judge_claim(result, [])
        pipe.notes = result.notes or pipe.notes
        if result.success and result.completed_normally:
            return None
        judgement = judge_task_result(result, [])
        todos = f" (todos: {'; '.join(result.todos)})" if result.todos else ""
        return pipe.escalate(
            ("the implementer reports the task is not done: " + "; ".join(judgement.reasons))[:600]
            + todos[:400]
        )

    def ended(self, action: RecoveryAction, reason: str, code: ExitCode | None) -> TaskOutcome:
        """The task's end by the table. An escalation is `needs_manual_review` (exit 5) in a
        run, an `agent-result` still invalid at its cap included (the table's exit 3 is for
        callers outside a run; issue 14: "exhaustion escalates the task")."""
        pipe = self.pipe
        if pipe.stopped:
            return pipe.ended_by_stop()
        if action is RecoveryAction.FAIL:
            why = f"the implementer failed: {reason}"
            return pipe.outcome("failed", why, code or ExitCode.AGENT_FAILURE)
        return pipe.escalate(reason)

    def run(self, files: str) -> TaskOutcome | None:
        pipe = self.pipe
        prompt = implementer_prompt(task_id=pipe.task.id, spec=pipe.spec, files=files).text
        result, _ = pipe.run_agent(prompt, result=True)
        while True:
            if self.stopped():
                return pipe.ended_by_stop()
            collection = self.collect(result)
            if self.stopped():
                return pipe.ended_by_stop()
            pipe.notes = collection.recent_output
            decision = decide_recovery(Situation.of(collection), self.counters, self.limits)
            self.counters = self.counters.after(decision.action)
            action = decision.action
            if action is RecoveryAction.ACCEPT:
                return self.accept(collection)
            pipe.emit("recover", f"{pipe.task.id}: {decision.reason}")
            if action is RecoveryAction.CONSULT:
                consultation = self.consult(collection)
                if self.stopped():
                    return pipe.ended_by_stop()
                if consultation.action != "continue":
                    return self.unadvised(consultation)
                result = self.advised(consultation, collection)
            elif action is RecoveryAction.FRESH_START:
                reset_step(str(pipe.worktree), pipe.start)
                result, _ = pipe.run_agent(prompt, resume=False, result=True)
            elif action is RecoveryAction.RETRY_TRANSPORT:
                backoff_step(self.backoff())
                assert pipe.request is not None
                result, _ = pipe.run_agent(
                    pipe.request.prompt,
                    resume=pipe.request.resume_session_id is not None,
                    result=True,
                )
            else:
                why = decision.reason
                if collection.scratchpad is not None and collection.scratchpad.error:
                    why = f"{why}: {collection.scratchpad.error}"  # the scratchpad, not the JSON
                return self.ended(action, why, decision.exit_code)

    def stopped(self) -> bool:
        """A budget or a stop request refused (or cut short) one of the task's agents."""
        return self.pipe.stopped is not None

    def backoff(self) -> float:
        """The wait before the next transport retry, jittered like every other retry. The
        draw is no replay hazard: it only sizes the sleep of a recorded step, which a replay
        does not run again."""
        retry = self.rt.config.retry
        jitter = random.random()  # noqa: S311 - spreads retries out; nothing secret
        return backoff_delay(
            self.counters.transport_retries,
            jitter,
            base=retry.json_retry_delay,
            cap=retry.max_backoff_delay,
            exponential=retry.use_exponential_backoff,
        )


def _context_text(context: Mapping[str, object] | None) -> str:
    if context is None:
        return ""
    return json.dumps(context, ensure_ascii=False, sort_keys=True)


def implement_turns(pipe: ImplementingTask, files: str) -> TaskOutcome | None:
    """Run the implementer for `pipe`'s task until it handed in a valid, successful
    `agent-result` (None: go on to the commit) or the task ended (its outcome)."""
    return _Turns(pipe).run(files)
