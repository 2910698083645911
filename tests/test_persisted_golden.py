"""Every byte a run persists, pinned: DBOS's step and workflow inputs and outputs, mergegate's
rows (the run's card and plan, its state rows, its records) and the files written for people
(`run.json`, `summary.json`, `SUMMARY.md`, `unit.json`, `phase.json`, the task reports).

`tests/data/persisted/<scenario>.json` was recorded by the engine before the review outcome,
findings, verdicts, the implementer's claim and judgement and people's answers became models
(when they travelled as dicts); the same runs today must persist the same, key order
included, so a run recorded before resumes under this code and every reader of the records
sees what it saw. The scenarios reach what a happy-path run does not: findings that a fix
round resolved, findings left open at the revision cap, a failing check (a check finding,
and a claim of success the checks contradict), a reviewer that never answers (its outputs
kept), a checkpoint answered and a task taken over (`skip`).

`MERGEGATE_RECORD_PERSISTED=1` rewrites the files from the code at hand.
"""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

import pytest

from _persisted import Placeholders, dbos_stored, files_stored, rows_stored
from _plan_runs import agent, approve, invoke, make_plan, repo_with, run_args, with_fixes
from _verdict_object import finding, verdict_object

DATA = Path(__file__).parent / "data" / "persisted"


def _base(repo: Path) -> list[str]:
    return ["--repo", str(repo), "--format", "json", "--progress", "none"]


def _fixed_then_checkpoint(tmp_path: Path) -> str:
    """A/T1: the spec review asks for two fixes (one with a requirement and suggestion), the
    fix round resolves them and the re-review approves; A/CP1 waits for a person, answered
    with `resume`."""
    repo = repo_with(tmp_path / "repo")
    plan = make_plan({"P1": {"A": {"tasks": ["T1", "CP1"]}}})
    fixes = verdict_object(
        "request_changes",
        [
            finding("F-1", title="Missing test", file="x.py", detail="add one"),
            finding(
                "F-2",
                "critical",
                "Wrong greeting",
                file="A-T1.txt",
                line=None,
                suggestion="say hello",
                requirement="R1: greet",
            ),
        ],
        summary="two problems",
    )
    rev = agent(tmp_path, "rev", {"*": {"review": [{"text": fixes}, approve()]}})
    impl = agent(tmp_path, "impl")
    code, out, err = invoke(run_args(repo, impl, rev), plan, tmp_path)
    assert code == 5, err
    assert out is not None
    run_id: str = out["run_id"]
    code, out, err = invoke(["resume", run_id, "--answer", "CP1=approve", *_base(repo)])
    assert code == 0, err
    return run_id


def _escalated_then_skipped(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> str:
    """A/T1's check never passes (its claim of success contradicted, a check finding open at
    the revision cap); A/T1 is then taken over with `skip` and the unit goes on."""
    monkeypatch.setenv("MERGEGATE_RUN__ON_ESCALATION", "continue")
    repo = repo_with(tmp_path / "repo")
    plan = make_plan(
        {
            "P1": {
                "A": {"tasks": ["T1", "T2"], "checks": {"T1": ["test -f fixed.txt"]}},
                "B": {"depends_on": ["A"]},
            }
        }
    )
    impl, rev = agent(tmp_path, "impl"), agent(tmp_path, "rev")
    code, out, err = invoke([*run_args(repo, impl, rev), "--max-rounds", "1"], plan, tmp_path)
    assert code == 5, err
    assert out is not None
    run_id: str = out["run_id"]
    answer = ["--answer", "A/T1=skip", "--note", "not needed", "--who", "alice"]
    code, out, err = invoke(["resume", run_id, *answer, *_base(repo)])
    assert code == 5, err  # the phase's verification finds the skipped task's gap
    return run_id


def _reviews_that_stop(tmp_path: Path) -> str:
    """B/T1's reviewer asks for two fixes at the revision cap (review findings left open);
    every other reviewer never gives a verdict (A/T1: undecidable, its outputs kept)."""
    repo = repo_with(tmp_path / "repo")
    plan = make_plan({"P1": {"A": {}, "B": {}}})
    rev = agent(
        tmp_path,
        "rev",
        {
            "B/T1": {"review": [with_fixes("Missing test", "Unclear name")]},
            "*": {"review": [{"text": "I looked at it and have thoughts."}]},
        },
    )
    impl = agent(tmp_path, "impl")
    args = [*run_args(repo, impl, rev), "--max-rounds", "1", "--concurrency", "1"]
    code, out, err = invoke(args, plan, tmp_path)
    assert code == 3, err  # A undecidable (3) outranks B escalated (5)
    assert out is not None, err
    assert {u["id"]: u["status"] for u in out["units"]} == {
        "A": "failed",
        "B": "needs_manual_review",
    }
    return str(out["run_id"])


def _persisted(tmp_path: Path, run_id: str) -> dict[str, Any]:
    state = tmp_path / ".mergegate-state"
    databases = list(state.rglob(f"{run_id}.sqlite"))
    assert len(databases) == 1
    run_dir = state / "runs" / run_id
    clean = Placeholders(tmp_path, run_id, times=True)
    return {
        "dbos": dbos_stored(databases[0], clean),
        "rows": rows_stored(databases[0], clean),
        "files": files_stored(run_dir, clean),
    }


def _compare(name: str, stored: dict[str, Any]) -> None:
    path = DATA / f"{name}.json"
    if os.environ.get("MERGEGATE_RECORD_PERSISTED"):
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(json.dumps(stored, indent=1) + "\n")
    pinned = json.loads(path.read_text())
    for part in ("dbos", "rows", "files"):
        for key in pinned[part]:
            assert json.dumps(stored[part][key], indent=1) == json.dumps(
                pinned[part][key], indent=1
            ), f"{name}: {part}/{key} differs"
    assert sorted(stored["files"]) == sorted(pinned["files"])


def test_a_review_with_fixes_and_a_checkpoint_persist_what_they_did(tmp_path: Path) -> None:
    run_id = _fixed_then_checkpoint(tmp_path)
    _compare("fixed_then_checkpoint", _persisted(tmp_path, run_id))


def test_escalations_and_a_takeover_persist_what_they_did(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    run_id = _escalated_then_skipped(tmp_path, monkeypatch)
    _compare("escalated_then_skipped", _persisted(tmp_path, run_id))


def test_reviews_that_stop_persist_what_they_did(tmp_path: Path) -> None:
    run_id = _reviews_that_stop(tmp_path)
    _compare("reviews_that_stop", _persisted(tmp_path, run_id))


def _numbers(value: Any) -> Any:
    """The pinned form with a number where a placeholder stands for one."""
    if isinstance(value, dict):
        return {k: _numbers(v) for k, v in value.items()}
    if isinstance(value, list):
        return [_numbers(v) for v in value]
    return {"<int>": 7, "<float>": 1.5}.get(value, value) if isinstance(value, str) else value


def _recorded(name: str) -> list[dict[str, Any]]:
    """The recorded outputs of the workflows called `name`, in every scenario."""
    found = []
    for path in sorted(DATA.glob("*.json")):
        for flow in json.loads(path.read_text())["dbos"]["workflows"]:
            if flow["name"] == name and flow["output"] is not None:
                found.append(_numbers(flow["output"]))
    return found


def test_a_recorded_task_loads_as_models_and_dumps_back() -> None:
    """Through the seam, a task's recorded outcome (a task's workflow's, or as its unit's
    holds it after a person's answer) is models all the way down (the review's findings, a
    check's finding, the verdicts, the claim, its judgement, a person's answer) and dumps
    back to what was recorded, key order included."""
    from mergegate.engine._context.outcomes import (
        CheckFinding,
        CheckpointAnswer,
        TakeoverAnswer,
        VerdictEntry,
    )
    from mergegate.engine._flow.task_pipeline import task_workflow
    from mergegate.engine._flow.workflows import unit_workflow
    from mergegate.handoff import AgentResultPayload
    from mergegate.implementer import TaskJudgement
    from mergegate.review import FindingRecord
    from mergegate.store import seam_of

    tasks, units = seam_of(task_workflow), seam_of(unit_workflow)
    outcomes = []
    for recorded in _recorded("mergegate.task"):
        outcomes.append(tasks.load_out(recorded))
        assert json.dumps(tasks.dump_out(outcomes[-1])) == json.dumps(recorded)
    for recorded in _recorded("mergegate.unit"):
        unit = units.load_out(recorded)
        assert json.dumps(units.dump_out(unit)) == json.dumps(recorded)
        outcomes += unit.tasks
    seen: set[type] = set()
    for outcome in outcomes:
        values = [
            *outcome.open_findings,
            *outcome.findings,
            *outcome.verdicts,
            outcome.agent_result,
            outcome.judgement,
            outcome.answer,
        ]
        seen |= {type(v) for v in values if v is not None}
    assert seen == {
        FindingRecord,
        CheckFinding,
        VerdictEntry,
        AgentResultPayload,
        TaskJudgement,
        CheckpointAnswer,
        TakeoverAnswer,
    }


def test_a_recorded_finding_with_a_key_it_never_had_is_refused() -> None:
    """Fail closed: a recorded finding is read back exactly, never with a key made up."""
    from pydantic import ValidationError

    from mergegate.engine._context.outcomes import TaskOutcome

    recorded = next(t for t in _recorded("mergegate.task") if t["findings"])
    recorded["findings"][0]["approved"] = True
    with pytest.raises(ValidationError):
        TaskOutcome.model_validate(recorded)
