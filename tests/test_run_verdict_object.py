"""Issue 22 in `mergegate run`: the reviews of a task are verdict objects about that task
(`scope` is the task id), and the implementer's `agent-result` is a typed answer too.

Scripted agents through the `command` backend (`fakes/run_agent.py`): a reviewer's whole
stdout is its answer, so any text beside the object is malformed, and only an object that
approves this task lets it merge.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from _plan_runs import agent, events, invoke, make_plan, repo_with, run_args
from _verdict_object import finding, verdict_object
from test_review_verdict_object import hostile

CLASSES = ["prose-after", "fenced", "wrong-review-id", "wrong-scope", "condition", "duplicate-key"]


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    return repo_with(tmp_path / "repo")


def task_of(out: dict[str, Any]) -> dict[str, Any]:
    task: dict[str, Any] = out["units"][0]["tasks"][0]
    return task


@pytest.mark.parametrize("name", CLASSES)
def test_a_task_reviewed_with_anything_but_an_approving_object_never_merges(
    name: str, repo: Path, tmp_path: Path
) -> None:
    text, _ = hostile("{review_id}", "{scope}")[name]
    plan = make_plan({"P1": {"A": {}}})
    impl = agent(tmp_path, "impl")
    rev = agent(tmp_path, "rev", {"*": {"review": [{"text": text}]}})
    code, out, err = invoke(run_args(repo, impl, rev), plan, tmp_path)
    assert code != 0, err
    assert out is not None
    assert out["units"][0]["status"] != "merged"
    assert task_of(out)["decision"] != "approved"


def test_the_scope_of_a_task_review_is_the_task_id(repo: Path, tmp_path: Path) -> None:
    plan = make_plan({"P1": {"A": {"tasks": ["T1", "T2"]}}})
    impl = agent(tmp_path, "impl")
    # T2's reviewer first answers about T1: an object for another task is not this task's
    # approval, so it is asked again (its retry, in the same session, approves T2).
    about_t1 = verdict_object(scope="T1")
    rev = agent(tmp_path, "rev", {"A/T2": {"review": [{"text": about_t1}]}})
    code, _, err = invoke(run_args(repo, impl, rev), plan, tmp_path)
    assert code == 0, err
    calls = [e for e in events(tmp_path, "rev") if e["event"] == "start"]
    retries = [e for e in calls if e["head"].startswith("Your previous answer")]
    assert retries, calls
    retry = (Path(retries[0]["attempt"]) / "prompt.txt").read_text()
    assert "scope is 'T1' but this review is about 'T2'" in retry
    assert '"scope": "T2"' in retry


def test_an_approving_object_merges_and_a_blocking_finding_is_fixed_first(
    repo: Path, tmp_path: Path
) -> None:
    plan = make_plan({"P1": {"A": {}}})
    impl = agent(tmp_path, "impl")
    blocking = verdict_object("approve", [finding("F-1", "important", "Missing test", file="x")])
    rev = agent(tmp_path, "rev", {"A/T1": {"review": [{"text": blocking}, {}]}})
    code, out, err = invoke(run_args(repo, impl, rev), plan, tmp_path)
    assert code == 0, err
    assert out is not None
    assert out["units"][0]["status"] == "merged"
    kinds = [e["kind"] for e in events(tmp_path, "impl") if e["event"] == "start"]
    assert kinds == ["implement", "fix"]  # "approve" with a blocking finding went to a fix


def test_an_agent_result_beside_prose_is_asked_again_then_accepted(
    repo: Path, tmp_path: Path
) -> None:
    plan = make_plan({"P1": {"A": {}}})
    chatty = {"text": "All done, here is my result:\n{result}"}
    impl = agent(tmp_path, "impl", {"A/T1": {"implement": [chatty, {}]}})
    code, _, err = invoke(run_args(repo, impl, agent(tmp_path, "rev")), plan, tmp_path)
    assert code == 0, err
    calls = [e for e in events(tmp_path, "impl") if e["event"] == "start"]
    assert [e["kind"] for e in calls] == ["implement", "implement"]
    second = Path(calls[1]["attempt"]) / "prompt.txt"
    assert "beside the JSON object" in second.read_text()  # the exact error, fed back
    schema = json.loads((Path(calls[0]["attempt"]) / "answer-schema.json").read_text())
    assert schema["properties"]["task_id"]["enum"] == ["T1"]
