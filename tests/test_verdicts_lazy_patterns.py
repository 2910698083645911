"""`verdicts._patterns.compile_lazily`: a pattern compiled by its first method call, once,
that then answers exactly as `re.compile` would, through the compiled pattern's own methods
(no per-call indirection in the library's hot loops)."""

from __future__ import annotations

import re

import pytest

from mergegate.verdicts import _patterns
from mergegate.verdicts._patterns import compile_lazily

TEXT = "Ready to merge? Yes\nready to merge? no\n"
SOURCE = r"(?m)^ready to merge\?\s*(\w+)$"


def test_nothing_compiles_until_a_method_is_called(monkeypatch: pytest.MonkeyPatch) -> None:
    calls: list[str] = []
    real = _patterns.compile_cached

    def counting(pattern: str, flags: int) -> re.Pattern[str]:
        calls.append(pattern)
        return real(pattern, flags)

    monkeypatch.setattr(_patterns, "compile_cached", counting)
    lazy = compile_lazily(SOURCE, re.IGNORECASE)
    assert lazy.pattern == SOURCE
    assert calls == []
    assert lazy.search(TEXT) is not None
    lazy.findall(TEXT)
    lazy.sub("-", TEXT)
    assert calls == [SOURCE]  # once, whatever method is used next


@pytest.mark.parametrize("method", _patterns._METHODS)
def test_each_method_answers_as_re_compile_does(method: str) -> None:
    compiled = re.compile(SOURCE, re.IGNORECASE)
    args: tuple[object, ...] = (r"<\1>", TEXT) if method in ("sub", "subn") else (TEXT,)

    def shown(value: object) -> object:
        if isinstance(value, re.Match):
            return (value.span(), value.groups())
        if not isinstance(value, (str, list, tuple)) and value is not None:
            return [shown(m) for m in value]  # type: ignore[attr-defined]
        return value

    first = compile_lazily(SOURCE, re.IGNORECASE)  # the first call compiles
    expected = shown(getattr(compiled, method)(*args))
    assert shown(getattr(first, method)(*args)) == expected
    assert shown(getattr(first, method)(*args)) == expected  # and so does every later call


def test_after_the_first_call_the_methods_are_the_compiled_patterns_own() -> None:
    lazy = compile_lazily(SOURCE)
    lazy.match(TEXT)
    compiled = lazy.match.__self__  # type: ignore[attr-defined]
    assert isinstance(compiled, re.Pattern)
    assert compiled.pattern == SOURCE
    for method in _patterns._METHODS:
        bound = getattr(lazy, method)
        assert bound.__self__ is compiled
        assert bound == getattr(compiled, method)
        assert bound.__name__ == method
