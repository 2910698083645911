"""The environment a child starts with: the parent's, scrubbed of the parent agent's markers."""

from __future__ import annotations

import os
from collections.abc import Mapping

__all__ = ["SCRUBBED_ENV_NAMES", "SCRUBBED_ENV_PREFIXES", "child_environment"]


SCRUBBED_ENV_NAMES: frozenset[str] = frozenset(
    {
        "CLAUDECODE",  # Claude Code's nesting guard: a child claude refuses or changes behaviour
        "GEMINI_CLI",  # set by Gemini CLI for the commands it runs
        "OPENCODE",  # set by OpenCode for the commands it runs
        "CODEX_SANDBOX",  # set by Codex inside its sandbox; a child would think it is sandboxed
        "CODEX_SANDBOX_NETWORK_DISABLED",
        "CURSOR_AGENT",  # set by the Cursor agent for its commands
        "MERGEGATE_PROMPT_FILE",  # a parent mergegate run's per-attempt variables
        "MERGEGATE_ATTEMPT",
        "MERGEGATE_SESSION_ID",
        "MERGEGATE_REVIEW_ID",
    }
)
"""Variables removed from a child's environment: markers a parent agent sets for its children."""

SCRUBBED_ENV_PREFIXES: tuple[str, ...] = ("CLAUDE_CODE_", "CLAUDE_AGENT_SDK_")
"""Prefixes removed too (Claude Code's entrypoint, SSE port, session and IDE variables).
A backend may set any of them again through `AgentRequest.env`."""


def child_environment(
    extra: Mapping[str, str] | None = None, base: Mapping[str, str] | None = None
) -> dict[str, str]:
    """The environment for a child: `base` (default `os.environ`) scrubbed, then `extra` added."""
    source = os.environ if base is None else base
    env = {
        name: value
        for name, value in source.items()
        if name not in SCRUBBED_ENV_NAMES and not name.startswith(SCRUBBED_ENV_PREFIXES)
    }
    env.update(extra or {})
    return env
