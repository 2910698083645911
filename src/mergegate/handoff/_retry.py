"""The retry loop: ask, extract, and on failure ask again with the exact error — bounded.

"Ask again" is a value the loop consumes and the budget is a plain counter (no decorator, no
exception soup). The loop tells three situations apart (seed 002):

* **parse / schema errors** — the run finished but its JSON is wrong: ask again through the same
  `ask` (the same session, if the callable continues one) with the error fed back;
* **semantic errors** — the JSON is right but inconsistent: a targeted correction prompt;
* **stuck runs** — `ask` raised `StuckRunError` (the agent layer's timeout or stall): that session
  is unusable, so `fresh_ask()` provides a new one and the original prompt is sent again. Without
  `fresh_ask` the handoff is `fatal`.

Replies obtained before the loop started (`replies=`: the agent's own run, or attempts persisted
before a crash) are used for the first attempts instead of asking, so a loop resumed after a crash
never asks more often than its cap allows.

Every attempt is recorded and emitted as an event; the outcome carries seed 002's debug record.
"""

from __future__ import annotations

import random as _random
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from mergegate.config import MAX_ATTEMPTS_CEILING, Config, RetryConfig
from mergegate.errors import AgentError, HandoffError, UsageError
from mergegate.handoff._envelope import Envelope, make_envelope
from mergegate.handoff._extract import Extraction, extract
from mergegate.handoff._failures import output_sample
from mergegate.handoff._prompts import level_for_retry, retry_prompt
from mergegate.handoff._records import (
    AttemptRecord,
    ErrorInfo,
    FinalStatus,
    HandoffRecord,
    HandoffRecorder,
    PromptLevel,
    prompt_digest,
)
from mergegate.handoff._registry import Schema, SchemaRegistry, registry_for

__all__ = [
    "Ask",
    "AskFailedError",
    "HandoffOutcome",
    "InvalidHandoffError",
    "RetryPolicy",
    "StuckRunError",
    "backoff_delay",
    "request_handoff",
]

Ask = Callable[[str], str]
"""Send a prompt to an agent, return its reply text (any backend; may continue a session)."""


class AskFailedError(AgentError):
    """Raised by an `ask` callable whose agent run ended without a reply (it crashed, reported
    an error, could not be started): the handoff ends `fatal` and its outcome is returned —
    asking the same agent again for JSON would not help (exit 4 if it escapes)."""


class StuckRunError(AskFailedError):
    """Raised by an `ask` callable whose run hung or stalled (exit 4 if it escapes).

    The retry loop answers it with a fresh session (`fresh_ask`), never by continuing the
    stuck one; without `fresh_ask` the handoff ends `fatal`.
    """


class InvalidHandoffError(HandoffError):
    """A handoff that stayed invalid (escalated) or could not go on (fatal); exit 3."""

    def __init__(self, message: str, *, record: HandoffRecord, saved_to: Path | None) -> None:
        super().__init__(message)
        self.record = record
        self.saved_to = saved_to


@dataclass(frozen=True)
class RetryPolicy:
    """How many attempts, how long to wait between them, and whether prompts shrink."""

    max_attempts: int = MAX_ATTEMPTS_CEILING
    """Total attempts, the first ask included (1..6: at most 5 retries)."""
    base_delay: float = 1.0
    exponential: bool = True
    max_delay: float = 30.0
    reduce_prompts: bool = True

    def __post_init__(self) -> None:
        if not 1 <= self.max_attempts <= MAX_ATTEMPTS_CEILING:
            raise UsageError(
                f"max_attempts must be between 1 and {MAX_ATTEMPTS_CEILING}, "
                f"got {self.max_attempts}"
            )
        if self.base_delay < 0 or self.max_delay < 0:
            raise UsageError("retry delays must not be negative")

    @classmethod
    def from_config(
        cls, retry: RetryConfig, handoff_type: str, *, max_attempts: int | None = None
    ) -> RetryPolicy:
        """The policy for one handoff type; `max_attempts` overrides (still capped at 6)."""
        attempts = retry.attempts_for(handoff_type) if max_attempts is None else max_attempts
        return cls(
            max_attempts=max(1, min(attempts, MAX_ATTEMPTS_CEILING)),
            base_delay=retry.json_retry_delay,
            exponential=retry.use_exponential_backoff,
            max_delay=retry.max_backoff_delay,
            reduce_prompts=retry.retry_prompt_reduction,
        )

    def delay(self, retry: int, jitter: float) -> float:
        """Seconds to wait before the `retry`-th retry (1-based), given `jitter` in [0, 1).

        Exponential: `base * 2**(retry-1)`, capped at `max_delay`, then "equal jitter" keeps
        between half and all of it — so a wait is never longer than `max_delay`.
        """
        return backoff_delay(
            retry, jitter, base=self.base_delay, cap=self.max_delay, exponential=self.exponential
        )


def backoff_delay(
    retry: int, jitter: float, *, base: float, cap: float, exponential: bool = True
) -> float:
    """Seconds to wait before the `retry`-th retry (1-based), given `jitter` in [0, 1): the one
    backoff formula, for handoff asks, agent and reviewer transport retries and the engine's
    implementer transport retries.

    `base * 2**(retry-1)` (`base` each time when not `exponential`), capped at `cap`, then
    "equal jitter" keeps between half and all of it: a wait is never longer than `cap`, and
    retries that failed together do not come back together. A `jitter` outside [0, 1] is
    clamped; the exponent stops at 30 so a huge `retry` cannot build a huge integer.
    """
    step = base * (2 ** min(retry - 1, 30) if exponential else 1)
    return min(step, cap) * (0.5 + 0.5 * min(max(jitter, 0.0), 1.0))


@dataclass(frozen=True)
class HandoffOutcome:
    """What `request_handoff` returns: the value when recovered, and always the record."""

    record: HandoffRecord
    extraction: Extraction | None
    """The extraction of the last attempt that produced output."""
    outputs: tuple[str, ...]
    """The raw reply of every attempt that produced one."""
    saved_to: Path | None = None
    """The failed-handoff file, when one was written."""

    @property
    def ok(self) -> bool:
        return self.record.final_status == "recovered"

    @property
    def value(self) -> Any:
        """The validated payload, or None when the handoff failed."""
        return self.extraction.value if self.ok and self.extraction else None

    def unwrap(self) -> Any:
        """The validated payload, or `InvalidHandoffError` (exit 3) saying what went wrong."""
        if self.ok:
            return self.value
        last = self.record.retry_attempts[-1] if self.record.retry_attempts else None
        why = f": {last.error_type}: {(last.error or '').splitlines()[0]}" if last else ""
        where = f" (saved to {self.saved_to})" if self.saved_to else ""
        raise InvalidHandoffError(
            f"{self.record.handoff_type} handoff {self.record.final_status} after "
            f"{len(self.record.retry_attempts)} attempt(s){why}{where}",
            record=self.record,
            saved_to=self.saved_to,
        )

    def envelope(self, *, clock: Callable[[], datetime] | None = None) -> Envelope:
        """The recovered payload in a seed-002 envelope, with its retry metadata."""
        self.unwrap()
        assert self.extraction is not None
        assert self.extraction.data is not None
        failed = [a for a in self.record.retry_attempts if a.result == "failure"]
        return make_envelope(
            self.record.component,
            self.record.session_id,
            self.extraction.data,
            retry_count=len(self.record.retry_attempts) - 1,
            previous_errors=[f"{a.error_type}: {(a.error or '').splitlines()[0]}" for a in failed],
            clock=clock,
        )


def request_handoff(
    ask: Ask,
    prompt: str,
    schema: str | Schema,
    *,
    config: Config | None = None,
    session_id: str = "",
    component: str = "agent",
    fresh_ask: Callable[[], Ask] | None = None,
    context: Mapping[str, Any] | None = None,
    registry: SchemaRegistry | None = None,
    recorder: HandoffRecorder | None = None,
    max_attempts: int | None = None,
    sleep: Callable[[float], object] = time.sleep,
    random: Callable[[], float] = _random.random,
    clock: Callable[[], datetime] | None = None,
    timer: Callable[[], float] = time.monotonic,
    replies: Sequence[str | None] = (),
    alone: bool = False,
) -> HandoffOutcome:
    """Ask for a handoff until it validates or the budget is spent; never raises for bad output.

    `config` supplies the retry settings, strictness and where records go (defaults: built-in
    values, state directory from the cwd); `recorder` overrides the latter
    (`HandoffRecorder.disabled()` writes nothing). `sleep`, `random`, `clock` and `timer` are
    injectable so tests neither wait nor depend on the time. `AskFailedError` from `ask` ends
    the handoff `fatal` (`error_type` `agent_failed`, or `stuck` for `StuckRunError` without
    `fresh_ask`) and the outcome is returned; any other exception propagates after the record
    is saved as `fatal`.

    `replies` are the replies of the first attempts, obtained before this call: they are used in
    order instead of calling `ask`, without waiting, and recorded with `prior=True`. The first
    is the reply to `prompt` itself (e.g. the implementer's own run, whose prompt asked for the
    handoff); later ones answer the retry prompts this loop would have sent (attempts persisted
    before a crash). `None` is an attempt whose reply was lost (the process died while it ran):
    it counts against the cap (`error_type` `lost`) and its prompt is sent again.

    `alone=True`: each reply must be the object alone (`extract(..., alone=True)`), for a
    typed answer asked for through a structured-output mechanism.
    """
    settings = config or Config()
    reg = registry or registry_for(settings)
    resolved = reg.resolve(schema)
    loop = _Loop(
        ask=ask,
        prompt=prompt,
        schema=resolved,
        policy=RetryPolicy.from_config(settings.retry, resolved.name, max_attempts=max_attempts),
        strict=settings.handoff_validation.strict_schema_validation,
        session_id=session_id,
        component=component,
        fresh_ask=fresh_ask,
        context=context,
        recorder=recorder or HandoffRecorder.from_config(settings),
        sleep=sleep,
        random=random,
        clock=clock or _utcnow,
        timer=timer,
        replies=tuple(replies),
        alone=alone,
    )
    return loop.run()


def _utcnow() -> datetime:
    return datetime.now(UTC)


@dataclass(frozen=True)
class _Try:
    """What one attempt produced: an extraction, or a stuck run."""

    extraction: Extraction | None
    stuck: bool = False
    lost: bool = False
    failed: bool = False


@dataclass
class _Loop:
    ask: Ask
    prompt: str
    schema: Schema
    policy: RetryPolicy
    strict: bool
    session_id: str
    component: str
    fresh_ask: Callable[[], Ask] | None
    context: Mapping[str, Any] | None
    recorder: HandoffRecorder
    sleep: Callable[[float], object]
    random: Callable[[], float]
    clock: Callable[[], datetime]
    timer: Callable[[], float]
    replies: tuple[str | None, ...] = ()
    alone: bool = False
    attempts: list[AttemptRecord] = field(default_factory=list)
    outputs: list[str] = field(default_factory=list)
    original_error: ErrorInfo | None = None
    last: Extraction | None = None

    def run(self) -> HandoffOutcome:
        started = self.clock()
        ask, prompt = self.ask, self.prompt
        level: PromptLevel = "initial"
        for attempt in range(1, self.policy.max_attempts + 1):
            prior = attempt <= len(self.replies)
            if attempt > 1 and not prior:
                self.sleep(self.policy.delay(attempt - 1, self.random()))
            if prior:
                tried = self._prior(attempt, self.replies[attempt - 1], prompt, level)
            else:
                tried = self._guarded(attempt, ask, prompt, level, started)
            if tried.extraction is not None and tried.extraction.ok:
                return self._finish("recovered", started)
            if tried.lost:
                continue  # nothing came back: the same prompt again
            if tried.failed:
                return self._finish("fatal", started)
            if tried.stuck:
                if self.fresh_ask is None:
                    return self._finish("fatal", started)
                ask, prompt, level = self.fresh_ask(), self.prompt, "fresh"
                continue
            assert tried.extraction is not None
            assert tried.extraction.error is not None
            level = level_for_retry(attempt, reduce=self.policy.reduce_prompts)
            prompt = retry_prompt(
                tried.extraction.error,
                self.schema,
                level=level,
                attempt=attempt + 1,
                max_attempts=self.policy.max_attempts,
            )
        return self._finish("escalated", started)

    def _prior(self, attempt: int, reply: str | None, prompt: str, level: PromptLevel) -> _Try:
        """An attempt whose reply was obtained before the loop started (or lost in a crash)."""
        at, begun = self.clock(), self.timer()
        if reply is None:
            self._note(
                attempt,
                at=at,
                prompt=prompt,
                level=level,
                begun=begun,
                extraction=None,
                error_type="lost",
                error="the process died while this attempt ran; its reply was lost",
                reply="",
                prior=True,
            )
            return _Try(None, lost=True)
        return self._judge(
            attempt, reply, at=at, prompt=prompt, level=level, begun=begun, prior=True
        )

    def _guarded(
        self, attempt: int, ask: Ask, prompt: str, level: PromptLevel, started: datetime
    ) -> _Try:
        """One attempt; an unexpected exception from `ask` is recorded as fatal, then raised."""
        begun, at = self.timer(), self.clock()
        try:
            reply = ask(prompt)
        except (StuckRunError, AskFailedError) as exc:
            stuck = isinstance(exc, StuckRunError)
            self._note(
                attempt,
                at=at,
                prompt=prompt,
                level=level,
                begun=begun,
                extraction=None,
                error_type="stuck" if stuck else "agent_failed",
                error=str(exc),
                reply="",
            )
            return _Try(None, stuck=stuck, failed=not stuck)
        except Exception as exc:
            message = f"{type(exc).__name__}: {exc}"
            self._note(
                attempt,
                at=at,
                prompt=prompt,
                level=level,
                begun=begun,
                extraction=None,
                error_type="exception",
                error=message,
                reply="",
            )
            self._finish("fatal", started)
            raise
        return self._judge(attempt, reply, at=at, prompt=prompt, level=level, begun=begun)

    def _judge(
        self,
        attempt: int,
        reply: str,
        *,
        at: datetime,
        prompt: str,
        level: PromptLevel,
        begun: float,
        prior: bool = False,
    ) -> _Try:
        self.outputs.append(reply)
        extraction = extract(
            reply, self.schema, context=self.context, strict=self.strict, alone=self.alone
        )
        self.last = extraction
        error = extraction.error
        self._note(
            attempt,
            at=at,
            prompt=prompt,
            level=level,
            begun=begun,
            extraction=extraction,
            error_type=error.type.value if error else None,
            error=error.details if error else None,
            reply=reply,
            prior=prior,
        )
        return _Try(extraction)

    def _note(
        self,
        attempt: int,
        *,
        at: datetime,
        prompt: str,
        level: PromptLevel,
        begun: float,
        extraction: Extraction | None,
        error_type: str | None,
        error: str | None,
        reply: str,
        prior: bool = False,
    ) -> None:
        duration = max(0.0, self.timer() - begun)
        recorded_prompt, digest = prompt_digest(prompt)
        ok = extraction is not None and extraction.ok
        sample = output_sample(reply)
        self.attempts.append(
            AttemptRecord(
                attempt=attempt,
                timestamp=at,
                prompt_used=recorded_prompt,
                prompt_sha256=digest,
                prompt_level=level,
                fresh_session=level == "fresh",
                result="success" if ok else "failure",
                error=error,
                error_type=error_type,
                duration_s=round(duration, 6),
                output_sample=sample,
                prior=prior,
            )
        )
        if not ok and self.original_error is None and error_type is not None:
            self.original_error = ErrorInfo(
                type=error_type, details=error or "", output_sample=sample
            )
        self.recorder.emit(
            {
                "type": "handoff.attempt",
                "component": self.component,
                "handoff_type": self.schema.name,
                "session_id": self.session_id,
                "attempt": attempt,
                "result": "success" if ok else "failure",
                "error_type": error_type,
                "duration_s": round(duration, 6),
                "prior": prior,
                "timestamp": at.isoformat(),
            }
        )

    def _finish(self, status: FinalStatus, started: datetime) -> HandoffOutcome:
        finished = self.clock()
        record = HandoffRecord(
            handoff_type=self.schema.name,
            component=self.component,
            session_id=self.session_id,
            original_error=self.original_error,
            retry_attempts=tuple(self.attempts),
            final_status=status,
            max_attempts=self.policy.max_attempts,
            started_at=started,
            finished_at=finished,
        )
        saved_to = self.recorder.finish(record, self.outputs)
        self.recorder.emit(
            {
                "type": "handoff.finished",
                "component": self.component,
                "handoff_type": self.schema.name,
                "session_id": self.session_id,
                "final_status": status,
                "attempts": len(self.attempts),
                "error_type": self.attempts[-1].error_type if self.attempts else None,
                "duration_s": round((finished - started).total_seconds(), 6),
                "timestamp": finished.isoformat(),
            }
        )
        return HandoffOutcome(record, self.last, tuple(self.outputs), saved_to)
