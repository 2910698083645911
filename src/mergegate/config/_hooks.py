"""The `[hooks]` section read without pydantic: what the agent-CLI hook needs, and only that.

`mergegate hook claude-code` runs on every Claude Code tool call, and its decisions depend on
this section alone (and the session's latch), so it reads and checks only `[hooks]`: the
defaults, then the environment (`MERGEGATE_HOOKS__<KEY>`, as `load_config` reads it). A broken
`[hooks]` value fails the hook closed, with the message and key `load_config` gives; a mistake
in another section (`MERGEGATE_REVIEW__MAX_ROUNDS=two`) is that command's concern, not the
gate's (docs/integrations.md, "Which configuration the hook trusts").

`HooksConfig` (pydantic, in `_models`) is the same section inside the whole `Config`; its
defaults are these. `tests/test_config_hooks.py` checks for every TOML `[hooks]` table that
both accept the same tables, give the same values and refuse with the same errors.
"""

from __future__ import annotations

import math
import os
from collections.abc import Mapping
from dataclasses import dataclass, fields
from typing import Any

from mergegate.config._sources import Problem, config_error, env_entries, merge, nest

__all__ = ["HOOKS_DEFAULTS", "TIMEOUT_MAX_S", "HooksSection", "check_hooks", "load_hooks"]

TIMEOUT_MAX_S = 300.0
"""`timeout_s` is above 0 and at most this."""
_SECTION = "hooks"


@dataclass(frozen=True)
class HooksSection:
    """`[hooks]`: which subagent results the agent-CLI hooks gate (docs/configuration.md)."""

    subagent_types: tuple[str, ...] = ("*review*",)
    prompt_markers: tuple[str, ...] = ("Ready to merge?",)
    result_markers: tuple[str, ...] = ("Ready to merge?",)
    timeout_s: float = 20.0
    fix_subagent_types: tuple[str, ...] = ("*fix*",)


HOOKS_DEFAULTS = HooksSection()
"""The `[hooks]` defaults: written here once, read by `HooksConfig` too."""
_KEYS = tuple(f.name for f in fields(HooksSection))
_LISTS = tuple(key for key in _KEYS if key != "timeout_s")


def _strings(key: str, value: object) -> list[Problem]:
    if not isinstance(value, list | tuple):
        return [Problem((key,), "tuple_type", "Input should be a valid tuple", value)]
    return [
        Problem((key, str(i)), "string_type", "Input should be a valid string", item)
        for i, item in enumerate(value)
        if not isinstance(item, str)
    ]


def _timeout(value: object) -> list[Problem]:
    def problem(kind: str, message: str) -> list[Problem]:
        return [Problem(("timeout_s",), kind, message, value)]

    # pydantic's strict float: an int or a float, never a bool or a string.
    if isinstance(value, bool) or not isinstance(value, int | float):
        return problem("float_type", "Input should be a valid number")
    try:
        number = float(value)
    except OverflowError:
        return problem("float_type", "Input should be a valid number")
    if not math.isfinite(number):
        return problem("finite_number", "Input should be a finite number")
    if not number > 0:
        return problem("greater_than", "Input should be greater than 0")
    if not number <= TIMEOUT_MAX_S:
        at_most = f"Input should be less than or equal to {TIMEOUT_MAX_S:g}"
        return problem("less_than_equal", at_most)
    return []


def check_hooks(table: Mapping[str, Any]) -> HooksSection | list[Problem]:
    """The section a `[hooks]` table (TOML values) gives over the defaults, or its problems
    (locations within the section), in `HooksConfig`'s order: keys as declared, then unknown
    keys as given."""
    problems: list[Problem] = []
    for key in _KEYS:
        if key in table:
            value = table[key]
            problems += _timeout(value) if key == "timeout_s" else _strings(key, value)
    problems += [
        Problem((str(k),), "extra_forbidden", "Extra inputs are not permitted", v)
        for k, v in table.items()
        if k not in _KEYS
    ]
    if problems:
        return problems
    values: dict[str, Any] = {key: tuple(table[key]) for key in _LISTS if key in table}
    if "timeout_s" in table:
        values["timeout_s"] = float(table["timeout_s"])
    return HooksSection(**{**HOOKS_DEFAULTS.__dict__, **values})


def load_hooks(env: Mapping[str, str] | None = None) -> HooksSection:
    """`[hooks]` from the layers the hook trusts: the defaults, then `MERGEGATE_HOOKS__*`
    (`env`, default the process's). Raises `ConfigError` (exit 2) as `load_config` does for
    the same value; other sections' variables are not read."""
    environ = os.environ if env is None else env
    merged: dict[str, Any] = {_SECTION: dict(HOOKS_DEFAULTS.__dict__)}
    provenance: dict[str, str] = {}
    for parts, value, label in env_entries(environ, _SECTION):
        merge(merged, nest(parts, value), label, provenance, ())
    checked = check_hooks(merged[_SECTION])  # a table: every variable names a key in it
    if isinstance(checked, HooksSection):
        return checked
    located = [Problem((_SECTION, *p.loc), p.kind, p.message, p.value) for p in checked]
    raise config_error(located, provenance, _known)


def _known(loc: tuple[str, ...]) -> list[str]:
    return list(_KEYS) if loc == (_SECTION,) else []
