"""Fixtures for the `real_cli` tests: the real Claude Code and Codex binaries, each in its own
config home, pointed at a `ModelServer` on 127.0.0.1 with dummy keys.

Binaries are found, in order, through `MERGEGATE_CLAUDE_BIN` / `MERGEGATE_CODEX_BIN`, then
`$MERGEGATE_AGENT_CLIS_DIR/node_modules/.bin/` (default `<repo>/.agent-clis/`, where
`scripts/install-agent-clis.sh` puts the pinned versions). The user's PATH is not searched, so
the pinned versions are what runs. A missing binary skips the test with the reason; CI sets
`MERGEGATE_REQUIRE_REAL=1`, which turns that skip into a failure (see tests/conftest.py).
"""

from __future__ import annotations

import json
import os
import subprocess
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from mergegate.agents.model_server import ModelServer

REPO = Path(__file__).resolve().parents[2]
RUN_TIMEOUT_S = 60
INSTALL_HINT = "run scripts/install-agent-clis.sh (or set MERGEGATE_{}_BIN)"


def find_agent_cli(name: str) -> Path | None:
    """The pinned `claude` or `codex` binary, or None when it is not installed."""
    explicit = os.environ.get(f"MERGEGATE_{name.upper()}_BIN")
    if explicit:
        return Path(explicit) if Path(explicit).is_file() else None
    prefix = Path(os.environ.get("MERGEGATE_AGENT_CLIS_DIR", REPO / ".agent-clis"))
    candidate = prefix / "node_modules" / ".bin" / name
    return candidate if candidate.is_file() else None


@dataclass(frozen=True)
class CliRun:
    """One finished CLI run: exit code, JSON events from stdout, raw streams."""

    exit_code: int
    events: list[dict[str, Any]]
    stdout: str
    stderr: str

    def of_type(self, kind: str) -> list[dict[str, Any]]:
        return [e for e in self.events if e.get("type") == kind]

    def describe(self) -> str:
        """For assertion messages: what the CLI said."""
        return (
            f"exit {self.exit_code}\nstdout:\n{self.stdout[-4000:]}\nstderr:\n{self.stderr[-2000:]}"
        )


def _events(stdout: str) -> list[dict[str, Any]]:
    events = []
    for line in stdout.splitlines():
        try:
            value = json.loads(line)
        except ValueError:
            continue  # CLIs may print non-JSON lines; they are not events
        if isinstance(value, dict):
            events.append(value)
    return events


def _run(argv: list[str], *, cwd: Path, env: dict[str, str]) -> CliRun:
    # stdin closed: Codex hangs forever on an open pipe, Claude waits 3 s (agent-clis.md §2.1).
    proc = subprocess.run(
        argv,
        cwd=cwd,
        env=env,
        stdin=subprocess.DEVNULL,
        capture_output=True,
        text=True,
        timeout=RUN_TIMEOUT_S,
        check=False,
    )
    return CliRun(proc.returncode, _events(proc.stdout), proc.stdout, proc.stderr)


def _base_env(home: Path) -> dict[str, str]:
    """A minimal environment: nothing of the user's config, proxies or keys leaks in."""
    home.mkdir(parents=True, exist_ok=True)
    return {
        "PATH": os.environ.get("PATH", "/usr/bin:/bin"),
        "HOME": str(home),
        "XDG_CONFIG_HOME": str(home / ".config"),
        "XDG_CACHE_HOME": str(home / ".cache"),
        "XDG_DATA_HOME": str(home / ".local" / "share"),
        "LANG": "C.UTF-8",
        "NO_PROXY": "127.0.0.1,localhost",
    }


@dataclass(frozen=True)
class GitRepo:
    path: Path

    def read(self, name: str) -> str:
        return (self.path / name).read_text()


@pytest.fixture
def git_repo(tmp_path: Path) -> GitRepo:
    """A temporary git repository with one committed file, `hello.txt` ("hello world")."""
    repo = tmp_path / "repo"
    repo.mkdir()
    (repo / "hello.txt").write_text("hello world\n")
    git = ["git", "-c", "user.name=mergegate", "-c", "user.email=tests@mergegate.invalid"]
    for args in (["init", "-q"], ["add", "hello.txt"], ["commit", "-q", "-m", "init"]):
        subprocess.run([*git, *args], cwd=repo, check=True, capture_output=True)
    return GitRepo(repo)


ClaudeRunner = Callable[..., CliRun]
CodexRunner = Callable[..., CliRun]


@pytest.fixture
def claude(tmp_path: Path) -> ClaudeRunner:
    """`claude(server, prompt, *extra_args, cwd=..., env=...)` runs `claude -p` (stream-json)."""
    binary = find_agent_cli("claude")
    if binary is None:
        pytest.skip("Claude Code is not installed: " + INSTALL_HINT.format("CLAUDE"))
    home = tmp_path / "claude-home"

    def run(
        server: ModelServer,
        prompt: str,
        *args: str,
        cwd: Path,
        env: dict[str, str] | None = None,
    ) -> CliRun:
        full_env = {
            **_base_env(home),
            "CLAUDE_CONFIG_DIR": str(home / ".claude"),
            "ANTHROPIC_BASE_URL": server.url,
            "ANTHROPIC_API_KEY": "dummy-not-a-key",
            "DISABLE_AUTOUPDATER": "1",
            "CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC": "1",
            **(env or {}),
        }
        argv = [str(binary), "-p", prompt, "--output-format", "stream-json", "--verbose"]
        return _run([*argv, "--model", "claude-sonnet-4-5", *args], cwd=cwd, env=full_env)

    return run


CODEX_CONFIG = """\
model = "mock-model"
model_provider = "mergegate"
check_for_update_on_startup = false

[analytics]
enabled = false

[model_providers.mergegate]
name = "mergegate model-server"
base_url = "{base_url}"
env_key = "MERGEGATE_MODEL_KEY"
wire_api = "responses"
request_max_retries = {retries}
stream_max_retries = 0
"""


@pytest.fixture
def codex(tmp_path: Path) -> CodexRunner:
    """`codex(server, *exec_args, cwd=..., retries=0)` runs `codex exec --json ...`.

    Each call (re)writes `$CODEX_HOME/config.toml` with a custom provider (`wire_api =
    "responses"`) at the server; the home persists within the test so `resume` finds the thread.
    """
    binary = find_agent_cli("codex")
    if binary is None:
        pytest.skip("Codex CLI is not installed: " + INSTALL_HINT.format("CODEX"))
    home = tmp_path / "codex-home"

    def run(server: ModelServer, *args: str, cwd: Path, retries: int = 0) -> CliRun:
        codex_home = home / ".codex"
        codex_home.mkdir(parents=True, exist_ok=True)
        config = CODEX_CONFIG.format(base_url=server.openai_base_url, retries=retries)
        (codex_home / "config.toml").write_text(config)
        env = {
            **_base_env(home),
            "CODEX_HOME": str(codex_home),
            "MERGEGATE_MODEL_KEY": "dummy-not-a-key",
        }
        argv = [str(binary), "exec", "--json", "--skip-git-repo-check", "-s", "workspace-write"]
        return _run([*argv, *args], cwd=cwd, env=env)

    return run
