"""The one place mergegate runs git: every call with the same environment and overrides, so no
repository hook, and no program named by configuration an agent could write, ever runs.

An agent can write `.git/config`, `.git/hooks/`, `.gitattributes` and (with `$HOME` writable)
the global git config. Git executes programs named there: hooks on commit, checkout, ref and
index updates; `core.fsmonitor` on every `status`; filter drivers on `add` and checkout;
external diff drivers and textconv on `diff`. So every git command mergegate runs carries:

* **Config overrides** as `GIT_CONFIG_COUNT`/`GIT_CONFIG_KEY_n`/`GIT_CONFIG_VALUE_n` (command-line
  scope: they outrank every config file, and unlike `-c` they take any key, even a driver name
  containing `=`). `CONFIG_OVERRIDES` is the fixed list; `driver_overrides` adds, for every
  filter, merge driver and configured hook (git ≥ 2.54 `hook.<name>.command`, which
  `core.hooksPath` does not cover) named in the effective config, the values that turn it off.
  The names are read with `git config --list --name-only -z` right before each command — that
  reads files and runs nothing (`git config` and `git rev-parse`, which run nothing either, skip
  it and get the fixed list only).
* **Options**: `--no-pager` and `--no-optional-locks` on every call; diffs add
  `--no-ext-diff --no-textconv` (`diff.external`, `diff.<driver>.command` and `.textconv` are
  disabled by these flags; git has no way to unset a key from the command line, and an empty
  value would run an empty command that prints an empty diff).
* **Environment** (`GIT_ENVIRONMENT`, `REMOVED_ENVIRONMENT`): no system config, no terminal
  prompt, no transport at all (`GIT_ALLOW_PROTOCOL` empty: mergegate never fetches or pushes,
  so `core.sshCommand`, `core.gitProxy`, `remote.*.uploadpack`, `url.*.insteadOf` to `ext::`,
  credential helpers and askpass programs are unreachable; the one exception is a fleet
  worker's mirror, `mergegate.git._remote`, allowed its remote's protocol and no other), no
  lazy fetch of a partial clone,
  no replace refs, and no inherited variable that redirects git or names a program.

**Where git works** is never left to discovery in a work tree mergegate made (a `Workspace`,
`_identity`): `run_git(workspace, …)` first checks that its `.git` is still the directory
mergegate made (`check_workspace`: no git process, a few `lstat`s), then names
`--git-dir=<root>/.git --work-tree=<root>` on the command line — which outranks
`core.worktree` (an agent pointing it at `$HOME` would otherwise make `reset --hard` and
`clean` work there) and a gitfile — and adds `WORKSPACE_OVERRIDES`: `core.bare=false`, and
`safe.directory` reset to that one root (an empty value empties the list a global
`safe.directory=*` would have filled).

The global config (`~/.gitconfig`, `$XDG_CONFIG_HOME/git/config`) is kept on purpose: it holds
`user.name`/`user.email` for fix commits, `safe.directory`, `core.excludesFile` and
`core.autocrlf`, which a fix commit must honour; every key in it that runs a program is
overridden like the repository's own. The system config is dropped (`GIT_CONFIG_NOSYSTEM`).
docs/sandbox.md has the whole table: each key that makes git run a program, and how it is
neutralised or why mergegate never reaches it.
"""

from __future__ import annotations

import hashlib
import os
import threading
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from pathlib import Path

from mergegate.errors import UsageError
from mergegate.git._identity import Workspace, check_workspace
from mergegate.processes import CommandResult, child_environment, run_command

__all__ = [
    "CONFIG_OVERRIDES",
    "GIT_ENVIRONMENT",
    "REMOVED_ENVIRONMENT",
    "ConfigView",
    "Where",
    "config_view",
    "driver_overrides",
    "git_environment",
    "run_git",
    "workspace_overrides",
]

Where = Path | Workspace
"""Where a git command runs: a directory (git finds its repository from there: the user's
repository, a fleet mirror), or a `Workspace` mergegate made (checked, and named explicitly)."""

CONFIG_OVERRIDES: tuple[tuple[str, str], ...] = (
    ("core.hooksPath", "/dev/null"),  # no hook file is ever found (`--no-verify` is not enough:
    # it skips pre-commit and commit-msg only; post-commit, post-checkout and
    # reference-transaction would still run)
    ("core.fsmonitor", ""),  # empty, not `false`: git ≤ 2.35 read `false` as a hook path
    ("core.editor", ":"),  # `:` is git's "no editor"
    ("sequence.editor", ":"),
    ("core.pager", "cat"),
    ("core.askPass", ""),
    ("credential.helper", ""),  # an empty value resets the list of helpers
    ("commit.gpgSign", "false"),  # so `gpg.program` / `gpg.<format>.program` never runs
    ("tag.gpgSign", "false"),
    ("log.showSignature", "false"),
    ("core.useReplaceRefs", "false"),  # a planted refs/replace/ would swap blobs under us
    ("submodule.recurse", "false"),  # checkout and status stay in this repository
    ("status.submoduleSummary", "false"),
    ("gc.auto", "0"),  # a fix commit never starts a (detached, hook-running) auto gc
    ("maintenance.auto", "false"),
    ("protocol.allow", "never"),
)
"""Config values every git command runs with, whatever the config files say."""

GIT_ENVIRONMENT: Mapping[str, str] = {
    "GIT_CONFIG_NOSYSTEM": "1",
    "GIT_ATTR_NOSYSTEM": "1",
    "GIT_TERMINAL_PROMPT": "0",
    "GIT_OPTIONAL_LOCKS": "0",
    "GIT_PAGER": "cat",
    "PAGER": "cat",
    "GIT_EDITOR": ":",
    "GIT_SEQUENCE_EDITOR": ":",
    "GIT_ALLOW_PROTOCOL": "",  # set and empty: no transport is allowed, whatever the config says
    "GIT_NO_LAZY_FETCH": "1",
    "GIT_NO_REPLACE_OBJECTS": "1",
}
"""Variables set for every git command."""

REMOVED_ENVIRONMENT: frozenset[str] = frozenset(
    {
        # A git hook's environment would point git at another repository.
        "GIT_DIR",
        "GIT_INDEX_FILE",
        "GIT_WORK_TREE",
        "GIT_OBJECT_DIRECTORY",
        "GIT_ALTERNATE_OBJECT_DIRECTORIES",
        "GIT_COMMON_DIR",
        "GIT_NAMESPACE",
        "GIT_CONFIG",
        "GIT_CONFIG_SYSTEM",
        # Programs git would run.
        "GIT_EXTERNAL_DIFF",
        "GIT_SSH",
        "GIT_SSH_COMMAND",
        "GIT_ASKPASS",
        "SSH_ASKPASS",
        "GIT_PROXY_COMMAND",
    }
)
"""Variables removed from every git command's environment."""

_FILTER_KEYS = ("clean", "smudge", "process")


def driver_overrides(names: Iterable[str]) -> list[tuple[str, str]]:
    """The overrides that switch off every driver and hook named in config keys `names`.

    A filter gets empty `clean`/`smudge`/`process` (git then passes the content through) and
    `required=false` (else an empty filter fails the command); a merge driver becomes `false`
    (a conflict, never a silent result: mergegate does not merge, this is defence in depth); a
    configured hook gets `enabled=false`.
    """
    named: dict[str, set[str]] = {"filter": set(), "merge": set(), "hook": set()}
    for name in names:
        first, last = name.find("."), name.rfind(".")
        section = name[:first].lower()
        if first != last and section in named:  # `section.subsection.key`: a named driver
            named[section].add(name[first + 1 : last])
    overrides: list[tuple[str, str]] = []
    for driver in sorted(named["filter"]):
        overrides += [(f"filter.{driver}.{key}", "") for key in _FILTER_KEYS]
        overrides.append((f"filter.{driver}.required", "false"))
    overrides += [(f"merge.{driver}.driver", "false") for driver in sorted(named["merge"])]
    overrides += [(f"hook.{hook}.enabled", "false") for hook in sorted(named["hook"])]
    return overrides


def workspace_overrides(workspace: Workspace) -> list[tuple[str, str]]:
    """The config values a command in `workspace` adds to `CONFIG_OVERRIDES`: never bare, and
    no `safe.directory` exception but its own root (the list reset first: an empty value)."""
    return [
        ("core.bare", "false"),
        ("safe.directory", ""),
        ("safe.directory", str(workspace.root)),
    ]


def git_environment(
    overrides: Iterable[tuple[str, str]] = (), base: Mapping[str, str] | None = None
) -> dict[str, str]:
    """The environment of a git command: `base` (default: the scrubbed parent environment)
    with `GIT_ENVIRONMENT` set, `REMOVED_ENVIRONMENT` removed, and `CONFIG_OVERRIDES` plus
    `overrides` appended to any `GIT_CONFIG_COUNT` list already there."""
    env = child_environment(base=base)
    for name in REMOVED_ENVIRONMENT:
        env.pop(name, None)
    env.update(GIT_ENVIRONMENT)
    try:
        count = int(env.get("GIT_CONFIG_COUNT", "0"))
    except ValueError:
        count = 0  # malformed: git would refuse it; start our own list over it
    for key, value in (*CONFIG_OVERRIDES, *overrides):
        env[f"GIT_CONFIG_KEY_{count}"] = key
        env[f"GIT_CONFIG_VALUE_{count}"] = value
        count += 1
    env["GIT_CONFIG_COUNT"] = str(count)
    return env


_LIST = ("config", "--list", "--show-origin", "-z")
_LOCATE = ("rev-parse", "--path-format=absolute", "--git-dir", "--git-common-dir")
_RUN_NOTHING = frozenset({"config", "rev-parse", "init"})
"""Commands that read config and refs and never start a hook, filter, diff driver or
fsmonitor: they run with the fixed overrides only, without listing the driver names first.
(`init` copies a template directory — mergegate always passes `--template=`, and
`init.templateDir` would only name files to copy — and writes a fresh config; it runs
nothing.)"""
_WORK_TREE_WRITERS = frozenset(
    {"reset", "clean", "checkout", "restore", "switch", "read-tree", "stash", "merge", "rebase",
     "cherry-pick", "revert", "am", "apply", "pull", "checkout-index", "sparse-checkout"}
)  # fmt: skip
"""Commands that overwrite or delete files of a work tree (or move HEAD with them): run only
in a `Workspace` mergegate made, never where git finds the work tree itself."""
_HOME_FILES = (".gitconfig", ".config/git/config", ".config/git/attributes", ".config/git/ignore")
_PATH_KEYS = ("core.attributesfile", "core.excludesfile")
_MAX_CONFIG_BYTES = 1 << 20


def _verb(args: tuple[str, ...]) -> str:
    """The git command of `args`, after any `-c key=value` options."""
    i = 0
    while i < len(args) and args[i].startswith("-"):
        i += 2 if args[i] == "-c" else 1
    return args[i] if i < len(args) else ""


def _git_argv(args: Iterable[str], workspace: Workspace | None = None) -> list[str]:
    """The argv of `git ARGS`; in `workspace`, with its git directory and work tree named."""
    named: list[str] = []
    if workspace is not None:
        named = [f"--git-dir={workspace.git_dir}", f"--work-tree={workspace.root}"]
    return ["git", "--no-pager", "--no-optional-locks", *named, *args]


@dataclass(frozen=True)
class ConfigView:
    """What the effective config of one repository holds, as far as mergegate needs it.

    `names` are its keys (for `driver_overrides`); `outside` the files outside the repository
    that shape it or name behaviour (global config, include targets, attributes and excludes
    files, whether or not they exist); `watched` every file git reads config from for it —
    `outside`, the repository's `config` and `config.worktree`, and `HEAD` when an
    `onbranch:` include follows the branch — with `fingerprint` their contents when `names`
    was read.
    """

    names: tuple[str, ...]
    outside: tuple[Path, ...]
    watched: tuple[Path, ...]
    fingerprint: tuple[str, ...]


def _content(path: Path) -> str:
    """A file's bytes, hashed (`absent` when missing, `unreadable`, or too large to be one)."""
    try:
        with path.open("rb") as handle:
            data = handle.read(_MAX_CONFIG_BYTES + 1)
    except FileNotFoundError:
        return "absent"
    except OSError:
        return "unreadable"
    return hashlib.sha256(data).hexdigest()


def _fingerprint(paths: Iterable[Path]) -> tuple[str, ...]:
    return tuple(_content(path) for path in paths)


def _home_files(env: Mapping[str, str]) -> list[Path]:
    home = Path(env.get("HOME") or Path.home())
    paths = [home / rel for rel in _HOME_FILES]
    xdg = env.get("XDG_CONFIG_HOME")
    if xdg:
        paths += [Path(xdg) / "git" / name for name in ("config", "attributes", "ignore")]
    if env.get("GIT_CONFIG_GLOBAL"):
        paths.append(Path(env["GIT_CONFIG_GLOBAL"]))
    return paths


def _expand(value: str, origin: Path, home: Path) -> Path:
    if value.startswith("~/"):
        return home / value[2:]
    path = Path(value)
    return path if path.is_absolute() else origin.parent / path


def _parse_listing(raw: bytes, cwd: Path, home: Path) -> tuple[list[str], list[Path]]:
    """Key names, and the files include and path keys name, from `config --list
    --show-origin -z` (origin, then `key\nvalue`, each NUL-terminated)."""
    names: list[str] = []
    paths: list[Path] = []
    fields = raw.split(b"\0")
    for origin_raw, entry in zip(fields[0::2], fields[1::2], strict=False):
        key, _, value = entry.decode("utf-8", "surrogateescape").partition("\n")
        names.append(key)
        low = key.lower()
        wanted = low == "include.path" or (low.startswith("includeif.") and low.endswith(".path"))
        origin = origin_raw.decode("utf-8", "surrogateescape")
        if (wanted or low in _PATH_KEYS) and value and origin.startswith("file:"):
            paths.append(_expand(value, cwd / origin[5:], home))  # origins may be relative
    return names, paths


def _own_git_dirs(workspace: Workspace | None) -> tuple[Path, Path] | None:
    """A workspace's git directory and common directory, known without asking git: the
    `.git` directory git is told to use (`--git-dir`), which is its own common directory
    while it holds no `commondir` file (`check_workspace` refuses one before any command
    runs there; looked at again here, for a caller that reads the config first). None for
    any other place: git is asked (`rev-parse --git-dir --git-common-dir`)."""
    if workspace is None or os.path.lexists(workspace.git_dir / "commondir"):
        return None
    return workspace.git_dir, workspace.git_dir


_VIEWS: dict[Path, ConfigView] = {}
_VIEWS_LOCK = threading.Lock()
_SAME_BYTES: dict[tuple[tuple[Path, ...], tuple[str, ...]], tuple[str, ...]] = {}
"""The key names listed for a workspace, by what decided them: the files outside it git reads
config from and the bytes of those and of its own config files. Every workspace and review
checkout of a run gets the same config written (`_checkout.py`), so the listing of the next
one is known without a `git config --list` (a process, 2 a unit). Only listings that follow
no include and name no path (`_parse_listing` found no file): what else git reads is the
command line and the environment, the same for every command of this process, and the
system config, which it never reads (`GIT_CONFIG_NOSYSTEM`)."""
_MAX_SAME_BYTES = 64


def config_view(where: Where, timeout: float = 60.0) -> ConfigView | CommandResult:
    """The effective config of the repository holding `where` (a failed listing: its result).

    Read with `git config --list --show-origin -z` (reads files, runs nothing) and kept for
    `cwd` while every file git reads config from for it holds the same bytes, so an agent
    that writes a config file — or creates one that did not exist — is seen at the next git
    command. Outside a repository nothing is kept (a `git init` there would add files).
    """
    workspace = where if isinstance(where, Workspace) else None
    cwd = where.root if isinstance(where, Workspace) else where
    key = cwd.absolute()
    with _VIEWS_LOCK:
        cached = _VIEWS.get(key)
    if cached is not None and _fingerprint(cached.watched) == cached.fingerprint:
        return cached
    env = child_environment()
    home = Path(env.get("HOME") or Path.home())
    extra = workspace_overrides(workspace) if workspace is not None else []
    dirs = _own_git_dirs(workspace)
    if dirs is not None:
        known = _view_of_same_bytes(_home_files(env), dirs)
        if known is not None:
            with _VIEWS_LOCK:
                _VIEWS[key] = known
            return known
    if dirs is None:
        located = run_command(_git_argv(_LOCATE, workspace), cwd, timeout, git_environment(extra))
        found = located.stdout.decode("utf-8", "surrogateescape").splitlines()
        dirs = (Path(found[0]), Path(found[1])) if located.ok and len(found) == 2 else None
    listed = run_command(_git_argv(_LIST, workspace), cwd, timeout, git_environment(extra))
    if not listed.ok:
        return listed
    names, referenced = _parse_listing(listed.stdout, cwd, home)
    outside = tuple(sorted({p.absolute() for p in (*_home_files(env), *referenced)}))
    if dirs is None:
        return ConfigView(tuple(names), outside, (), ())
    git_dir, common = dirs
    watched = (*outside, common / "config", git_dir / "config.worktree")
    if any(name.lower().startswith("includeif.onbranch:") for name in names):
        watched += (git_dir / "HEAD",)  # the branch decides which files are included
    # hashed after the listing: a change in between is seen as a change next time
    view = ConfigView(tuple(names), outside, watched, _fingerprint(watched))
    with _VIEWS_LOCK:
        _VIEWS[key] = view
        if workspace is not None and not referenced and not any(map(_includes, names)):
            if len(_SAME_BYTES) >= _MAX_SAME_BYTES:
                _SAME_BYTES.clear()
            _SAME_BYTES[(outside, view.fingerprint)] = view.names
    return view


def _includes(name: str) -> bool:
    return name.lower().startswith(("include.", "includeif."))


def _view_of_same_bytes(home_files: Iterable[Path], dirs: tuple[Path, Path]) -> ConfigView | None:
    """The view of a workspace (its git directory and common directory `dirs`) whose config
    files, and the ones outside it, hold the bytes another workspace's listing was made from
    (`_SAME_BYTES`); None when no listing was."""
    git_dir, common = dirs
    outside = tuple(sorted({p.absolute() for p in home_files}))
    watched = (*outside, common / "config", git_dir / "config.worktree")
    fingerprint = _fingerprint(watched)
    with _VIEWS_LOCK:
        names = _SAME_BYTES.get((outside, fingerprint))
    return None if names is None else ConfigView(names, outside, watched, fingerprint)


def run_git(
    where: Where, *args: str, timeout: float = 60.0, allow_protocol: str | None = None
) -> CommandResult:
    """Run `git ARGS` in `where` with every override.

    In a `Workspace`, first `check_workspace` (a `WorkspaceError` when its `.git` is not the
    directory mergegate made: nothing runs), then the command names its git directory and
    work tree and carries `workspace_overrides`. A command that overwrites or deletes files
    of a work tree (`reset`, `clean`, `checkout`, … `_WORK_TREE_WRITERS`) runs only there:
    anywhere else it is refused (`UsageError`) before git runs. Anywhere, it first reads the
    effective config's keys (`config_view`: `git config --list`, includes followed, which
    reads files and runs nothing; kept while the config files are unchanged) to switch off
    each driver and hook they name; when that fails (a malformed config), its
    failure is returned and `ARGS` never runs. `git config` and `git rev-parse`, which run
    nothing, skip it.

    `allow_protocol` (`file` or `ssh`) lets this one command use that transport and no other:
    only `mergegate.git._remote` passes it, for a fleet worker's fetches and pushes.
    """
    workspace = where if isinstance(where, Workspace) else None
    cwd = where.root if isinstance(where, Workspace) else where
    extra: list[tuple[str, str]] = []
    if workspace is not None:
        check_workspace(workspace)
        extra = workspace_overrides(workspace)
    elif _verb(args) in _WORK_TREE_WRITERS:
        raise UsageError(f"refusing `git {_verb(args)}` in {cwd}: not a workspace mergegate made")
    if args and args[0] in _RUN_NOTHING:
        return run_command(_git_argv(args, workspace), cwd, timeout, git_environment(extra))
    view = config_view(where, timeout)
    if isinstance(view, CommandResult):
        return view
    env = git_environment([*extra, *driver_overrides(view.names)])
    if allow_protocol is not None:
        env["GIT_ALLOW_PROTOCOL"] = allow_protocol  # git: every other protocol stays "never"
    return run_command(_git_argv(args, workspace), cwd, timeout, env)
