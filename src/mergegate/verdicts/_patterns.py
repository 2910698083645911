"""Regular expressions compiled on first use, not when their module is imported.

The verdict library holds a few hundred patterns, most of them large vocabularies; compiling
them all at import was most of the start-up of `mergegate parse` and of the Claude Code hook,
which run on every call (issue 23, `bench/bench_startup.py`). A document uses about half of
them, so each is compiled the first time it is used.

After that first use the compiled pattern's methods are the object's own attributes, so a hot
loop pays no Python-level indirection (`bench/bench_verdicts.py`).
"""

from __future__ import annotations

import re
from typing import Any, cast

_METHODS = ("search", "match", "fullmatch", "finditer", "findall", "sub", "subn", "split")


class _Deferred:
    """Stands for `re.compile(pattern, flags)` until a method is first looked up."""

    def __init__(self, pattern: str, flags: int) -> None:
        self.pattern = pattern
        self._flags = flags

    def __getattr__(self, name: str) -> Any:
        # Called only for attributes the instance lacks: the first use of a method (or an
        # attribute of the compiled pattern this class does not copy, such as `groups`).
        compiled = re.compile(self.pattern, self._flags)
        for method in _METHODS:
            setattr(self, method, getattr(compiled, method))
        return getattr(compiled, name)

    def __repr__(self) -> str:
        return f"compile_lazily({self.pattern!r}, {self._flags!r})"


def compile_lazily(pattern: str, flags: int | re.RegexFlag = 0) -> re.Pattern[str]:
    """`re.compile(pattern, flags)`, compiled when first used. `.pattern` needs no compiling,
    so patterns built from other patterns' text stay deferred."""
    return cast(re.Pattern[str], _Deferred(pattern, int(flags)))
