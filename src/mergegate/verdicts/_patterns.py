"""Regular expressions compiled on first use, not when their module is imported.

The verdict library holds a few hundred patterns, most of them large vocabularies; compiling
them all at import was most of the start-up of `mergegate parse` and of the Claude Code hook,
which run on every call (issue 23, `bench/bench_startup.py`). A document uses about half of
them, so each is compiled the first time one of its methods is called.

Hot loops must not pay for the deferral (`bench/bench_verdicts.py`): the first call stores the
compiled pattern's bound methods on the instance, where they shadow the class's compiling
methods, so every later call is the compiled pattern's own method.

Compiling is `_pattern_cache.compile_cached`: a later process builds the same pattern from the
opcodes an earlier one kept beside the bytecode, instead of parsing it again.
"""

from __future__ import annotations

import re
from typing import Any, cast

from mergegate.verdicts._pattern_cache import compile_cached

_METHODS = ("search", "match", "fullmatch", "finditer", "findall", "sub", "subn", "split")


class _LazyPattern:
    """`re.compile(pattern, flags)`, compiled by the first call of one of its methods.

    Only the methods in `_METHODS` and `pattern`, `flags` exist: the library uses no other
    attribute of a pattern (`.pattern` needs no compiling, so patterns built from other
    patterns' text stay deferred)."""

    def __init__(self, pattern: str, flags: int) -> None:
        self.pattern = pattern
        self.flags = flags

    def _compiled(self) -> re.Pattern[str]:
        compiled = compile_cached(self.pattern, self.flags)
        for method in _METHODS:  # instance attributes shadow the methods below from now on
            setattr(self, method, getattr(compiled, method))
        return compiled

    def search(self, *args: Any, **kwargs: Any) -> Any:
        return self._compiled().search(*args, **kwargs)

    def match(self, *args: Any, **kwargs: Any) -> Any:
        return self._compiled().match(*args, **kwargs)

    def fullmatch(self, *args: Any, **kwargs: Any) -> Any:
        return self._compiled().fullmatch(*args, **kwargs)

    def finditer(self, *args: Any, **kwargs: Any) -> Any:
        return self._compiled().finditer(*args, **kwargs)

    def findall(self, *args: Any, **kwargs: Any) -> Any:
        return self._compiled().findall(*args, **kwargs)

    def sub(self, *args: Any, **kwargs: Any) -> Any:
        return self._compiled().sub(*args, **kwargs)

    def subn(self, *args: Any, **kwargs: Any) -> Any:
        return self._compiled().subn(*args, **kwargs)

    def split(self, *args: Any, **kwargs: Any) -> Any:
        return self._compiled().split(*args, **kwargs)

    def __repr__(self) -> str:
        return f"compile_lazily({self.pattern!r}, {self.flags!r})"


def compile_lazily(pattern: str, flags: int | re.RegexFlag = 0) -> re.Pattern[str]:
    """`re.compile(pattern, flags)`, compiled when one of its methods is first called."""
    return cast(re.Pattern[str], _LazyPattern(pattern, int(flags)))
