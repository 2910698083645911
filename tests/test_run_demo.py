"""`make demo` end to end (real_model, slow): `scripts/demo.sh` runs the plan of examples/run
with the real local model as implementer and reviewer, its first phase only (`--phase 1`, the
cheapest run that shows the whole gate: about a minute on two cores).

Phase 1 must merge (issue 24, item 1: the demo merged nothing): the task implemented by the
model, committed, checked, approved by both review stages from the model's own verdict
objects (answered under the grammar, never rigged), merged into the integration branch once
and verified there. The assertions are about structure — statuses, the branch's commits, the
reports — and one behaviour, that the merged `greet.py` passes the task's own check; never the
model's text.
"""

from __future__ import annotations

import importlib.util
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from mergegate.agents._model_store import MODELS

ROOT = Path(__file__).resolve().parents[1]


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


def git(repo: Path, *args: str) -> str:
    out = subprocess.run(["git", *args], cwd=repo, check=True, capture_output=True, text=True)
    return out.stdout.strip()


def _trailers(repo: Path, ref: str) -> list[str]:
    body = git(repo, "log", "--format=%B", ref)
    return [line for line in body.splitlines() if line.startswith("Mergegate-")]


@pytest.mark.timeout(1800)
def test_the_demo_merges_its_first_phase_with_the_local_model(tmp_path: Path) -> None:
    work = tmp_path / "demo"
    mergegate = Path(sys.executable).with_name("mergegate")
    env = {**os.environ, "MERGEGATE": str(mergegate), "MERGEGATE_DEMO_DIR": str(work)}
    env.pop("MERGEGATE_STATE_DIR", None)  # the script keeps its state in the demo directory
    done = subprocess.run(
        ["bash", str(ROOT / "scripts" / "demo.sh"), "--phase", "1"],
        env=env,
        capture_output=True,
        text=True,
        timeout=1700,
        check=False,
    )
    said = done.stdout[-4000:] + done.stderr[-4000:]
    assert done.returncode == 0, said
    assert "mergegate run exited 0 — " in done.stdout
    assert "    unit 1-01: The greeting" in done.stdout  # the dry run first
    (run_dir,) = (work / "state" / "runs").iterdir()
    report = json.loads((run_dir / "summary.json").read_text())
    assert report["exit_code"] == 0, said
    (phase,) = report["phases"]
    assert phase["id"] == "1"
    assert phase["verification"]["status"] == "passed"
    (unit,) = report["units"]
    assert unit["id"] == "1-01"
    assert unit["status"] == "merged"
    (task,) = unit["tasks"]
    assert task["decision"] == "approved"
    assert task["judgement"]["passed"]
    # Both stages approved from the model's verdict object, asked for under its grammar.
    review_dir = run_dir / "1" / "1-01" / "1" / "review"
    summary = json.loads((review_dir / "summary.json").read_text())
    last = summary["rounds"][-1]["attempts"]
    assert {a["stage"] for a in last} == {"spec", "quality"}
    for attempt in last:
        record = json.loads(Path(attempt["report"]).with_suffix(".json").read_text())
        assert (record["backend"], record["answer_via"]) == ("local", "grammar")
        assert record["decision"] == "approve"
        assert json.loads(record["output"])["verdict"] == "approve"
    # The integration branch: the base, then one --no-ff merge of the unit's task commit.
    repo, into = work / "repo", report["into"]
    assert git(repo, "rev-parse", f"{into}^1") == report["base"]
    assert git(repo, "rev-parse", f"{into}^2") == task["commit"]
    assert git(repo, "rev-list", "--count", into) == "3"
    assert any(line.startswith("Mergegate-Unit:") for line in _trailers(repo, into))
    assert f"the integration branch {into}:" in done.stdout  # and its log, printed
    assert git(repo, "log", "-1", "--format=%h", into) in done.stdout
    checkout = tmp_path / "checkout"
    git(repo, "worktree", "add", "-q", "--detach", str(checkout), into)
    ran = subprocess.run(
        [sys.executable, "-c", "import greet; print(greet.greet('Ada'))"],
        cwd=checkout,
        capture_output=True,
        text=True,
        check=True,
    )
    assert ran.stdout.strip() == "Hello, Ada!"
