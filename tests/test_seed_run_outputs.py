"""Seed 000 in `mergegate run` (issue 25 item 1): when both attempts of a task's review are
malformed, the run stops and shows both outputs — on the console and in the unit's
SUMMARY.md — as `mergegate review` and the hook do."""

from __future__ import annotations

import json
import sys
from pathlib import Path

from click.testing import CliRunner

from _gitrepo import change_repo
from _plan_runs import agent, make_plan, repo_with, run_args
from mergegate.cli import cli
from test_review_e2e import agent_cmd, review

SCRIPTED = Path(__file__).parent / "fakes" / "scripted_agent.py"
FIRST = "The implementation is solid. No blocking issues found."
SECOND = "Great work! The code quality is high and meets all standards."


def test_both_malformed_outputs_are_shown_on_the_console_and_in_the_summary(
    tmp_path: Path,
) -> None:
    """Seed 000, Failure Case "Both Attempts Malformed" ("Display both outputs for debugging";
    "First attempt output (excerpt)", "Retry attempt output (excerpt)"; "STOP execution"):
    the task is undecidable (exit 3), nothing merges, and both excerpts are in the run's
    console report, its JSON and the unit's SUMMARY.md, with the guidance to check the
    reviewer."""
    repo = repo_with(tmp_path / "repo")
    script = tmp_path / "rev.json"
    script.write_text(json.dumps([{"text": FIRST}, {"text": SECOND}]))
    rev = f"{sys.executable} {SCRIPTED} {script} {tmp_path / 'rev-state'}"
    plan_file = tmp_path / "plan.json"
    plan_file.write_text(make_plan({"P1": {"A": {}}}).model_dump_json(by_alias=True))
    args = run_args(repo, agent(tmp_path, "impl"), rev)
    text_args = [a if a != "json" else "text" for a in args]
    result = CliRunner().invoke(cli, [text_args[0], str(plan_file), *text_args[1:]])
    assert result.exit_code == 3, result.output
    assert f'T1 output of attempt 1 (excerpt): "{FIRST}"' in result.stdout
    assert f'T1 output of attempt 2 (excerpt): "{SECOND}"' in result.stdout
    run_dir = Path(result.stdout.split("reports: ")[1].split(" (SUMMARY.md")[0])
    summary = (run_dir / "P1" / "A" / "SUMMARY.md").read_text()
    assert "**Reviewer outputs (excerpts; no verdict could be read from them):**" in summary
    assert summary.index(FIRST) < summary.index(SECOND)
    assert "check the reviewer and re-run" in summary
    report = json.loads((run_dir / "summary.json").read_text())
    (task,) = report["units"][0]["tasks"]
    assert task["decision"] == "undecidable"
    assert task["review_outputs"] == [FIRST, SECOND]
    assert report["units"][0]["status"] != "merged"


def test_the_review_json_carries_both_outputs(tmp_path: Path) -> None:
    """Seed 000 ("Retry failure: Reports both outputs for debugging"): `mergegate review
    --format json` carries the excerpts too, for tools."""

    repo = change_repo(tmp_path / "repo", {"a.py": "x = 1\n"}, {"a.py": "x = 2\n"})
    rev = agent_cmd(tmp_path, "rv", [{"text": FIRST}, {"text": SECOND}])
    code, out = review(repo, tmp_path, "--reviewer-cmd", rev)
    assert code == 3
    assert out["outputs"] == [FIRST, SECOND]
