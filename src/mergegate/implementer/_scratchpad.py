"""The implementer's scratchpad: read, validated, and asked for again (seed 002's "Scratchpad
Validation": retried with `--continue`, structured error tracking, exponential backoff).

When a valid `agent-result` names a `scratchpad_path`, mergegate reads that file from the
task's work tree and validates it against the `scratchpad` schema (`mergegate schema
scratchpad`). While it is missing, empty, invalid JSON or does not match, the implementer is
asked again **in the same session** with the exact error, to write the file again — through
the same retry loop as every handoff (`request_handoff`: capped by
`retry.max_attempts["scratchpad"]`, backoff with jitter, shorter prompts), so every failure is
recorded with its type (`empty`, `json_syntax`, `truncated`, `schema`, `semantic`, ...) in the
handoff's debug record and events. Still invalid at the cap, the task escalates.

The file is the agent's (untrusted): it must be a path inside the work tree — never absolute
outside it, never through a symlink that leaves it — and at most `MAX_SCRATCHPAD_BYTES`; a path
that leaves the tree is not asked for again (the agent named it; the task escalates).
"""

from __future__ import annotations

from collections.abc import Callable
from datetime import datetime
from pathlib import Path
from typing import Literal

from pydantic import BaseModel, ConfigDict

from mergegate.agents.base import AgentRequest, Backend
from mergegate.agents.conversation import SessionAsk
from mergegate.config import Config
from mergegate.handoff import HandoffRecord, HandoffRecorder, RetryPolicy, request_handoff

__all__ = ["MAX_SCRATCHPAD_BYTES", "ScratchpadCheck", "check_scratchpad"]

MAX_SCRATCHPAD_BYTES = 1_000_000
_FOLDER = "scratchpad"


class ScratchpadCheck(BaseModel):
    """How the scratchpad a result named was found: `recovered` (valid, possibly after asking
    again), `escalated` (still invalid at the cap) or `fatal` (a path outside the work tree,
    or a failed run while asking); `record` is the handoff's debug record."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    path: str
    status: Literal["recovered", "escalated", "fatal"]
    error: str | None = None
    record: HandoffRecord | None = None


def check_scratchpad(
    backend: Backend,
    request: AgentRequest,
    *,
    task_id: str,
    path: str,
    session_id: str | None,
    attempt_dir: Path,
    config: Config,
    recorder: HandoffRecorder,
    sleep: Callable[[float], object],
    random: Callable[[], float],
    clock: Callable[[], datetime] | None = None,
) -> ScratchpadCheck:
    """The scratchpad at `path` (as the agent wrote it in its result) in `request.cwd`,
    validated, asked for again in the agent's session while invalid (see the module)."""
    target = _inside(Path(request.cwd), path)
    if target is None:
        why = f"scratchpad_path {path!r} is not a file path inside the work tree"
        return ScratchpadCheck(path=path, status="fatal", error=why)
    policy = RetryPolicy.from_config(config.retry, "scratchpad")
    asker = SessionAsk(
        backend,
        request,
        session_id=session_id,
        original_prompt=request.prompt,
        attempt_root=attempt_dir / _FOLDER,
        transport_retries=config.agents.transport_retries,
        policy=policy,
        sleep=sleep,
        random=random,
    )

    def ask(prompt: str) -> str:
        asker(_rewrite(path, prompt))
        return _read(target)

    outcome = request_handoff(
        ask,
        request.prompt,
        "scratchpad",
        config=config,
        session_id=session_id or "",
        component="implementer",
        context={"task_id": task_id},
        recorder=recorder,
        sleep=sleep,
        random=random,
        clock=clock,
        replies=[_read(target)],  # the file as the agent left it is the first answer
        alone=True,  # the file is the object: nothing beside it
    )
    record = outcome.record
    if outcome.ok:
        return ScratchpadCheck(path=path, status="recovered", record=record)
    status: Literal["escalated", "fatal"] = (
        "fatal" if record.final_status == "fatal" else "escalated"
    )
    last = record.retry_attempts[-1].error if record.retry_attempts else None
    why = f"the scratchpad {path!r} is still invalid after {len(record.retry_attempts)} tries"
    return ScratchpadCheck(path=path, status=status, error=f"{why}: {last}", record=record)


def _inside(root: Path, path: str) -> Path | None:
    """`path` resolved in `root`, or None when it leaves it (absolute elsewhere, `..`, a
    symlink out) or is not a plain name."""
    if not path or "\x00" in path or len(path) > 4096:
        return None
    base = root.resolve()
    candidate = (base / path).resolve()
    return candidate if candidate.is_relative_to(base) and candidate != base else None


def _read(target: Path) -> str:
    """The file's text as the handoff's answer; '' (an `empty` answer) when it is missing or
    not a regular file; only the first `MAX_SCRATCHPAD_BYTES` (a longer file is cut, and so
    reads as truncated)."""
    try:
        if not target.is_file():
            return ""
        with target.open("rb") as handle:
            data = handle.read(MAX_SCRATCHPAD_BYTES)
    except OSError:
        return ""
    return data.decode("utf-8", "replace")


def _rewrite(path: str, prompt: str) -> str:
    return (
        f"Your scratchpad file `{path}` (named in your agent-result) could not be used. "
        "Write the corrected JSON object into that file, replacing its whole content: "
        "mergegate reads the file, not your reply.\n\n" + prompt
    )
