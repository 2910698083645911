"""Issue 30 for the hook: configuration an agent can write never turns the gate off, state is
never written through a symbolic link, hostile input blocks with one line; and issue 24's
`hooks install` hygiene (your own settings file by default, one backup, no dangling links)."""

from __future__ import annotations

import json
import os
import subprocess
from pathlib import Path

import pytest

from _hooks import BIN, recorded, run_hook

FIXES = "post-tool-use-fixes"


@pytest.fixture
def project(tmp_path: Path) -> Path:
    root = tmp_path / "project"
    (root / ".git").mkdir(parents=True)
    return root


# ---------------------------------------------------------------- configuration
@pytest.mark.parametrize(
    "hooks_table",
    [
        "subagent_types = []\nprompt_markers = []\nresult_markers = []\n",
        'subagent_types = ["no-such"]\nprompt_markers = ["zzz"]\nresult_markers = ["zzz"]\n',
    ],
)
def test_a_project_config_cannot_turn_the_gate_off(project: Path, hooks_table: str) -> None:
    """A subagent writes `[hooks]` into the project's mergegate.toml: a "No" still blocks."""
    (project / "mergegate.toml").write_text("[hooks]\n" + hooks_table)
    answer = run_hook(recorded(FIXES, "s-cfg", project), project)
    assert answer != {}
    assert answer["decision"] == "block"
    assert "WITH FIXES" in answer["reason"]
    # It may add reviewers: with an Explore subagent named one, its result is gated too.
    (project / "mergegate.toml").unlink()
    table = '[tool.mergegate.hooks]\nsubagent_types = ["explore"]\n'
    (project / "pyproject.toml").write_text(table)
    explored = run_hook(recorded("post-tool-use-not-a-review", "s-add", project), project)
    assert explored["decision"] == "block"


@pytest.mark.parametrize(
    ("line", "key"),
    [
        ('fix_subagent_types = ["*"]', "hooks.fix_subagent_types"),
        ("timeout_s = 0.1", "hooks.timeout_s"),
    ],
)
def test_a_key_only_the_person_may_set_blocks_from_the_project_file(
    project: Path, line: str, key: str
) -> None:
    (project / "mergegate.toml").write_text(f"[hooks]\n{line}\n")
    answer = run_hook(recorded(FIXES, "s-key", project), project)
    assert answer["decision"] == "block"
    assert key in answer["reason"]
    assert "is read only from the hook's own flags" in answer["reason"]


def test_a_symlinked_project_config_is_not_read(project: Path, tmp_path: Path) -> None:
    weakening = tmp_path / "elsewhere.toml"
    weakening.write_text('[hooks]\nsubagent_types = ["nothing"]\n')
    (project / "mergegate.toml").symlink_to(weakening)
    answer = run_hook(recorded(FIXES, "s-lnk", project), project)
    assert answer["decision"] == "block"
    assert "symbolic link" in answer["reason"]


def test_flags_are_trusted_and_the_environment_too(project: Path) -> None:
    payload = recorded("pre-tool-use-next-task-subagent", "s-flag", project)
    run_hook(recorded(FIXES, "s-flag", project), project)
    assert run_hook(payload, project)["hookSpecificOutput"]["permissionDecision"] == "deny"
    assert run_hook(payload, project, "--fix-subagent-type", "general-*") == {}
    env = {"MERGEGATE_HOOKS__FIX_SUBAGENT_TYPES": '["general-purpose"]'}
    assert run_hook(payload, project, env=env) == {}


# ---------------------------------------------------------------- state and log
def test_a_symlinked_decision_log_is_not_appended_to(project: Path, tmp_path: Path) -> None:
    bashrc = tmp_path / "home" / ".bashrc"
    bashrc.parent.mkdir()
    bashrc.write_text("export PS1='$ '\n")
    hooks_dir = tmp_path / ".mergegate-state" / "hooks" / "claude-code"
    hooks_dir.mkdir(parents=True)
    (hooks_dir / "decisions.jsonl").symlink_to(bashrc)
    answer = run_hook(recorded(FIXES, "s-log", project), project)
    assert bashrc.read_text() == "export PS1='$ '\n"
    assert answer["decision"] == "block"
    assert "symbolic link" in answer["reason"]


def test_a_symlinked_session_file_is_not_followed(project: Path, tmp_path: Path) -> None:
    target = tmp_path / "target.json"
    target.write_text('{"latch": {"state": "open"}}')
    sessions = tmp_path / ".mergegate-state" / "hooks" / "claude-code" / "sessions"
    sessions.mkdir(parents=True)
    (sessions / "s-sym.json").symlink_to(target)
    bash = recorded("pre-tool-use-bash-commit", "s-sym", project)
    answer = run_hook(bash, project)
    assert answer["hookSpecificOutput"]["permissionDecision"] == "deny"
    assert "symbolic link" in answer["hookSpecificOutput"]["permissionDecisionReason"]
    assert target.read_text() == '{"latch": {"state": "open"}}'


# ---------------------------------------------------------------- hostile input
@pytest.mark.parametrize("opening", [b"[", b'{"a":'])
def test_deeply_nested_json_blocks_with_one_line(project: Path, opening: bytes) -> None:
    proc = subprocess.run(
        [str(BIN / "mergegate"), "hook", "claude-code", "--timeout", "60"],
        input=opening * 100_000,
        cwd=project,
        capture_output=True,
        check=False,
    )
    assert proc.returncode == 0
    assert b"Traceback" not in proc.stderr
    assert b"RecursionError" not in proc.stdout + proc.stderr
    answer = json.loads(proc.stdout)
    assert answer["decision"] == "block"
    assert "nested too deeply" in answer["reason"]


# ---------------------------------------------------------------- hooks install
def mergegate(cwd: Path, *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [str(BIN / "mergegate"), *args],
        cwd=cwd,
        capture_output=True,
        text=True,
        check=False,
        env={**os.environ, "CLAUDE_CONFIG_DIR": str(cwd / "no-user-settings")},
    )


def test_install_writes_your_own_settings_file_by_default(project: Path) -> None:
    done = mergegate(project, "hooks", "install", "claude-code")
    assert done.returncode == 0, done.stderr
    local = json.loads((project / ".claude" / "settings.local.json").read_text())
    assert {(e, g["matcher"]) for e, gs in local["hooks"].items() for g in gs} == {
        ("PreToolUse", "Task|Agent"),
        ("PreToolUse", "Bash"),
        ("PostToolUse", "Task|Agent"),
    }
    assert not (project / ".claude" / "settings.json").exists()
    shared = mergegate(project, "hooks", "install", "claude-code", "--shared")
    assert shared.returncode == 0, shared.stderr
    assert (project / ".claude" / "settings.json").is_file()


def test_install_keeps_one_backup_not_a_pile(project: Path) -> None:
    settings = project / ".claude" / "settings.local.json"
    settings.parent.mkdir()
    settings.write_text('{"permissions": {"allow": []}}\n')
    for timeout in ("5", "6", "7"):
        assert (
            mergegate(project, "hooks", "install", "claude-code", "--timeout", timeout).returncode
            == 0
        )
        assert mergegate(project, "hooks", "uninstall").returncode == 0
    backups = [p.name for p in settings.parent.iterdir() if "backup" in p.name]
    assert backups == ["settings.local.json.mergegate-backup"]
    assert settings.read_text() == '{"permissions": {"allow": []}}\n'


def test_install_through_a_dangling_symlink_writes_nothing(project: Path, tmp_path: Path) -> None:
    outside = tmp_path / "outside" / "bashrc-like"
    (project / ".claude").mkdir()
    (project / ".claude" / "settings.local.json").symlink_to(outside)
    refused = mergegate(project, "hooks", "install", "claude-code")
    assert refused.returncode == 2
    assert "does not exist; not creating it" in refused.stderr
    assert "Traceback" not in refused.stderr
    assert not outside.exists()
    assert not outside.parent.exists()
