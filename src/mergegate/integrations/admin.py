"""What a person does with the latches: see them, and release one by hand.

`mergegate hook claude-code status` lists the sessions the hook remembers (closed latches
first) with why each is closed; `release` opens one, recording who (the name given, the login
account, host and terminal) and when. The CLI refuses `release` without a terminal, and the
latch's own PreToolUse check refuses it from the agent's Bash tool (`_shell`): releasing is a
person's act, never an agent's.
"""

from __future__ import annotations

import getpass
import os
import socket
from collections.abc import Mapping
from dataclasses import dataclass
from datetime import UTC, datetime

from mergegate.errors import UsageError
from mergegate.integrations._fast import session_file_name
from mergegate.integrations._latch import Latch
from mergegate.integrations._state import HookState, hook_dir
from mergegate.integrations._untrusted import sanitize

__all__ = ["LatchView", "account", "hook_state", "latch_views", "release_latch", "when"]

MAX_SHOWN = 50


@dataclass(frozen=True)
class LatchView:
    """One session's latch as `status` shows it."""

    session: str
    """The session id (or, for an odd id, the name of its file)."""
    latch: Latch

    def to_json(self) -> dict[str, object]:
        return {"session": self.session, **self.latch.to_json()}


def hook_state(tool: str = "claude-code", env: Mapping[str, str] | None = None) -> HookState:
    """The hook's state in the per-user state directory."""
    return HookState(hook_dir(tool, env))


def latch_views(state: HookState, session_id: str | None = None) -> list[LatchView]:
    """The latches to show: the one session asked for, else every session with a latch that
    was ever closed (closed ones first, newest first; at most `MAX_SHOWN`). Raises
    `HookStateError` when a file cannot be read."""
    if session_id is not None:
        memory = state.read_session(session_id)
        if memory is None:
            raise UsageError(f"no review is remembered for session {sanitize(session_id, 120)!r}")
        return [LatchView(session_id, memory.latch)]
    views = [
        LatchView(name.removesuffix(".json"), memory.latch)
        for name, memory in state.sessions()
        if memory.latch.history
    ]
    views.sort(key=lambda v: not v.latch.closed)  # stable: newest first within each group
    return views[:MAX_SHOWN]


def account() -> str:
    """The login account, host and terminal of the person running this."""
    try:
        user = getpass.getuser()
    except (KeyError, OSError):
        user = f"uid {os.getuid()}"
    try:
        tty = os.ttyname(0)
    except OSError:
        tty = "no terminal"
    return f"{user}@{socket.gethostname()} on {tty}"


def release_latch(state: HookState, session_id: str, who: str, reason: str) -> bool:
    """Open the session's latch by hand, recording `who`, `reason` and the time; False when
    it was open already (nothing is recorded then).

    Raises `UsageError` for a session the hook does not know, or an empty reason.
    """
    if not reason.strip():
        raise UsageError("--reason must say why the latch is released")
    if state.read_session(session_id) is None:
        hint = session_file_name(session_id).removesuffix(".json")
        raise UsageError(
            f"no review is remembered for session {sanitize(hint, 120)!r} "
            "(see: mergegate hook claude-code status)"
        )
    with state.session(session_id) as memory:
        if not memory.latch.closed:
            return False
        memory.latch.release(who, reason.strip(), state.clock())
        return True


def when(at: float) -> str:
    """A time stamp for people: UTC, to the second."""
    return datetime.fromtimestamp(at, UTC).strftime("%Y-%m-%d %H:%M:%S UTC")
