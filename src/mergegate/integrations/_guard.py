"""PreToolUse while a session's latch is closed: what is denied, and what stays allowed.

Denied (`permissionDecision: "deny"`, with the reason and the open findings):

* Bash commands that commit, merge, rebase, push or tag, read as commands (`_shell`), and
  commands that run mergegate's `release` or name its state directory;
* subagents that are neither a review (they run, so a re-review can open the latch) nor fix
  work: a subagent type matching `hooks.fix_subagent_types`, or a prompt that names one of the
  open findings' ids. After a review that failed twice without a verdict there are no
  findings, so no fix work either (seed 000: do not dispatch fix subagents).

Everything else stays allowed — reading, editing files, running tests — so the model can fix.
A latch that cannot be read denies both kinds with a one-line reason; a session without a
latch (no review yet) is open.
"""

from __future__ import annotations

import fnmatch
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from mergegate.integrations import _messages as msg
from mergegate.integrations._latch import Latch
from mergegate.integrations._private_dir import user_state_base
from mergegate.integrations._state import HookState, HookStateError

__all__ = ["bash_answer_output", "denial", "guarded_paths", "is_fix_work", "read_latch"]

_NOTE = "mergegate: refused while the code review latch is closed"


def denial(reason: str, note: str = _NOTE) -> dict[str, Any]:
    """A PreToolUse answer that denies the call, telling the model why."""
    return {
        "hookSpecificOutput": {
            "hookEventName": "PreToolUse",
            "permissionDecision": "deny",
            "permissionDecisionReason": reason,
        },
        "systemMessage": note,
    }


def read_latch(state: HookState, session_id: str) -> Latch:
    """The session's latch (an open one when there is none). Raises `HookStateError`."""
    memory = state.read_session(session_id)
    return memory.latch if memory is not None else Latch()


def guarded_paths(env: Mapping[str, str] | None = None) -> tuple[str, ...]:
    """What a command may not name while the latch is closed: the state directory (absolute,
    and under `~` or `$HOME`), and Claude Code's settings files, which hold the hook itself
    (Claude Code 2.1 reloads hooks when they change)."""
    base, parts = user_state_base(env)
    where = base.joinpath(*parts)
    forms = {str(where), ".claude/settings"}
    home = str(Path.home())
    if str(where).startswith(home + "/"):
        rest = str(where)[len(home) :]
        forms |= {"~" + rest, "$HOME" + rest, "${HOME}" + rest}
    return tuple(sorted(forms))


def bash_answer_output(command: object, latch: Latch, guarded: tuple[str, ...]) -> dict[str, Any]:
    """The answer to a Bash PreToolUse call under `latch`: `{}` or a denial."""
    if not latch.closed:
        return {}
    if not isinstance(command, str):
        return denial(msg.latch_unreadable_text("the Bash call has no command text"))
    # Imported here: only a Bash command under a closed latch is read as shell; a review's
    # answer (PostToolUse), which also loads this module, never is (bench/bench_startup.py).
    from mergegate.integrations._shell import refusal  # noqa: PLC0415

    found = refusal(command, guarded)
    if found is None:
        return {}
    return denial(msg.latch_denied_text(found.command, found.why, latch))


def is_fix_work(subagent_type: str, prompt: str, latch: Latch, fix_types: tuple[str, ...]) -> bool:
    """True when a subagent dispatched under a closed latch is fix work: there are open
    findings, and its type matches a `fix_types` glob or its prompt names a finding id."""
    findings = latch.open_findings()
    if not findings:
        return False
    kind = subagent_type.strip().lower()
    if kind and any(fnmatch.fnmatchcase(kind, p.strip().lower()) for p in fix_types if p.strip()):
        return True
    return any(f.id and f.id in prompt for _key, f in findings)


def latch_or_denial(state: HookState, session_id: str) -> Latch | dict[str, Any]:
    """The latch, or the denial to answer when it cannot be read."""
    try:
        return read_latch(state, session_id)
    except HookStateError as exc:
        return denial(msg.latch_unreadable_text(str(exc)))
