"""mergegate's gate inside the tools people already run (layer L3, beside `review`).

* `answer_hook` / `decide_hook`: `mergegate hook claude-code` — a Claude Code
  `PreToolUse`/`PostToolUse` hook on the subagent tool that parses a review subagent's result
  with the verdict library and puts the decision in front of the orchestrating model, and a
  `PreToolUse` hook on Bash that holds a review's "no" (the latch): commit, merge, rebase, push
  and tag are denied until a review approves or a person releases it;
  `mergegate hook gemini` does the review part as a Gemini CLI `AfterTool` hook on
  `invoke_agent`.
* `install_hooks` / `uninstall_hooks`: write or remove exactly mergegate's entries in a
  settings file, byte for byte, with one backup.

See `docs/integrations.md` for the hook JSON in and out and the versions tested.

Names are imported when first used (module `__getattr__`): the hook answers a shell command
while the latch is open from `_fast` alone, before pydantic and the verdict library load.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from mergegate.lazy_exports import LazyExports

if TYPE_CHECKING:
    from mergegate.integrations._fast import fast_answer
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
    from mergegate.integrations._latch import Latch
    from mergegate.integrations._settings import (
        DEFAULT_MATCHER,
        HOOK_EVENTS,
        TOOL_HOOKS,
        HookEntry,
        SettingsChange,
        claude_settings_path,
        install_hooks,
        is_installed,
        is_mergegate_hook,
        settings_path,
        uninstall_hooks,
    )
    from mergegate.integrations._state import HookState, HookStateError, SessionMemory
    from mergegate.integrations._trust import trusted_options

_HOME = {
    "mergegate.integrations._fast": ("fast_answer",),
    "mergegate.integrations._hook": (
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
    ),
    "mergegate.integrations._latch": ("Latch",),
    "mergegate.integrations._settings": (
        "DEFAULT_MATCHER",
        "HOOK_EVENTS",
        "TOOL_HOOKS",
        "HookEntry",
        "SettingsChange",
        "claude_settings_path",
        "install_hooks",
        "is_installed",
        "is_mergegate_hook",
        "settings_path",
        "uninstall_hooks",
    ),
    "mergegate.integrations._state": ("HookState", "HookStateError", "SessionMemory"),
    "mergegate.integrations._trust": ("trusted_options",),
}
_EXPORTS = LazyExports(globals(), _HOME)

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
    "Latch",
    "SessionMemory",
    "SettingsChange",
    "SubagentCall",
    "ToolProfile",
    "answer_hook",
    "claude_settings_path",
    "decide_hook",
    "default_options",
    "error_answer",
    "fast_answer",
    "hook_state_for",
    "install_hooks",
    "is_installed",
    "is_mergegate_hook",
    "read_call",
    "settings_path",
    "trusted_options",
    "uninstall_hooks",
]


__getattr__ = _EXPORTS.attribute
__dir__ = _EXPORTS.names
