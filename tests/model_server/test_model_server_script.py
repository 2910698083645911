"""Scripts: loading from files, validation, and the turn-selection rules."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from pydantic import ValidationError

from mergegate.errors import UsageError
from mergegate.testing.model_server import Fault, FaultKind, Script, ToolCall, Turn, load_script
from mergegate.testing.model_server._conversation import Api, view_request
from mergegate.testing.model_server._selector import TurnSelector

SCRIPT_DATA = {
    "model": "scripted",
    "turns": [
        {"text": "first"},
        {"tool_calls": [{"name": "Write", "arguments": {"file_path": "a.txt", "content": "x"}}]},
        {"match": "MARK", "text": "marked", "fault": {"kind": "rate_limit", "count": 2}},
    ],
}

TOML_SCRIPT = """
model = "scripted"

[[turns]]
text = "first"

[[turns]]
[[turns.tool_calls]]
name = "Write"
arguments = { file_path = "a.txt", content = "x" }

[[turns]]
match = "MARK"
text = "marked"
fault = { kind = "rate_limit", count = 2 }
"""


def test_json_and_toml_scripts_load_to_the_same_value(tmp_path: Path) -> None:
    as_json = tmp_path / "s.json"
    as_json.write_text(json.dumps(SCRIPT_DATA))
    as_toml = tmp_path / "s.toml"
    as_toml.write_text(TOML_SCRIPT)
    loaded = load_script(as_json)
    assert loaded == load_script(as_toml)
    assert loaded.turns[1].tool_calls[0] == ToolCall(
        name="Write", arguments={"file_path": "a.txt", "content": "x"}
    )
    assert loaded.turns[2].fault == Fault(kind=FaultKind.RATE_LIMIT, count=2)


@pytest.mark.parametrize(
    ("name", "content", "needle"),
    [
        ("s.json", "{not json", "invalid script"),
        ("s.toml", "turns = 3", "invalid script"),
        ("s.yaml", "turns: []", ".json or .toml"),
        ("s.json", '{"turns": []}', "invalid script"),
        ("s.json", '{"turns": [{"match": "x"}]}', "needs text, tool_calls or a fault"),
        ("s.json", '{"turns": [{"text": "a", "colour": "red"}]}', "colour"),
    ],
)
def test_bad_scripts_are_usage_errors_naming_the_file(
    tmp_path: Path, name: str, content: str, needle: str
) -> None:
    path = tmp_path / name
    path.write_text(content)
    with pytest.raises(UsageError, match=r"s\.") as info:
        load_script(path)
    assert needle in str(info.value)
    assert info.value.exit_code == 2


def test_missing_script_file_is_a_usage_error(tmp_path: Path) -> None:
    with pytest.raises(UsageError, match="cannot read script"):
        load_script(tmp_path / "absent.json")


def test_a_turn_must_say_something() -> None:
    with pytest.raises(ValidationError):
        Turn()


def _anthropic(*messages: dict[str, object]) -> dict[str, object]:
    return {"model": "m", "messages": list(messages)}


def _user(text: str) -> dict[str, object]:
    return {"role": "user", "content": [{"type": "text", "text": text}]}


ASSISTANT = {"role": "assistant", "content": [{"type": "tool_use", "id": "t", "name": "W"}]}
TOOL_RESULT = {"role": "user", "content": [{"type": "tool_result", "tool_use_id": "t"}]}


def test_sequential_turns_are_served_in_order_then_exhausted() -> None:
    selector = TurnSelector(Script(turns=[Turn(text="a"), Turn(text="b")]))
    view = view_request(Api.ANTHROPIC_MESSAGES, _anthropic(_user("hi")))
    served = [selector.select(view).index for _ in range(3)]
    assert served == [0, 1, None]


def test_repeat_last_keeps_answering_with_the_last_sequential_turn() -> None:
    script = Script(turns=[Turn(text="a"), Turn(text="b")], when_exhausted="repeat_last")
    selector = TurnSelector(script)
    view = view_request(Api.CHAT_COMPLETIONS, {"messages": [{"role": "user", "content": "x"}]})
    assert [selector.select(view).index for _ in range(4)] == [0, 1, 1, 1]


def test_matched_turns_follow_the_assistant_turns_since_the_prompt() -> None:
    script = Script(
        turns=[
            Turn(text="unmatched"),
            Turn(match="EDIT", tool_calls=[ToolCall(name="Write")]),
            Turn(match="EDIT", text="done"),
        ]
    )
    selector = TurnSelector(script)
    first = view_request(Api.ANTHROPIC_MESSAGES, _anthropic(_user("please EDIT")))
    after_tool = view_request(
        Api.ANTHROPIC_MESSAGES, _anthropic(_user("please EDIT"), ASSISTANT, TOOL_RESULT)
    )
    beyond = view_request(
        Api.ANTHROPIC_MESSAGES,
        _anthropic(_user("please EDIT"), ASSISTANT, TOOL_RESULT, ASSISTANT, TOOL_RESULT),
    )
    # Stateless: asking twice (a retry) gives the same turn; the group's last turn repeats.
    assert [selector.select(v).index for v in (first, first, after_tool, beyond)] == [1, 1, 2, 2]
    # Matched turns never move the sequential cursor.
    other = view_request(Api.ANTHROPIC_MESSAGES, _anthropic(_user("no marker")))
    assert selector.select(other).index == 0


def test_a_new_prompt_restarts_the_count_for_its_own_marker() -> None:
    script = Script(turns=[Turn(match="ONE", text="1"), Turn(match="TWO", text="2")])
    selector = TurnSelector(script)
    resumed = view_request(
        Api.ANTHROPIC_MESSAGES,
        _anthropic(_user("ONE"), {"role": "assistant", "content": "1"}, _user("now TWO")),
    )
    assert selector.select(resumed).index == 1


def test_fault_with_a_count_is_injected_that_many_times_then_the_turn_answers() -> None:
    fault = Fault(kind=FaultKind.HTTP_ERROR, status=503, count=2)
    selector = TurnSelector(Script(turns=[Turn(text="ok", fault=fault), Turn(text="next")]))
    view = view_request(Api.RESPONSES, {"input": "hi"})
    picks = [selector.select(view) for _ in range(4)]
    assert [(p.index, p.fault is not None) for p in picks] == [
        (0, True),
        (0, True),
        (0, False),
        (1, False),
    ]


def test_a_fault_without_count_never_lets_a_sequential_script_advance() -> None:
    selector = TurnSelector(
        Script(turns=[Turn(fault=Fault(kind=FaultKind.RATE_LIMIT)), Turn(text="never")])
    )
    view = view_request(Api.RESPONSES, {"input": "hi"})
    assert {selector.select(view).index for _ in range(5)} == {0}


def _input_text(text: str) -> dict[str, object]:
    return {"type": "message", "role": "user", "content": [{"type": "input_text", "text": text}]}


def test_views_read_each_api_history() -> None:
    responses = view_request(
        Api.RESPONSES,
        {
            "model": "mock",
            "stream": True,
            "tools": [{"type": "function", "name": "exec_command"}, {"type": "web_search"}],
            "input": [
                {"type": "message", "role": "developer", "content": "rules"},
                _input_text("ctx"),
                _input_text("GO"),
                {"type": "function_call", "name": "exec_command", "call_id": "c"},
                {"type": "function_call_output", "call_id": "c", "output": "done"},
            ],
        },
    )  # fmt: skip
    assert (responses.model, responses.stream, responses.prompt) == ("mock", True, "ctx\nGO")
    assert responses.turns_since_prompt == 1
    assert responses.tool_names == ("exec_command", "web_search")
    chat = view_request(
        Api.CHAT_COMPLETIONS,
        {
            "tools": [{"type": "function", "function": {"name": "f"}}],
            "messages": [
                {"role": "system", "content": "s"},
                {"role": "user", "content": "ask"},
                {"role": "assistant", "tool_calls": []},
                {"role": "tool", "content": "r"},
            ],
        },
    )
    assert (chat.prompt, chat.turns_since_prompt, chat.tool_names) == ("ask", 1, ("f",))


@pytest.mark.parametrize("body", [None, [], "text", {"messages": "nope", "tools": 3}])
def test_views_tolerate_malformed_bodies(body: object) -> None:
    view = view_request(Api.ANTHROPIC_MESSAGES, body)
    assert (view.prompt, view.turns_since_prompt, view.tool_names) == ("", 0, ())


EXAMPLES = Path(__file__).resolve().parents[2] / "examples" / "model-server"


@pytest.mark.parametrize("name", ["claude-write.toml", "codex-shell.json"])
def test_documented_example_scripts_load(name: str) -> None:
    script = load_script(EXAMPLES / name)
    assert any(turn.tool_calls for turn in script.turns)
    assert any(turn.match is None for turn in script.turns)
