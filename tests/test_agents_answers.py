"""`mergegate.agents.answers`: what each mechanism takes from an answer's schema.

The strict subset is what a strict structured-output API accepts (checked with the model
server's own checker); every output a generated grammar allows is a valid answer (the grammar
read as a regular expression, `_gbnf`, and drawn from with hypothesis).
"""

from __future__ import annotations

import json
import re

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from _gbnf import grammar_regex
from mergegate.agents.answers import (
    after_edit_blocks,
    answer_grammar,
    answer_schema,
    strict_schema,
)
from mergegate.handoff import AgentResultPayload, extract
from mergegate.implementer import result_schema
from mergegate.testing.model_server._structured import _strict_problems as strict_problems
from mergegate.verdicts import VerdictObject
from mergegate.verify._judgement import VerifierAnswer
from mergegate.verify._judgement import answer_schema as verifier_answer_schema


def _utf8(text: str) -> bool:
    return not any("\ud800" <= c <= "\udfff" for c in text)


@pytest.mark.parametrize(
    "schema",
    [
        answer_schema("verdict", VerdictObject, {"review_id": "mg-1", "scope": "t"}),
        result_schema("T1"),
        answer_schema("verifier-answer", VerifierAnswer, {"verification_id": "v"}),
    ],
    ids=["verdict", "agent-result", "verifier-answer"],
)
def test_the_strict_subset_is_what_a_strict_api_accepts(schema: object) -> None:
    strict = strict_schema(schema.schema_object())  # type: ignore[attr-defined]
    assert list(strict_problems(strict)) == []
    assert strict["additionalProperties"] is False


def test_a_free_form_object_is_left_out_of_the_strict_subset() -> None:
    strict = strict_schema(AgentResultPayload.model_json_schema())
    assert "help_context" not in strict["properties"]  # any keys: no strict API can say it
    assert set(strict["required"]) == set(strict["properties"])


def test_a_pin_names_an_existing_property() -> None:
    with pytest.raises(ValueError, match="no such property"):
        answer_schema("verdict", VerdictObject, {"nonce": "x"})


@settings(max_examples=60, deadline=None)
@given(task=st.from_regex(r"T[0-9]{1,3}", fullmatch=True), data=st.data())
def test_whatever_the_agent_result_grammar_allows_is_a_consistent_result(
    task: str, data: st.DataObject
) -> None:
    grammar = answer_grammar(result_schema(task).grammar_object())
    text = data.draw(
        st.from_regex(re.compile(grammar_regex(grammar)), fullmatch=True).filter(_utf8)
    )
    found = extract(text, "agent-result", context={"task_id": task}, alone=True)
    assert found.ok, (text, found.error)  # valid, and consistent (check_agent_result)


@settings(max_examples=60, deadline=None)
@given(data=st.data())
def test_a_success_the_agent_result_grammar_allows_asks_for_no_help(data: st.DataObject) -> None:
    # A help request counts from the JSON alone: a success beside `requested_help: true` used
    # to stop the demo's first task (a working greet.py) for an advisor nobody configured.
    grammar = answer_grammar(result_schema("T1").grammar_object())
    text = data.draw(
        st.from_regex(re.compile(grammar_regex(grammar)), fullmatch=True).filter(_utf8)
    )
    result = json.loads(text)
    assert not (result["success"] and result["requested_help"]), text


@settings(max_examples=40, deadline=None)
@given(
    ids=st.lists(
        st.sampled_from(["sc-1", "sc-2", "sc-3", "sc-4", "sc-5"]),
        min_size=1,
        max_size=5,
        unique=True,
    ),
    data=st.data(),
)
def test_whatever_the_verifier_grammar_allows_answers_every_criterion(
    ids: list[str], data: st.DataObject
) -> None:
    from mergegate.verify._verifier import _answer_schema

    grammar = answer_grammar(_answer_schema("mgv-1", ids).grammar_object(), max_items=3)
    text = data.draw(
        st.from_regex(re.compile(grammar_regex(grammar)), fullmatch=True).filter(_utf8)
    )
    context = {"verification_id": "mgv-1", "criteria": ids}
    found = extract(text, verifier_answer_schema(), context=context, alone=True)
    # the ids are pinned and their count fixed; only a repeated id can still be refused
    repeated = len({j["id"] for j in json.loads(text)["criteria"]}) < len(ids)
    assert found.ok or repeated, (text, found.error)


@pytest.mark.parametrize(
    ("reply", "answer"),
    [
        ('{"a": 1}', '{"a": 1}'),
        ('FILE: a.py\n<<<<<<< CONTENT\nx\n>>>>>>> END\n{"a": 1}', '{"a": 1}'),
        ("FILE: a.py\n<<<<<<< CONTENT\nx\n>>>>>>> END\n", ""),
        (
            "FILE: a\n<<<<<<< CONTENT\n>>>>>>> END\nFILE: b\n<<<<<<< CONTENT\n>>>>>>> END  \n{}",
            "{}",
        ),
        (
            "FILE: a\n<<<<<<< CONTENT\n>>>>>>> END tail\n{}",
            "FILE: a\n<<<<<<< CONTENT\n>>>>>>> END tail\n{}",
        ),
    ],
)
def test_the_answer_of_an_edit_reply_is_what_follows_its_last_block(
    reply: str, answer: str
) -> None:
    assert after_edit_blocks(reply) == answer


def test_a_schema_is_generated_once_and_a_pin_never_reaches_the_next_call() -> None:
    """The model's schema is cached; each call pins its own copy, byte for byte what
    pydantic generates."""
    pinned = json.loads(answer_schema("v", VerdictObject, {"review_id": "mg-1"}).json_schema)
    plain = answer_schema("v", VerdictObject)
    assert pinned["properties"]["review_id"]["enum"] == ["mg-1"]
    assert plain.json_schema == json.dumps(VerdictObject.model_json_schema(), ensure_ascii=False)
    again = json.loads(answer_schema("v", VerdictObject, {"review_id": "mg-2"}).json_schema)
    assert again["properties"]["review_id"]["enum"] == ["mg-2"]
