"""The verdict gate as an agent-CLI hook: read the hook's JSON, decide, answer in JSON.

Wire format: Claude Code's command hooks (observed on 2.1.330, see docs/integrations.md).

* `PreToolUse` on the subagent tool (`Task` before Claude Code 2.x, `Agent` since), for a
  review subagent launched in the background (the default since 2.1.x): answer with
  `updatedInput` = the same input plus `run_in_background: false`, so the result comes back
  as the tool result and the `PostToolUse` hook can check it.
* `PostToolUse` on the subagent tool, for a review subagent: parse the result with the verdict
  library and answer —
  approve → `hookSpecificOutput.additionalContext` (a short confirmation), and the reviewer's
  hold on the session's latch goes (`_latch`);
  fixes / reject → `decision: "block"`, the evidence line and the findings, and the latch
  closes;
  malformed / empty → block: retry ONCE asking for the verdict object (`_restate`), derive no
  fix work; the second such result in a row from the same reviewer in the same session →
  block: STOP and report both outputs, and the latch closes;
  a result the hook cannot see (still running in the background, remote) → block.
* `PreToolUse` while the session's latch is closed (`_guard`): a Bash command that commits,
  merges, rebases, pushes or tags, or a subagent that is neither review nor fix work →
  `permissionDecision: "deny"` with the reason and the open findings.
* Anything else (another tool, a subagent that is not a reviewer, an open latch) → `{}`.

Gemini CLI (0.61, from its source) speaks the same JSON: `AfterTool` on `invoke_agent` is its
`PostToolUse` (`ToolProfile` says how each CLI names the call and its result).

Never fails open: unreadable input, a crash, a state that cannot be read or written, or the
deadline passing all give a blocking answer that says so (`answer_hook`). Each answer is one
line of ASCII JSON, so no agent text can forge it.
"""

from __future__ import annotations

import fnmatch
import json
import re
import threading
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from mergegate.decisions import Decision
from mergegate.errors import MergegateError
from mergegate.integrations import _guard as guard
from mergegate.integrations import _messages as msg
from mergegate.integrations._latch import HeldFinding, Hold
from mergegate.integrations._state import HookState, SessionMemory, hook_dir

if TYPE_CHECKING:
    from mergegate.config import HooksConfig, HooksSection
    from mergegate.verdicts import Verdict

__all__ = [
    "HOOK_TOOLS",
    "MAX_INPUT_BYTES",
    "PROFILES",
    "SUBAGENT_TOOLS",
    "HookAnswer",
    "HookOptions",
    "SubagentCall",
    "ToolProfile",
    "answer_hook",
    "decide_hook",
    "default_options",
    "error_answer",
    "hook_state_for",
    "read_call",
]

SUBAGENT_TOOLS = frozenset({"Task", "Agent"})
"""Claude Code's subagent tool: `Task` before 2.x, `Agent` since."""
_GEMINI_RESULT = re.compile(
    r"\ASubagent '[^'\n]{0,200}' finished\.\nTermination Reason: [^\n]{0,200}\nResult:\n"
)


def _text_of(response: Any) -> str:
    """The subagent's final text from `tool_response` (a string, a content list, or an object
    with `content` or `result`); `""` when there is none."""
    if isinstance(response, str):
        return response
    content: Any = response
    if isinstance(response, dict):
        content = response.get("content", response.get("result", ""))
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        texts = [
            b["text"]
            for b in content
            if isinstance(b, dict)
            and b.get("type", "text") == "text"
            and isinstance(b.get("text"), str)
        ]
        return "\n".join(texts)
    return ""


def _gemini_text(response: Any) -> str:
    """`tool_response.llmContent` (a string or text parts), without Gemini's wrapper."""
    content = response.get("llmContent") if isinstance(response, dict) else response
    if isinstance(content, dict):
        content = [content]
    text = _text_of({"content": content})
    return _GEMINI_RESULT.sub("", text, count=1)


@dataclass(frozen=True)
class ToolProfile:
    """How one agent CLI's hook input names the subagent call and its result."""

    name: str
    subagent_tools: frozenset[str]
    result_event: str
    """The event that carries the subagent's result."""
    launch_event: str | None
    """The event before the call, where a background review is moved to the foreground."""
    type_key: str
    """The `tool_input` key naming the subagent."""
    result_text: Callable[[Any], str]
    """The subagent's final text in `tool_response` (`""` when there is none)."""


PROFILES: dict[str, ToolProfile] = {
    "claude-code": ToolProfile(
        name="claude-code",
        subagent_tools=SUBAGENT_TOOLS,
        result_event="PostToolUse",
        launch_event="PreToolUse",
        type_key="subagent_type",
        result_text=_text_of,
    ),
    # Gemini CLI 0.61: subagents run through the `invoke_agent` tool ({agent_name, prompt});
    # the result is `tool_response.llmContent`, wrapped as "Subagent 'X' finished. ...".
    "gemini": ToolProfile(
        name="gemini",
        subagent_tools=frozenset({"invoke_agent"}),
        result_event="AfterTool",
        launch_event=None,
        type_key="agent_name",
        result_text=_gemini_text,
    ),
}
HOOK_TOOLS: tuple[str, ...] = tuple(PROFILES)
"""Agent CLIs whose hooks `mergegate hook TOOL` answers."""
MAX_INPUT_BYTES = 32 * 1024 * 1024
_KEY_CHARS = 100
_LOG_TEXT_CHARS = 200
_NO_SESSION = "(no session)"


@dataclass(frozen=True)
class HookOptions:
    """Which subagents are reviewers, and how long the hook may take."""

    subagent_types: tuple[str, ...] = ("*review*",)
    prompt_markers: tuple[str, ...] = ("Ready to merge?",)
    result_markers: tuple[str, ...] = ("Ready to merge?",)
    timeout_s: float = 20.0
    fix_subagent_types: tuple[str, ...] = ("*fix*",)
    """Subagent types (globs) that count as fix work while the latch is closed."""

    @classmethod
    def from_config(cls, config: HooksConfig | HooksSection, **overrides: Any) -> HookOptions:
        """The `[hooks]` section (either reading of it), with each non-empty override (a flag)
        replacing its key."""
        values: dict[str, Any] = {
            "subagent_types": config.subagent_types,
            "prompt_markers": config.prompt_markers,
            "result_markers": config.result_markers,
            "timeout_s": config.timeout_s,
            "fix_subagent_types": config.fix_subagent_types,
        }
        values.update({k: v for k, v in overrides.items() if v not in (None, ())})
        return cls(**values)

    def review_key(self, call: SubagentCall) -> str | None:
        """The reviewer's name when `call` is a code review, else None.

        A review is a subagent whose type matches a `subagent_types` glob, whose prompt holds
        a `prompt_markers` text, or whose result holds a `result_markers` text (all
        case-insensitive). Reviews by the same reviewer in one session share the key.
        """
        kind = call.subagent_type.strip().lower()[:_KEY_CHARS]
        if (
            any(fnmatch.fnmatchcase(kind, p.lower()) for p in self.subagent_types if kind)
            or _holds(call.prompt, self.prompt_markers)
            or (call.result is not None and _holds(call.result, self.result_markers))
        ):
            return (kind or "(no subagent type)")[:_KEY_CHARS]
        return None


def _holds(text: str, markers: tuple[str, ...]) -> bool:
    folded = text.casefold()
    return any(m.strip() and m.casefold() in folded for m in markers)


@dataclass(frozen=True)
class SubagentCall:
    """A subagent tool call as a hook sees it (untrusted text, bounded by the reader)."""

    event: str
    session_id: str
    tool_name: str
    tool_use_id: str
    subagent_type: str
    description: str
    prompt: str
    tool_input: Mapping[str, Any]
    status: str | None = None
    """`tool_response.status` (`completed`, `async_launched`, `remote_launched`), if any."""
    result: str | None = None
    """The subagent's final text (PostToolUse only; `""` when the response holds none)."""


@dataclass(frozen=True)
class HookAnswer:
    """What the hook prints (one JSON object) and exits with, and what it logs."""

    output: dict[str, Any]
    action: str
    """pass | ignore | foreground | approve | block | retry | stop | error | deny"""
    decision: str | None = None
    reason: str = ""
    log: dict[str, Any] = field(default_factory=dict)
    exit_code: int = 0

    @property
    def blocks(self) -> bool:
        return self.action in ("block", "retry", "stop", "error", "deny")

    def to_json(self) -> str:
        """One line of ASCII JSON (every non-ASCII and control character escaped)."""
        return json.dumps(self.output, ensure_ascii=True, separators=(",", ":"))


# ---------------------------------------------------------------- reading the input
def _str(data: Mapping[str, Any], key: str) -> str:
    value = data.get(key)
    return value if isinstance(value, str) else ""


def read_call(payload: Any, profile: ToolProfile = PROFILES["claude-code"]) -> SubagentCall | None:
    """The subagent call in a decoded hook input, or None when it is about another tool.

    Raises `ValueError` when the input is not a hook input at all (not an object, no event).
    """
    if not isinstance(payload, dict) or not isinstance(payload.get("hook_event_name"), str):
        raise ValueError("not a hook input (no hook_event_name)")
    if payload.get("tool_name") not in profile.subagent_tools:
        return None
    tool_input = payload.get("tool_input")
    tool_input = tool_input if isinstance(tool_input, dict) else {}
    response = payload.get("tool_response")
    event = payload["hook_event_name"]
    status = response.get("status") if isinstance(response, dict) else None
    return SubagentCall(
        event=event,
        session_id=_str(payload, "session_id"),
        tool_name=payload["tool_name"],
        tool_use_id=_str(payload, "tool_use_id"),
        subagent_type=_str(tool_input, profile.type_key),
        description=_str(tool_input, "description"),
        prompt=_str(tool_input, "prompt"),
        tool_input=tool_input,
        status=status if isinstance(status, str) else None,
        result=profile.result_text(response) if event == profile.result_event else None,
    )


# ---------------------------------------------------------------- answers
def _block(reason: str, action: str, decision: str | None, user_note: str) -> HookAnswer:
    return HookAnswer(
        output={"decision": "block", "reason": reason, "systemMessage": user_note},
        action=action,
        decision=decision,
        reason=reason,
    )


def _context(event: str, text: str, decision: str, user_note: str) -> HookAnswer:
    output = {
        "hookSpecificOutput": {"hookEventName": event, "additionalContext": text},
        "systemMessage": user_note,
    }
    return HookAnswer(output=output, action="approve", decision=decision, reason=text)


def error_answer(problem: str) -> HookAnswer:
    """The blocking answer when the hook could not decide. Top-level `decision: "block"` is
    honoured by Claude Code for PreToolUse (the call is refused) and PostToolUse alike."""
    return _block(
        msg.error_text(problem), "error", None, "mergegate: the review gate failed; blocked"
    )


def _pass(action: str = "pass") -> HookAnswer:
    return HookAnswer(output={}, action=action)


# ---------------------------------------------------------------- deciding
def _launch(call: SubagentCall, key: str, state: HookState) -> HookAnswer:
    """A review subagent about to start: keep it in the foreground, and when this reviewer
    owes a restatement, add the request (with its `review_id`) to the prompt — mergegate
    writes it, so the orchestrating model cannot garble or drop it."""
    memory = state.read_session(call.session_id or _NO_SESSION)
    restate = memory.restate_id(key) if memory is not None else None
    updated = dict(call.tool_input)
    if updated.get("run_in_background") is not False:
        updated["run_in_background"] = False
    if restate is not None:
        from mergegate.integrations._restate import RestateRequest  # noqa: PLC0415 - see _read_review

        instruction = RestateRequest(restate).instruction()
        if instruction not in call.prompt:
            updated["prompt"] = f"{call.prompt}\n\n{instruction}"
    if updated == call.tool_input:
        return _pass()
    output = {"hookSpecificOutput": {"hookEventName": "PreToolUse", "updatedInput": updated}}
    reason = msg.foreground_text() + (" The restatement request was added." if restate else "")
    return HookAnswer(output=output, action="foreground", reason=reason)


def _denied(output: dict[str, Any]) -> HookAnswer:
    reason = output["hookSpecificOutput"]["permissionDecisionReason"]
    return HookAnswer(output=output, action="deny", reason=reason)


def _dispatch(call: SubagentCall, options: HookOptions, state: HookState) -> HookAnswer:
    """A subagent that is not a review: allowed unless the latch is closed and it is not fix
    work."""
    latch = guard.latch_or_denial(state, call.session_id or _NO_SESSION)
    if isinstance(latch, dict):
        return _denied(latch)
    if not latch.closed or guard.is_fix_work(
        call.subagent_type, call.prompt, latch, options.fix_subagent_types
    ):
        return _pass("ignore")
    text = msg.dispatch_denied_text(call.subagent_type, latch, options.fix_subagent_types)
    return _denied(guard.denial(text))


def bash_answer(payload: Mapping[str, Any], state: HookState) -> HookAnswer:
    """The answer to a PreToolUse Bash call: `{}` while the latch is open, else a denial of
    a command that would carry the work past the review."""
    session = _str(payload, "session_id") or _NO_SESSION
    latch = guard.latch_or_denial(state, session)
    if isinstance(latch, dict):
        answer = _denied(latch)
    else:
        tool_input = payload.get("tool_input")
        command = tool_input.get("command") if isinstance(tool_input, dict) else None
        output = guard.bash_answer_output(command, latch, guard.guarded_paths())
        answer = _denied(output) if output else _pass("allow")
    log = {
        "event": "PreToolUse",
        "session_id": session,
        "tool_name": "Bash",
        "tool_use_id": _str(payload, "tool_use_id"),
    }
    return _with_log(answer, log) if answer.action == "deny" else answer


def _verdict_answer(call: SubagentCall, verdict: Verdict, previous_failures: int) -> HookAnswer:
    decision = verdict.decision.value
    if verdict.decision is Decision.APPROVE:
        text = msg.approve_text(verdict, retried=previous_failures > 0)
        return _context(call.event, text, decision, "mergegate: code review approved")
    note = f"mergegate: code review verdict {decision}; blocked"
    return _block(msg.verdict_text(verdict), "block", decision, note)


def _undecidable_answer(
    verdict: Verdict, output: str, key: str, memory: SessionMemory, now: float
) -> HookAnswer:
    from mergegate.integrations._restate import RestateRequest  # noqa: PLC0415 - see _read_review

    decision = verdict.decision.value
    request = RestateRequest(memory.restate_id(key) or RestateRequest.new().review_id)
    remembered = memory.note_malformed(key, output, now, restate_id=request.review_id)
    failures = remembered.malformed
    if failures <= 1:
        note = "mergegate: code review has no verdict; asking for it once more, as an object"
        return _block(msg.restate_text(verdict, output, key, request), "retry", decision, note)
    memory.latch.close(_hold(key, verdict, now))
    note = f"mergegate: code review failed {failures} times without a verdict; stop"
    text = msg.stop_text(remembered.excerpts[0], output, failures)
    return _block(text, "stop", decision, note)


def _hold(key: str, verdict: Verdict, now: float, cwd: str = "") -> Hold:
    """The latch's record of a reviewer's "no" (text cut and cleaned for the file)."""
    findings = [
        HeldFinding(
            id=f.id[:64],
            severity=f.severity.value,
            title=f.title[:300],
            file=f.file[:300] if f.file else None,
            line=f.line,
        )
        for f in verdict.findings[:50]
    ]
    decision = verdict.decision.value
    assert decision in ("fixes", "reject", "malformed", "empty")
    evidence = msg.evidence(verdict)[:340]
    return Hold(
        reviewer=key,
        decision=decision,
        evidence=evidence,
        findings=findings,
        at=now,
        cwd=cwd[:4096],
    )


def _read_review(output: str, restate: str | None) -> Verdict:
    """The verdict of a review result: the restated verdict object when one was asked for and
    the answer is one, else the ordinary reader's."""
    # Imported here, not at the top: the verdict library (and `_restate`, which reads verdict
    # objects with it) is most of the hook's start-up, and the Bash guard — which Claude Code
    # runs before every shell command — never reads a review (bench/bench_startup.py).
    from mergegate.integrations._restate import RestateRequest, read_restated  # noqa: PLC0415
    from mergegate.verdicts import parse_verdict  # noqa: PLC0415

    if restate is not None:
        restated = read_restated(output, RestateRequest(restate))
        if restated is not None:
            return restated
    # Strict: the reviewer can be asked to restate, so prose after an approval that does
    # not appraise the change is malformed (one restatement) rather than weighed.
    return parse_verdict(output, strict=True)


def _post_tool_use(
    call: SubagentCall, key: str, state: HookState, now: float, cwd: str = ""
) -> tuple[HookAnswer, Verdict | None]:
    if call.status is not None and call.status != "completed":
        reason = msg.not_visible_text(call.status)
        note = "mergegate: background review not checked; blocked"
        return _block(reason, "block", None, note), None
    output = call.result or ""
    # Load the verdict library before taking the lock, not under it: parallel subagents end
    # together, and each hook holding the lock through that import queues the others.
    import mergegate.verdicts  # noqa: F401, PLC0415

    with state.session(call.session_id or _NO_SESSION) as memory:
        verdict = _read_review(output, memory.restate_id(key))
        if verdict.decision.is_verdict:
            answer = _verdict_answer(call, verdict, memory.note_verdict(key))
            if verdict.decision is Decision.APPROVE:
                memory.latch.approve(key, now)
            else:
                memory.latch.close(_hold(key, verdict, now, cwd))
        else:
            answer = _undecidable_answer(verdict, output, key, memory, now)
    return answer, verdict


def decide_hook(
    payload: Any, options: HookOptions, state: HookState, tool: str = "claude-code"
) -> HookAnswer:
    """The answer to one decoded hook input for `tool` (a `HOOK_TOOLS` name). Raises on input
    that is not a hook input."""
    profile = PROFILES[tool]
    if is_bash_launch(payload, tool):
        return bash_answer(payload, state)
    call = read_call(payload, profile)
    if call is None:
        return _pass("ignore")
    key = options.review_key(call)
    log: dict[str, Any] = {
        "event": call.event,
        "session_id": call.session_id,
        "tool_name": call.tool_name,
        "tool_use_id": call.tool_use_id,
        "subagent_type": call.subagent_type[:_KEY_CHARS],
        "reviewer": key,
    }
    launch = call.event == profile.launch_event
    if key is None:
        answer = _dispatch(call, options, state) if launch else _pass("ignore")
        return _with_log(answer, log)
    if launch:
        return _with_log(_launch(call, key, state), log)
    if call.event != profile.result_event:
        return _with_log(_pass("ignore"), log)
    cwd = _str(payload, "cwd")
    answer, verdict = _post_tool_use(call, key, state, state.clock(), cwd)
    if verdict is not None:
        log["dialect"] = verdict.dialect
        log["evidence_line"] = verdict.evidence.line if verdict.evidence else None
        log["findings"] = len(verdict.findings)
        log["output_chars"] = len(call.result or "")
    return _with_log(answer, log)


def _with_log(answer: HookAnswer, log: dict[str, Any]) -> HookAnswer:
    return HookAnswer(
        output=answer.output,
        action=answer.action,
        decision=answer.decision,
        reason=answer.reason,
        log=log,
        exit_code=answer.exit_code,
    )


# ---------------------------------------------------------------- the whole hook
def is_bash_launch(payload: Any, tool: str) -> bool:
    """True for Claude Code's PreToolUse of its Bash tool (checked against the latch)."""
    return (
        tool == "claude-code"
        and isinstance(payload, dict)
        and payload.get("hook_event_name") == "PreToolUse"
        and payload.get("tool_name") == "Bash"
    )


def hook_state_for(payload: Any, tool: str, env: Mapping[str, str] | None = None) -> HookState:
    """The state of `tool`'s hook: `hooks/<tool>` in mergegate's per-user state directory
    (never the project tree an agent writes). `payload` is not consulted: a session's latch
    holds wherever its agent changes directory to."""
    del payload
    return HookState(hook_dir(tool, env))


def decode_input(raw: bytes) -> Any:
    """The hook input as JSON; `ValueError` for empty, oversized, non-UTF-8, invalid or too
    deeply nested input."""
    if len(raw) > MAX_INPUT_BYTES:
        raise ValueError(f"the hook input is larger than {MAX_INPUT_BYTES} bytes")
    if not raw.strip():
        raise ValueError("the hook input is empty")
    try:
        return json.loads(raw.decode("utf-8", errors="strict"))
    except RecursionError:
        raise ValueError("the hook input is nested too deeply to read") from None


def default_options(payload: Any) -> HookOptions:
    """The hook's options from the configuration it trusts (`_trust`)."""
    from mergegate.integrations._trust import trusted_options  # noqa: PLC0415

    return trusted_options(payload)


def _run(
    read_input: Callable[[], bytes],
    tool: str,
    load_options: Callable[[Any], HookOptions],
    state: HookState,
) -> HookAnswer:
    """Decide one hook input; every failure becomes a blocking answer."""
    try:
        payload = decode_input(read_input())
    except (ValueError, UnicodeDecodeError) as exc:
        return error_answer(f"unreadable hook input: {exc}")
    try:
        if is_bash_launch(payload, tool):
            return bash_answer(payload, state)  # needs no configuration
        return decide_hook(payload, load_options(payload), state, tool)
    except ValueError as exc:
        return error_answer(f"unreadable hook input: {exc}")
    except MergegateError as exc:
        return error_answer(f"{type(exc).__name__}: {exc}")
    except Exception as exc:  # a crash must still answer "blocked"
        return error_answer(f"internal error {type(exc).__name__}: {exc}")


def _record(answer: HookAnswer, state: HookState, tool: str) -> HookAnswer:
    """Log the answer; an answer about a review that cannot be logged becomes a block."""
    if answer.action in ("ignore", "allow") and not answer.log:
        return answer  # another tool, or an allowed command: nothing worth a line
    record = {
        "tool": tool,
        "session_id": None,
        **answer.log,
        "action": answer.action,
        "decision": answer.decision,
        "reason": answer.reason[:_LOG_TEXT_CHARS],
    }
    try:
        state.log(record)
    except (MergegateError, OSError) as exc:
        if answer.action in ("ignore", "error", "deny"):
            return answer
        return error_answer(f"the decision could not be logged: {exc}")
    return answer


def answer_hook(
    read_input: Callable[[], bytes],
    *,
    tool: str = "claude-code",
    load_options: Callable[[Any], HookOptions] = default_options,
    timeout_s: float = 20.0,
) -> HookAnswer:
    """Read one hook input, decide, log, and return the answer; never raises.

    `load_options(payload)` gives the options (default: the `[hooks]` configuration of the
    input's project); an error there blocks. Reading the input counts against `timeout_s`:
    past it the answer blocks, saying the hook timed out, even if the work still runs.
    """
    result: list[HookAnswer] = []
    # Where the state is, decided once, now: a worker that outlives the deadline must not
    # read the environment again later.
    state = hook_state_for(None, tool)

    def work() -> None:
        answer = _run(read_input, tool, load_options, state)
        result.append(_record(answer, state, tool))

    worker = threading.Thread(target=work, name="mergegate-hook", daemon=True)
    worker.start()
    worker.join(timeout_s)
    if result:
        return result[0]
    answer = error_answer(f"the hook timed out after {timeout_s:g}s")
    # The worker may hold the lock: try briefly, and answer "blocked" whatever happens.
    quick = HookState(state.directory, lock_timeout_s=1.0, clock=state.clock)  # same place
    return _record(answer, quick, tool)
