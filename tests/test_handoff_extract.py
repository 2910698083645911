"""Extraction: one table row per error type and per extraction rule, plus properties."""

from __future__ import annotations

import json
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from mergegate.handoff import ErrorKind, extract

GOOD = {"task_id": "T-1", "success": True, "completed_normally": True, "todos": []}
GOOD_TEXT = json.dumps(GOOD)


def agent(**changes: Any) -> str:
    return json.dumps({**GOOD, **changes})


# (id, text, expected kind or None for valid, a fragment the details must contain)
ERROR_TABLE: list[tuple[str, str, ErrorKind, str]] = [
    ("empty", "", ErrorKind.EMPTY, "empty"),
    ("whitespace", " \n\t\n", ErrorKind.EMPTY, "whitespace"),
    ("prose only", "I finished the task, all good.", ErrorKind.NO_JSON, "no '{'"),
    ("prose braces", "use {name} and {other} here", ErrorKind.NO_JSON, "line 1, column 5"),
    ("unquoted keys", "{task_id: 1}", ErrorKind.NO_JSON, "double-quoted"),
    (
        "trailing comma",
        '{"task_id": "T-1", "success": true, "completed_normally": true,}',
        ErrorKind.JSON_SYNTAX,
        "trailing comma",
    ),
    ("single quotes", "{'task_id': 'T-1'}", ErrorKind.JSON_SYNTAX, "double quotes"),
    ("comment", '{"task_id": "T-1", // note\n "success": true}', ErrorKind.JSON_SYNTAX, "comments"),
    ("NaN", '{"task_id": "T-1", "execution_time": NaN}', ErrorKind.JSON_SYNTAX, "NaN"),
    ("Infinity", '{"execution_time": Infinity}', ErrorKind.JSON_SYNTAX, "Infinity"),
    ("raw newline in string", '{"task_id": "T\n1"}', ErrorKind.JSON_SYNTAX, "line 1"),
    ("mismatched bracket", '{"todos": [1, 2}', ErrorKind.JSON_SYNTAX, "invalid JSON"),
    ("cut mid-object", '{"task_id": "T-1", "success": tr', ErrorKind.TRUNCATED, "cut off"),
    ("cut in string", '{"task_id": "T-', ErrorKind.TRUNCATED, "inside a string"),
    ("cut in array", '{"todos": ["a", "b"', ErrorKind.TRUNCATED, "1 array"),
    ("only an opener", "Here it is: {", ErrorKind.TRUNCATED, "line 1, column 13"),
    (
        "example then cut answer",
        f"Example: {GOOD_TEXT}\nAnswer: " + '{"task_id": "T-2", "success": fal',
        ErrorKind.TRUNCATED,
        "line 2, column 9",
    ),
    (
        "duplicate key",
        '{"task_id": "T-1", "success": true, "success": false, "completed_normally": true}',
        ErrorKind.DUPLICATE_KEY,
        '"success"',
    ),
    (
        "nested duplicate key",
        '{"task_id": "T-1", "success": true, "completed_normally": true, '
        '"code_review_status": {"a": 1, "a": 2}}',
        ErrorKind.DUPLICATE_KEY,
        '"a"',
    ),
    (
        "missing field",
        '{"task_id": "T-1", "success": true}',
        ErrorKind.SCHEMA,
        "completed_normally",
    ),
    ("yes is not a bool", agent(success="yes"), ErrorKind.SCHEMA, 'got "yes"'),
    ("1 is not a bool", agent(success=1), ErrorKind.SCHEMA, "success"),
    ("12 string is not a number", agent(execution_time="12"), ErrorKind.SCHEMA, 'got "12"'),
    ("unknown field", agent(sucess=True), ErrorKind.SCHEMA, "sucess: unknown field"),
    ("empty task id", agent(task_id=""), ErrorKind.SCHEMA, "task_id"),
    ("wrong item type", agent(todos=[1]), ErrorKind.SCHEMA, "todos[0]"),
    (
        "success without normal completion",
        agent(completed_normally=False),
        ErrorKind.SEMANTIC,
        "completed_normally is false",
    ),
    ("success with errors", agent(errors=["boom"]), ErrorKind.SEMANTIC, "errors lists 1"),
    (
        "answer then another object",
        f'{GOOD_TEXT}\nAlso note: {{"debug": true}}',
        ErrorKind.SCHEMA,
        "debug",
    ),
]


@pytest.mark.parametrize(
    ("text", "kind", "fragment"),
    [row[1:] for row in ERROR_TABLE],
    ids=[row[0] for row in ERROR_TABLE],
)
def test_error_taxonomy(text: str, kind: ErrorKind, fragment: str) -> None:
    result = extract(text, "agent-result")
    assert not result.ok
    assert result.value is None
    assert result.error is not None
    assert result.error.type is kind
    assert fragment in result.error.details
    assert result.error.output_sample == text[:500]


VALID_TABLE: list[tuple[str, str, str]] = [
    ("bare object", GOOD_TEXT, "T-1"),
    ("fenced", f"Done.\n```json\n{GOOD_TEXT}\n```\nBye.", "T-1"),
    ("prose around", f"Summary first. {GOOD_TEXT} That's all, {{name}} aside.", "T-1"),
    (
        "echoed example then answer",
        f"The format is {agent(task_id='<id>')}.\nMy answer:\n{agent(task_id='T-9')}",
        "T-9",
    ),
    (
        "invalid example then answer",
        '{"task_id": "<string>", "success": <true|false>}\n' + agent(task_id="T-7"),
        "T-7",
    ),
    ("answer then empty object", f"{agent(task_id='T-3')}\nIt returns {{}} when empty.", "T-3"),
    ("braces inside strings", agent(task_id='T-"}{["'), 'T-"}{["'),
    ("escaped backslash before quote", agent(task_id="T\\"), "T\\"),
    ("unicode", agent(task_id="T-ü-✓"), "T-ü-✓"),
    ("stray closers before", "]] }} " + agent(task_id="T-4"), "T-4"),
    ("pretty printed", json.dumps({**GOOD, "task_id": "T-5"}, indent=4), "T-5"),
]


@pytest.mark.parametrize(
    ("text", "task_id"), [row[1:] for row in VALID_TABLE], ids=[row[0] for row in VALID_TABLE]
)
def test_extraction_rules(text: str, task_id: str) -> None:
    result = extract(text, "agent-result")
    assert result.ok, result.error
    assert result.value.task_id == task_id
    assert result.span is not None
    start, end = result.span
    assert json.loads(text[start:end])["task_id"] == task_id


def test_error_position_points_at_the_fault() -> None:
    text = 'Intro line\n{"task_id": "T-1",\n "success": true,\n}'
    result = extract(text, "agent-result")
    assert result.error is not None
    assert result.error.type is ErrorKind.JSON_SYNTAX
    assert (result.error.line, result.error.column) == (4, 1)


def test_output_sample_is_first_500_characters() -> None:
    text = "x" * 2000
    result = extract(text, "agent-result")
    assert result.error is not None
    assert result.error.output_sample == "x" * 500


def test_non_strict_ignores_unknown_fields_but_not_types() -> None:
    assert extract(agent(sucess=True), "agent-result", strict=False).ok
    loose = extract(agent(success="yes"), "agent-result", strict=False)
    assert loose.error is not None
    assert loose.error.type is ErrorKind.SCHEMA


def test_deeply_nested_object_is_a_syntax_error_not_a_crash() -> None:
    text = '{"a": ' + "[" * 100_000 + "]" * 100_000 + "}"
    result = extract(text, "agent-result")
    assert result.error is not None
    assert result.error.type is ErrorKind.JSON_SYNTAX


def test_huge_integer_is_a_syntax_error() -> None:
    result = extract('{"task_id": "T", "execution_time": ' + "9" * 5000 + "}", "agent-result")
    assert result.error is not None
    assert result.error.type is ErrorKind.JSON_SYNTAX


# ------------------------------------------------------------------ properties

_json_values = st.recursive(
    st.none() | st.booleans() | st.integers() | st.text(max_size=20),
    lambda inner: (
        st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=8), inner, max_size=3)
    ),
    max_leaves=10,
)
_prose = st.text(alphabet=st.characters(blacklist_characters="{}[]\"'"), max_size=40)


@st.composite
def payload_texts(draw: st.DrawFn) -> tuple[str, dict[str, Any]]:
    data = {
        "task_id": draw(st.text(min_size=1, max_size=20)),
        "success": draw(st.booleans()),
        "completed_normally": True,
        "todos": draw(st.lists(st.text(max_size=10), max_size=3)),
        "code": draw(_json_values),
    }
    body = json.dumps(
        data, indent=draw(st.sampled_from([None, 2])), ensure_ascii=draw(st.booleans())
    )
    return draw(_prose) + body + draw(_prose), data


@settings(max_examples=150, deadline=None)
@given(payload_texts(), st.data())
def test_no_truncation_is_accepted_with_different_data(
    case: tuple[str, dict[str, Any]], data: st.DataObject
) -> None:
    text, expected = case
    cut = data.draw(st.integers(min_value=0, max_value=len(text)))
    result = extract(text[:cut], "code-free", registry=_ANY_OBJECT)
    if result.ok:
        assert result.data == expected
    else:
        assert result.error is not None
        assert result.error.type in (ErrorKind.EMPTY, ErrorKind.NO_JSON, ErrorKind.TRUNCATED)


@settings(max_examples=150, deadline=None)
@given(st.text(max_size=300))
def test_arbitrary_text_never_raises(text: str) -> None:
    result = extract(text, "agent-result")
    assert result.ok == (result.error is None)


def _any_object_registry() -> Any:
    from mergegate.handoff import JsonSchemaFile, SchemaRegistry

    return SchemaRegistry([JsonSchemaFile("code-free", {"type": "object"})])


_ANY_OBJECT = _any_object_registry()
