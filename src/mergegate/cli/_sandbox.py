"""The sandbox flags every command that runs agents shares (`run`, `review`, `verify`, `agent
run`), kept out of `_app` so commands that run no agent do not import the sandbox policy."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import click

from mergegate.agents.sandbox import SandboxPolicy
from mergegate.config import Config
from mergegate.errors import UsageError

__all__ = ["sandbox_options", "sandbox_policy"]

_SANDBOX_OPTIONS = (
    click.option(
        "--no-sandbox",
        is_flag=True,
        help="Run agents and task checks without a sandbox: they see and can change all you "
        "can (recorded, and shown in status). Needed only where bubblewrap or user namespaces "
        "are missing; see docs/sandbox.md.",
    ),
    click.option(
        "--sandbox-allow",
        multiple=True,
        metavar="PATH",
        help="Let every agent and task check read and write PATH (repeatable; adds to "
        "[sandbox] allow).",
    ),
    click.option(
        "--sandbox-read",
        multiple=True,
        metavar="PATH",
        help="Let every agent and task check read PATH, e.g. a toolchain outside the system's "
        "directories (repeatable; adds to [sandbox] read).",
    ),
)


def sandbox_options(func: Callable[..., Any]) -> Callable[..., Any]:
    """`--no-sandbox`, `--sandbox-allow PATH`, `--sandbox-read PATH` (as `no_sandbox`,
    `sandbox_allow`, `sandbox_read`): the same flags on every command that runs agents."""
    for option in reversed(_SANDBOX_OPTIONS):
        func = option(func)
    return func


def sandbox_policy(config: Config, opts: dict[str, Any]) -> SandboxPolicy:
    """The sandbox policy of `[sandbox]` and the flags of `sandbox_options`."""
    opened = tuple(opts.get("sandbox_allow") or ()) + tuple(opts.get("sandbox_read") or ())
    if opts.get("no_sandbox") and opened:
        raise UsageError(
            "--no-sandbox opens everything: --sandbox-allow and --sandbox-read say nothing"
        )
    return SandboxPolicy.from_config(
        config.sandbox,
        disabled=bool(opts.get("no_sandbox")),
        allow=tuple(opts.get("sandbox_allow") or ()),
        read=tuple(opts.get("sandbox_read") or ()),
    )
