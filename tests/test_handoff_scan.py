"""The scanner: candidates, truncation, and bounded work on hostile input."""

from __future__ import annotations

import pytest

from mergegate.handoff import ErrorKind, extract
from mergegate.handoff._scan import MAX_CANDIDATES, scan_objects


def spans(text: str) -> list[str]:
    return [text[s.start : s.end] for s in scan_objects(text).candidates]


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ('a {"x": 1} b {"y": [1, {"z": 2}]} c', ['{"x": 1}', '{"y": [1, {"z": 2}]}']),
        ("use {name} and {}", ["{}"]),
        ('{"s": "}{][\\"}"}', ['{"s": "}{][\\"}"}']),
        ('}} ]] {"a": 1}', ['{"a": 1}']),
        ('{"a": [1, 2}', ['{"a": [1, 2}']),
        ("{ \n\t'a': 1}", ["{ \n\t'a': 1}"]),
    ],
)
def test_candidates(text: str, expected: list[str]) -> None:
    assert spans(text) == expected


@pytest.mark.parametrize(
    ("text", "unclosed", "in_string"),
    [
        ('{"a": 1', 0, False),
        ('x {"a": "b', 2, True),
        ('{"a": "b\\', 0, True),
        ('{"a": 1} {', 9, False),
        ("{   ", 0, False),
    ],
)
def test_truncation(text: str, unclosed: int, in_string: bool) -> None:
    result = scan_objects(text)
    assert result.unclosed_at == unclosed
    assert result.in_string is in_string


def test_candidates_are_capped_keeping_the_last() -> None:
    text = " ".join(f'{{"n": {i}}}' for i in range(MAX_CANDIDATES + 10))
    result = scan_objects(text)
    assert len(result.candidates) == MAX_CANDIDATES
    assert result.dropped == 10
    last = result.candidates[-1]
    assert text[last.start : last.end] == f'{{"n": {MAX_CANDIDATES + 9}}}'


@pytest.mark.timeout(30)
@pytest.mark.parametrize(
    ("text", "kind"),
    [
        ("{" * 2_000_000, ErrorKind.TRUNCATED),
        ('{"' * 500_000, ErrorKind.TRUNCATED),
        ("{ " * 1_000_000, ErrorKind.TRUNCATED),
        ('{"a": ' + "[" * 500_000 + "}" * 10, ErrorKind.JSON_SYNTAX),
        ('{"b": ' * 250_000 + "]" * 500_000, ErrorKind.TRUNCATED),
        ('{"a": "' + "\\\\" * 500_000 + '"}', ErrorKind.SCHEMA),
        ('{"a": "' + '\\"{' * 500_000, ErrorKind.TRUNCATED),
        ("}" * 1_000_000, ErrorKind.NO_JSON),
        ('{"a": 1} ' * 200_000, ErrorKind.SCHEMA),
    ],
    ids=[
        "braces",
        "brace-quote",
        "brace-space",
        "deep-arrays",
        "mismatch",
        "escapes",
        "escaped-quotes",
        "closers",
        "many",
    ],
)
def test_hostile_megabytes_finish(text: str, kind: ErrorKind) -> None:
    # Bounded by the timeout, not timed: the scanner is one linear pass (see bench/).
    result = extract(text, "agent-result")
    assert result.error is not None
    assert result.error.type is kind
