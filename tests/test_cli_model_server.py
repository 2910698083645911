"""`mergegate model-server`: the command as a user runs it (a real process, real signals)."""

from __future__ import annotations

import json
import signal
import subprocess
import sys
from pathlib import Path

import httpx
import pytest
from click.testing import CliRunner

from mergegate.cli import cli


@pytest.fixture
def script_file(tmp_path: Path) -> Path:
    path = tmp_path / "script.json"
    path.write_text(json.dumps({"turns": [{"text": "from the CLI"}]}))
    return path


@pytest.mark.parametrize("sig", [signal.SIGTERM, signal.SIGINT])
def test_serves_until_signalled(tmp_path: Path, script_file: Path, sig: signal.Signals) -> None:
    log = tmp_path / "log.jsonl"
    proc = subprocess.Popen(
        [sys.executable, "-m", "mergegate", "model-server", "--script", str(script_file),
         "--log", str(log)],
        stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
    )  # fmt: skip
    try:
        assert proc.stdout is not None
        url = proc.stdout.readline().strip()
        assert url.startswith("http://127.0.0.1:")
        answer = httpx.post(
            f"{url}/v1/chat/completions",
            json={"messages": [{"role": "user", "content": "hi"}]},
            timeout=10,
        ).json()
        assert answer["choices"][0]["message"]["content"] == "from the CLI"
        proc.send_signal(sig)
        _, stderr = proc.communicate(timeout=10)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
    assert proc.returncode == 0
    assert "stopped" in stderr
    assert json.loads(log.read_text().splitlines()[0])["api"] == "chat_completions"


def test_invalid_script_exits_2(tmp_path: Path) -> None:
    bad = tmp_path / "bad.json"
    bad.write_text('{"turns": []}')
    result = CliRunner().invoke(cli, ["model-server", "--script", str(bad)])
    assert result.exit_code == 2
    assert "invalid script" in result.output


def test_non_loopback_host_exits_2(script_file: Path) -> None:
    result = CliRunner().invoke(
        cli, ["model-server", "--script", str(script_file), "--host", "0.0.0.0"]
    )
    assert result.exit_code == 2
    assert "--allow-remote" in result.output
