"""The `command` backend: argv without a shell, prompt file, variables, status, read-only proof."""

from __future__ import annotations

import json
import shlex
import subprocess
import sys
from pathlib import Path

import pytest

from mergegate.agents import AgentRequest, RunStatus
from mergegate.agents.command import CommandBackend, split_command
from mergegate.agents.registry import available_backends, get_backend
from mergegate.errors import AgentError, UsageError

FAKE = Path(__file__).parent / "fakes" / "fake_agent.py"


def fake_cmd(mode: str, *extra: str) -> str:
    return shlex.join([sys.executable, str(FAKE), "--mode", mode, *extra])


def request(tmp_path: Path, **kw: object) -> AgentRequest:
    values: dict[str, object] = {
        "prompt": "review this",
        "cwd": tmp_path,
        "timeout_s": 5.0,
        "stall_timeout_s": 5.0,
        "attempt_dir": tmp_path / "attempt",
    }
    values.update(kw)
    return AgentRequest.model_validate(values)


def backend(mode: str, *extra: str) -> CommandBackend:
    return CommandBackend(cmd=fake_cmd(mode, *extra), kill_grace_s=0.5, done_grace_s=0.5)


def test_ok_text_is_stdout(tmp_path: Path) -> None:
    result = backend("echo-prompt").run(request(tmp_path, prompt="hello\nworld\n"))
    assert result.status is RunStatus.OK
    assert result.ok
    assert result.text == "hello\nworld\n"
    assert result.exit_code == 0
    assert result.log_path == tmp_path / "attempt" / "agent.stdout.log"
    assert result.pid is not None


def test_variables_and_placeholder(tmp_path: Path) -> None:
    be = backend("env", "--prompt={prompt_file}")
    env = {"MERGEGATE_REVIEW_ID": "r-123"}  # a review passes its nonce like any variable
    result = be.run(request(tmp_path, attempt=3, env=env, resume_session_id="s-9"))
    seen = json.loads(result.text)
    prompt_file = str(tmp_path / "attempt" / "prompt.txt")
    assert f"--prompt={prompt_file}" in seen["argv"]
    assert seen["env"]["MERGEGATE_PROMPT_FILE"] == prompt_file
    assert seen["env"]["MERGEGATE_ATTEMPT"] == "3"
    assert seen["env"]["MERGEGATE_SESSION_ID"] == "s-9"
    assert seen["env"]["MERGEGATE_REVIEW_ID"] == "r-123"
    assert result.session_id == "s-9"
    assert Path(seen["cwd"]).resolve() == tmp_path.resolve()


def test_new_session_id_is_fresh_and_reported(tmp_path: Path) -> None:
    first = backend("env").run(request(tmp_path))
    second = backend("env").run(request(tmp_path, attempt_dir=tmp_path / "a2"))
    assert first.session_id
    assert second.session_id
    assert first.session_id != second.session_id
    assert json.loads(first.text)["env"]["MERGEGATE_SESSION_ID"] == first.session_id
    assert json.loads(first.text)["env"]["MERGEGATE_REVIEW_ID"] is None


def test_shell_metacharacters_are_not_interpreted(tmp_path: Path) -> None:
    be = CommandBackend(
        cmd=f"{shlex.quote(sys.executable)} -c 'import sys; print(sys.argv[1:])'"
        " '$(touch pwned)' ';'"
    )
    result = be.run(request(tmp_path))
    assert result.ok
    assert "$(touch pwned)" in result.text
    assert not (tmp_path / "pwned").exists()


def test_nonzero_exit_is_error_with_stderr(tmp_path: Path) -> None:
    result = backend("crash-exit").run(request(tmp_path))
    assert result.status is RunStatus.ERROR
    assert result.exit_code == 3
    assert "boom" in (result.error or "")


def test_signal_is_a_crash(tmp_path: Path) -> None:
    result = backend("crash-signal").run(request(tmp_path))
    assert result.status is RunStatus.CRASHED
    assert "SIGSEGV" in (result.error or "")


def test_timeout_and_stall(tmp_path: Path) -> None:
    hung = backend("hang").run(request(tmp_path, timeout_s=1.0))
    assert hung.status is RunStatus.TIMEOUT
    stalled = backend("stall").run(request(tmp_path, stall_timeout_s=0.8))
    assert stalled.status is RunStatus.STALLED
    assert stalled.text == "working...\n"


def test_help_signal_on_its_own_line(tmp_path: Path) -> None:
    result = backend("help").run(request(tmp_path))
    assert result.requested_help
    (sig,) = result.signals
    assert sig.marker == ">>>HELP<<<"
    assert sig.context == {"reason": "stuck_in_loop", "step": 17}


def test_flood_keeps_tail_and_warns(tmp_path: Path) -> None:
    result = backend("flood").run(request(tmp_path, timeout_s=30.0))
    assert result.ok
    assert result.text.endswith("THE END\n")
    assert len(result.text) <= 1 << 20
    assert any("only the tail" in w for w in result.warnings)


def test_missing_program(tmp_path: Path) -> None:
    result = CommandBackend(cmd="no-such-agent-binary --x").run(request(tmp_path))
    assert result.status is RunStatus.NOT_INSTALLED
    assert not result.ok


def test_split_command_rejects_bad_input() -> None:
    assert split_command("a 'b c'") == ["a", "b c"]
    with pytest.raises(UsageError):
        split_command("")
    with pytest.raises(UsageError):
        split_command("a 'unterminated")
    with pytest.raises(UsageError):
        CommandBackend()


def _git_repo(path: Path) -> None:
    def git(*args: str) -> None:
        subprocess.run(["git", *args], cwd=path, check=True, capture_output=True)

    git("init", "-q")
    git("-c", "user.email=t@t", "-c", "user.name=t", "commit", "-q", "--allow-empty", "-m", "x")
    (path / "tracked.txt").write_text("one\n")
    git("add", "tracked.txt")


def test_read_only_run_that_writes_is_void(tmp_path: Path) -> None:
    repo = tmp_path / "repo"
    repo.mkdir()
    _git_repo(repo)
    writer = CommandBackend(cmd=[sys.executable, "-c", "open('tracked.txt','a').write('two')"])
    result = writer.run(request(repo, read_only=True, attempt_dir=tmp_path / "att"))
    assert result.status is RunStatus.OK
    assert result.worktree_changed
    assert not result.ok
    assert "tracked.txt" in (result.error or "")


def test_read_only_run_that_only_reads_is_ok(tmp_path: Path) -> None:
    repo = tmp_path / "repo"
    repo.mkdir()
    _git_repo(repo)
    (repo / "dirty.txt").write_text("untracked but pre-existing\n")
    reader = CommandBackend(cmd=[sys.executable, "-c", "print(open('tracked.txt').read())"])
    # the attempt dir lives inside the work tree: its files must not void the run
    result = reader.run(request(repo, read_only=True, attempt_dir=repo / ".attempt"))
    assert result.ok
    assert not result.worktree_changed


def test_read_only_outside_git_warns(tmp_path: Path) -> None:
    result = backend("ok").run(request(tmp_path, read_only=True))
    assert result.ok
    assert any("outside git" in w for w in result.warnings)


def test_registry_knows_command_and_tolerates_unimportable_entries() -> None:
    names = {info.name: info for info in available_backends()}
    assert names["command"].available
    assert names["command"].capabilities is not None
    assert {"claude", "codex", "gemini", "opencode", "aider", "openai", "local"} <= set(names)
    assert isinstance(get_backend("command", cmd="true"), CommandBackend)
    with pytest.raises(UsageError, match=r"known backends: .*command"):
        get_backend("nope")
    with pytest.raises(UsageError):
        get_backend("command", cmd="true", bogus_option=1)
    unavailable = [info for info in names.values() if not info.available]
    for info in unavailable:
        with pytest.raises(AgentError):
            get_backend(info.name)


def test_a_relative_program_is_found_from_our_directory_whatever_the_agents(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # A reviewer runs in a throwaway checkout: `./reviewer.sh` means the one beside the user.
    here = tmp_path / "here"
    here.mkdir()
    (here / "reviewer.sh").write_text("#!/bin/sh\necho REVIEWED\n")
    (here / "reviewer.sh").chmod(0o755)
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    monkeypatch.chdir(here)
    result = CommandBackend(cmd="./reviewer.sh").run(request(elsewhere))
    assert (result.ok, result.text.strip()) == (True, "REVIEWED")
