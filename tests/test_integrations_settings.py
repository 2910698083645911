"""`mergegate hooks install|uninstall`: surgical edits of someone else's settings file."""

from __future__ import annotations

import json
import os
import stat
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from mergegate.errors import UsageError
from mergegate.integrations import (
    HookEntry,
    claude_settings_path,
    install_hooks,
    is_mergegate_hook,
    settings_path,
    uninstall_hooks,
)
from mergegate.integrations._jsontext import JsonTextError, parse_spans

BIN = Path(sys.executable).parent
ENTRY = HookEntry(command="mergegate hook claude-code")

# A settings file as people have them: other hooks (on the same events too), permissions,
# env, a key Claude Code may add tomorrow, non-ASCII text and escapes, 2-space indent.
USER_SETTINGS = """{
  "$schema": "https://json.schemastore.org/claude-code-settings.json",
  "permissions": {
    "allow": ["Bash(npm run test:*)", "Read(~/.zshrc)"],
    "deny": []
  },
  "env": {"GREETING": "gr\\u00fc\\u00df dich \\"du\\"", "LANG": "de_DE.UTF-8"},
  "hooks": {
    "PostToolUse": [
      {
        "matcher": "Edit|Write",
        "hooks": [
          { "type": "command", "command": "npx prettier --write \\"$FILE\\"" }
        ]
      }
    ],
    "Stop": [{"hooks": [{"type": "command", "command": "say done"}]}]
  },
  "futureKey": {"nested": [1, 2.5e3, true, null]},
  "emoji": "✅"
}
"""


def ours(settings_data: dict[str, Any]) -> list[tuple[str, dict[str, Any]]]:
    return [
        (event, group)
        for event, groups in settings_data.get("hooks", {}).items()
        for group in groups
        if any(is_mergegate_hook(h.get("command"), "claude-code") for h in group["hooks"])
    ]


def test_install_then_uninstall_gives_back_the_same_bytes(tmp_path: Path) -> None:
    path = tmp_path / "settings.json"
    path.write_text(USER_SETTINGS)
    change = install_hooks(path, ENTRY)
    assert (change.changed, change.added, change.removed, change.created) == (True, 3, 0, False)
    installed = json.loads(path.read_text())
    assert sorted((e, g["matcher"]) for e, g in ours(installed)) == [
        ("PostToolUse", "Task|Agent"),
        ("PreToolUse", "Bash"),
        ("PreToolUse", "Task|Agent"),
    ]
    bash_group = next(g for e, g in ours(installed) if g["matcher"] == "Bash")
    assert bash_group["hooks"][0]["statusMessage"] == "mergegate: checking the review latch"
    post_group = dict(ours(installed))["PostToolUse"]
    assert post_group["hooks"] == [
        {
            "type": "command",
            "command": "mergegate hook claude-code",
            "timeout": 30,
            "onFailure": "block",
            "statusMessage": "mergegate: checking the review verdict",
        }
    ]
    # The user's own PostToolUse group is still first, untouched.
    assert installed["hooks"]["PostToolUse"][0]["matcher"] == "Edit|Write"
    assert change.backup is not None
    assert change.backup.read_text() == USER_SETTINGS
    removed = uninstall_hooks(path)
    assert (removed.changed, removed.removed) == (True, 3)
    assert path.read_text() == USER_SETTINGS  # byte for byte


def test_uninstall_keeps_what_the_user_changed_after_the_install(tmp_path: Path) -> None:
    path = tmp_path / "settings.json"
    path.write_text(USER_SETTINGS)
    install_hooks(path, ENTRY)
    edited = path.read_text().replace('"deny": []', '"deny": ["Bash(rm -rf *)"]')
    path.write_text(edited)
    uninstall_hooks(path)
    assert path.read_text() == USER_SETTINGS.replace('"deny": []', '"deny": ["Bash(rm -rf *)"]')


def test_a_mergegate_hook_inside_a_users_group_is_removed_alone(tmp_path: Path) -> None:
    path = tmp_path / "settings.json"
    mixed = {
        "hooks": {
            "PostToolUse": [
                {
                    "matcher": "Agent",
                    "hooks": [
                        {"type": "command", "command": "./log-agent.sh"},
                        {"type": "command", "command": "/opt/bin/mergegate hook claude-code"},
                    ],
                }
            ]
        }
    }
    path.write_text(json.dumps(mixed, indent=4) + "\n")
    assert uninstall_hooks(path).removed == 1
    assert json.loads(path.read_text()) == {
        "hooks": {
            "PostToolUse": [
                {"matcher": "Agent", "hooks": [{"type": "command", "command": "./log-agent.sh"}]}
            ]
        }
    }


def test_a_new_file_is_created_and_emptied_again(tmp_path: Path) -> None:
    path = tmp_path / ".claude" / "settings.json"
    change = install_hooks(path, ENTRY)
    assert (change.created, change.backup) == (True, None)
    assert len(ours(json.loads(path.read_text()))) == 3
    assert path.read_text().startswith('{\n  "hooks": {\n    "PreToolUse": [')
    uninstall_hooks(path)
    assert json.loads(path.read_text()) == {}


def test_installing_twice_changes_nothing_and_options_replace_the_entries(tmp_path: Path) -> None:
    path = tmp_path / "settings.json"
    path.write_text(USER_SETTINGS)
    install_hooks(path, ENTRY)
    once = path.read_text()
    again = install_hooks(path, ENTRY)
    assert (again.changed, again.backup) == (False, None)
    assert path.read_text() == once
    other = HookEntry(command="mergegate hook claude-code --subagent-type reviewer")
    replaced = install_hooks(path, other, matcher="Agent")
    assert (replaced.added, replaced.removed) == (3, 3)
    groups = ours(json.loads(path.read_text()))
    assert {g["matcher"] for _, g in groups} == {"Agent", "Bash"}  # --matcher: the subagent tool
    uninstall_hooks(path)
    assert path.read_text() == USER_SETTINGS


@pytest.mark.parametrize(
    ("content", "message"),
    [
        ("not json", "not valid JSON"),
        ("[1, 2]", "does not hold a JSON object"),
        ('{"hooks": []}', "'hooks' is not an object"),
        ('{"hooks": {"PreToolUse": {}}}', "'hooks.PreToolUse' is not a list"),
        ('{"a": 1, "a": 2}', "duplicate key"),
        ('{"a": 1} trailing', "not valid JSON"),
    ],
)
def test_a_file_it_cannot_edit_is_refused_and_left_alone(
    tmp_path: Path, content: str, message: str
) -> None:
    path = tmp_path / "settings.json"
    path.write_text(content)
    with pytest.raises(UsageError, match=message):
        install_hooks(path, ENTRY)
    assert path.read_text() == content
    assert list(tmp_path.iterdir()) == [path]  # no backup, no temporary file


def test_the_file_keeps_its_permissions_and_its_symlink(tmp_path: Path) -> None:
    real = tmp_path / "dotfiles" / "claude-settings.json"
    real.parent.mkdir()
    real.write_text(USER_SETTINGS)
    real.chmod(0o600)
    link = tmp_path / "settings.json"
    link.symlink_to(real)
    change = install_hooks(link, ENTRY)
    assert link.is_symlink()
    assert stat.S_IMODE(real.stat().st_mode) == 0o600
    assert change.backup is not None
    assert stat.S_IMODE(change.backup.stat().st_mode) == 0o600
    assert len(ours(json.loads(real.read_text()))) == 3


def test_only_mergegate_hook_commands_are_recognised() -> None:
    yes = [
        "mergegate hook claude-code",
        "/home/u/.venv/bin/mergegate hook claude-code --timeout 5",
        '"/path with space/mergegate" hook claude-code',
        "python -m mergegate hook claude-code",
        "C:\\\\tools\\\\mergegate.exe hook claude-code",
    ]
    no = [
        "mergegate hooks install claude-code",
        "mergegate hook codex",
        "echo mergegate",
        "not-mergegate hook claude-code",
        "unbalanced 'quote",
        None,
        3,
    ]
    assert all(is_mergegate_hook(c, "claude-code") for c in yes)
    assert not any(is_mergegate_hook(c, "claude-code") for c in no)


def test_the_settings_paths(tmp_path: Path) -> None:
    local = claude_settings_path("project", tmp_path)
    assert local == tmp_path / ".claude" / "settings.local.json"
    assert claude_settings_path("shared", tmp_path) == tmp_path / ".claude" / "settings.json"
    user = claude_settings_path("user", tmp_path, env={"CLAUDE_CONFIG_DIR": str(tmp_path / "c")})
    assert user == tmp_path / "c" / "settings.json"
    assert (
        claude_settings_path("user", tmp_path, env={}) == Path.home() / ".claude" / "settings.json"
    )


# ---------------------------------------------------------------- any layout, any content
json_scalars = st.one_of(
    st.none(), st.booleans(), st.integers(-(10**6), 10**6), st.text(max_size=8)
)
json_values = st.recursive(
    json_scalars,
    lambda inner: (
        st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=5), inner, max_size=3)
    ),
    max_leaves=8,
)
user_hook = st.fixed_dictionaries(
    {"type": st.just("command"), "command": st.sampled_from(["./a.sh", "say hi", "x --y"])}
)
user_group = st.fixed_dictionaries(
    {"hooks": st.lists(user_hook, min_size=1, max_size=2)},
    optional={"matcher": st.sampled_from(["Edit", "Agent", "Task|Agent", "*"])},
)
user_hooks = st.dictionaries(
    st.sampled_from(["PreToolUse", "PostToolUse", "Stop", "SessionStart"]),
    st.lists(user_group, max_size=2),
    max_size=3,
)
documents = st.builds(
    lambda extra, hooks, with_hooks: {**extra, **({"hooks": hooks} if with_hooks else {})},
    st.dictionaries(st.text(max_size=6).filter(lambda k: k != "hooks"), json_values, max_size=4),
    user_hooks,
    st.booleans(),
)
layouts = st.sampled_from([None, 0, 2, 4, "\t"])


@settings(
    max_examples=120, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(data=documents, indent=layouts, ascii_only=st.booleans(), newline=st.booleans())
def test_install_uninstall_round_trips_any_settings_file(
    tmp_path: Path, data: dict[str, Any], indent: int | str | None, ascii_only: bool, newline: bool
) -> None:
    path = Path(tempfile.mkdtemp(dir=tmp_path)) / "settings.json"
    text = json.dumps(data, indent=indent, ensure_ascii=ascii_only) + ("\n" if newline else "")
    path.write_text(text)
    install_hooks(path, ENTRY)
    installed = json.loads(path.read_text())
    assert len(ours(installed)) == 3
    without = {k: v for k, v in installed.items() if k != "hooks"}
    assert without == {k: v for k, v in data.items() if k != "hooks"}
    for event, groups in data.get("hooks", {}).items():
        assert installed["hooks"][event][: len(groups)] == groups
    uninstall_hooks(path)
    assert path.read_text() == text


def test_the_span_parser_agrees_with_json_and_refuses_what_json_refuses() -> None:
    for good in ['{"a": [1, {"b": "\\u00e9"}], "c": -0.5e-3}', "[]", '"x"', "\ufeff{}"]:
        node = parse_spans(good)
        assert node.end == len(good)
    for bad in ["{", '{"a" 1}', "[1,]", '{"a": 01}', '"\x01"', "[" * 100 + "]" * 100, "{} {}"]:
        with pytest.raises(JsonTextError):
            parse_spans(bad)


# ---------------------------------------------------------------- the commands
def mergegate(
    cwd: Path, *args: str, env: dict[str, str] | None = None
) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [str(BIN / "mergegate"), *args],
        cwd=cwd,
        capture_output=True,
        text=True,
        check=False,
        env={**os.environ, **(env or {})},
    )


def test_the_commands_edit_the_project_and_the_user_settings(tmp_path: Path) -> None:
    repo = tmp_path / "repo"
    (repo / "sub").mkdir(parents=True)
    (repo / ".git").mkdir()
    settings_file = repo / ".claude" / "settings.json"
    settings_file.parent.mkdir()
    settings_file.write_text(USER_SETTINGS)
    shared = ("--shared", "--subagent-type", "my-rev*")
    done = mergegate(repo / "sub", "hooks", "install", "claude-code", *shared)
    assert done.returncode == 0, done.stderr
    assert "added 3 hook entries" in done.stdout
    assert "previous version is kept in" in done.stdout
    commands = {g["hooks"][0]["command"] for _, g in ours(json.loads(settings_file.read_text()))}
    assert commands == {"mergegate hook claude-code --subagent-type 'my-rev*'"}
    again = mergegate(repo, "hooks", "install", "claude-code", *shared)
    assert "unchanged" in again.stdout
    hint = mergegate(repo, "hooks", "uninstall")  # the default is your own file: a hint
    assert "uninstall --shared" in hint.stdout
    gone = mergegate(repo, "hooks", "uninstall", "--shared")
    assert gone.returncode == 0, gone.stderr
    assert "removed 3 hook entries" in gone.stdout
    assert settings_file.read_text() == USER_SETTINGS

    config_dir = tmp_path / "claude-config"
    env = {"CLAUDE_CONFIG_DIR": str(config_dir)}
    user = mergegate(repo, "hooks", "install", "claude-code", "--user", env=env)
    assert user.returncode == 0, user.stderr
    assert len(ours(json.loads((config_dir / "settings.json").read_text()))) == 3
    broken = repo / "broken.json"
    broken.write_text("{oops")
    refused = mergegate(repo, "hooks", "install", "claude-code", "--settings", str(broken))
    assert refused.returncode == 2
    assert "not valid JSON" in refused.stderr
    assert broken.read_text() == "{oops"


def test_gemini_settings_get_one_after_tool_entry_and_lose_it_again(tmp_path: Path) -> None:
    path = tmp_path / ".gemini" / "settings.json"
    path.parent.mkdir()
    original = '{\n  "general": {"vimMode": true},\n  "hooks": {"BeforeTool": []}\n}\n'
    path.write_text(original)
    entry = HookEntry(command="mergegate hook gemini")
    install_hooks(path, entry, tool="gemini")
    hooks = json.loads(path.read_text())["hooks"]
    assert hooks["AfterTool"] == [
        {
            "matcher": "invoke_agent",
            "hooks": [
                {
                    "type": "command",
                    "name": "mergegate",
                    "command": "mergegate hook gemini",
                    "timeout": 30000,
                    "description": "mergegate: checking the review verdict",
                }
            ],
        }
    ]
    assert uninstall_hooks(path, tool="claude-code").changed is False  # not its entries
    uninstall_hooks(path, tool="gemini")
    assert path.read_text() == original
    assert settings_path("gemini", "project", tmp_path) == path
