"""Which configuration the hook trusts.

The hook gates the agent that can write the project tree, so a `[hooks]` table in the
project's `mergegate.toml` (or `pyproject.toml`) is the agent's to write: a subagent could set
`subagent_types = []` and every review would pass unchecked. So:

* **trusted**: the hook command's own flags (written by a person with `mergegate hooks
  install` into the agent CLI's settings), the
  environment of the agent CLI (`MERGEGATE_HOOKS__*`), and the defaults;
* **the project's `[hooks]`** may only *add* to what makes a subagent a review
  (`subagent_types`, `prompt_markers`, `result_markers` are joined to the trusted lists, never
  replace them); any other key there (`fix_subagent_types`, which loosens the latch,
  `timeout_s`, an unknown key) makes the hook block with a one-line reason, as does a project
  file it cannot read, that is not valid, or that is a symbolic link (it is opened with
  `O_NOFOLLOW`). A config the hook cannot trust never turns into `{}`.
"""

from __future__ import annotations

import dataclasses
import errno
import os
import stat
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from mergegate.config import (
    PYPROJECT,
    ConfigText,
    HooksSection,
    check_hooks,
    find_config_file,
    load_hooks,
)
from mergegate.errors import ConfigError
from mergegate.integrations._hook import HookOptions

__all__ = ["PROJECT_KEYS", "project_hooks", "trusted_options"]

PROJECT_KEYS = ("subagent_types", "prompt_markers", "result_markers")
"""The `[hooks]` keys a project file may set: each only adds to the trusted list."""
MAX_CONFIG_BYTES = 1024 * 1024


def _start(payload: Any) -> Path | None:
    cwd = payload.get("cwd") if isinstance(payload, dict) else None
    return Path(cwd) if isinstance(cwd, str) and cwd and Path(cwd).is_dir() else None


def trusted_options(
    payload: Any,
    flags: Mapping[str, object] | None = None,
    env: Mapping[str, str] | None = None,
) -> HookOptions:
    """The hook's options for the project around the input's `cwd`: flags over environment
    over defaults, widened by the project file's review lists. Raises `ConfigError` when the
    project file cannot be trusted, or a `[hooks]` value is invalid; other sections are not
    read (the hook decides from `[hooks]` alone: `load_hooks`)."""
    start = _start(payload)
    trusted = load_hooks(env)
    options = HookOptions.from_config(trusted, **dict(flags or {}))
    added = project_hooks(start or Path.cwd())

    def widened(key: str) -> tuple[str, ...]:
        return tuple(dict.fromkeys((*getattr(options, key), *added.get(key, ()))))

    return dataclasses.replace(
        options,
        subagent_types=widened("subagent_types"),
        prompt_markers=widened("prompt_markers"),
        result_markers=widened("result_markers"),
    )


def project_hooks(start: Path) -> dict[str, tuple[str, ...]]:
    """The review lists the project's own file adds (`{}` without a file or `[hooks]`)."""
    _root, source = find_config_file(start.resolve())
    if source is None:
        return {}
    text = ConfigText(str(source), _read_nofollow(source), pyproject=source.name == PYPROJECT)
    hooks = text.table().get("hooks")
    if hooks is None:
        return {}
    if not isinstance(hooks, dict):
        raise ConfigError("[hooks] must be a table", key="hooks", path=str(source))
    for key in hooks:
        if key not in PROJECT_KEYS:
            raise ConfigError(
                f"hooks.{key} is read only from the hook's own flags (mergegate hooks install "
                f"...) or the environment (MERGEGATE_HOOKS__{str(key).upper()}), never from the "
                "project's file, which an agent can write; that file may only add to "
                + ", ".join(PROJECT_KEYS),
                path=str(source),
            )
    validated = check_hooks(hooks)
    if not isinstance(validated, HooksSection):
        where = ".".join(validated[0].loc)
        raise ConfigError(validated[0].message, key=f"hooks.{where}", path=str(source))
    return {key: getattr(validated, key) for key in hooks}


def _read_nofollow(path: Path) -> str:
    flags = os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK | os.O_CLOEXEC
    try:
        fd = os.open(path, flags)
    except OSError as exc:
        if exc.errno == errno.ELOOP:
            raise ConfigError(
                f"{path.name} is a symbolic link; the hook reads its configuration only from a "
                "regular file in the project",
                path=str(path),
            ) from None
        raise ConfigError(
            f"cannot read config file: {exc.strerror or exc}", path=str(path)
        ) from None
    with os.fdopen(fd, "rb") as handle:
        info = os.fstat(handle.fileno())
        if not stat.S_ISREG(info.st_mode) or info.st_size > MAX_CONFIG_BYTES:
            raise ConfigError("is not a regular file of at most 1 MiB", path=str(path))
        data = handle.read(MAX_CONFIG_BYTES + 1)
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError:
        raise ConfigError("is not UTF-8", path=str(path)) from None
