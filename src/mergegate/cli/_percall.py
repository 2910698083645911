"""The per-call commands, `mergegate hook TOOL` and `mergegate parse`, without click.

An agent CLI runs the hook on every tool call, and pipelines run `parse` on every step
(bench/bench_startup.py: 150 ms of wall time each); importing click (with the `inspect`,
`uuid` and `datetime` its types load) was about a sixth of their start-up. Their usual
command lines are plain: the command, `--NAME VALUE` pairs of its own options and (parse)
file names; `mergegate hooks install` writes no other. `dispatch` reads exactly those here;
anything else (`--help`, `--timeout=5`, an unknown option, a value click would refuse, `--`)
goes to click, so help and errors stay click's own, byte for byte
(tests/test_cli_percall.py).
"""

from __future__ import annotations

import os
import sys
from collections.abc import Callable, Mapping, Sequence
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
_PARSE_FORMATS = ("text", "json", "jsonl")  # cli.parse's --format choices


def dispatch(argv: Sequence[str]) -> int | None:
    """Run `argv` (without the program name) when it is a plain per-call command line and
    return its exit code; None when click must read it."""
    hook = read_hook_argv(argv)
    if hook is not None:
        return guarded(lambda: _answer_call(hook))
    parse = read_parse_argv(argv)
    if parse is not None:
        return guarded(lambda: _decide_call(parse))
    return None


def guarded(work: Callable[[], int]) -> int:
    """Run `work` as `_app.MergegateGroup` runs a command: plugin lookup off (`PER_CALL`),
    a `MergegateError` one line and its exit code, Ctrl-C 130, a closed stdout 1."""
    os.environ.setdefault("PYDANTIC_DISABLE_PLUGINS", "__all__")
    try:
        return work()
    except MergegateError as exc:
        print(f"mergegate: error: {exc}", file=sys.stderr)
        return int(exc.exit_code)
    except KeyboardInterrupt:
        print("\nmergegate: interrupted", file=sys.stderr)
        return int(ExitCode.INTERRUPTED)
    except BrokenPipeError:
        # As click does when the reader of stdout went away (`parse … | head -1`): exit 1,
        # with no traceback from the final flush at shutdown.
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return 1


class HookCall(NamedTuple):
    """A hook call read from argv: the tool, its marker lists and its timeout."""

    tool: str
    flags: dict[str, tuple[str, ...]]
    timeout_s: float | None


def read_hook_argv(argv: Sequence[str]) -> HookCall | None:
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


def _answer_call(call: HookCall) -> int:
    answer(call.tool, call.flags, call.timeout_s)
    return 0


class ParseCall(NamedTuple):
    """A `mergegate parse` call read from argv: its files, dialect, review id, format and
    whether it asks for the strict reading."""

    files: tuple[str, ...]
    dialect: str | None
    review_id: str | None
    fmt: str
    strict: bool = False


def read_parse_argv(argv: Sequence[str]) -> ParseCall | None:
    """`argv` as a plain `mergegate parse` call, or None (then click reads it)."""
    if not argv or argv[0] != "parse":
        return None
    values: dict[str, str] = {}
    files: list[str] = []
    strict = False
    rest = list(argv[1:])
    while rest:
        arg = rest.pop(0)
        if arg == "-" or not arg.startswith("-"):
            files.append(arg)
        elif arg == "--strict":
            strict = True
        elif arg in ("--format", "--dialect", "--review-id") and rest:
            values[arg] = rest.pop(0)
        else:
            return None
    fmt = values.get("--format", "text")
    dialect = values.get("--dialect")
    review_id = values.get("--review-id")
    if any(value.startswith("-") for value in values.values()) or fmt not in _PARSE_FORMATS:
        return None
    if review_id is not None and not review_id.strip():
        return None  # click's command says why (a usage error)
    if dialect is not None:
        from mergegate.verdicts import DIALECTS  # noqa: PLC0415 - parse loads it anyway

        if dialect not in DIALECTS:
            return None
    return ParseCall(tuple(files), dialect, review_id, fmt, strict)


def _decide_call(call: ParseCall) -> int:
    from mergegate.cli._parse_run import decide_files  # noqa: PLC0415 - the verdict library

    return int(decide_files(call.files, call.dialect, call.review_id, call.fmt, strict=call.strict))


def answer(tool: str, flags: Mapping[str, Any], timeout_s: float | None) -> None:
    """Read one hook input on stdin and print the answer: the fast path when it is certain,
    else the full hook (which never raises and always prints one JSON line)."""
    raw = sys.stdin.buffer.read(_MAX_INPUT_BYTES + 1)
    from mergegate.integrations import fast_answer  # noqa: PLC0415 - standard library only

    line = fast_answer(raw, tool)
    if line is None:
        line = _full_answer(raw, tool, flags, timeout_s)
    sys.stdout.write(line + "\n")
    sys.stdout.flush()


def _full_answer(raw: bytes, tool: str, flags: Mapping[str, Any], timeout_s: float | None) -> str:
    # pydantic's plugin lookup is off in this process (`_app.PER_CALL`).
    from mergegate.integrations import answer_hook, trusted_options  # noqa: PLC0415 - slow path only

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
