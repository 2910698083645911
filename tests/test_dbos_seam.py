"""The DBOS seam: what the engine's workflows and steps hand to DBOS is what they handed before
they were typed, value for value and key for key, and the typed models read it back.

`tests/data/dbos_seam/recorded.json` is what mergegate stored for a run (a checkpoint that
waits for a person, answered with `resume`: two generations, every workflow of the engine)
before the workflows took and returned models: each workflow's inputs and output and each
step's output, read out of the run's SQLite database (DBOS's pickles, unpickled) and made
independent of the machine (paths, commits, ids and times replaced by placeholders; a tuple
stays distinguishable from a list). The same run today must store the same; and each recorded
value must load into the seam's model and dump back to itself, so a run recorded by the
previous code of the same engine schema resumes under this one.

`MERGEGATE_RECORD_SEAM=1` rewrites the file from the code at hand (on the old code, once).
"""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

import pytest
from pydantic import TypeAdapter

from _persisted import Placeholders, dbos_stored, dbos_workflows
from _plan_runs import agent, invoke, make_plan, repo_with, run_args

RECORDED = Path(__file__).parent / "data" / "dbos_seam" / "recorded.json"


def _checkpoint_run(tmp_path: Path) -> tuple[str, Path]:
    """A run that waits at a checkpoint, answered with `resume`: the run's id and database."""
    repo = repo_with(tmp_path / "repo")
    plan = make_plan({"P1": {"A": {"tasks": ["T1", "CP1", "T2"]}}, "P2": {"B": {}}})
    impl, rev = agent(tmp_path, "impl"), agent(tmp_path, "rev")
    code, out, err = invoke(run_args(repo, impl, rev), plan, tmp_path)
    assert code == 5, err
    assert out is not None
    run_id = out["run_id"]
    base = ["--repo", str(repo), "--format", "json", "--progress", "none"]
    code, out, err = invoke(["resume", run_id, "--answer", "CP1=approve", *base])
    assert code == 0, err
    databases = list((tmp_path / ".mergegate-state").rglob(f"{run_id}.sqlite"))
    assert len(databases) == 1
    return run_id, databases[0]


@pytest.fixture(scope="module")
def recorded_run(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, str, Path]:
    tmp = tmp_path_factory.mktemp("seam")
    mp = pytest.MonkeyPatch()
    mp.setenv("MERGEGATE_STATE_DIR", str(tmp / ".mergegate-state"))
    mp.setenv("MERGEGATE_SANDBOX__ALLOW", json.dumps([str(tmp)]))
    mp.setenv("XDG_STATE_HOME", str(tmp / ".xdg-state"))
    try:
        run_id, database = _checkpoint_run(tmp)
    finally:
        mp.undo()
    return tmp, run_id, database


def test_the_run_stores_what_the_untyped_code_stored(
    recorded_run: tuple[Path, str, Path],
) -> None:
    tmp, run_id, database = recorded_run
    stored = dbos_stored(database, Placeholders(tmp, run_id))
    if os.environ.get("MERGEGATE_RECORD_SEAM"):
        RECORDED.parent.mkdir(parents=True, exist_ok=True)
        RECORDED.write_text(json.dumps(stored, indent=1) + "\n")
    pinned = json.loads(RECORDED.read_text())
    names = [w["name"] for w in pinned["workflows"]]
    for name in ("mergegate.run", "mergegate.phase", "mergegate.unit", "mergegate.task"):
        assert name in names  # the example covers every workflow of the engine
    # key order included: json keeps it, and the comparison of the dumps sees it
    assert json.dumps(stored["workflows"], indent=1) == json.dumps(pinned["workflows"], indent=1)
    assert json.dumps(stored["steps"], indent=1) == json.dumps(pinned["steps"], indent=1)


def test_each_recorded_value_loads_into_its_model_and_dumps_back(
    recorded_run: tuple[Path, str, Path],
) -> None:
    """What the database holds (this run's, the same as the previous code's: the test above)
    goes through the seam's models and comes back unchanged: a recorded run resumes."""
    from mergegate.engine._flow.task_pipeline import task_workflow
    from mergegate.engine._flow.workflows import phase_workflow, run_workflow, unit_workflow
    from mergegate.store import seam_of

    flows = {
        "mergegate.run": run_workflow,
        "mergegate.phase": phase_workflow,
        "mergegate.unit": unit_workflow,
        "mergegate.task": task_workflow,
    }
    _, _, database = recorded_run
    seen = set()
    for name, inputs, output in dbos_workflows(database):
        if name not in flows:
            continue
        seam = seam_of(flows[name])
        args = tuple(inputs["args"])
        assert seam.dump_args(seam.load_args(args)) == args
        assert [list(a) for a in [seam.dump_args(seam.load_args(args))]] == [list(args)]
        assert seam.dump_out(seam.load_out(output)) == output
        assert json.dumps(seam.dump_out(seam.load_out(output))) == json.dumps(output)
        seen.add(name)
    assert seen == set(flows)


def test_the_pinned_example_loads_into_the_models() -> None:
    """The recorded example itself (placeholders and all) validates as each workflow's
    typed arguments and outcome."""
    from mergegate.engine._context.outcomes import (
        PhaseArgs,
        PhaseResult,
        RunArgs,
        RunResult,
        TaskArgs,
        TaskOutcome,
        UnitArgs,
        UnitOutcome,
    )

    models: dict[str, tuple[Any, Any]] = {
        "mergegate.run": (RunArgs, RunResult),
        "mergegate.phase": (PhaseArgs, PhaseResult),
        "mergegate.unit": (UnitArgs, UnitOutcome),
        "mergegate.task": (TaskArgs, TaskOutcome),
    }
    pinned = json.loads(RECORDED.read_text())
    for flow in pinned["workflows"]:
        if flow["name"] not in models:
            continue
        args_model, out_model = models[flow["name"]]
        (args,) = _numbers(flow["inputs"]["args"]["<tuple>"])
        loaded = TypeAdapter(args_model).validate_python(args)
        assert json.dumps(loaded.model_dump(mode="json")) == json.dumps(args)
        output = _numbers(flow["output"])
        loaded = TypeAdapter(out_model).validate_python(output)
        assert json.dumps(loaded.model_dump(mode="json")) == json.dumps(output)


def _numbers(value: Any) -> Any:
    """The pinned form with a number where a placeholder stands for one."""
    if isinstance(value, dict):
        return {k: _numbers(v) for k, v in value.items()}
    if isinstance(value, list):
        return [_numbers(v) for v in value]
    return {"<int>": 7, "<float>": 1.5}.get(value, value) if isinstance(value, str) else value
