"""Helpers for the implementer tests: scripted command agents (tests/fakes/scripted_agent.py),
what they recorded, a run directory's events, and a child process killed mid-step."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from mergegate.agents import Backend, get_backend

FAKE = Path(__file__).parent / "fakes" / "scripted_agent.py"
ROOT = Path(__file__).resolve().parents[1]


@dataclass(frozen=True)
class ScriptedAgent:
    """A `command` backend running scripted_agent.py, and the folder it records into."""

    backend: Backend
    state: Path
    cmd: str

    def calls(self) -> int:
        return len(list(self.state.glob("prompt-*.txt")))

    def prompt(self, n: int) -> str:
        return (self.state / f"prompt-{n}.txt").read_text()

    def env(self, n: int) -> dict[str, str]:
        env: dict[str, str] = json.loads((self.state / f"env-{n}.json").read_text())
        return env

    def sessions(self) -> list[str]:
        return [self.env(n)["MERGEGATE_SESSION_ID"] for n in range(1, self.calls() + 1)]


def scripted_agent(tmp_path: Path, name: str, steps: list[dict[str, Any]]) -> ScriptedAgent:
    script = tmp_path / f"{name}-script.json"
    script.write_text(json.dumps(steps))
    state = tmp_path / f"{name}-state"
    cmd = f"{sys.executable} {FAKE} {script} {state}"
    return ScriptedAgent(get_backend("command", cmd=cmd), state, cmd)


def result_json(task_id: str = "T-1", **fields: Any) -> str:
    payload = {"task_id": task_id, "success": True, "completed_normally": True, **fields}
    return json.dumps(payload)


def advice_json(guidance: str = "use the helper in util.py", action: str = "continue") -> str:
    return json.dumps({"guidance": guidance, "action": action})


def events(run_dir: Path) -> list[dict[str, Any]]:
    path = run_dir / "events.jsonl"
    if not path.exists():
        return []
    return [json.loads(line) for line in path.read_text().splitlines()]


def wait_for(condition: Callable[[], bool], timeout: float = 60.0) -> None:
    deadline = time.monotonic() + timeout
    while not condition():
        if time.monotonic() > deadline:
            raise AssertionError("timed out waiting for the condition")
        time.sleep(0.05)


def process_pid(path: Path) -> int | None:
    """The pid in a supervisor's `process.json`, once the file is complete (None before)."""
    try:
        pid: int = json.loads(path.read_text())["pid"]
    except (OSError, ValueError, KeyError):
        return None
    return pid


def start_python(code: str, cwd: Path) -> subprocess.Popen[bytes]:
    """`code` in a child Python process (its own session), mergegate importable; its output
    goes to `cwd/child.log`."""
    env = {**os.environ, "PYTHONPATH": str(ROOT / "src")}
    with (cwd / "child.log").open("ab") as log:
        return subprocess.Popen(
            [sys.executable, "-c", code],
            cwd=cwd,
            env=env,
            stdin=subprocess.DEVNULL,
            stdout=log,
            stderr=subprocess.STDOUT,
            start_new_session=True,
        )


def sigkill(proc: subprocess.Popen[bytes]) -> None:
    """SIGKILL the child alone (not its agents: a crash leaves them behind) and reap it."""
    os.kill(proc.pid, signal.SIGKILL)
    proc.wait(timeout=30)
    assert proc.returncode == -signal.SIGKILL


def gone(pid: int) -> bool:
    """The process has exited (a zombie waiting for its parent counts as gone)."""
    try:
        state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except OSError:
        return True
    return state in ("Z", "X")
