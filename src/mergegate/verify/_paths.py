"""Plan paths are input, not authority: every path mergegate reads stays inside the tree.

`repo_path` is the only way the checks turn a plan path into a file: an absolute path, a `~`
path, a `..` component, or a symlink (anywhere along the path) that resolves outside the
repository is a `PlanPathError` (exit 2), never a file read. `looks_like_path` decides, from
the text alone, whether a key link's `from`/`to` names a file at all ("git CLI", "Plan 76-01
changes", "npmjs.com/package/x" do not).
"""

from __future__ import annotations

import re
from pathlib import Path, PurePosixPath

from mergegate.errors import UsageError

__all__ = ["PlanPathError", "check_plan_path", "looks_like_path", "repo_path"]

_DOMAIN = re.compile(r"^[a-z0-9-]+(\.[a-z0-9-]+)*\.(com|org|net|io|dev|app|co|ai|sh)$", re.I)
_EXTENSION = re.compile(r"\.[A-Za-z0-9]{1,8}$")
_GLOB = re.compile(r"[*?\[\]{}]")


class PlanPathError(UsageError):
    """A plan names a path outside the repository (exit 2): the plan is wrong, not the tree."""


def check_plan_path(text: str, *, what: str) -> PurePosixPath:
    """The relative path `text` names, or `PlanPathError` when it leaves the tree lexically."""
    raw = text.strip()
    if not raw:
        raise PlanPathError(f"{what}: empty path")
    if raw.startswith(("/", "~", "\\")) or re.match(r"^[A-Za-z]:[\\/]", raw):
        raise PlanPathError(f"{what}: {raw!r} is an absolute path; plan paths must be relative")
    path = PurePosixPath(raw.replace("\\", "/"))
    if ".." in path.parts:
        raise PlanPathError(f"{what}: {raw!r} leaves the repository ('..')")
    return path


def repo_path(root: Path, text: str, *, what: str) -> Path:
    """`root / text`, proven to stay inside `root` once every symlink is resolved."""
    relative = check_plan_path(text, what=what)
    real_root = root.resolve()
    candidate = real_root.joinpath(*relative.parts)
    resolved = candidate.resolve()
    if resolved != real_root and real_root not in resolved.parents:
        raise PlanPathError(
            f"{what}: {text.strip()!r} resolves to {resolved}, outside the repository "
            "(a symlink out of the tree)"
        )
    return candidate


def looks_like_path(text: str) -> bool:
    """True when `text` is written as a file path rather than a description or a URL.

    Lexical only (the tree is not consulted), so `--dry-run` and a real run agree. Absolute
    and `..` paths count as paths: they are then a plan error, not a description.
    """
    raw = text.strip()
    if not raw or any(c.isspace() for c in raw) or "://" in raw or _GLOB.search(raw):
        return False
    first = raw.lstrip("./").split("/", 1)[0]
    if "/" in raw.lstrip("/") and _DOMAIN.match(first):
        return False  # npmjs.com/package/x, github.com/org/repo: a location, not a file
    return "/" in raw or bool(_EXTENSION.search(raw))
