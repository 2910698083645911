"""Records where they belong: every agent attempt of a `mergegate review` run — reviewers,
retries, implementers — keeps its prompt, raw output, logs and process record under the run's
own directory, next to its report; nothing is left in the temporary directory."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

from _gitrepo import change_repo, git
from _verdict_object import finding as object_finding
from _verdict_object import verdict_object
from mergegate.processes import ProcessRecord

FAKE = Path(__file__).parent / "fakes" / "scripted_agent.py"


def trailer(verdict: str, findings: list[dict[str, Any]]) -> str:
    return verdict_object(verdict, findings)


def agent(tmp_path: Path, name: str, steps: list[dict[str, Any]]) -> str:
    script = tmp_path / f"{name}.json"
    script.write_text(json.dumps(steps))
    return f"{sys.executable} {FAKE} {script} {tmp_path / (name + '-state')}"


def test_every_attempt_is_recorded_under_the_run_directory_and_none_in_tmp(
    tmp_path: Path,
) -> None:
    repo = change_repo(tmp_path / "repo", {"app.py": "x = 1\n"}, {"app.py": "x = 2\n"}, message="x")
    finding = object_finding("F-1", title="Untested")
    reviewer = agent(
        tmp_path,
        "rv",
        [
            {"text": "Looks fine."},  # malformed: retried
            {"text": trailer("request_changes", [finding])},
            {"text": trailer("approve", [])},
        ],
    )
    implementer = agent(tmp_path, "im", [{"text": "done", "write": {"app.py": "x = 3\n"}}])
    temp = tmp_path / "tmp"
    temp.mkdir()
    run_dir = tmp_path / "records" / "task-1" / "review"
    env = {**os.environ, "TMPDIR": str(temp), "MERGEGATE_STATE_DIR": str(tmp_path / "state")}
    done = subprocess.run(
        [
            *(sys.executable, "-m", "mergegate", "review", "--repo", str(repo)),
            *("--reviewer-cmd", reviewer, "--fix", "--implementer-cmd", implementer),
            *("--run-dir", str(run_dir), "--format", "json", "--progress", "none"),
        ],
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    out = json.loads(done.stdout)
    assert out["report_dir"] == str(run_dir)
    assert list(temp.iterdir()) == []  # no mergegate-attempt-* (nor anything else) survives
    attempts = {p.parent.name: p for p in run_dir.rglob("process.json")}
    assert sorted(attempts) == ["r01-fix", "r01-quality-a1", "r01-quality-a2", "r02-quality-a1"]
    for name, path in attempts.items():
        assert path.parent.parent == run_dir
        record = ProcessRecord.model_validate_json(path.read_text())
        if name == "r01-fix":
            assert record.cwd == str(repo)  # the implementer works in the user's tree
        else:  # a reviewer works in a throwaway checkout, gone after its attempt
            assert record.cwd != str(repo)
            assert not Path(record.cwd).exists()
        assert (path.parent / "prompt.txt").read_text()  # the exact prompt the agent got
        assert (path.parent / "agent.stdout.log").is_file()  # its raw output
        assert (path.parent / "agent.stderr.log").is_file()
        report = run_dir / (f"{name}.json")
        assert report.is_file(), name  # the report sits next to the attempt's records
    # The fix commit holds the implementer's change only: no record was committed.
    assert git(repo, "show", "--name-only", "--format=", "HEAD") == "app.py"
