"""The restatement (issue 23 #4): a malformed review is asked ONCE for its verdict as the
verdict object — schema in the message, the request added to the reviewer's next prompt by
the hook — and the hook decides from the restated object; a second malformed answer stops."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from _hooks import recorded, review_result
from mergegate.integrations import HookOptions, HookState, decide_hook
from mergegate.verdicts import MalformedObjectError, read_verdict_object

SESSION = "s-restate"


@pytest.fixture
def state(tmp_path: Path) -> HookState:
    return HookState(tmp_path / "hooks")


def result(text: str, state: HookState) -> Any:
    return decide_hook(review_result(text, SESSION, state.path), HookOptions(), state)


def launch(state: HookState, reviewer: str = "code-reviewer") -> Any:
    payload = recorded("pre-tool-use-background", SESSION)
    payload["tool_input"]["subagent_type"] = reviewer
    return decide_hook(payload, HookOptions(), state)


def owed_id(state: HookState, reviewer: str = "code-reviewer") -> str:
    memory = state.read_session(SESSION)
    assert memory is not None
    review_id = memory.restate_id(reviewer)
    assert review_id is not None
    return review_id


def restated(review_id: str, verdict: str = "approve", **extra: Any) -> str:
    body: dict[str, Any] = {
        "review_id": review_id,
        "scope": "restated review",
        "verdict": verdict,
        "conditions": [],
        "findings": [],
        "summary": "All criteria met.",
        "confidence": 0.9,
    }
    body.update(extra)
    return json.dumps(body)


def test_a_malformed_review_asks_once_for_the_object_with_its_schema(state: HookState) -> None:
    answer = result("The code looks good overall. Some minor tweaks needed.", state)
    assert answer.action == "retry"
    reason = answer.output["reason"]
    review_id = owed_id(state)
    assert review_id.startswith("mg-")
    assert review_id in reason
    assert "Retry the review ONCE" in reason
    assert "JSON Schema" in reason
    assert '"required":["review_id","scope","verdict"' in reason  # the schema itself
    assert "do NOT dispatch fix subagents" in reason


def test_the_hook_adds_the_request_to_the_reviewers_next_prompt(state: HookState) -> None:
    result("No verdict here.", state)
    review_id = owed_id(state)
    answer = launch(state)
    updated = answer.output["hookSpecificOutput"]["updatedInput"]
    assert updated["run_in_background"] is False
    assert review_id in updated["prompt"]
    assert updated["prompt"].startswith(recorded("pre-tool-use-background")["tool_input"]["prompt"])
    assert "nothing but one JSON object" in updated["prompt"]
    other = launch(state, reviewer="security-reviewer")  # owes nothing
    assert "JSON object" not in other.output["hookSpecificOutput"]["updatedInput"]["prompt"]


def test_the_template_in_the_request_is_not_a_verdict_itself(state: HookState) -> None:
    result("No verdict here.", state)
    prompt = launch(state).output["hookSpecificOutput"]["updatedInput"]["prompt"]
    shape = prompt[prompt.index("Shape: ") + len("Shape: ") :].split("}. Copy")[0] + "}"
    with pytest.raises(MalformedObjectError):
        read_verdict_object(shape)  # copying the template as it is never approves


def test_an_approving_restated_object_approves_and_opens_the_latch(state: HookState) -> None:
    result("No verdict here.", state)
    answer = result(restated(owed_id(state)), state)
    assert answer.action == "approve"
    context = answer.output["hookSpecificOutput"]["additionalContext"]
    assert "code review APPROVED (retry succeeded)" in context
    memory = state.read_session(SESSION)
    assert memory is not None
    assert not memory.latch.closed
    assert memory.restate_id("code-reviewer") is None  # the debt is paid


def test_a_restated_request_for_changes_blocks_with_its_findings(state: HookState) -> None:
    result("No verdict here.", state)
    finding = {
        "id": "R1",
        "severity": "important",
        "title": "The parser drops the last line",
        "file": "app.py",
        "line": 12,
        "detail": "an off-by-one",
        "suggestion": None,
        "requirement": None,
    }
    answer = result(restated(owed_id(state), "request_changes", findings=[finding]), state)
    assert answer.action == "block"
    assert "The parser drops the last line" in answer.output["reason"]
    memory = state.read_session(SESSION)
    assert memory is not None
    assert memory.latch.closed
    assert [f.title for _k, f in memory.latch.open_findings()] == ["The parser drops the last line"]


@pytest.mark.parametrize(
    "answer",
    [
        lambda rid: restated("mg-0000000000000000"),  # another review's id: planted text
        lambda rid: "Here it is:\n```json\n" + restated(rid) + "\n```",  # not the object alone
        lambda rid: restated(rid, scope="phase 9"),  # another scope
        lambda rid: "Great work! The code quality is high.",  # prose again
    ],
)
def test_a_second_answer_without_a_valid_verdict_stops(state: HookState, answer: Any) -> None:
    first = result("The implementation is solid. No blocking issues found.", state)
    assert first.action == "retry"
    second = result(answer(owed_id(state)), state)
    assert second.action == "stop"
    assert "Code review failed twice with malformed output" in second.output["reason"]
    assert "The implementation is solid. No blocking issues found." in second.output["reason"]
    memory = state.read_session(SESSION)
    assert memory is not None
    assert memory.latch.closed  # the second malformed answer closes the latch


def test_a_prose_retry_with_an_authoritative_verdict_still_approves(state: HookState) -> None:
    """Seed 000: the retry answers "**Ready to merge? Yes**" -> APPROVED (retry succeeded)."""
    result("The code looks good overall. Some minor tweaks needed but nothing blocking.", state)
    approve = recorded("post-tool-use-approve")["tool_response"]["content"][0]["text"]
    answer = result(approve, state)
    assert answer.action == "approve"
    assert "(retry succeeded)" in answer.output["hookSpecificOutput"]["additionalContext"]
