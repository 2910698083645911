"""Command checks run in the tree under the supervisor: a time limit, bounded output, and an
environment built from an allow-list, so no secret of the user's reaches plan commands.

The plan is input, not authority: its commands are code someone else wrote. They get
`PATH`, `HOME`, locale, temp and toolchain-location variables, `CI=true` (test runners stay
non-interactive) and `NO_COLOR=1`, plus the names the user passes through explicitly
(`verify.pass_env`); never API keys, tokens or anything else of the caller's environment.
With a sandbox (`mergegate verify` and `run` give one unless `--no-sandbox`) they see only
the tree they check, read-write, and the system's programs.
This module is the only one in `mergegate.verify` that starts processes.
"""

from __future__ import annotations

import os
import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path

from mergegate.processes import Limits, Sandbox, StopReason, child_environment, supervise
from mergegate.verify._environment import ProjectEnvironment, not_ready
from mergegate.verify._model import CheckKind, CheckSpec, Evidence, Outcome

__all__ = ["ALLOWED_ENV", "CommandRunner", "command_environment"]

ALLOWED_ENV: frozenset[str] = frozenset(
    {
        "PATH",
        "HOME",
        "USER",
        "LOGNAME",
        "SHELL",
        "LANG",
        "LANGUAGE",
        "TERM",
        "TZ",
        "TMPDIR",
        "TEMP",
        "TMP",
        "GOPATH",
        "GOROOT",
        "GOCACHE",
        "GOMODCACHE",
        "GOFLAGS",
        "GOTOOLCHAIN",
        "CARGO_HOME",
        "RUSTUP_HOME",
        "JAVA_HOME",
        "NVM_DIR",
        "VIRTUAL_ENV",
        "PYTHONPATH",
    }
)
"""Variables a plan command may see (plus `LC_*`); everything else is dropped."""

_EXCERPT_CHARS = 2000


def command_environment(
    pass_env: Sequence[str] = (), base: Mapping[str, str] | None = None
) -> dict[str, str]:
    """The environment of a plan command: the allow-list, `pass_env`, then fixed values."""
    source = os.environ if base is None else base
    allowed = ALLOWED_ENV | frozenset(pass_env)
    kept = {
        name: value for name, value in source.items() if name in allowed or name.startswith("LC_")
    }
    return child_environment({"CI": "true", "NO_COLOR": "1"}, base=kept)


@dataclass
class CommandRunner:
    """Runs command checks once each per verification (the same command text shares its
    evidence), with logs under `log_dir`."""

    cwd: Path
    log_dir: Path | None
    timeout_s: float = 600.0
    output_bytes: int = 256 << 10
    pass_env: tuple[str, ...] = ()
    environment: ProjectEnvironment = field(default_factory=ProjectEnvironment)
    """The project's own environment (`find_environment`): prefix, PATH, offline switches."""
    sandbox: Sandbox | None = None
    """Where every command runs (None: without a sandbox)."""

    def __post_init__(self) -> None:
        self._done: dict[tuple[tuple[str, ...], int], Evidence] = {}

    def run(self, spec: CheckSpec) -> Evidence:
        key = (spec.argv, spec.expect_exit)
        if key not in self._done:
            self._done[key] = self._run(spec, len(self._done) + 1)
        return self._done[key]

    def _env(self) -> dict[str, str]:
        env = command_environment(self.pass_env)
        env.update(self.environment.variables)
        if self.environment.path:
            env["PATH"] = os.pathsep.join([*self.environment.path, env.get("PATH", "")])
        return env

    def _run(self, spec: CheckSpec, number: int) -> Evidence:
        argv = self.environment.command(spec.argv)
        if isinstance(argv, str):
            return Evidence(
                check=CheckKind.COMMAND,
                by="program",
                outcome=Outcome.UNVERIFIED,
                detail=f"unverified: environment — {argv}",
                command=spec.command,
                argv=spec.argv,
            )
        timeout = spec.timeout_s or self.timeout_s
        limits = Limits(
            timeout_s=timeout,
            stall_timeout_s=None,
            kill_grace_s=5.0,
            log_cap_bytes=max(self.output_bytes, 4096),
            tail_bytes=max(self.output_bytes // 4, 4096),
        )
        attempt_dir = self.log_dir / f"cmd-{number:02d}" if self.log_dir else None
        started = time.monotonic()
        outcome = supervise(
            argv,
            cwd=self.cwd,
            attempt_dir=attempt_dir,
            env=self._env(),
            limits=limits,
            log_prefix="command",
            sandbox=self.sandbox,
        )
        excerpt = _excerpt(outcome.stdout_tail, outcome.stderr_tail)
        verdict, detail = _judge(outcome.reason, outcome.returncode, spec, timeout)
        if outcome.error:
            detail = f"{detail}: {outcome.error}"
        if verdict is Outcome.FAIL:
            output = (outcome.stdout_tail + b"\n" + outcome.stderr_tail).decode("utf-8", "replace")
            why = not_ready(self.environment, argv, outcome.returncode, output)
            if why is not None:
                verdict, detail = Outcome.UNVERIFIED, f"unverified: environment — {why}"
        return Evidence(
            check=CheckKind.COMMAND,
            by="program",
            outcome=verdict,
            detail=detail,
            command=spec.command,
            argv=argv,
            exit_code=outcome.returncode,
            excerpt=excerpt,
            duration_s=round(time.monotonic() - started, 3),
            log=f"commands/cmd-{number:02d}" if attempt_dir else None,
        )


def _judge(
    reason: StopReason, code: int | None, spec: CheckSpec, timeout: float
) -> tuple[Outcome, str]:
    if reason is StopReason.MISSING:
        return (
            Outcome.UNVERIFIED,
            f"unverified: environment — could not start `{spec.argv[0]}` (not installed here)",
        )
    if reason is StopReason.TIMEOUT:
        return Outcome.UNVERIFIED, f"no result within {timeout:g} s (stopped; raise the limit?)"
    if code == spec.expect_exit:
        return Outcome.PASS, f"exit {code}"
    if code is not None and code < 0:
        return Outcome.FAIL, f"killed by signal {-code}"
    return Outcome.FAIL, f"exit {code}, expected {spec.expect_exit}"


def _excerpt(stdout: bytes, stderr: bytes) -> str:
    """The end of the output: what a person needs to see first when a command fails."""
    parts = []
    for name, data in (("stdout", stdout), ("stderr", stderr)):
        text = data.decode("utf-8", "replace").strip()
        if text:
            cut = text[-_EXCERPT_CHARS:]
            prefix = "…" if len(cut) < len(text) else ""
            parts.append(f"[{name}] {prefix}{cut}")
    return "\n".join(parts)
