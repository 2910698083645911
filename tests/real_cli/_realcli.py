"""Helpers for the `real_cli` tests: the real Claude Code and Codex binaries, driven through
mergegate's own backends (`get_backend("claude" | "codex", ...)`), each in its own config home,
pointed at a `ModelServer` on 127.0.0.1 with a dummy key.

Binaries are found, in order, through `MERGEGATE_CLAUDE_BIN` / `MERGEGATE_CODEX_BIN`, then
`$MERGEGATE_AGENT_CLIS_DIR/node_modules/.bin/` (default `<repo>/.agent-clis/`, where
`scripts/install-agent-clis.sh` puts the pinned versions). The user's PATH is not searched, so
the pinned versions are what runs. A missing binary skips the test with the reason; CI sets
`MERGEGATE_REQUIRE_REAL=1`, which turns that skip into a failure (see tests/conftest.py).
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from mergegate.agents import AgentRequest, AgentResult, Backend, get_backend
from mergegate.agents._cli import CliBackend, RunContext
from mergegate.testing.model_server import ModelServer, ToolCall

REPO = Path(__file__).resolve().parents[2]
INSTALL_HINT = "run scripts/install-agent-clis.sh (or set MERGEGATE_{}_BIN)"
DUMMY_KEY = "dummy-not-a-key"
CLAUDE_MODEL = "claude-sonnet-4-5"
"""A model Claude Code knows the list price of, so `cost_usd` is computed (an estimate)."""
CODEX_MODEL = "mock-model"


def find_agent_cli(name: str) -> Path | None:
    """The pinned `claude` or `codex` binary, or None when it is not installed."""
    explicit = os.environ.get(f"MERGEGATE_{name.upper()}_BIN")
    if explicit:
        return Path(explicit) if Path(explicit).is_file() else None
    prefix = Path(os.environ.get("MERGEGATE_AGENT_CLIS_DIR", REPO / ".agent-clis"))
    candidate = prefix / "node_modules" / ".bin" / name
    return candidate if candidate.is_file() else None


def isolated_env(home: Path) -> dict[str, str]:
    """Variables that keep the user's home, config and proxies away from the agent."""
    home.mkdir(parents=True, exist_ok=True)
    (home / "tmp").mkdir(exist_ok=True)
    return {
        "HOME": str(home),
        # Codex refuses to put its sandbox helper's alias (CODEX_HOME/tmp/arg0) under the
        # temporary directory, and without it a system bubblewrap (Debian's 0.8, no --argv0)
        # cannot start the helper: a HOME under the tests' /tmp must not count as temporary.
        "TMPDIR": str(home / "tmp"),
        "XDG_CONFIG_HOME": str(home / ".config"),
        "XDG_CACHE_HOME": str(home / ".cache"),
        "XDG_DATA_HOME": str(home / ".local" / "share"),
        "LANG": "C.UTF-8",
        "NO_PROXY": "127.0.0.1,localhost",
        "no_proxy": "127.0.0.1,localhost",
    }


def _leaky(cls: type[CliBackend]) -> type[CliBackend]:
    """`cls` with its CLI read-only flags dropped (the git snapshot check stays): a stand-in
    for a CLI whose own read-only mode does not hold."""

    class Leaky(cls):  # type: ignore[valid-type,misc]
        def build_args(self, request: AgentRequest, ctx: RunContext) -> list[str]:
            writable = request.model_copy(update={"read_only": False})
            args: list[str] = super().build_args(writable, ctx)
            return args

    return Leaky


@dataclass(frozen=True)
class RealCli:
    """One real agent CLI with a private config home, and how to script it."""

    name: str
    binary: Path
    home: Path

    @property
    def config_home(self) -> Path:
        return self.home / (".claude" if self.name == "claude" else ".codex")

    def options(self, server: ModelServer, **overrides: Any) -> dict[str, Any]:
        """Backend options that point the CLI at `server`."""
        env = {**isolated_env(self.home), **overrides.pop("env", {})}
        common = {
            "executable": str(self.binary),
            "api_key": DUMMY_KEY,
            "config_home": self.config_home,
            "kill_grace_s": 3.0,
            "done_grace_s": 5.0,
        }
        if self.name == "claude":
            specific: dict[str, Any] = {
                "base_url": server.url,
                "model": CLAUDE_MODEL,
                "env": {"CLAUDE_CODE_MAX_RETRIES": "0", **env},
            }
        else:
            specific = {
                "base_url": server.openai_base_url,
                "model": CODEX_MODEL,
                # Fail fast on scripted faults (Codex retries 4 times by default).
                "provider_options": {"request_max_retries": 0, "stream_max_retries": 0},
                "env": env,
            }
        return {**common, **specific, **overrides}

    def backend(self, server: ModelServer, *, leaky: bool = False, **overrides: Any) -> Backend:
        """The registered backend for this CLI, configured for `server`."""
        options = self.options(server, **overrides)
        if not leaky:
            return get_backend(self.name, **options)
        cls = type(get_backend(self.name))
        assert issubclass(cls, CliBackend)
        leaky_backend: Backend = _leaky(cls)(**options)
        return leaky_backend

    def run(self, server: ModelServer, prompt: str, cwd: Path, **request: Any) -> AgentResult:
        """One run with short limits (a test run takes about a second)."""
        backend = request.pop("backend", None) or self.backend(server)
        fields = {"timeout_s": 60.0, "stall_timeout_s": 30.0, **request}
        return backend.run(AgentRequest(prompt=prompt, cwd=cwd, **fields))

    def cli_args(self, server: ModelServer, key_env: str) -> list[str]:
        """`mergegate agent run` options that point the CLI at `server` (the key is read from
        the environment variable `key_env`)."""
        base_url = server.url if self.name == "claude" else server.openai_base_url
        model = CLAUDE_MODEL if self.name == "claude" else CODEX_MODEL
        return [
            *("--backend", self.name, "--cmd", str(self.binary)),
            *("--base-url", base_url, "--api-key-env", key_env),
            *("--config-home", str(self.config_home), "--model", model),
        ]

    def write_call(self, path: Path, content: str) -> ToolCall:
        """A tool call that makes this CLI create `path` holding `content`."""
        if self.name == "claude":
            return ToolCall(name="Write", arguments={"file_path": str(path), "content": content})
        return ToolCall(name="exec_command", arguments={"cmd": f"printf '{content}' > {path}"})


@dataclass(frozen=True)
class GitRepo:
    path: Path

    def read(self, name: str) -> str:
        return (self.path / name).read_text()


def processes_of(leader: int) -> list[int]:
    """Live processes whose process group or session is `leader`'s (the agent's own)."""
    found = []
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            raw = (entry / "stat").read_bytes()
        except OSError:
            continue  # gone meanwhile
        fields = raw[raw.rfind(b")") + 2 :].split()
        pgid, sid = int(fields[2]), int(fields[3])
        if leader in (pgid, sid):  # zombies included: an unreaped child is a leak too
            found.append(int(entry.name))
    return found
