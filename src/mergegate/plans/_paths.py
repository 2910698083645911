"""Paths a plan names, judged from their text: inside the repository or not.

A plan is input, not authority: a path it names may be absolute, start at a home directory
(`~/`), climb out with `..`, or name a Windows drive. `escape_reason` says which, from the
text alone, so `plan check`, `plan show`, `run` and `verify` agree before any file is looked
at (symlinks are a matter for the reader of the tree: `mergegate.verify` resolves them).

`looks_like_path` decides whether a key link's `from`/`to` names a file at all: GSD writes
descriptions ("git CLI", "Plan 76-01 changes") and URLs there as well as paths.
"""

from __future__ import annotations

import re
from pathlib import PurePosixPath

__all__ = ["escape_reason", "looks_like_path"]

_DRIVE = re.compile(r"^[A-Za-z]:[\\/]")
_DOMAIN = re.compile(r"^[a-z0-9-]+(\.[a-z0-9-]+)*\.(com|org|net|io|dev|app|co|ai|sh)$", re.I)
_EXTENSION = re.compile(r"\.[A-Za-z0-9]{1,8}$")
_GLOB = re.compile(r"[*?\[\]{}]")


def escape_reason(text: str) -> str | None:
    """Why the path `text` leaves the repository (`an absolute path`, ...), or None."""
    raw = text.strip()
    if raw.startswith(("/", "\\")) or _DRIVE.match(raw):
        return "is an absolute path"
    if raw.startswith("~"):
        return "starts at a home directory (~)"
    if ".." in PurePosixPath(raw.replace("\\", "/")).parts:
        return "climbs out with '..'"
    return None


def looks_like_path(text: str) -> bool:
    """True when `text` is written as a file path rather than a description or a URL.

    Lexical only (the tree is not consulted). Absolute and `..` paths count as paths: they
    are then a plan error, not a description.
    """
    raw = text.strip()
    if not raw or any(c.isspace() for c in raw) or "://" in raw or _GLOB.search(raw):
        return False
    first = raw.lstrip("./").split("/", 1)[0]
    if "/" in raw.lstrip("/") and _DOMAIN.match(first):
        return False  # npmjs.com/package/x, github.com/org/repo: a location, not a file
    return "/" in raw or bool(_EXTENSION.search(raw))
