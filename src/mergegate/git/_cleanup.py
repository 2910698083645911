"""A finished run's branches, listed and deleted here and on a remote (`mergegate gc`).

The caller names what to look for (branch-name prefixes and exact names composed in
`mergegate.ids`); this module only lists and deletes. Every deletion is a compare and swap
from the commit listed: a branch that moved since it was listed (someone pushed to it) is
kept, locally (`update-ref -d <ref> <old>`) and on the remote (`--force-with-lease`). Remote
commands are the transport-allowed ones of `_remote` (the URL on the command line, its own
protocol only).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from pathlib import Path

from mergegate.git._command import run_git
from mergegate.git._remote import _git
from mergegate.git._workspaces import GitError

__all__ = ["delete_branches", "delete_remote_branches", "list_branches", "list_remote_branches"]

_HEADS = "refs/heads/"


def _wanted(name: str, prefixes: Iterable[str], exact: Iterable[str]) -> bool:
    return name in exact or any(name.startswith(p) for p in prefixes)


def _parse_refs(listing: str, prefixes: tuple[str, ...], exact: tuple[str, ...]) -> dict[str, str]:
    """`<sha> <ref>` lines (tab or space) → branch name → sha, for the branches wanted."""
    found = {}
    for line in listing.splitlines():
        sha, _, ref = line.replace("\t", " ").partition(" ")
        name = ref.strip().removeprefix(_HEADS)
        if ref.strip().startswith(_HEADS) and _wanted(name, prefixes, exact):
            found[name] = sha
    return found


def list_branches(repo: Path, prefixes: Iterable[str], exact: Iterable[str] = ()) -> dict[str, str]:
    """The repository's branches whose names start with one of `prefixes` or are one of
    `exact`: name → the commit it points at."""
    prefixes, exact = tuple(prefixes), tuple(exact)
    patterns = [_HEADS + p.rstrip("/") for p in prefixes] + [_HEADS + e for e in exact]
    if not patterns:
        return {}
    result = run_git(repo, "for-each-ref", "--format=%(objectname) %(refname)", *patterns)
    if not result.ok:
        detail = result.stderr.decode("utf-8", "replace").strip()[-600:]
        raise GitError(f"git for-each-ref in {repo} failed: {detail}")
    return _parse_refs(result.stdout.decode("utf-8", "replace"), prefixes, exact)


def delete_branches(repo: Path, branches: Mapping[str, str]) -> list[str]:
    """Delete each branch if it still points at its listed commit; the names deleted."""
    deleted = []
    for name, sha in sorted(branches.items()):
        if run_git(repo, "update-ref", "-d", _HEADS + name, sha).ok:
            deleted.append(name)
    return deleted


def list_remote_branches(
    repo: Path, url: str, prefixes: Iterable[str], exact: Iterable[str] = ()
) -> dict[str, str]:
    """The remote's branches whose names start with one of `prefixes` or are one of
    `exact` (read with `ls-remote` from `repo`): name → commit."""
    prefixes, exact = tuple(prefixes), tuple(exact)
    patterns = [f"{_HEADS}{p}*" for p in prefixes] + [_HEADS + e for e in exact]
    if not patterns:
        return {}
    listing = _git(repo, url, "ls-remote", "--heads", url, *patterns)
    return _parse_refs(listing, prefixes, exact)


def delete_remote_branches(repo: Path, url: str, branches: Mapping[str, str]) -> list[str]:
    """Delete each branch on the remote if it still points at its listed commit (one push,
    a lease per branch); the names deleted. `GitError` when the push failed (a branch
    moved: the others are deleted all the same)."""
    if not branches:
        return []
    names = sorted(branches)
    leases = [f"--force-with-lease={_HEADS}{n}:{branches[n]}" for n in names]
    _git(repo, url, "push", "-q", "--no-verify", *leases, url, *[f":{_HEADS}{n}" for n in names])
    return names
