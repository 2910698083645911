"""`mergegate run` at phase boundaries: every phase is verified on the integration branch before
the next one starts; a phase that is not verified stops the run (exit 5) until a person
answers, accepts the gaps, or fixes the tree; `--phase` runs one phase."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner

from _gitrepo import git
from _plan_runs import agent, events, invoke, make_plan, repo_with, run_args, trailers
from mergegate.cli import cli
from mergegate.plans import AcceptanceCriterion, Artifact, MustHaves, Plan


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    return repo_with(tmp_path / "repo")


def resume(repo: Path, run_id: str, *extra: str) -> tuple[int, dict[str, Any] | None, str]:
    return invoke(
        ["resume", run_id, "--repo", str(repo), "--format", "json", "--progress", "none", *extra]
    )


def with_phase(plan: Plan, index: int, **update: Any) -> Plan:
    phases = list(plan.phases)
    phases[index] = phases[index].model_copy(update=update)
    return plan.model_copy(update={"phases": tuple(phases)})


def started_units(tmp_path: Path) -> list[str]:
    return [e["unit"] for e in events(tmp_path, "impl") if e["event"] == "start"]


def test_a_phase_not_verified_stops_the_run_before_the_next_phase_then_an_answer_resumes_it(
    repo: Path, tmp_path: Path
) -> None:
    prose = AcceptanceCriterion(text="The greeting reads well to a person")
    plan = with_phase(make_plan({"P1": {"A": {}}, "P2": {"B": {}}}), 0, success_criteria=(prose,))
    impl, rev = agent(tmp_path, "impl"), agent(tmp_path, "rev")
    code, out, err = invoke(run_args(repo, impl, rev), plan, tmp_path)
    assert code == 5, err
    assert out is not None
    assert out["status"] == "waiting_for_human"
    first, second = out["phases"]
    assert second["status"] == "not_started"
    assert first["status"] == "not_verified"
    assert first["verification"]["status"] == "human_needed"
    assert first["verification"]["questions"] == ["sc-1"]
    assert Path(first["verification"]["report"]).is_file()
    units = {u["id"]: u for u in out["units"]}
    assert units["A"]["status"] == "merged"
    assert units["B"]["status"] == "skipped"
    assert "phase P1" in units["B"]["reason"]
    assert started_units(tmp_path) == ["A"]  # phase 2 never started
    # an unknown criterion, or one a program decided, is refused before anything runs
    code, _, err = resume(repo, out["run_id"], "--answer", "sc-9=pass")
    assert code == 2
    assert "no criterion 'sc-9'" in err
    code, again, _ = resume(repo, out["run_id"], "--answer", "sc-1=pass", "--who", "ada")
    assert code == 0
    assert again is not None
    assert again["status"] == "completed"
    assert [p["verification"]["status"] for p in again["phases"]] == ["passed", "passed"]
    assert started_units(tmp_path) == ["A", "B"]  # A was not run again
    assert len(trailers(repo, again["into"])) == 2
    assert "ada" in Path(again["phases"][0]["verification"]["report"]).read_text()


def test_verify_answer_then_resume_continues_the_run(repo: Path, tmp_path: Path) -> None:
    """The other way to answer: `mergegate verify PLAN --answer` writes the ledger the run
    reads (keyed by the plan's path), then `mergegate resume RUN` goes on."""
    prose = AcceptanceCriterion(text="The greeting reads well to a person")
    plan = with_phase(make_plan({"P1": {"A": {}}, "P2": {"B": {}}}), 0, success_criteria=(prose,))
    impl, rev = agent(tmp_path, "impl"), agent(tmp_path, "rev")
    code, out, _ = invoke(run_args(repo, impl, rev), plan, tmp_path)
    assert code == 5
    assert out is not None
    plan_file = tmp_path / "plan.json"
    answered = CliRunner().invoke(
        cli,
        ["verify", str(plan_file), "--phase", "P1", "--repo", str(repo), "--answer", "sc-1=pass"],
    )
    assert answered.exception is None or isinstance(answered.exception, SystemExit)
    code, again, _ = resume(repo, out["run_id"])
    assert code == 0, again
    assert again is not None
    assert [u["status"] for u in again["units"]] == ["merged", "merged"]


def test_gaps_stop_the_run_until_a_person_accepts_them(repo: Path, tmp_path: Path) -> None:
    missing = MustHaves(artifacts=(Artifact(path="docs/never-written.md"),))
    base = make_plan({"P1": {"A": {}}, "P2": {"B": {}}})
    unit = base.phases[0].units[0].model_copy(update={"must_haves": missing})
    plan = with_phase(base, 0, units=(unit,))
    impl, rev = agent(tmp_path, "impl"), agent(tmp_path, "rev")
    code, out, _ = invoke(run_args(repo, impl, rev), plan, tmp_path)
    assert code == 5
    assert out is not None
    assert out["phases"][0]["verification"]["status"] == "gaps_found"
    # resuming without an answer verifies again: still the same gap, still stopped
    code, again, _ = resume(repo, out["run_id"])
    assert code == 5
    assert again is not None
    assert again["phases"][0]["verification"]["status"] == "gaps_found"
    # a person cannot pass what a program failed...
    report = Path(again["phases"][0]["verification"]["report"])
    data = json.loads((report.parent / "verification.json").read_text())
    [failed] = [c["id"] for c in data["criteria"] if c["result"] == "fail"]
    code, _, err = resume(repo, out["run_id"], "--answer", f"{failed}=pass")
    assert code == 2
    assert "cannot overrule" in err
    # ...but may accept the gaps, with a reason: complete_with_gaps, never passed
    code, _, err = resume(repo, out["run_id"], "--accept-gaps")
    assert code == 2
    assert "--reason" in err
    code, done, _ = resume(repo, out["run_id"], "--accept-gaps", "--reason", "docs come later")
    assert code == 0
    assert done is not None
    assert [p["verification"]["status"] for p in done["phases"]] == [
        "complete_with_gaps",
        "passed",
    ]
    assert "docs come later" in Path(done["phases"][0]["verification"]["report"]).read_text()


def test_a_phase_without_program_checks_is_never_verified(repo: Path, tmp_path: Path) -> None:
    plan = make_plan({"P1": {"A": {"checks": {"T1": []}}}})
    done = plan.phases[0].units[0].tasks[0].model_copy(update={"done": "It is done"})
    unit = plan.phases[0].units[0].model_copy(update={"tasks": (done,)})
    plan = with_phase(plan, 0, units=(unit,))
    impl, rev = agent(tmp_path, "impl"), agent(tmp_path, "rev")
    code, out, _ = invoke(run_args(repo, impl, rev), plan, tmp_path)
    assert code == 5
    assert out is not None
    assert out["units"][0]["status"] == "merged"
    verification = out["phases"][0]["verification"]
    assert verification["status"] == "human_needed"


def test_the_verifier_agent_judges_prose_criteria(repo: Path, tmp_path: Path) -> None:
    prose = AcceptanceCriterion(text="The greeting reads well to a person")
    plan = with_phase(make_plan({"P1": {"A": {}}}), 0, success_criteria=(prose,))
    impl, rev = agent(tmp_path, "impl"), agent(tmp_path, "rev")
    verifier = tmp_path / "verifier.py"
    verifier.write_text(
        "import json, os, pathlib\n"
        "nonce = os.environ['MERGEGATE_VERIFICATION_ID']\n"
        "# cite a real line of the checkout it runs in: mergegate checks the quote\n"
        "files = sorted(p for p in pathlib.Path('.').rglob('*') if p.is_file()\n"
        "               and '.git' not in p.parts and p.read_text(errors='replace').strip())\n"
        "line = files[0].read_text(errors='replace').splitlines()[0]\n"
        "cite = {'file': files[0].as_posix(), 'line': 1, 'quote': line}\n"
        "answer = {'verification_id': nonce, 'criteria': [\n"
        "  {'id': 'sc-1', 'result': 'pass', 'evidence': [cite], 'reason': 'read it'}]}\n"
        "print(json.dumps(answer))\n"
    )
    import sys

    args = run_args(repo, impl, rev, "--verifier-cmd", f"{sys.executable} {verifier}")
    code, out, err = invoke(args, plan, tmp_path)
    assert out is not None, err
    verification = out["phases"][0]["verification"]
    # an agent's pass alone is shown apart; with the program check passing it verifies
    assert verification["status"] == "passed", verification
    assert code == 0
    report = Path(verification["report"]).read_text()
    assert "agent-judged" in report


def test_phase_option_runs_only_that_phase(repo: Path, tmp_path: Path) -> None:
    plan = make_plan({"P1": {"A": {}}, "P2": {"B": {}}, "P3": {"C": {}}})
    impl, rev = agent(tmp_path, "impl"), agent(tmp_path, "rev")
    code, out, _ = invoke(run_args(repo, impl, rev, "--phase", "P2"), plan, tmp_path)
    assert code == 0
    assert out is not None
    assert [p["id"] for p in out["phases"]] == ["P2"]
    assert [(u["id"], u["status"]) for u in out["units"]] == [("B", "merged")]
    assert started_units(tmp_path) == ["B"]
    code, _, err = invoke(run_args(repo, impl, rev, "--phase", "P9"), plan, tmp_path)
    assert code == 2
    assert "no phase 'P9'" in err


def test_dry_run_of_a_native_yaml_plan_lists_what_would_run(repo: Path, tmp_path: Path) -> None:
    plan = tmp_path / "plan.yaml"
    plan.write_text(
        "mergegate_plan: 1\n"
        "title: Greeter\n"
        "phases:\n"
        "  - id: '1'\n"
        "    name: Basics\n"
        "    units:\n"
        "      - id: '1-01'\n"
        "        name: Greeting\n"
        "        tasks:\n"
        "          - id: '1'\n"
        "            name: Write greet()\n"
        "            action: Add greet(name).\n"
        "            checks:\n"
        "              - run: python3 -c 'import greet'\n"
    )
    impl, rev = agent(tmp_path, "impl"), agent(tmp_path, "rev")  # the dry run checks them
    result = CliRunner().invoke(
        cli,
        [
            *("run", str(plan), "--repo", str(repo), "--dry-run"),
            *("--implementer-cmd", impl, "--reviewer-cmd", rev),
        ],
    )
    assert result.exit_code == 0, result.output
    assert "phase 1: Basics" in result.stdout
    assert "    unit 1-01: Greeting" in result.stdout
    assert "        check: python3 -c 'import greet'" in result.stdout
    assert "  then: verify phase 1 on the integration branch" in result.stdout
    assert "mergegate/" not in git(repo, "branch", "--list")


def test_json_report_lists_the_phase_verification(repo: Path, tmp_path: Path) -> None:
    plan = make_plan({"P1": {"A": {}}})
    impl, rev = agent(tmp_path, "impl"), agent(tmp_path, "rev")
    code, out, _ = invoke(run_args(repo, impl, rev), plan, tmp_path)
    assert code == 0
    assert out is not None
    verification = out["phases"][0]["verification"]
    assert verification["status"] == "passed"
    data = json.loads((Path(verification["report"]).parent / "verification.json").read_text())
    assert data["head"] == git(repo, "rev-parse", out["into"])
