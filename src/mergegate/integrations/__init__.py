"""mergegate's gate inside the tools people already run (layer L3, beside `review`).

* `answer_hook` / `decide_hook`: `mergegate hook claude-code` — a Claude Code
  `PreToolUse`/`PostToolUse` hook on the subagent tool that parses a review subagent's result
  with the verdict library and puts the decision in front of the orchestrating model;
  `mergegate hook gemini` does the same as a Gemini CLI `AfterTool` hook on `invoke_agent`.
* `install_hooks` / `uninstall_hooks`: write or remove exactly mergegate's entries in a
  settings file, byte for byte, with a backup.

See `docs/integrations.md` for the hook JSON in and out and the versions tested.
"""

from __future__ import annotations

from mergegate.integrations._hook import (
    HOOK_TOOLS,
    MAX_INPUT_BYTES,
    PROFILES,
    SUBAGENT_TOOLS,
    HookAnswer,
    HookOptions,
    SubagentCall,
    ToolProfile,
    answer_hook,
    decide_hook,
    default_options,
    error_answer,
    hook_state_for,
    read_call,
)
from mergegate.integrations._settings import (
    DEFAULT_MATCHER,
    HOOK_EVENTS,
    TOOL_HOOKS,
    HookEntry,
    SettingsChange,
    claude_settings_path,
    install_hooks,
    is_mergegate_hook,
    settings_path,
    uninstall_hooks,
)
from mergegate.integrations._state import HookState, HookStateError, SessionMemory

__all__ = [
    "DEFAULT_MATCHER",
    "HOOK_EVENTS",
    "HOOK_TOOLS",
    "MAX_INPUT_BYTES",
    "PROFILES",
    "SUBAGENT_TOOLS",
    "TOOL_HOOKS",
    "HookAnswer",
    "HookEntry",
    "HookOptions",
    "HookState",
    "HookStateError",
    "SessionMemory",
    "SettingsChange",
    "SubagentCall",
    "ToolProfile",
    "answer_hook",
    "claude_settings_path",
    "decide_hook",
    "default_options",
    "error_answer",
    "hook_state_for",
    "install_hooks",
    "is_mergegate_hook",
    "read_call",
    "settings_path",
    "uninstall_hooks",
]
