"""`GitRepository`: the git operations of the review loop on the user's work tree."""

from __future__ import annotations

import contextlib
import tempfile
import threading
import weakref
from collections.abc import Iterator, Sequence
from contextlib import AbstractContextManager
from pathlib import Path

from mergegate.errors import UsageError
from mergegate.git._checkout import KeptCheckout, remove_tree, throwaway_checkout
from mergegate.git._command import Where, run_git
from mergegate.git._identity import Workspace
from mergegate.git._snapshot import relative_prefix

__all__ = ["GitRepository"]

_MAX_FILE_BYTES = 2 << 20
# Used only when the repository has no identity configured, so a fix commit never fails on it.
_FALLBACK_IDENTITY = ("-c", "user.name=mergegate", "-c", "user.email=mergegate@localhost")
# Content only: no external diff program, no textconv (both would run configured commands).
_DIFF = ("diff", "--no-ext-diff", "--no-textconv")


def _last_line(stderr: bytes) -> str:
    lines = stderr.decode("utf-8", "replace").strip().splitlines()
    return f": {lines[-1]}" if lines else ""


class GitRepository:
    """The git operations of the review loop, on one work tree. Git errors are `UsageError`s
    (a bad ref or a non-repository is the user's input), never silent. Every git command runs
    through `mergegate.git._command` (no hooks, no configured programs); on a `Workspace`
    mergegate made, with its git directory and work tree named and its `.git` checked."""

    def __init__(
        self, path: Path | Workspace, *, exclude: Sequence[Path] = (), scratch: Path | None = None
    ) -> None:
        """`path`: a directory in the user's work tree, or a workspace mergegate made.
        `scratch`: the folder for throwaway checkouts (created when first needed, and the
        caller's to remove); default a temporary folder removed with this object."""
        self.where: Where
        if isinstance(path, Workspace):
            self.root = path.root
            self.where = path
        else:
            result = run_git(path, "rev-parse", "--show-toplevel")
            if not result.ok:
                # git's own reason matters here ("dubious ownership", a malformed config …).
                raise UsageError(f"not a git work tree: {path}{_last_line(result.stderr)}")
            self.root = self.where = Path(result.stdout.decode().strip())
        self._exclude = [p for p in (relative_prefix(self.root, e) for e in exclude) if p]
        self._scratch: Path | None = scratch
        self._scratch_given = scratch is not None
        self._scratch_lock = threading.Lock()
        self._kept: dict[str, KeptCheckout] = {}

    def _run(self, *args: str) -> bytes:
        result = run_git(self.where, *args)
        if not result.ok:
            raise UsageError(
                f"git {' '.join(args[:3])} failed in {self.root}{_last_line(result.stderr)}"
            )
        return result.stdout

    def resolve(self, ref: str) -> str:
        """The commit id `ref` names."""
        result = run_git(self.where, "rev-parse", "--verify", "-q", f"{ref}^{{commit}}")
        if not result.ok:
            raise UsageError(f"unknown git revision: {ref!r}")
        return result.stdout.decode().strip()

    def diff(self, base: str, head: str) -> str:
        out = self._run(*_DIFF, "--no-color", "--no-renames", base, head)
        return out.decode("utf-8", "replace")

    def changed_files(self, base: str, head: str) -> list[str]:
        out = self._run(*_DIFF, "--name-only", "--no-renames", "-z", base, head)
        return [p.decode("utf-8", "surrogateescape") for p in out.split(b"\0") if p]

    def diff_and_files(self, base: str, head: str) -> tuple[str, list[str]]:
        """`diff` and `changed_files` from one git call (`--raw -z -p`: the raw records, each
        `:meta NUL path NUL`, a NUL, then the patch as `diff` prints it)."""
        out = self._run(*_DIFF, "--no-color", "--no-renames", "--raw", "-z", "-p", base, head)
        paths, pos = [], 0
        while out.startswith(b":", pos):
            meta_end = out.index(b"\0", pos)
            path_end = out.index(b"\0", meta_end + 1)
            paths.append(out[meta_end + 1 : path_end].decode("utf-8", "surrogateescape"))
            pos = path_end + 1
        if out.startswith(b"\0", pos):
            pos += 1
        return out[pos:].decode("utf-8", "replace"), paths

    def read_file(self, rev: str, path: str) -> str | None:
        """The file at `rev`, or None when it does not exist there (or is too large)."""
        result = run_git(self.where, "cat-file", "blob", f"{rev}:{path}")
        if not result.ok or len(result.stdout) > _MAX_FILE_BYTES:
            return None
        return result.stdout.decode("utf-8", "replace")

    def read_files(self, rev: str, paths: Sequence[str]) -> dict[str, str | None]:
        """`read_file(rev, p)` for each of `paths`, with one `git ls-tree` for all of them
        and one `cat-file` per file that exists: a list of candidates that are mostly absent
        (the convention files) costs one process instead of one each."""
        found = dict.fromkeys(paths, None)
        listed = run_git(self.where, "ls-tree", "-z", "-l", "--full-tree", rev, "--", *paths)
        if not listed.ok:
            return {p: self.read_file(rev, p) for p in paths}  # git's own answer, path by path
        for entry in listed.stdout.split(b"\0"):
            meta, _, name = entry.partition(b"\t")
            fields = meta.split()
            path = name.decode("utf-8", "surrogateescape")
            if len(fields) != 4 or fields[1] != b"blob" or path not in found:
                continue  # a tree, a submodule's commit, or a name not asked for
            if not fields[3].isdigit() or int(fields[3]) > _MAX_FILE_BYTES:
                continue
            result = run_git(self.where, "cat-file", "blob", fields[2].decode("ascii"))
            if result.ok and len(result.stdout) <= _MAX_FILE_BYTES:
                found[path] = result.stdout.decode("utf-8", "replace")
        return found

    def commit_all(self, message: str) -> str | None:
        """Commit every change in the work tree (excluded paths aside) as one commit.

        Returns the new commit id, or None when there was nothing to commit. No hook runs
        (`core.hooksPath=/dev/null`, and `--no-verify` besides), no filter, no signing program.
        """
        pathspec = [".", *(f":(exclude){p}" for p in self._exclude)]
        self._run("add", "-A", "--", *pathspec)
        if run_git(self.where, *_DIFF, "--cached", "--quiet").ok:
            return None
        configured = run_git(self.where, "config", "user.email").ok
        identity = () if configured else _FALLBACK_IDENTITY
        self._run(*identity, "commit", "--no-verify", "-q", "-m", message)
        return self.resolve("HEAD")

    @contextlib.contextmanager
    def checkout(self, rev: str, name: str = "review") -> Iterator[Path]:
        """A throwaway checkout of `rev` (see `throwaway_checkout`), removed on exit.

        Its path is the same for every call with the same `name` on this object, so an agent
        session that is resumed (Claude Code keys sessions by directory) finds its directory
        again; two checkouts of one name cannot be open at once (`UsageError`).
        """
        where = self._scratch_dir() / name
        if where.exists():
            raise UsageError(f"the throwaway checkout {where} is already in use")
        with throwaway_checkout(self.where, rev, where) as path:
            yield path

    def kept_checkout(self, rev: str, name: str = "review") -> AbstractContextManager[Path]:
        """As `checkout`, but the checkout stays after the block, and the next call with the
        same `name` and `rev` gets it again while nothing under it changed (`KeptCheckout`):
        a review's reviewers of one commit share one checkout. `release_checkout` removes it
        (as does this object's end)."""
        with self._scratch_lock:
            kept = self._kept.get(name)
        if kept is None:
            kept = KeptCheckout(self.where, self._scratch_dir() / name)
            with self._scratch_lock:
                kept = self._kept.setdefault(name, kept)
        return kept.use(rev)

    def release_checkout(self, name: str = "review", *, soon: bool = False) -> None:
        """Remove the checkout `kept_checkout` keeps under `name` (nothing when none is);
        `soon`: in the background, its path free at once (`KeptCheckout.close`)."""
        with self._scratch_lock:
            kept = self._kept.pop(name, None)
        if kept is not None:
            kept.close(soon=soon)

    def _scratch_dir(self) -> Path:
        with self._scratch_lock:
            if self._scratch is not None and self._scratch_given:
                self._scratch.mkdir(parents=True, exist_ok=True)
                return self._scratch
            if self._scratch is None:
                self._scratch = Path(tempfile.mkdtemp(prefix="mergegate-review-"))
                # Removed when this object goes away (or at exit), checkouts and all.
                weakref.finalize(self, remove_tree, self._scratch)
            return self._scratch
