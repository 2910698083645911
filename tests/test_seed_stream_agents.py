"""Seed 002's live forwarding (issue 25 item 6): `mergegate run --stream-agents` forwards each
agent's output while mergegate monitors it, every line prefixed with its unit, task and role;
off by default."""

from __future__ import annotations

from pathlib import Path

from _plan_runs import agent, invoke, make_plan, repo_with, run_args


def run(tmp_path: Path, *extra: str) -> tuple[int, str]:
    repo = repo_with(tmp_path / "repo")
    plan = make_plan({"P1": {"A": {}}})
    impl, rev = agent(tmp_path, "impl"), agent(tmp_path, "rev")
    code, _, err = invoke(run_args(repo, impl, rev, *extra), plan, tmp_path)
    return code, err


def test_stream_agents_forwards_each_agents_output_with_its_prefix(tmp_path: Path) -> None:
    """Seed 002, "Orchestrator Real-Time Monitoring" (`run_claude_with_realtime_output(self,
    cmd, cwd, prefix)`: "# Forward to live output / print(f"{prefix}: {line}")"): with
    `--stream-agents` (here beside `--progress none`, which shows nothing else) the
    implementer's and both reviewers' output lines reach stderr as they come, each prefixed
    `[unit task role]`; the run decides as without it (exit 0). Without the flag, nothing
    is forwarded."""
    code, err = run(tmp_path, "--stream-agents")
    assert code == 0, err
    lines = err.splitlines()
    implementer = [x for x in lines if x.startswith("mergegate: [A T1 implementer] ")]
    reviewer = [x for x in lines if x.startswith("mergegate: [A T1 reviewer] ")]
    assert any('"task_id": "T1"' in x for x in implementer), err
    assert len([x for x in reviewer if '"review_id": "mg-' in x]) == 2, err  # spec, quality
    assert not [x for x in lines if "implementing T1" in x]  # --progress none: nothing else
    # off by default (seed 002's forwarding is the user's call), in every progress mode
    code, err = run(tmp_path / "plain", "--progress", "plain")
    assert code == 0, err
    assert "implementing T1" in err
    assert "[A T1 implementer]" not in err
    assert "[A T1 reviewer]" not in err
