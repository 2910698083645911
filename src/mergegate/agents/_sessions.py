"""Conversation history of HTTP backends, one JSON file per session, so a run can be resumed.

Chat-completions endpoints are stateless: "continue the session" means sending the earlier
messages again. The history lives under the state dir (never the work tree: a reviewer must
leave it untouched) in `<state>/sessions/<backend>/<session id>.json`, written atomically.
Session ids are generated here and validated before they name a file.
"""

from __future__ import annotations

import json
import os
import uuid
from pathlib import Path
from typing import Any

from mergegate.atomic_files import write_atomic
from mergegate.config import StateLayout

__all__ = ["MAX_SESSION_BYTES", "SessionStore", "default_state_dir"]

MAX_SESSION_BYTES = 32_000_000
_ID_CHARS = frozenset("0123456789abcdef-")


def default_state_dir() -> Path:
    """`$MERGEGATE_STATE_DIR`, else `$XDG_STATE_HOME/mergegate`, else `~/.local/state/...`."""
    explicit = os.environ.get("MERGEGATE_STATE_DIR")
    if explicit:
        return Path(explicit).expanduser()
    xdg = os.environ.get("XDG_STATE_HOME")
    base = Path(xdg).expanduser() if xdg else Path.home() / ".local" / "state"
    return base / "mergegate"


class SessionStore:
    """Load and save chat histories of one backend under `root/sessions/<backend>/`."""

    def __init__(self, root: Path, backend: str) -> None:
        self.directory = StateLayout(root).sessions / backend

    @staticmethod
    def new_id() -> str:
        return str(uuid.uuid4())

    def path(self, session_id: str) -> Path:
        """The file of `session_id`; `ValueError` for an id mergegate could not have made."""
        if not 0 < len(session_id) <= 64 or not set(session_id) <= _ID_CHARS:
            raise ValueError(f"not a session id of this backend: {session_id[:80]!r}")
        return self.directory / f"{session_id}.json"

    def load(self, session_id: str) -> list[dict[str, str]]:
        """The messages of `session_id`; `ValueError` if unknown, too large or damaged."""
        path = self.path(session_id)
        try:
            if path.stat().st_size > MAX_SESSION_BYTES:
                raise ValueError(f"session {session_id} is larger than {MAX_SESSION_BYTES} bytes")
            data: Any = json.loads(path.read_text(encoding="utf-8"))
        except FileNotFoundError:
            raise ValueError(f"unknown session {session_id}") from None
        except (OSError, json.JSONDecodeError) as exc:
            raise ValueError(f"session {session_id} is unreadable: {exc}") from exc
        messages = data.get("messages") if isinstance(data, dict) else None
        if not isinstance(messages, list) or not all(_is_message(m) for m in messages):
            raise ValueError(f"session {session_id} is damaged (no valid 'messages' list)")
        return messages

    def save(self, session_id: str, messages: list[dict[str, str]], meta: dict[str, Any]) -> Path:
        """Write the whole history atomically (temp file + rename) and return its path."""
        path = self.path(session_id)
        payload = json.dumps({"session_id": session_id, **meta, "messages": messages}, indent=1)
        # 0600 and no directory fsync, as before it used the shared writer: a chat history may
        # hold what the user pasted, so it stays private.
        write_atomic(path, payload, mode=0o600, sync_dir=False)
        return path


def _is_message(value: object) -> bool:
    return (
        isinstance(value, dict)
        and isinstance(value.get("role"), str)
        and isinstance(value.get("content"), str)
    )
