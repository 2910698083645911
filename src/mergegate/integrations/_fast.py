"""The hook's fast path: answer `{}` at once when nothing needs deciding.

Claude Code runs `mergegate hook claude-code` before every Bash command (the latch), so the
common answer — a shell command in a session whose latch is open — must not wait for pydantic,
the configuration and the verdict library to load. This module uses the standard library only:
it reads the session's file without following links (`_private_dir`) and answers `{}` when the
latch is certainly open. Anything else — a subagent call, a closed latch, a file it cannot read
or understand, input that is not a plain hook input — returns None, and the full hook decides
(and denies when it cannot read the state).
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping

from mergegate.integrations._private_dir import HOOK_SESSIONS, hook_dir

__all__ = ["fast_answer", "session_file_name"]

MAX_FAST_INPUT = 4 * 1024 * 1024
MAX_SESSION_BYTES = 1024 * 1024
NO_SESSION = "(no session)"
_SAFE_ID = re.compile(r"[A-Za-z0-9][A-Za-z0-9._-]{0,99}")
_SUBAGENT_TOOLS = frozenset({"Task", "Agent"})


def session_file_name(session_id: str) -> str:
    """A file name for a session id: the id itself when it is plain, else a hash of it."""
    if _SAFE_ID.fullmatch(session_id):
        return f"{session_id}.json"
    import hashlib  # noqa: PLC0415 - only for an odd id; Claude Code's are plain

    digest = hashlib.sha256(session_id.encode("utf-8", "replace")).hexdigest()[:32]
    return f"sha-{digest}.json"


def _latch_is_open(tool: str, session_id: str, env: Mapping[str, str] | None) -> bool:
    sessions = hook_dir(tool, env).child(HOOK_SESSIONS)
    try:
        data = sessions.read(session_file_name(session_id), MAX_SESSION_BYTES)
        if data is None:
            return True  # no review in this session yet: open
        memory = json.loads(data)
    except (OSError, ValueError, RecursionError):
        return False
    latch = memory.get("latch") if isinstance(memory, dict) else None
    if latch is None and isinstance(memory, dict):
        return True  # a memory from before the latch: nothing ever closed it
    return isinstance(latch, dict) and latch.get("state") == "open" and not latch.get("holds")


def fast_answer(raw: bytes, tool: str, env: Mapping[str, str] | None = None) -> str | None:
    """`"{}"` for a Claude Code PreToolUse call that is not a subagent's, when it is Bash
    and the session's latch is certainly open (or another tool entirely); None otherwise."""
    if tool != "claude-code" or len(raw) > MAX_FAST_INPUT:
        return None
    try:
        payload = json.loads(raw)
    except (ValueError, RecursionError):
        return None
    if not isinstance(payload, dict) or payload.get("hook_event_name") != "PreToolUse":
        return None
    name = payload.get("tool_name")
    if not isinstance(name, str) or name in _SUBAGENT_TOOLS:
        return None
    if name != "Bash":
        return "{}"  # only Bash and the subagent tool are gated before they run
    session = payload.get("session_id")
    session_id = session if isinstance(session, str) and session else NO_SESSION
    return "{}" if _latch_is_open(tool, session_id, env) else None
