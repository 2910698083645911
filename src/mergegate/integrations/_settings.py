"""Install and remove mergegate's entries in an agent CLI's hook settings (a JSON file).

The file belongs to the user: it can hold other hooks, permissions, environment variables and
keys this module has never heard of. So:

* edits are surgical (`_jsontext`): bytes outside mergegate's own entries never change, and
  `uninstall` after `install` gives back the original bytes;
* a changed file is first copied to `<name>.mergegate-backup` (same permissions): one backup,
  the version before the latest change, replaced each time (not a pile of them);
* the write is atomic, keeps the file's permission bits, and goes through a symlink to the
  file it points at — but a symlink whose target does not exist is refused, never created
  (a link planted towards `~/.bashrc` or outside the project must not be written through);
* a file that is not a JSON object, or whose `hooks` is not shaped as Claude Code reads it,
  is refused (`UsageError`, exit 2) and left untouched;
* after every edit the result is checked: with mergegate's entries taken out, the new
  document must equal the old one.

mergegate's entries are recognised by their command (`mergegate hook <tool> ...`), so an
uninstall removes exactly them — also after the user edited the rest of the file.
"""

from __future__ import annotations

import json
import os
import shlex
import stat
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from glob import escape as glob_escape
from pathlib import Path
from typing import Any, Literal

from mergegate.atomic_files import write_atomic
from mergegate.errors import UsageError
from mergegate.integrations._jsontext import (
    JsonTextError,
    Node,
    append_item,
    insert_member,
    parse_spans,
    remove_entry,
)

__all__ = [
    "BACKUP_SUFFIX",
    "DEFAULT_MATCHER",
    "HOOK_EVENTS",
    "LATCH_MATCHER",
    "TOOL_HOOKS",
    "HookEntry",
    "HookGroup",
    "SettingsChange",
    "claude_settings_path",
    "install_hooks",
    "is_installed",
    "is_mergegate_hook",
    "settings_path",
    "uninstall_hooks",
]

HOOK_EVENTS: tuple[str, ...] = ("PreToolUse", "PostToolUse")
"""Claude Code: PreToolUse keeps review subagents in the foreground and holds the latch;
PostToolUse gates their result."""
DEFAULT_MATCHER = "Task|Agent"
"""Claude Code's subagent tool: `Task` in releases before 2.x, `Agent` since."""
LATCH_MATCHER = "Bash"
"""Claude Code's shell tool, checked against the latch before every command."""
_VERDICT_NOTE = "mergegate: checking the review verdict"


@dataclass(frozen=True)
class HookGroup:
    """One `{matcher, hooks}` group mergegate installs under `event`."""

    event: str
    matcher: str
    status_message: str = _VERDICT_NOTE
    subagent: bool = True
    """True for the subagent tool's group, whose matcher `--matcher` replaces."""


TOOL_HOOKS: dict[str, tuple[HookGroup, ...]] = {
    "claude-code": (
        HookGroup("PreToolUse", DEFAULT_MATCHER),
        HookGroup("PreToolUse", LATCH_MATCHER, "mergegate: checking the review latch", False),
        HookGroup("PostToolUse", DEFAULT_MATCHER),
    ),
    "gemini": (HookGroup("AfterTool", "invoke_agent"),),
}
"""Per agent CLI: the groups mergegate installs (event, matcher, status message)."""
MAX_SETTINGS_BYTES = 4 * 1024 * 1024
BACKUP_SUFFIX = ".mergegate-backup"
_MAX_EDITS = 1000

Scope = Literal["project", "shared", "user"]


@dataclass(frozen=True)
class HookEntry:
    """One command hook as it is written into the settings file."""

    command: str
    timeout_s: int = 30
    status_message: str = _VERDICT_NOTE

    def to_json(
        self, tool: str = "claude-code", status_message: str | None = None
    ) -> dict[str, Any]:
        """The entry in `tool`'s settings format (`status_message` replaces the entry's)."""
        note = status_message or self.status_message
        if tool == "gemini":  # timeouts in milliseconds; no failure policy to set
            return {
                "type": "command",
                "name": "mergegate",
                "command": self.command,
                "timeout": self.timeout_s * 1000,
                "description": note,
            }
        # `onFailure: block`: if the command cannot start (not on PATH), is killed by the
        # timeout or prints invalid JSON, Claude Code blocks instead of carrying on (fail closed).
        return {
            "type": "command",
            "command": self.command,
            "timeout": self.timeout_s,
            "onFailure": "block",
            "statusMessage": note,
        }


@dataclass(frozen=True)
class SettingsChange:
    """What an install or uninstall did to one settings file."""

    path: Path
    changed: bool
    added: int = 0
    removed: int = 0
    backup: Path | None = None
    created: bool = False


def settings_path(
    tool: str, scope: Scope, project_root: Path, env: Mapping[str, str] | None = None
) -> Path:
    """Where `tool` reads hooks: Claude Code as `claude_settings_path`; Gemini CLI
    `<project>/.gemini/settings.json` (it has no personal project file, so `project` and
    `shared` are the same) or `~/.gemini/settings.json`."""
    if tool == "gemini":
        base = Path.home() if scope == "user" else project_root
        return base / ".gemini" / "settings.json"
    return claude_settings_path(scope, project_root, env)


def claude_settings_path(
    scope: Scope, project_root: Path, env: Mapping[str, str] | None = None
) -> Path:
    """`project`: `<project>/.claude/settings.local.json`, yours alone (Claude Code keeps it
    out of git); `shared`: `<project>/.claude/settings.json`, the team's; `user`: your
    `settings.json` in `$CLAUDE_CONFIG_DIR` when set, else `~/.claude`."""
    if scope == "project":
        return project_root / ".claude" / "settings.local.json"
    if scope == "shared":
        return project_root / ".claude" / "settings.json"
    environ = os.environ if env is None else env
    config_dir = environ.get("CLAUDE_CONFIG_DIR", "").strip()
    base = Path(config_dir).expanduser() if config_dir else Path.home() / ".claude"
    return base / "settings.json"


def is_mergegate_hook(command: object, tool: str) -> bool:
    """True for a command that runs `mergegate hook TOOL` (any path to mergegate, any flags,
    or `python -m mergegate hook TOOL`)."""
    if not isinstance(command, str):
        return False
    try:
        argv = shlex.split(command)
    except ValueError:
        return False
    wanted = ["hook", tool]
    for i, arg in enumerate(argv):
        name = arg.replace("\\", "/").rsplit("/", 1)[-1]
        if name in ("mergegate", "mergegate.exe") and argv[i + 1 : i + 3] == wanted:
            return True
        if arg == "-m" and argv[i + 1 : i + 2] == ["mergegate"] and argv[i + 2 : i + 4] == wanted:
            return True
    return False


# ---------------------------------------------------------------- reading and checking
@dataclass
class _Doc:
    path: Path
    original: str
    existed: bool
    mode: int


def _read(path: Path) -> _Doc:
    target = path.resolve() if path.is_symlink() else path
    try:
        info = target.stat()
    except FileNotFoundError:
        if path.is_symlink():
            raise UsageError(
                f"{path} is a symbolic link to {target}, which does not exist; not creating it "
                "(remove the link, or pass the file you mean with --settings)"
            ) from None
        return _Doc(target, "", existed=False, mode=0o644)
    except OSError as exc:
        raise UsageError(f"cannot read {path}: {exc.strerror or exc}") from exc
    if not stat.S_ISREG(info.st_mode):
        raise UsageError(f"{path} is not a regular file")
    if info.st_size > MAX_SETTINGS_BYTES:
        raise UsageError(f"{path} is larger than {MAX_SETTINGS_BYTES} bytes; not editing it")
    try:
        text = target.read_bytes().decode("utf-8")
    except OSError as exc:
        raise UsageError(f"cannot read {path}: {exc.strerror or exc}") from exc
    except UnicodeDecodeError as exc:
        raise UsageError(f"{path} is not UTF-8 ({exc.reason}); not editing it") from exc
    return _Doc(target, text, existed=True, mode=stat.S_IMODE(info.st_mode))


def _parse(doc: _Doc, text: str) -> Node:
    try:
        root = parse_spans(text)
        json.loads(text)
    except (JsonTextError, ValueError) as exc:
        raise UsageError(f"{doc.path} is not valid JSON ({exc}); not editing it") from exc
    if root.kind != "object":
        raise UsageError(f"{doc.path} does not hold a JSON object; not editing it")
    return root


def _hooks_object(doc: _Doc, root: Node) -> Node | None:
    hooks = root.member("hooks")
    if hooks is not None and hooks.kind != "object":
        raise UsageError(f"{doc.path}: 'hooks' is not an object; not editing it")
    return hooks


def _event_array(doc: _Doc, hooks: Node, event: str) -> Node | None:
    array = hooks.member(event)
    if array is not None and array.kind != "array":
        raise UsageError(f"{doc.path}: 'hooks.{event}' is not a list; not editing it")
    return array


def _strip_ours(data: Any, ours: Callable[[object], bool]) -> Any:
    """The settings without mergegate's hooks, and without empty groups, event lists and
    `hooks` objects (an uninstall removes the ones it empties)."""
    if not isinstance(data, dict) or not isinstance(data.get("hooks"), dict):
        return data
    hooks: dict[str, Any] = {}
    for event, groups in data["hooks"].items():
        if not isinstance(groups, list):
            hooks[event] = groups
            continue
        kept = [g for g in (_strip_group(g, ours) for g in groups) if g is not None]
        if kept:
            hooks[event] = kept
    result = {k: v for k, v in data.items() if k != "hooks"}
    if hooks:
        result["hooks"] = hooks
    return result


def _strip_group(group: Any, ours: Callable[[object], bool]) -> Any:
    if not isinstance(group, dict) or not isinstance(group.get("hooks"), list):
        return group
    entries = group["hooks"]
    kept = [h for h in entries if not (isinstance(h, dict) and ours(h.get("command")))]
    if len(kept) == len(entries):
        return group
    return {**group, "hooks": kept} if kept else None


def _count_ours(data: Any, ours: Callable[[object], bool]) -> int:
    hooks = data.get("hooks") if isinstance(data, dict) else None
    if not isinstance(hooks, dict):
        return 0
    return sum(
        1
        for groups in hooks.values()
        if isinstance(groups, list)
        for group in groups
        if isinstance(group, dict) and isinstance(group.get("hooks"), list)
        for entry in group["hooks"]
        if isinstance(entry, dict) and ours(entry.get("command"))
    )


# ---------------------------------------------------------------- editing
def _find_ours(
    doc: _Doc, text: str, ours: Callable[[object], bool]
) -> tuple[Node, Node, Node, int, int] | None:
    """(hooks, event array, group, group index, hook index) of the first mergegate hook."""
    root = _parse(doc, text)
    hooks = _hooks_object(doc, root)
    if hooks is None:
        return None
    data = json.loads(text[hooks.start : hooks.end])
    for event_index, event in enumerate(hooks.keys):
        groups = data.get(event)
        if not isinstance(groups, list):
            continue
        for g, group in enumerate(groups):
            entries = group.get("hooks") if isinstance(group, dict) else None
            if not isinstance(entries, list):
                continue
            for h, entry in enumerate(entries):
                if isinstance(entry, dict) and ours(entry.get("command")):
                    array = hooks.children[event_index]
                    return hooks, array, array.children[g], g, h
    return None


def _remove_one(doc: _Doc, text: str, ours: Callable[[object], bool]) -> str | None:
    found = _find_ours(doc, text, ours)
    if found is None:
        return None
    _hooks, array, group, g, h = found
    group_hooks = group.member("hooks")
    assert group_hooks is not None  # _find_ours saw a list there
    if len(group_hooks.children) > 1:
        return remove_entry(text, group_hooks, h)
    return remove_entry(text, array, g)


def _drop_empty_containers(
    doc: _Doc, text: str, events: set[str], *, hooks_object: bool = True
) -> str:
    """Remove the event lists in `events` that are empty, then `hooks` if that left it empty
    (and `hooks_object`)."""
    for event in sorted(events):
        root = _parse(doc, text)
        hooks = _hooks_object(doc, root)
        array = None if hooks is None else _event_array(doc, hooks, event)
        if hooks is not None and array is not None and not array.children:
            text = remove_entry(text, hooks, hooks.keys.index(event))
    root = _parse(doc, text)
    hooks = _hooks_object(doc, root)
    if hooks_object and hooks is not None and not hooks.children:
        text = remove_entry(text, root, root.keys.index("hooks"))
    return text


def _remove_all(doc: _Doc, text: str, ours: Callable[[object], bool]) -> tuple[str, int, set[str]]:
    """`text` without mergegate's hooks (emptied groups removed, emptied lists kept)."""
    removed = 0
    touched: set[str] = set()
    for _ in range(_MAX_EDITS):
        found = _find_ours(doc, text, ours)
        if found is None:
            break
        hooks, array, *_rest = found
        touched.add(hooks.keys[hooks.children.index(array)])
        updated = _remove_one(doc, text, ours)
        assert updated is not None
        text, removed = updated, removed + 1
    else:  # pragma: no cover - a settings file with more than 1000 mergegate hooks
        raise UsageError(f"{doc.path}: too many mergegate hooks to remove")
    return text, removed, touched


def _removal_candidates(doc: _Doc, text: str, touched: set[str]) -> list[str]:
    """What the file may look like without mergegate's hooks, the likeliest first: every
    list it emptied removed and `hooks` too if emptied; then each way of keeping some of
    them (a file can have held `"hooks": {}` or an empty list before the install)."""
    events = sorted(touched)
    subsets = [
        {e for i, e in enumerate(events) if not mask >> i & 1} for mask in range(2 ** len(events))
    ]
    candidates = [
        _drop_empty_containers(doc, text, dropped, hooks_object=drop_hooks)
        for dropped in subsets
        for drop_hooks in (True, False)
    ]
    return list(dict.fromkeys(candidates))


def _add_all(doc: _Doc, text: str, groups: Mapping[str, list[dict[str, Any]]]) -> str:
    if not text.strip():  # a new (or blank) file: written the way Claude Code writes it
        return json.dumps({"hooks": dict(groups)}, indent=2) + "\n"
    root = _parse(doc, text)
    hooks = _hooks_object(doc, root)
    if hooks is None:
        return insert_member(text, root, "hooks", dict(groups))
    for event, event_groups in groups.items():
        for group in event_groups:
            hooks = _hooks_object(doc, _parse(doc, text))
            assert hooks is not None
            array = _event_array(doc, hooks, event)
            if array is None:
                text = insert_member(text, hooks, event, [group])
            else:
                text = append_item(text, array, group)
    return text


def _check(doc: _Doc, before: str, after: str, ours: Callable[[object], bool]) -> None:
    """The edit touched nothing but mergegate's hooks (or refuse to write it)."""
    old = json.loads(before) if before.strip() else {}
    new = json.loads(after) if after.strip() else {}
    if _strip_ours(old, ours) != _strip_ours(new, ours):  # pragma: no cover - a bug guard
        raise UsageError(f"{doc.path}: refusing to write an edit that changes other settings")


def _backup(doc: _Doc) -> Path:
    """Replace the one backup beside the file with the file as it is now (a link planted at
    the backup's name is replaced, not followed)."""
    backup = doc.path.with_name(doc.path.name + BACKUP_SUFFIX)
    write_atomic(backup, doc.original, mode=doc.mode)
    return backup


def _newest_backup(path: Path) -> str | None:
    """The text of the backup beside `path` (`<name>.mergegate-backup`; else the newest
    `<name>.mergegate-backup-<time>` an older mergegate left), if any."""
    current = path.with_name(path.name + BACKUP_SUFFIX)
    older = sorted(path.parent.glob(glob_escape(path.name) + BACKUP_SUFFIX + "-*"), key=_order)
    for backup in [current, *reversed(older)]:
        if backup.is_file() and not backup.is_symlink():
            try:
                return backup.read_bytes().decode("utf-8")
            except (OSError, UnicodeDecodeError):
                return None
    return None


def _order(backup: Path) -> tuple[str, int]:
    """Backups in the order they were made: by time stamp, then by their `-N` counter."""
    stamp, _, counter = backup.name.rpartition(".mergegate-backup-")[2].partition("-")
    return stamp, int(counter) if counter.isdigit() else 0


def _write(doc: _Doc, text: str) -> Path | None:
    backup = _backup(doc) if doc.existed else None
    write_atomic(doc.path, text, mode=doc.mode)
    return backup


def install_hooks(
    path: Path,
    entry: HookEntry,
    *,
    tool: str = "claude-code",
    matcher: str | None = None,
    events: tuple[str, ...] | None = None,
) -> SettingsChange:
    """Add mergegate's `{matcher, hooks: [entry]}` groups (`TOOL_HOOKS[tool]`, only those of
    `events` when given) to the settings file at `path`; `matcher` replaces the subagent
    tool's matcher.

    mergegate hooks already there are replaced (an install is idempotent). Nothing is written
    when the file would not change. Raises `UsageError` for a file it must not edit.
    """
    doc = _read(path)

    def ours(command: object) -> bool:
        return is_mergegate_hook(command, tool)

    if not ours(entry.command):
        raise UsageError(f"the hook command must run 'mergegate hook {tool}': {entry.command!r}")
    removed = 0
    text = doc.original
    if doc.existed:
        text, removed, touched = _remove_all(doc, doc.original, ours)
        text = _removal_candidates(doc, text, touched)[0] if removed else text
    chosen = [g for g in TOOL_HOOKS[tool] if events is None or g.event in events]
    groups: dict[str, list[dict[str, Any]]] = {}
    for spec in chosen:
        group = {
            "matcher": (matcher or spec.matcher) if spec.subagent else spec.matcher,
            "hooks": [entry.to_json(tool, spec.status_message)],
        }
        groups.setdefault(spec.event, []).append(group)
    text = _add_all(doc, text, groups)
    _check(doc, doc.original, text, ours)
    if doc.existed and text == doc.original:
        return SettingsChange(doc.path, changed=False)
    backup = _write(doc, text)
    return SettingsChange(
        doc.path,
        changed=True,
        added=len(chosen),
        removed=removed,
        backup=backup,
        created=not doc.existed,
    )


def uninstall_hooks(path: Path, *, tool: str = "claude-code") -> SettingsChange:
    """Remove every `mergegate hook TOOL` entry from the settings file at `path`, and the
    groups, event lists and `hooks` object that only held them. A missing file, or one without
    mergegate hooks, is left alone."""
    doc = _read(path)
    if not doc.existed:
        return SettingsChange(doc.path, changed=False)

    def ours(command: object) -> bool:
        return is_mergegate_hook(command, tool)

    stripped, removed, touched = _remove_all(doc, doc.original, ours)
    if not removed:
        return SettingsChange(doc.path, changed=False)
    # An install creates `hooks` or an event list when it is missing, and the uninstall
    # removes what it empties. When the file had them, empty, before the install (say
    # `"hooks": {}`), the install's backup shows it: keep them then, so the bytes come back.
    candidates = _removal_candidates(doc, stripped, touched)
    previous = _newest_backup(doc.path)
    text = next((c for c in candidates if c == previous), candidates[0])
    _check(doc, doc.original, text, ours)
    if _count_ours(json.loads(text), ours):  # pragma: no cover - a bug guard
        raise UsageError(f"{doc.path}: mergegate hooks remain after uninstall")
    backup = _write(doc, text)
    return SettingsChange(doc.path, changed=True, removed=removed, backup=backup)


def is_installed(path: Path, tool: str = "claude-code") -> bool:
    """True when the settings file at `path` holds a `mergegate hook TOOL` entry (a file that
    cannot be read or parsed holds none)."""
    try:
        data = json.loads(path.read_bytes()[:MAX_SETTINGS_BYTES])
    except (OSError, ValueError):
        return False
    return _count_ours(data, lambda command: is_mergegate_hook(command, tool)) > 0
