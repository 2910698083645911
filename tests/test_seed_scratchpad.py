"""Seed 002's scratchpad (issue 25 item 3): when an implementer's agent-result names a
`scratchpad_path`, `mergegate run` reads the file and validates it (schema `scratchpad`),
asks again in the same session while it is invalid (bounded, with backoff), and records each
failure by type."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from click.testing import CliRunner

from _plan_runs import agent, events, invoke, make_plan, repo_with, run_args
from mergegate.cli import cli

RESULT = json.dumps(
    {
        "task_id": "T1",
        "success": True,
        "completed_normally": True,
        "scratchpad_path": "notes/T1.json",
    }
)
GOOD = json.dumps({"task_id": "T1", "summary": "wrote the file", "remaining": []})


def _run(tmp_path: Path, steps: list[dict[str, Any]], *extra: str) -> tuple[int, Any, str]:
    repo = repo_with(
        tmp_path / "repo",
        {"README.md": "base\n", "mergegate.toml": "[retry]\njson_retry_delay = 0.01\n"},
    )
    impl = agent(tmp_path, "impl", {"A/T1": {"implement": steps}})
    plan = make_plan({"P1": {"A": {}}})
    return invoke(run_args(repo, impl, agent(tmp_path, "rev"), *extra), plan, tmp_path)


def _components(run_dir: str) -> dict[str, Any]:
    stats = CliRunner().invoke(cli, ["stats", run_dir, "--format", "json"])
    assert stats.exit_code == 0, stats.output
    found: dict[str, Any] = {}

    def walk(data: Any) -> None:
        if isinstance(data, dict):
            if "component" in data and "failure_types" in data:
                found[data["component"]] = data
            for value in data.values():
                walk(value)
        elif isinstance(data, list):
            for value in data:
                walk(value)

    walk(json.loads(stats.stdout))
    return found


def test_an_invalid_scratchpad_is_asked_for_again_in_the_same_session(tmp_path: Path) -> None:
    """Seed 002, "4. Scratchpad Validation" / "A. Scratchpad Retry Enhancement" ("Verify
    `--continue` flag usage in `retry_agent_for_scratchpad()`", "Add structured error
    tracking", "Implement exponential backoff"): the scratchpad the result names is not
    JSON; the implementer is asked again in its session, with the error, to write it again;
    the second file validates and the task merges. The failure is counted by its type."""
    first = {"write": {"A-T1.txt": "A T1\n", "notes/T1.json": "done: wrote it"}, "text": RESULT}
    second = {"write": {"notes/T1.json": GOOD}, "text": "rewritten"}
    code, out, err = _run(tmp_path, [first, second])
    assert code == 0, err
    assert out is not None
    calls = [e for e in events(tmp_path, "impl") if e["event"] == "start"]
    assert [e["kind"] for e in calls] == ["implement", "implement"]
    assert calls[1]["session"] == calls[0]["session"]  # the same session (--continue)
    retry = (Path(calls[1]["attempt"]) / "prompt.txt").read_text()
    assert "notes/T1.json" in retry
    assert "scratchpad" in retry
    components = _components(out["run_dir"])
    assert components["handoff:scratchpad"]["failure_types"] == {"no_json": 1}
    assert components["handoff:scratchpad"]["succeeded"] == 1


def test_a_scratchpad_still_invalid_at_its_cap_ends_the_task(tmp_path: Path) -> None:
    """Seed 002 ("Hard limit of 5 retries, then escalate"): `retry.max_attempts.scratchpad`
    bounds the asks; still invalid (here: a schema failure, no `summary`), the task ends for
    a person with the scratchpad named in the reason, and nothing merges."""
    bad = json.dumps({"task_id": "T1"})
    first = {"write": {"A-T1.txt": "A T1\n", "notes/T1.json": bad}, "text": RESULT}
    code, out, err = _run(
        tmp_path,
        [first, {"write": {"notes/T1.json": bad}, "text": "again"}],
    )
    assert code != 0, err
    assert out is not None
    unit = out["units"][0]
    assert unit["status"] != "merged"
    (task,) = unit["tasks"]
    assert "scratchpad" in task["reason"]
    assert "notes/T1.json" in task["reason"]
    calls = [e for e in events(tmp_path, "impl") if e["event"] == "start"]
    assert 2 <= len(calls) <= 7  # bounded by the cap
    components = _components(out["run_dir"])
    assert set(components["handoff:scratchpad"]["failure_types"]) == {"schema"}


def test_a_scratchpad_outside_the_work_tree_is_never_read(tmp_path: Path) -> None:
    """The scratchpad is the agent's file: a path that leaves the work tree is refused
    without reading it or asking again, and the task does not merge."""
    secret = tmp_path / "secret.json"
    secret.write_text(GOOD)
    result = json.loads(RESULT) | {"scratchpad_path": str(secret)}
    first = {"write": {"A-T1.txt": "A T1\n"}, "text": json.dumps(result)}
    code, out, err = _run(tmp_path, [first])
    assert code != 0, err
    assert out is not None
    (task,) = out["units"][0]["tasks"]
    assert "not a file path inside the work tree" in task["reason"]
    calls = [e for e in events(tmp_path, "impl") if e["event"] == "start"]
    assert len(calls) == 1
