"""Regular expressions compiled on first use, not when their module is imported.

The verdict library holds a few hundred patterns, most of them large vocabularies; compiling
them all at import was most of the start-up of `mergegate parse` and of the Claude Code hook,
which run on every call (issue 23, `bench/bench_startup.py`). A document uses about half of
them, so each is compiled the first time it is used.

Hot loops must not pay for the deferral (`bench/bench_verdicts.py`): on first use the module
global that held the stand-in is rebound to the compiled pattern itself, and the stand-in keeps
the compiled pattern's methods as its own attributes for any other reference to it.
"""

from __future__ import annotations

import re
import sys
from typing import Any, cast

_METHODS = ("search", "match", "fullmatch", "finditer", "findall", "sub", "subn", "split")


class _Deferred:
    """Stands for `re.compile(pattern, flags)` until a method is first looked up."""

    def __init__(self, pattern: str, flags: int, namespace: dict[str, Any]) -> None:
        self.pattern = pattern
        self._flags = flags
        self._namespace = namespace

    def __getattr__(self, name: str) -> Any:
        # Called only for attributes the instance lacks: the first use of a method (or an
        # attribute of the compiled pattern this class does not copy, such as `groups`).
        compiled = re.compile(self.pattern, self._flags)
        for method in _METHODS:
            setattr(self, method, getattr(compiled, method))
        namespace = self._namespace
        for key in [key for key, value in namespace.items() if value is self]:
            namespace[key] = compiled
        return getattr(compiled, name)

    def __repr__(self) -> str:
        return f"compile_lazily({self.pattern!r}, {self._flags!r})"


def compile_lazily(pattern: str, flags: int | re.RegexFlag = 0) -> re.Pattern[str]:
    """`re.compile(pattern, flags)`, compiled when first used; then the caller's module global
    that holds it is the compiled pattern. `.pattern` needs no compiling, so patterns built
    from other patterns' text stay deferred."""
    namespace = sys._getframe(1).f_globals  # the calling module's globals, to rebind
    return cast(re.Pattern[str], _Deferred(pattern, int(flags), namespace))
