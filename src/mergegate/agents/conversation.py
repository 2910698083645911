"""Asking an agent again in the same session: any backend as the `ask(prompt) -> text` callable
that `mergegate.handoff.request_handoff` needs.

`SessionAsk(backend, request)` keeps one conversation going. Its first call starts a session (or
resumes `session_id` when given one); every later call **resumes** that session
(`AgentRequest.resume_session_id`: `claude --resume`, `codex exec resume`, the `command`
backend's `MERGEGATE_SESSION_ID`, the HTTP backends' stored history), so the agent sees its own
earlier reply when it is told exactly what was wrong with it.

A backend without sessions (`capabilities.sessions` false) cannot be asked "again": each later
call is a **fresh run with the full original prompt**, followed by the retry instructions. The
agent then starts over from the original request (in the same working directory), which costs
a whole run; `SessionAsk.warnings` says so, and so should whoever reports the run.

What ends a call:

* a completed run (`ok`): its text is the reply;
* an endpoint that could not be reached (`missing`, see `is_transport_failure`): retried
  `transport_retries` times with backoff before it counts;
* a timeout or stall: `StuckRunError` — that session is not asked again;
* any other failure (an error event, a crash, a kill, a read-only run that changed the tree):
  `AgentRunError`, carrying the result. Both end a `request_handoff` loop as `fatal` with its
  record; `run()` returns the result instead of raising, for callers that judge it themselves.
"""

from __future__ import annotations

import random as _random
import time
from collections.abc import Callable
from pathlib import Path

from mergegate.agents.base import AgentRequest, AgentResult, Backend, RunStatus
from mergegate.handoff import AskFailedError, RetryPolicy, StuckRunError

__all__ = [
    "FRESH_RETRY_HEADING",
    "AgentRunError",
    "SessionAsk",
    "fresh_dir",
    "is_stuck",
    "is_transport_failure",
]

FRESH_RETRY_HEADING = "## mergegate: your earlier reply to this request could not be used"
"""Separates the original prompt from the retry instructions in a fresh run (no sessions)."""

_STUCK = frozenset({RunStatus.TIMEOUT, RunStatus.STALLED})


class AgentRunError(AskFailedError):
    """An agent run that ended without a usable reply; `result` says how (exit 4 if it escapes)."""

    def __init__(self, message: str, *, result: AgentResult) -> None:
        super().__init__(message)
        self.result = result


def is_stuck(result: AgentResult) -> bool:
    """The run hit its wall-clock or stall limit (the supervisor has killed its group)."""
    return result.status in _STUCK


def is_transport_failure(result: AgentResult) -> bool:
    """The agent could not be reached (status `missing`: endpoint down, CLI not started).

    Such a call is retried with backoff before it counts as the agent's failure. A CLI that is
    not installed is `missing` too; its retries are quick and bounded.
    """
    return result.status is RunStatus.MISSING


def fresh_dir(path: Path) -> Path:
    """`path`, or `path-rerunN` when a run lost in a crash left it: records are never reused."""
    if not path.exists():
        return path
    n = 2
    while (candidate := path.with_name(f"{path.name}-rerun{n}")).exists():
        n += 1
    return candidate


class SessionAsk:
    """An `Ask` over one backend and one session (see the module docstring).

    `request` is the template of every call (working directory, limits, env, model); its
    `prompt` is replaced by each call's prompt. With `attempt_root`, call `n` writes its records
    to `<attempt_root>/<label>-NN/` (`-tK` for the K-th transport retry; `-rerunN` when a crashed
    run left the directory). `original_prompt` is what a backend without sessions is sent again
    before the retry instructions (default: the first call's prompt).
    """

    def __init__(
        self,
        backend: Backend,
        request: AgentRequest,
        *,
        session_id: str | None = None,
        original_prompt: str | None = None,
        attempt_root: Path | None = None,
        label: str = "ask",
        first_call: int = 1,
        transport_retries: int = 0,
        policy: RetryPolicy | None = None,
        on_result: Callable[[AgentResult], None] | None = None,
        sleep: Callable[[float], object] = time.sleep,
        random: Callable[[], float] = _random.random,
    ) -> None:
        self.backend = backend
        self.request = request
        self.session_id = session_id
        self.original_prompt = original_prompt
        self.attempt_root = attempt_root
        self.label = label
        self.next_call = first_call
        self.transport_retries = transport_retries
        self.policy = policy or RetryPolicy()
        self.on_result = on_result
        self.sleep = sleep
        self.random = random
        self.results: list[AgentResult] = []
        self.warnings: list[str] = []

    @property
    def resumes(self) -> bool:
        """Whether later calls continue the session (else they are fresh full-prompt runs)."""
        return self.backend.capabilities.sessions

    def __call__(self, prompt: str) -> str:
        """Send `prompt` in the session; the reply (`AgentResult.reply`: the typed answer when the
        request asked for one), or `StuckRunError` / `AgentRunError`."""
        result = self.run(prompt)
        if is_stuck(result):
            raise StuckRunError(
                f"{self.backend.name} run {result.status.value}: {result.error or 'no detail'}"
            )
        if not result.ok:
            why = result.error or result.status.value
            raise AgentRunError(f"{self.backend.name} run failed: {why}", result=result)
        return result.reply

    def run(self, prompt: str, *, attempt_dir: Path | None = None) -> AgentResult:
        """One call (with its transport retries); the result of its last run, never raising for
        agent failures. `attempt_dir` overrides where this call's records go."""
        call = self.next_call
        self.next_call += 1
        if self.original_prompt is None:
            self.original_prompt = prompt
        request = self._request(prompt, call)
        first_dir = fresh_dir(attempt_dir) if attempt_dir is not None else self._dir(call, 0)
        result = self._once(request, first_dir)
        retry = 0
        while is_transport_failure(result) and retry < self.transport_retries:
            retry += 1
            self.sleep(self.policy.delay(retry, self.random()))
            result = self._once(request, self._dir(call, retry, attempt_dir))
        return result

    def _request(self, prompt: str, call: int) -> AgentRequest:
        text, resume = prompt, self.session_id
        if not self.resumes:
            resume = None
            if self.original_prompt is not None and prompt != self.original_prompt:
                text = f"{self.original_prompt}\n\n{FRESH_RETRY_HEADING}\n\n{prompt}"
                self._warn_fresh()
        return self.request.model_copy(
            update={
                "prompt": text,
                "resume_session_id": resume,
                "attempt": self.request.attempt + call - 1,
            }
        )

    def _warn_fresh(self) -> None:
        note = (
            f"backend {self.backend.name!r} has no sessions: each retry was a fresh run with "
            "the full original prompt"
        )
        if note not in self.warnings:
            self.warnings.append(note)

    def _dir(self, call: int, retry: int, given: Path | None = None) -> Path | None:
        if given is not None:
            return fresh_dir(given.with_name(f"{given.name}-t{retry}"))
        if self.attempt_root is None:
            return None
        suffix = f"-t{retry}" if retry else ""
        return fresh_dir(self.attempt_root / f"{self.label}-{call:02d}{suffix}")

    def _once(self, request: AgentRequest, attempt_dir: Path | None) -> AgentResult:
        if attempt_dir is not None:
            request = request.model_copy(update={"attempt_dir": attempt_dir})
        result = self.backend.run(request)
        self.results.append(result)
        if result.session_id and self.resumes:
            self.session_id = result.session_id
        if self.on_result is not None:
            self.on_result(result)
        return result
