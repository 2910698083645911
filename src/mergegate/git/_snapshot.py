"""Prove a read-only run stayed read-only: snapshot a repository, then check it is unchanged.

A snapshot holds two kinds of state:

* **Files read directly** (sha256 of the bytes, plus the permission bits, so `chmod +x` on a
  planted hook counts): everything under the git directory that carries behaviour or state —
  `config`, `hooks/`, `info/` (attributes, exclude, sparse-checkout, grafts), `refs/`,
  `packed-refs`, `HEAD`, `shallow`, `objects/info/` (alternates), `modules/` (a submodule's
  own config and hooks), `worktrees/` — and the config files outside it that make up the
  effective config: the global and XDG config and attributes/ignore files, `$GIT_CONFIG_GLOBAL`,
  and every `include.path` / `includeIf.*.path` target, whether or not it exists yet.
  Left out, because git itself writes them in routine use and they run nothing: the index (its
  content is compared through `status`, below), `logs/`, the object store below `objects/` (content
  addressed; hashing it would cost more than the review), lock files, `FETCH_HEAD`,
  `ORIG_HEAD` and the fsmonitor daemon's files.
* **What git says**, in one `git status --porcelain=v2 -z --untracked-files=all`: HEAD, the
  index and the status (`XY path`, as `--porcelain=v1` spells it) with a content hash of every
  file it lists. The index is HEAD's tree plus what that status says of it: every entry that
  differs from HEAD's (added, changed, deleted, renamed, intent-to-add, unmerged) is listed
  with its index mode and object name, so a hash of those columns changes exactly when
  `git ls-files --stage` (what this read before, in a second git call) would.

`verify_unchanged(before)` re-reads the files first and returns their differences **without
running git** when there are any: a planted `core.fsmonitor` would otherwise run inside the
check itself. Only when every file is unchanged does it ask git (which runs with the overrides
of `_command` anyway). Any difference voids a read-only run.

A work tree whose top holds a `.git` directory of its own (a workspace, a throwaway checkout,
most repositories) is read as that work tree: the snapshot takes the directory's identity
(`_identity.identify`) and every git command of the snapshot and of the check names it
explicitly, after `check_workspace` — so a `core.worktree` an agent set never makes the check
read (and hash) another directory, and a `.git` swapped during the run is a difference. Any
other place (a linked worktree's gitfile, a subdirectory) is found by git, as before.
"""

from __future__ import annotations

import hashlib
import os
import re
import stat
import threading
from collections.abc import Iterable, Iterator, Mapping
from dataclasses import dataclass, field
from pathlib import Path

from mergegate.git._command import Where, config_view, run_git
from mergegate.git._identity import Workspace, WorkspaceError, identify
from mergegate.processes import CommandResult

__all__ = [
    "KeptSnapshots",
    "WorktreeSnapshot",
    "check_unchanged",
    "compare_snapshots",
    "out_of_reach",
    "read_head",
    "relative_prefix",
    "snapshot_worktree",
    "verify_unchanged",
]

_HASH_CHUNK = 1 << 20
_SKIPPED_FILES = frozenset({"index", "FETCH_HEAD", "ORIG_HEAD", "fsmonitor--daemon.ipc"})
_SKIPPED_DIRS = frozenset({"logs", "fsmonitor--daemon"})


@dataclass(frozen=True)
class WorktreeSnapshot:
    """The state of a git work tree at one moment."""

    toplevel: Path
    head: str
    """The commit id, or `(none)` in a repository without commits."""
    index_hash: str
    """A hash of the index where it differs from HEAD (see the module docstring)."""
    status: tuple[str, ...]
    """`git status` entries (`XY path`), sorted."""
    file_hashes: dict[str, str] = field(default_factory=dict)
    """sha256 of each path `status` lists (`-` for a deleted or unreadable one)."""
    git_dir: Path | None = None
    """The (common) git directory whose files `git_files` holds."""
    git_files: dict[str, str] = field(default_factory=dict)
    """Files under `git_dir`, by path relative to it (see the module docstring)."""
    config_files: dict[str, str] = field(default_factory=dict)
    """Config files outside the repository, by absolute path (`absent` if missing)."""
    workspace: Workspace | None = None
    """The work tree with its `.git` directory's identity, when its top holds one: git is
    held to it in the check after the run."""


# ---------------------------------------------------------------------- reading files directly


def _digest(fd: int) -> str:
    digest = hashlib.sha256()
    while chunk := os.read(fd, _HASH_CHUNK):
        digest.update(chunk)
    return digest.hexdigest()


def _kind(mode: int, path: Path) -> str | None:
    """The fingerprint of anything but a regular file, which alone is ever opened."""
    if stat.S_ISLNK(mode):
        return "link:" + hashlib.sha256(os.fsencode(os.readlink(path))).hexdigest()
    if stat.S_ISDIR(mode):
        return "dir"
    if not stat.S_ISREG(mode):
        return f"special:{stat.S_IFMT(mode):o}"  # a planted FIFO would block a read forever
    return None


def _hash_entry(path: Path) -> str:
    """A fingerprint of one directory entry (content and permission bits), never following a
    symlink; `-` when it is missing or unreadable."""
    try:
        info = path.lstat()
        kind = _kind(info.st_mode, path)
        if kind is not None:
            return kind
        fd = os.open(path, os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK)
    except OSError:
        return "-"
    try:
        same = stat.S_ISREG(os.fstat(fd).st_mode)  # not swapped since the lstat
        return f"{_digest(fd)}:{stat.S_IMODE(info.st_mode):o}" if same else "special"
    except OSError:
        return "-"
    finally:
        os.close(fd)


def _hash_config(path: Path) -> str:
    """A config file outside the repository: its link (if it is one) and its content.
    (`os.path` here: unlike `Path.exists`, it never raises on a directory we may not read.)"""
    if not os.path.lexists(path):
        return "absent"
    if not os.path.islink(path):
        return _hash_entry(path)
    try:
        target = path.resolve()
    except (OSError, RuntimeError):  # RuntimeError: a symlink loop on Python < 3.13
        return _hash_entry(path) + "->-"
    return _hash_entry(path) + "->" + _hash_entry(target)


def _is_git_dir(path: Path, git_dir: Path) -> bool:
    """`git_dir` itself, a linked worktree's own directory, or a submodule's git directory
    (under `modules/`, holding a HEAD file): where git keeps its index, logs and objects. A
    ref named `index` or `objects/x` lives under `refs/` and is never taken for one."""
    if path in (git_dir, git_dir / "lfs") or path.parent == git_dir / "worktrees":
        return True
    try:
        rel = path.relative_to(git_dir / "modules")
    except ValueError:
        return False
    return "refs" not in rel.parts and os.path.isfile(path / "HEAD")


def _walk_git_dir(git_dir: Path) -> Iterator[Path]:
    """Every file and symlink under `git_dir` that the read-only check covers."""
    for root, dirs, names in os.walk(git_dir):
        here = Path(root)
        files = names
        if here.name == "objects" and _is_git_dir(here.parent, git_dir):
            dirs[:] = [d for d in dirs if d == "info"]  # alternates yes, objects no
            files = []
        elif _is_git_dir(here, git_dir):
            dirs[:] = [d for d in dirs if d not in _SKIPPED_DIRS]
            files = [f for f in names if f not in _SKIPPED_FILES]
        for name in files:
            if not name.endswith(".lock"):  # no ref or config name may end in .lock
                yield here / name
        for name in dirs:
            if os.path.islink(here / name):
                yield here / name  # os.walk does not descend into it; its target is recorded


def hash_git_dir(git_dir: Path) -> dict[str, str]:
    """Fingerprints of the files `_walk_git_dir` covers, by path relative to `git_dir`."""
    return {p.relative_to(git_dir).as_posix(): _hash_entry(p) for p in _walk_git_dir(git_dir)}


def hash_config_files(paths: Iterable[Path]) -> dict[str, str]:
    return {str(path): _hash_config(path) for path in paths}


# ---------------------------------------------------------------------- asking git (before only)


def _git(cwd: Where, *args: str) -> tuple[bool, bytes]:
    result = run_git(cwd, *args)
    return result.ok, result.stdout


def _place(cwd: Path) -> Where:
    """`cwd` as the snapshot reads it: a work tree whose `.git` is a directory of its own,
    named explicitly with that directory's identity; anything else, found by git."""
    try:
        return identify(cwd)
    except (WorkspaceError, OSError):
        return cwd


def config_paths(cwd: Where) -> list[Path]:
    """The files outside the repository that shape its effective config or name behaviour
    (global config, include targets, attributes and excludes files), existing or not, read
    while the config is still trusted (before a run); see `_command.config_view`."""
    view = config_view(cwd)
    if isinstance(view, CommandResult):
        return []
    return list(view.outside)


@dataclass(frozen=True)
class _Status:
    """One `git status --porcelain=v2 -z` read: the status entries as `--porcelain=v1` names
    them, and the lines that describe the index where it differs from HEAD."""

    entries: list[tuple[str, str]]
    """(XY, path) pairs, XY as v1 spells it (` ` for v2's `.`); a rename's source path too."""
    index: list[bytes]
    """Per entry whose index side differs from HEAD's: its path and index columns."""


_V2_FIELDS = {b"1": 8, b"2": 9, b"u": 10}
"""Space-separated fields before the path, by line kind (ordinary, renamed/copied, unmerged)."""


def _index_line(kind: bytes, xy: bytes, fields: list[bytes], orig: bytes) -> bytes | None:
    """The index's side of one tracked entry, or None when the index holds HEAD's entry there
    (`X` is `.`) and the line is only about the work tree. Intent-to-add (`.A`) is in the index
    without differing from HEAD in `X`: it counts."""
    if kind == b"u":  # the three stages' modes and objects; the work tree's mode left out
        return b" ".join([xy, *fields[3:6], *fields[7:10]])
    if xy[:1] == b"." and xy[1:] != b"A" and kind == b"1":
        return None
    return b" ".join([xy[:1], fields[4], fields[7], orig])  # X, mI, hI, rename source


def _parse_status(raw: bytes) -> _Status:
    """`status --porcelain=v2 -z` (no `--ignored`, no `--branch`) read as `_Status`."""
    entries: list[tuple[str, str]] = []
    index: list[bytes] = []
    records = raw.split(b"\0")
    i = 0
    while i < len(records):
        item = records[i]
        i += 1
        kind = item[:1]
        if kind == b"?" and len(item) > 2:
            entries.append(("??", item[2:].decode("utf-8", "surrogateescape")))
            continue
        count = _V2_FIELDS.get(kind)
        parts = item.split(b" ", count) if count else []
        if count is None or len(parts) != count + 1:
            continue
        xy, path = parts[1], parts[count]
        orig = b""
        if kind == b"2" and i < len(records):  # the next record is the rename's source
            orig = records[i]
            i += 1
        code = xy.replace(b".", b" ").decode("ascii", "replace")
        for name in (path, orig) if orig else (path,):
            entries.append((code, name.decode("utf-8", "surrogateescape")))
        line = _index_line(kind, xy, parts, orig)
        if line is not None:
            index.append(path + b"\0" + line)
    return _Status(entries, sorted(index))


def relative_prefix(toplevel: Path, exclude: Path | None) -> str | None:
    """`exclude` as a `status` path prefix, or None when it is outside `toplevel`."""
    if exclude is None:
        return None
    try:
        rel = exclude.resolve().relative_to(toplevel.resolve())
    except ValueError:
        return None
    return rel.as_posix().rstrip("/") + "/"


_LOCATIONS: dict[Path, tuple[Path, Path]] = {}
"""Where each snapshotted place's work tree and common git directory are (asked once)."""
_OBJECT_NAME = re.compile(rb"[0-9a-f]{40}|[0-9a-f]{64}")


def _read_ref(git_dir: Path, name: str) -> str | None:
    """A ref's commit from a loose ref file or `packed-refs`; None when neither has it."""
    ref = git_dir / name
    if ref.is_file():
        value = ref.read_bytes().strip()
        return value.decode() if _OBJECT_NAME.fullmatch(value) else None
    packed = git_dir / "packed-refs"
    for line in packed.read_bytes().splitlines() if packed.is_file() else []:
        value, _, refname = line.partition(b" ")
        if refname.decode("utf-8", "surrogateescape") == name and _OBJECT_NAME.fullmatch(value):
            return value.decode()
    return None


def read_head(toplevel: Path, git_dir: Path) -> str | None:
    """HEAD's commit read from the files of a plain repository (`.git` a directory, loose or
    packed refs), or None when git must say it (a linked worktree, reftable, a branch without
    commits, anything else). The same files are hashed in the snapshot, so a HEAD that moves
    is seen either way."""
    if git_dir != toplevel / ".git" or not git_dir.is_dir():
        return None
    try:
        head = (git_dir / "HEAD").read_bytes().strip()
        if _OBJECT_NAME.fullmatch(head):
            return head.decode()
        if not head.startswith(b"ref: refs/"):
            return None
        return _read_ref(git_dir, head[5:].decode("utf-8", "surrogateescape"))
    except OSError:
        return None


def _locate(cwd: Where) -> tuple[Path, Path, str] | None:
    """(toplevel, common git dir, HEAD's commit or `(none)`) of the work tree holding `cwd`.

    Where it is is asked once per `cwd`; HEAD is read from the files when they are plain,
    else asked in the same `rev-parse` (which prints the paths and then fails on a HEAD
    without a commit)."""
    key = (cwd.root if isinstance(cwd, Workspace) else cwd).absolute()
    known = _LOCATIONS.get(key)
    if known is not None and (head := read_head(*known)) is not None:
        return known[0], known[1], head
    result = run_git(
        cwd,
        *("rev-parse", "--path-format=absolute", "--show-toplevel", "--git-common-dir"),
        *("--verify", "-q", "HEAD"),
    )
    lines = result.stdout.decode("utf-8", "surrogateescape").splitlines()
    if result.ok and len(lines) == 3:
        found = Path(lines[0]), Path(lines[1]), lines[2]
    elif result.returncode == 1 and len(lines) == 2:
        found = Path(lines[0]), Path(lines[1]), "(none)"
    else:
        return None
    _LOCATIONS[key] = (found[0], found[1])
    return found


def snapshot_worktree(cwd: Path, exclude: Path | None = None) -> WorktreeSnapshot | None:
    """Snapshot the work tree holding `cwd`; None when `cwd` is not inside a git work tree.

    Paths under `exclude` (the attempt directory, when it lives inside the tree) are ignored.
    """
    return _snapshot(_place(cwd), exclude)


def out_of_reach(cwd: Path, writable: Iterable[Path]) -> bool:
    """Whether nothing written under `writable` — the host paths a sandboxed agent can write
    (`Sandbox.host_writable`) — can change the work tree at `cwd`, so that a read-only run
    confined to them is read-only by structure and needs no snapshot to prove it.

    True only when `cwd` is the top of a work tree holding a `.git` directory of its own
    (`identify`: no gitfile, no symlink, no `commondir`, so every file a snapshot reads under
    the git directory lies in the tree), and neither the tree nor any file outside it that
    shapes its config (`config_paths`: global config, include targets, attributes and
    excludes files, existing or not) is or lies in a writable path, nor holds one. Compared
    resolved and by identity (device and inode of each existing ancestor), so a symlink or a
    second mount of the same directory is the same place. False when the config cannot be
    listed (the check then runs, and reports it)."""
    try:
        workspace = identify(cwd)
    except (WorkspaceError, OSError):
        return False
    sources = [os.path.realpath(p) for p in writable]
    if not sources:
        return True
    view = config_view(workspace)
    if isinstance(view, CommandResult):
        return False
    places = [os.path.realpath(p) for p in (workspace.root, *view.outside)]
    return not any(_reaches(source, place) for source in sources for place in places)


def _reaches(source: str, place: str) -> bool:
    """Writing under `source` can change `place` (both resolved): one is the other or lies in
    it, by path or by the identity of an existing directory (a bind mount made on the host
    shows one directory at two paths)."""
    if os.path.join(place, "").startswith(os.path.join(source, "")):
        return True
    if os.path.join(source, "").startswith(os.path.join(place, "")):
        return True
    source_id, above_source = _identities(source)
    place_id, above_place = _identities(place)
    return (source_id is not None and source_id in above_place) or (
        place_id is not None and place_id in above_source
    )


_Identity = tuple[int, int]


def _identities(path: str) -> tuple[_Identity | None, set[_Identity]]:
    """(device, inode) of `path` (None when it does not exist), and of it and every existing
    ancestor."""
    own: _Identity | None = None
    found: set[_Identity] = set()
    current = path
    while True:
        try:
            info = os.stat(current)
        except OSError:
            pass
        else:
            found.add((info.st_dev, info.st_ino))
            if current == path:
                own = (info.st_dev, info.st_ino)
        parent = os.path.dirname(current)
        if parent == current:
            return own, found
        current = parent


def _snapshot(
    cwd: Where, exclude: Path | None, read: tuple[Path, dict[str, str]] | None = None
) -> WorktreeSnapshot | None:
    """`read`: a git directory and its files as `_git_files` read them a moment ago (by
    `check_unchanged`, with no git run since): taken as they are, not walked again."""
    located = _locate(cwd)
    if located is None:
        return None
    toplevel, git_dir, head = located
    files = read[1] if read is not None and read[0] == git_dir else _git_files(git_dir, toplevel)
    where = cwd if isinstance(cwd, Workspace) else toplevel
    configs = hash_config_files(config_paths(where))
    _, status_raw = _git(
        where,
        *("status", "--porcelain=v2", "-z", "--untracked-files=all"),
        "--ignore-submodules=dirty",  # a submodule's HEAD counts; no git runs inside it
    )
    status = _parse_status(status_raw)
    skip = relative_prefix(toplevel, exclude)
    entries = [(code, p) for code, p in status.entries if not (skip and p.startswith(skip))]
    return WorktreeSnapshot(
        toplevel=toplevel,
        head=head,
        index_hash=hashlib.sha256(b"\0\0".join(status.index)).hexdigest(),
        status=tuple(sorted(f"{code} {p}" for code, p in entries)),
        file_hashes={p: _hash_entry(toplevel / p) for _, p in entries},
        git_dir=git_dir,
        git_files=files,
        config_files=configs,
        workspace=cwd if isinstance(cwd, Workspace) else None,
    )


# ---------------------------------------------------------------------- comparing


def _file_changes(label: str, before: Mapping[str, str], after: Mapping[str, str]) -> list[str]:
    changes = []
    for path in sorted(set(before) | set(after)):
        old, new = before.get(path, "absent"), after.get(path, "absent")
        if old == new:
            continue
        what = "created" if old == "absent" else "removed" if new == "absent" else "changed"
        changes.append(f"{label}{path} {what}")
    return changes


def _git_files(git_dir: Path, toplevel: Path) -> dict[str, str]:
    """`hash_git_dir`, and a linked worktree's pointer to its git directory."""
    files = hash_git_dir(git_dir)
    if os.path.isfile(toplevel / ".git"):
        files["../.git"] = _hash_entry(toplevel / ".git")
    return files


def _direct_changes(
    before: WorktreeSnapshot,
) -> tuple[list[str], tuple[Path, dict[str, str]] | None]:
    """What changed among the files read directly, and the git directory's files as read;
    runs no git."""
    changes: list[str] = []
    read = None
    if before.git_dir is not None:
        files = hash_git_dir(before.git_dir)
        if "../.git" in before.git_files:
            files["../.git"] = _hash_entry(before.toplevel / ".git")
        changes += _file_changes(f"{before.git_dir}/", before.git_files, files)
        read = (before.git_dir, files)
    paths = [Path(p) for p in before.config_files]
    changes += _file_changes("git config file ", before.config_files, hash_config_files(paths))
    return changes, read


def compare_snapshots(before: WorktreeSnapshot, after: WorktreeSnapshot) -> list[str]:
    """Human-readable differences; empty when the work tree is unchanged."""
    changes: list[str] = []
    if before.head != after.head:
        changes.append(f"HEAD moved: {before.head[:12]} -> {after.head[:12]}")
    if before.index_hash != after.index_hash:
        changes.append("the index changed")
    if before.status != after.status:
        added = sorted(set(after.status) - set(before.status))
        removed = sorted(set(before.status) - set(after.status))
        changes.append(f"git status changed: +{added[:5]} -{removed[:5]}")
    for path in sorted(set(before.file_hashes) & set(after.file_hashes)):
        if before.file_hashes[path] != after.file_hashes[path]:
            changes.append(f"content changed: {path}")
    if before.git_dir is not None and before.git_dir == after.git_dir:
        changes += _file_changes(f"{before.git_dir}/", before.git_files, after.git_files)
    if before.config_files:
        changes += _file_changes("git config file ", before.config_files, after.config_files)
    return changes


def verify_unchanged(before: WorktreeSnapshot, exclude: Path | None = None) -> list[str]:
    """Differences since `before`; empty when nothing changed.

    The git directory and the config files are read first, byte by byte; if any of them
    changed, those changes are returned and git is never run (a planted `core.fsmonitor` or
    hook must not run inside the check). Otherwise git is asked for HEAD, index and status.
    """
    return check_unchanged(before, exclude)[0]


def check_unchanged(
    before: WorktreeSnapshot, exclude: Path | None = None
) -> tuple[list[str], WorktreeSnapshot | None]:
    """`verify_unchanged`, with the snapshot taken after (None when git was not asked: a
    file read directly changed, or the place is no longer a work tree)."""
    direct, read = _direct_changes(before)
    if direct:
        return direct, None
    try:
        # the git directory just read, unchanged, is the after snapshot's: read before any
        # git runs either way (a snapshot reads it before its `status`), not walked twice
        after = _snapshot(before.workspace or before.toplevel, exclude, read)
    except WorkspaceError as exc:  # its `.git` swapped: git was not run
        return [str(exc)], None
    if after is None:
        return ["the work tree is no longer a git repository"], None
    return compare_snapshots(before, after), after


# ---------------------------------------------------------------------- one check's after, kept

_Stamp = tuple[tuple[int, int, int], ...]


def _stamp(snapshot: WorktreeSnapshot) -> _Stamp | None:
    """Device, inode and change time of the git directory and of its index: a directory made
    again (a fresh checkout at the same path) or an index written since shows here. None when
    either cannot be read."""
    if snapshot.git_dir is None:
        return None
    try:
        found = [os.lstat(p) for p in (snapshot.git_dir, snapshot.git_dir / "index")]
    except OSError:
        return None
    return tuple((i.st_dev, i.st_ino, i.st_ctime_ns) for i in found)


class KeptSnapshots:
    """The snapshot a read-only run's check took after it, kept to be the next read-only run's
    snapshot before (one reviewer after another on the same places): the check then costs one
    `status` per place instead of two.

    Sound whatever happens in between: the next check compares the place with this snapshot,
    so a change made after it was taken — between the two runs or during the second — is a
    difference, and voids the second run. The owner keeps one only where nothing is meant to
    change the places between the runs (else that run is voided for a change it did not make),
    and `clear`s it when something may (a commit, a reset).

    `take` hands a snapshot out once, and only for the same place, with the same excluded
    prefix, while its git directory and index are the very files it was taken from (`_stamp`:
    a checkout removed and made again at the same path is a fresh place). Thread-safe."""

    def __init__(self) -> None:
        self._kept: dict[Path, tuple[WorktreeSnapshot, str | None, _Stamp]] = {}
        self._lock = threading.Lock()

    def keep(self, cwd: Path, snapshot: WorktreeSnapshot, exclude: Path | None) -> None:
        """`snapshot`, taken of `cwd` with `exclude` left out, for the next run there."""
        stamp = _stamp(snapshot)
        if stamp is None:
            return
        prefix = relative_prefix(snapshot.toplevel, exclude)
        with self._lock:
            self._kept[cwd.absolute()] = (snapshot, prefix, stamp)

    def take(self, cwd: Path, exclude: Path | None) -> WorktreeSnapshot | None:
        """The snapshot kept for `cwd` (forgotten here), or None when there is none or it
        does not fit (see the class docstring)."""
        with self._lock:
            found = self._kept.pop(cwd.absolute(), None)
        if found is None:
            return None
        snapshot, prefix, stamp = found
        if prefix != relative_prefix(snapshot.toplevel, exclude) or _stamp(snapshot) != stamp:
            return None
        return snapshot

    def clear(self) -> None:
        with self._lock:
            self._kept.clear()

    def __len__(self) -> int:
        with self._lock:
            return len(self._kept)
