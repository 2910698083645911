"""One hook call, `mergegate hook claude-code` or `mergegate hook gemini`, without click.

An agent CLI runs the hook on every tool call (bench/bench_startup.py: 150 ms of wall time),
and importing click (with the `inspect`, `uuid` and `datetime` its types load) was about a
sixth of the review answer's start-up. The command lines `mergegate hooks install` writes are
plain: the tool, then `--NAME VALUE` pairs of the hook's own options. `main` reads exactly
those here; anything else (`--help`, `--timeout=5`, an unknown option, a value click would
refuse) goes to click, so help and errors stay click's own, word for word.
"""

from __future__ import annotations

import os
import sys
from collections.abc import Mapping, Sequence
from typing import Any, NamedTuple

from mergegate.decisions import ExitCode
from mergegate.errors import MergegateError

_DEFAULT_TIMEOUT_S = 20.0
_MAX_INPUT_BYTES = 32 * 1024 * 1024  # integrations._hook.MAX_INPUT_BYTES (not imported: cost)
_TIMEOUT_RANGE = (0.1, 300.0)  # hook._timeout_option's click.FloatRange
_LISTS = {
    "--subagent-type": "subagent_types",
    "--prompt-marker": "prompt_markers",
    "--result-marker": "result_markers",
    "--fix-subagent-type": "fix_subagent_types",
}
"""The hook's repeatable options (`hook.marker_options`) and their parameter names."""
_TOOLS = ("claude-code", "gemini")
"""The tools whose hook takes these options and `--timeout` (`hook.claude_code`, `hook.gemini`)."""


class HookCall(NamedTuple):
    """A hook call read from argv: the tool, its marker lists and its timeout."""

    tool: str
    flags: dict[str, tuple[str, ...]]
    timeout_s: float | None


def read_argv(argv: Sequence[str]) -> HookCall | None:
    """`argv` (without the program name) as a hook call, or None when it is anything else
    or anything click might read differently (then click reads it)."""
    if len(argv) < 2 or argv[0] != "hook" or argv[1] not in _TOOLS:
        return None
    flags: dict[str, tuple[str, ...]] = {key: () for key in _LISTS.values()}
    timeout_s: float | None = None
    rest = argv[2:]
    if len(rest) % 2:
        return None
    for name, value in zip(rest[::2], rest[1::2], strict=True):
        if value.startswith("-"):  # click may read it as an option, not a value
            return None
        if name in _LISTS:
            flags[_LISTS[name]] += (value,)
        elif name == "--timeout" and (timeout_s := _timeout(value)) is not None:
            continue
        else:
            return None
    return HookCall(argv[1], flags, timeout_s)


def _timeout(value: str) -> float | None:
    try:
        seconds = float(value)
    except ValueError:
        return None
    low, high = _TIMEOUT_RANGE
    return seconds if low <= seconds <= high else None


def run(call: HookCall) -> int:
    """Answer one hook call as the click command would: its exit code (always 0 unless a
    `MergegateError` or Ctrl-C escapes, as `_app.MergegateGroup` turns them)."""
    os.environ.setdefault("PYDANTIC_DISABLE_PLUGINS", "__all__")  # as `_app.PER_CALL` does
    try:
        answer(call.tool, call.flags, call.timeout_s)
    except MergegateError as exc:
        print(f"mergegate: error: {exc}", file=sys.stderr)
        return int(exc.exit_code)
    except KeyboardInterrupt:
        print("\nmergegate: interrupted", file=sys.stderr)
        return int(ExitCode.INTERRUPTED)
    return 0


def answer(tool: str, flags: Mapping[str, Any], timeout_s: float | None) -> None:
    """Read one hook input on stdin and print the answer: the fast path when it is certain,
    else the full hook (which never raises and always prints one JSON line)."""
    raw = sys.stdin.buffer.read(_MAX_INPUT_BYTES + 1)
    from mergegate.integrations._fast import fast_answer  # noqa: PLC0415 - standard library only

    line = fast_answer(raw, tool)
    if line is None:
        line = _full_answer(raw, tool, flags, timeout_s)
    sys.stdout.write(line + "\n")
    sys.stdout.flush()


def _full_answer(raw: bytes, tool: str, flags: Mapping[str, Any], timeout_s: float | None) -> str:
    # pydantic's plugin lookup is off in this process (`_app.PER_CALL`).
    from mergegate.integrations import answer_hook  # noqa: PLC0415 - the slow path only
    from mergegate.integrations._trust import trusted_options  # noqa: PLC0415

    def load_options(payload: Any) -> Any:
        return trusted_options(payload, flags)

    deadline = timeout_s or _configured_timeout()
    return answer_hook(
        lambda: raw, tool=tool, load_options=load_options, timeout_s=deadline
    ).to_json()


def _configured_timeout() -> float:
    from mergegate.config import load_hooks  # noqa: PLC0415 - standard library only

    try:
        return load_hooks().timeout_s
    except MergegateError:
        return _DEFAULT_TIMEOUT_S  # the same error blocks inside the hook, with its message
