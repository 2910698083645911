"""A run recorded by another engine schema (issue 26, item 3): the engine schema is part of
the DBOS application version (`ENGINE_SCHEMA`), DBOS recovers only its own version's unfinished
workflows, and this code's steps are not in the order the other schema recorded them. `resume`
of such a run stops at once with a message that says so and what to do, instead of waiting
forever for workflows nothing executes."""

from __future__ import annotations

import ast
import json
import signal
import sqlite3
import subprocess
import time
from pathlib import Path

import pytest

from _plan_runs import agent, make_plan, repo_with, run_args, spawn
from mergegate import __version__
from mergegate.ids import app_version
from mergegate.store import APP_VERSION, ENGINE_SCHEMA

SRC = Path(__file__).resolve().parents[1] / "src" / "mergegate"

RECORDED_NAMES = {
    8: frozenset(
        {
            *("mergegate.run", "mergegate.phase", "mergegate.unit", "mergegate.task"),
            *("mergegate.adopt", "mergegate.advance", "mergegate.agent", "mergegate.answer"),
            *("mergegate.backoff", "mergegate.check", "mergegate.clock", "mergegate.consult"),
            *("mergegate.collect_result", "mergegate.commit_check", "mergegate.fleet_finish"),
            *("mergegate.gsd_summary", "mergegate.gsd_verification", "mergegate.human"),
            *("mergegate.merge", "mergegate.outside_summary", "mergegate.prior"),
            *("mergegate.publish", "mergegate.request_stop", "mergegate.reset"),
            *("mergegate.retire_workspace", "mergegate.review", "mergegate.start_unit"),
            *("mergegate.takeovers", "mergegate.tip", "mergegate.verify"),
        }
    ),
}
"""The workflow and step names each engine schema records, from 8 on (8: a task's commit and
its first checks are one step, `mergegate.commit_check`)."""

SLOW = 30.0
"""Seconds the implementer works: the interrupt lands while it runs."""


def _interrupted_run(tmp_path: Path) -> tuple[Path, Path, str]:
    """A run stopped with Ctrl-C in its first task: its repository, state folder and id."""
    plan = make_plan({"P1": {"A": {}}})
    plan_file = tmp_path / "plan.json"
    plan_file.write_text(plan.model_dump_json(by_alias=True))
    repo, state = repo_with(tmp_path / "repo"), tmp_path / "state"
    impl = agent(tmp_path, "impl", {"A/T1": {"implement": [{"sleep": SLOW}]}})
    rev = agent(tmp_path, "rev", {})
    proc = spawn(run_args(repo, impl, rev, str(plan_file)), {"MERGEGATE_STATE_DIR": str(state)})
    log = tmp_path / "impl-state" / "log.jsonl"
    deadline = time.monotonic() + 60
    while not (log.is_file() and "implement" in log.read_text()):
        assert time.monotonic() < deadline, "the implementer never started"
        time.sleep(0.05)
    proc.send_signal(signal.SIGINT)
    out, err = proc.communicate(timeout=120)
    assert proc.returncode == 130, err[-3000:]
    return repo, state, json.loads(out)["run_id"]


def _recorded_by(database: Path, version: str) -> int:
    """The run's workflows as another version of mergegate would have recorded them: DBOS
    tells versions apart by this column alone. How many there are."""
    with sqlite3.connect(database) as conn:
        return conn.execute(
            "UPDATE workflow_status SET application_version = ?", (version,)
        ).rowcount


@pytest.mark.timeout(300)
def test_resume_of_a_run_the_previous_engine_schema_left_unfinished_is_refused(
    tmp_path: Path,
) -> None:
    repo, state, run_id = _interrupted_run(tmp_path)
    databases = list(state.rglob(f"{run_id}.sqlite"))
    assert len(databases) == 1
    previous = app_version(__version__, ENGINE_SCHEMA - 1)
    assert previous != APP_VERSION
    assert _recorded_by(databases[0], previous) > 0
    proc = spawn(
        ["resume", run_id, "--repo", str(repo), "--format", "json", "--progress", "none"],
        {"MERGEGATE_STATE_DIR": str(state)},
    )
    try:
        _out, err = proc.communicate(timeout=60)
    except subprocess.TimeoutExpired:
        proc.kill()
        proc.communicate()
        pytest.fail("resume waited for workflows nothing executes")
    assert proc.returncode == 2, err[-3000:]
    assert "Traceback" not in err
    assert f"run {run_id} was recorded by another version of mergegate ({previous})" in err
    assert f"mergegate cancel {run_id}" in err


def _declared_names() -> set[str]:
    """The names of every `@step("…")` and `@workflow("…")` in mergegate's source."""
    names = set()
    for path in SRC.rglob("*.py"):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if not isinstance(node, ast.FunctionDef):
                continue
            for deco in node.decorator_list:
                if (
                    isinstance(deco, ast.Call)
                    and isinstance(deco.func, ast.Name)
                    and deco.func.id in ("step", "workflow")
                    and deco.args
                    and isinstance(deco.args[0], ast.Constant)
                ):
                    names.add(str(deco.args[0].value))
    return names


def test_a_step_renamed_or_added_comes_with_a_new_engine_schema() -> None:
    """DBOS replays a workflow's steps by their order and names: code that records other
    names than the schema it claims would replay another schema's runs wrongly. A change of
    the names is a new `ENGINE_SCHEMA`, pinned here with its names."""
    assert ENGINE_SCHEMA in RECORDED_NAMES, f"pin the names engine schema {ENGINE_SCHEMA} records"
    assert _declared_names() == RECORDED_NAMES[ENGINE_SCHEMA]
