"""`mergegate run` on a GSD `.planning` tree: units with a SUMMARY.md count as done (GSD's rule);
mergegate writes each unit's SUMMARY.md and each phase's VERIFICATION.md into the tree the
reports describe — committed on the branches, never into the user's working copy."""

from __future__ import annotations

import textwrap
from pathlib import Path

import pytest

from _gitrepo import git, write_files
from _plan_runs import agent, events, invoke, repo_with, run_args, trailers, with_fixes
from mergegate.plans import load_plan

ROADMAP = """\
# Roadmap: Greeter

## Phase Details

### Phase 1: Greet
**Goal**: A greeting exists

### Phase 2: Farewell
**Goal**: A farewell exists
"""


def gsd_plan(phase: str, path: str) -> str:
    return textwrap.dedent(
        f"""\
        ---
        phase: {phase}
        plan: 01
        type: execute
        wave: 1
        depends_on: []
        files_modified: [{path}]
        autonomous: true
        ---

        <objective>
        Write {path}.
        </objective>

        <tasks>

        <task type="auto">
          <name>Task 1: Write {path}</name>
          <files>{path}</files>
          <action>Write a line into {path}.</action>
          <verify>
            <automated>test -f {path}</automated>
          </verify>
        </task>

        </tasks>
        """
    )


PLANNING = {
    ".planning/ROADMAP.md": ROADMAP,
    ".planning/phases/01-greet/01-01-PLAN.md": gsd_plan("01-greet", "greet.txt"),
    ".planning/phases/02-farewell/02-01-PLAN.md": gsd_plan("02-farewell", "bye.txt"),
}
WRITES = {
    "01-01/1": {"implement": [{"write": {"greet.txt": "hello\n"}}]},
    "02-01/1": {"implement": [{"write": {"bye.txt": "bye\n"}}]},
}


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    return repo_with(tmp_path / "repo", PLANNING)


def gsd_run_args(repo: Path, impl: str, rev: str) -> list[str]:
    return run_args(repo, impl, rev, str(repo / ".planning"))


def test_summaries_and_verification_are_committed_on_the_integration_branch(
    repo: Path, tmp_path: Path
) -> None:
    impl, rev = agent(tmp_path, "impl", WRITES), agent(tmp_path, "rev")
    code, out, err = invoke(gsd_run_args(repo, impl, rev))
    assert code == 0, err
    assert out is not None
    into = out["into"]
    assert sorted(trailers(repo, into)) == [
        f"Mergegate-Unit: {out['run_id']}/01-01",
        f"Mergegate-Unit: {out['run_id']}/02-01",
    ]
    summary = git(repo, "show", f"{into}:.planning/phases/01-greet/01-01-SUMMARY.md")
    assert 'generator: "mergegate"' in summary  # JSON-quoted, as every frontmatter value
    assert "Write greet.txt" in summary
    assert "Unresolved Review Findings" not in summary
    verification = git(repo, "show", f"{into}:.planning/phases/02-farewell/02-VERIFICATION.md")
    assert 'status: "passed"' in verification
    assert "not recorded as complete" not in verification
    # the user's working copy is untouched: the reports travel with the code they describe
    assert not (repo / ".planning/phases/01-greet/01-01-SUMMARY.md").exists()
    assert git(repo, "status", "--porcelain") == ""
    # GSD reads the integration branch as done: every unit completed, every phase passed
    checkout = tmp_path / "checkout"
    git(repo, "worktree", "add", "-q", "--detach", str(checkout), into)
    again = load_plan(checkout / ".planning").plan
    assert [u.completed for _, u in again.units()] == [True, True]
    assert [p.verification_status for p in again.phases] == ["passed", "passed"]


def test_a_unit_with_a_summary_counts_as_done(repo: Path, tmp_path: Path) -> None:
    write_files(repo, {".planning/phases/01-greet/01-01-SUMMARY.md": "# done by GSD\n"})
    git(repo, "add", "-A")
    git(repo, "commit", "-qm", "GSD executed 01-01")
    impl, rev = agent(tmp_path, "impl", WRITES), agent(tmp_path, "rev")
    code, out, err = invoke(gsd_run_args(repo, impl, rev))
    assert code == 0, err
    assert out is not None
    units = {u["id"]: u for u in out["units"]}
    assert units["01-01"]["status"] == "skipped"
    assert units["01-01"]["reason"].startswith("already completed")
    assert units["02-01"]["status"] == "merged"
    assert [e["unit"] for e in events(tmp_path, "impl") if e["event"] == "start"] == ["02-01"]
    # a phase this run did not execute is not verified again
    assert out["phases"][0]["verification"] is None


def test_an_escalated_unit_gets_its_unresolved_findings_on_its_own_branch(
    repo: Path, tmp_path: Path
) -> None:
    reviews = [with_fixes("Missing test", "Bad name"), with_fixes("Missing test")]
    rev = agent(tmp_path, "rev", {"01-01/1": {"review": reviews}})
    impl = agent(tmp_path, "impl", WRITES)
    code, out, _ = invoke([*gsd_run_args(repo, impl, rev), "--max-rounds", "2"])
    assert code == 5
    assert out is not None
    unit = out["units"][0]
    assert unit["status"] == "needs_manual_review"
    summary = git(repo, "show", f"{unit['branch']}:.planning/phases/01-greet/01-01-SUMMARY.md")
    assert "## Unresolved Review Findings" in summary
    assert "Missing test" in summary
    # never on the integration branch: GSD would count the unit as done
    listed = git(repo, "ls-tree", "-r", "--name-only", out["into"])
    assert "01-01-SUMMARY.md" not in listed
