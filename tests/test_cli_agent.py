"""`mergegate agent run` and `mergegate agent backends` through click's runner."""

from __future__ import annotations

import json
import shlex
import sys
from pathlib import Path

import pytest
from click.testing import CliRunner

from mergegate.cli import cli

FAKE = Path(__file__).parent / "fakes" / "fake_agent.py"


def fake(mode: str) -> str:
    return shlex.join([sys.executable, str(FAKE), "--mode", mode])


def invoke(*args: str):  # type: ignore[no-untyped-def]
    return CliRunner().invoke(cli, ["agent", *args], catch_exceptions=False)


def test_run_text_ok(tmp_path: Path) -> None:
    result = invoke(
        "run",
        "--backend",
        "command",
        "--cmd",
        fake("echo-prompt"),
        "--prompt",
        "hello",
        "--cwd",
        str(tmp_path),
    )
    assert result.exit_code == 0
    assert result.stdout == "hello\n"


def test_run_json_from_prompt_file(tmp_path: Path) -> None:
    prompt = tmp_path / "p.txt"
    prompt.write_text("from a file")
    result = invoke(
        "run",
        "--backend",
        "command",
        "--cmd",
        fake("echo-prompt"),
        "--prompt-file",
        str(prompt),
        "--cwd",
        str(tmp_path),
        "--format",
        "json",
        "--attempt-dir",
        str(tmp_path / "att"),
    )
    assert result.exit_code == 0
    data = json.loads(result.stdout)
    assert data["status"] == "ok"
    assert data["text"] == "from a file"
    assert data["backend"] == "command"
    assert Path(data["log_path"]) == tmp_path / "att" / "agent.stdout.log"


def test_run_failure_exits_4(tmp_path: Path) -> None:
    result = invoke(
        "run",
        "--backend",
        "command",
        "--cmd",
        fake("stall"),
        "--prompt",
        "x",
        "--cwd",
        str(tmp_path),
        "--stall-timeout",
        "0.5",
        "--format",
        "json",
    )
    assert result.exit_code == 4
    assert json.loads(result.stdout)["status"] == "stalled"
    crashed = invoke("run", "--backend", "command", "--cmd", fake("crash-exit"), "--prompt", "x")
    assert crashed.exit_code == 4
    assert "agent error" in crashed.stderr


def test_missing_cli_exits_4(tmp_path: Path) -> None:
    result = invoke("run", "--backend", "claude", "--cmd", "no-such-claude", "--prompt", "x")
    assert result.exit_code == 4
    assert "not_installed" in result.stderr
    assert "'no-such-claude' not found on PATH" in result.stderr


def test_bad_arguments_exit_2(tmp_path: Path) -> None:
    assert invoke("run", "--backend", "command", "--cmd", "true").exit_code == 2
    assert invoke("run", "--backend", "command", "--prompt", "x").exit_code == 2
    both = invoke(
        "run",
        "--backend",
        "command",
        "--cmd",
        "true",
        "--prompt",
        "x",
        "--prompt-file",
        str(tmp_path / "p"),
    )
    assert both.exit_code == 2
    unreadable = invoke(
        "run", "--backend", "command", "--cmd", "true", "--prompt-file", str(tmp_path / "none")
    )
    assert unreadable.exit_code == 2
    unknown = invoke("run", "--backend", "nope", "--prompt", "x")
    assert unknown.exit_code == 2
    assert "known backends" in unknown.stderr
    assert invoke("run", "--backend", "command", "--cmd", "a 'b", "--prompt", "x").exit_code == 2
    assert (
        invoke(
            "run", "--backend", "command", "--cmd", "true", "--prompt", "x", "--timeout", "0"
        ).exit_code
        == 2
    )


def test_backends_lists_capabilities() -> None:
    result = invoke("backends")
    assert result.exit_code == 0
    lines = {line.split()[0]: line.split()[1:] for line in result.stdout.splitlines()[1:]}
    # available: what preflight says here (issue 24); the capabilities: what the class says
    assert lines["claude"][1] == "yes"
    assert lines["command"][0] == "no"  # nothing to run without a --cmd
    assert "not configured" in " ".join(lines["command"])
    data = json.loads(invoke("backends", "--format", "json").stdout)
    by_name = {row["name"]: row for row in data}
    assert by_name["codex"]["capabilities"]["cost"] is False
    assert by_name["opencode"]["capabilities"] is not None  # its module loads


def test_endpoint_options_exit_2_when_unusable(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("MG_NO_SUCH_KEY", raising=False)
    unset = invoke("run", "--backend", "claude", "--api-key-env", "MG_NO_SUCH_KEY", "--prompt", "x")
    assert unset.exit_code == 2
    assert "MG_NO_SUCH_KEY" in unset.stderr
    # Backends without an endpoint option say so instead of ignoring it.
    url = "http://127.0.0.1:9"
    other = invoke("run", "--backend", "gemini", "--base-url", url, "--prompt", "x")
    assert other.exit_code == 2
    assert "base_url" in other.stderr


def test_run_honours_the_config_file(tmp_path: Path) -> None:
    """`[agents]` limits and the backend's `[agents.backends.NAME]` table apply, as for review."""
    (tmp_path / ".git").mkdir()  # the project root: the config search stops here
    (tmp_path / "mergegate.toml").write_text(
        "[agents]\n"
        "default_stall_timeout_s = 0.5\n"
        "kill_grace_s = 0.2\n"
        "max_output_bytes = 4096\n"
        "[agents.backends.command]\n"
        f"cmd = {json.dumps(fake('ignore-term'))}\n"
    )
    args = ("run", "--backend", "command", "--prompt", "x", "--cwd", str(tmp_path))
    stubborn = invoke(*args, "--format", "json", "--attempt-dir", str(tmp_path / "a1"))
    assert stubborn.exit_code == 4
    result = json.loads(stubborn.stdout)
    assert result["status"] == "stalled"  # the configured stall timeout, no flag given
    assert result["duration_s"] < 5  # SIGKILL after the configured 0.2 s, not the default 10 s
    flood = invoke(*args, "--cmd", fake("flood"), "--attempt-dir", str(tmp_path / "a2"))
    log = (tmp_path / "a2" / "agent.stdout.log").read_bytes()
    assert flood.exit_code == 0
    assert len(log) < 2 << 20  # capped at max_output_bytes (plus the marker and the tail)
    assert b"log capped at 4096 bytes" in log
