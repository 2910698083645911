"""`mergegate verify` end to end: exit codes, --format json, --dry-run, --answer, --accept-gaps,
plan errors, and the engine's side of a phase boundary (stop on a failed phase, resume after
an answer)."""

from __future__ import annotations

import importlib
import json
import sys
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner

from _gitrepo import change_repo
from mergegate.cli import cli
from mergegate.cli import run as run_cli
from mergegate.cli import verify as verify_cli
from mergegate.errors import UsageError
from mergegate.plans import (
    AcceptanceCriterion,
    Artifact,
    Check,
    MustHaves,
    Phase,
    Plan,
    PlanFormat,
    Task,
    Unit,
    Verify,
    read_plan,
)
from mergegate.verify import (
    VerificationStatus,
    VerifyOptions,
    load_answers,
    phase_state_dir,
    verify_phase,
)

FAKE = Path(__file__).parent / "fakes" / "scripted_agent.py"


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    change = {
        "src/app/core.py": "def add(a, b):\n    return a + b\n",
        "src/app/cli.py": "from app.core import add\n\nprint(add(1, 2))\n",
        "src/app/stub.py": "def todo():\n    raise NotImplementedError\n",
    }
    return change_repo(tmp_path / "repo", {"src/app/__init__.py": ""}, change)


def phase(pid: str, *artifacts: str, success: tuple[str, ...] = (), verify: str = "") -> Phase:
    tasks = (Task(id="1", name="t", verify=Verify(text=verify)),) if verify else ()
    unit = Unit(
        id=f"{pid}-01",
        completed=True,
        must_haves=MustHaves(artifacts=tuple(Artifact(path=a) for a in artifacts)),
        tasks=tasks,
    )
    return Phase(
        id=pid,
        name=f"phase {pid}",
        success_criteria=tuple(AcceptanceCriterion(text=t) for t in success),
        units=(unit,),
    )


def write_plan(tmp_path: Path, *phases: Phase) -> Path:
    path = tmp_path / "plan.json"
    path.write_text(Plan(format=PlanFormat.NATIVE, phases=phases).model_dump_json(by_alias=True))
    return path


def invoke(repo: Path, tmp_path: Path, *args: str) -> tuple[int, str, str]:
    result = CliRunner().invoke(
        cli,
        ["verify", "--repo", str(repo), "--report-dir", str(tmp_path / "reports"), *args],
    )
    assert result.exception is None or isinstance(result.exception, SystemExit), result.output
    return result.exit_code, result.stdout, result.stderr


def as_json(repo: Path, tmp_path: Path, plan: Path, *args: str) -> tuple[int, dict[str, Any]]:
    code, out, _ = invoke(repo, tmp_path, str(plan), "--format", "json", *args)
    return code, json.loads(out)


def test_exit_codes_follow_the_status(repo: Path, tmp_path: Path) -> None:
    plan = write_plan(
        tmp_path,
        phase("1", "src/app/core.py"),
        phase("2", "src/app/stub.py"),
        phase("3", "src/app/core.py", success=("It adds",)),
    )
    expected = {"1": (0, "passed"), "2": (1, "gaps_found"), "3": (5, "human_needed")}
    for pid, (code, status) in expected.items():
        got, data = as_json(repo, tmp_path, plan, "--phase", pid)
        assert (got, data["status"]) == (code, status)
        assert data["exit_code"] == code
        for criterion in data["criteria"]:
            assert {"id", "source", "kind", "result", "evidence"} <= set(criterion)
        assert Path(data["report"]).is_file()


def test_usage_errors_exit_2(repo: Path, tmp_path: Path) -> None:
    plan = write_plan(tmp_path, phase("1", "src/app/core.py"), phase("2", "src/app/core.py"))
    code, _, err = invoke(repo, tmp_path, str(plan), "--phase", "9")
    assert code == 2
    assert "no phase '9'" in err
    bad = tmp_path / "bad.json"
    bad.write_text("{not json")
    code, _, err = invoke(repo, tmp_path, str(bad))
    assert code == 2
    assert "not a plan model" in err
    code, _, err = invoke(repo, tmp_path, str(tmp_path / "missing.json"))
    assert code == 2
    assert "cannot read plan" in err


@pytest.mark.parametrize("path", ["../outside.py", "/etc/passwd"])
def test_a_path_out_of_the_repository_exits_2_even_in_a_dry_run(
    repo: Path, tmp_path: Path, path: str
) -> None:
    plan = write_plan(tmp_path, phase("1", path))
    for extra in ((), ("--dry-run",)):
        code, _, err = invoke(repo, tmp_path, str(plan), *extra)
        assert code == 2
        assert "mergegate: error:" in err
        assert "Traceback" not in err


def test_dry_run_lists_every_criterion_and_every_command_first(repo: Path, tmp_path: Path) -> None:
    verify = "Run `true` — must pass.\n<automated>npm test | tail -3</automated>"
    plan = write_plan(tmp_path, phase("1", "src/app/core.py", success=("It adds",), verify=verify))
    code, out, _ = invoke(repo, tmp_path, str(plan), "--dry-run")
    assert code == 0
    assert out.index("Commands a real run would start") < out.index("Criteria:")
    assert "$ true" in out
    for cid in ("sc-1", "1-01.artifact-1", "1-01.t1.verify"):
        assert cid in out
    assert "not checkable by program" in out
    # the fourth criterion is the phase's placeholder scan (issue 25 item 14)
    assert out.rstrip().splitlines()[-1].startswith("3 of 4 criteria (75%) have a program check")
    assert not (tmp_path / "reports").exists()  # a dry run writes nothing
    code, data = as_json(repo, tmp_path, plan, "--dry-run")
    assert data["commands"] == ["true"]
    assert data["summary"]["with_program_check"] == 3  # with the placeholder scan


def test_no_commands_is_never_passed(repo: Path, tmp_path: Path) -> None:
    plan = write_plan(tmp_path, phase("1", "src/app/core.py", verify="Run `true`"))
    code, data = as_json(repo, tmp_path, plan, "--no-commands")
    assert (code, data["status"]) == (5, "human_needed")


def test_answer_then_pass(repo: Path, tmp_path: Path) -> None:
    plan = write_plan(tmp_path, phase("1", "src/app/core.py", success=("It adds",)))
    code, data = as_json(repo, tmp_path, plan, "--no-input")
    assert (code, data["questions"]) == (5, ["sc-1"])
    code, _, err = invoke(repo, tmp_path, str(plan), "--answer", "sc-9=pass")
    assert code == 2
    assert "no criterion 'sc-9'" in err
    code, _, err = invoke(repo, tmp_path, str(plan), "--answer", "1-01.artifact-1=fail")
    assert code == 2
    assert "cannot overrule" in err
    code, _, err = invoke(repo, tmp_path, str(plan), "--answer", "sc-1=maybe")
    assert code == 2
    code, data = as_json(
        repo, tmp_path, plan, "--answer", "sc-1=pass", "--note", "tried it", "--who", "ada"
    )
    assert (code, data["status"]) == (0, "passed")
    assert not any("verified again" in w for w in data["warnings"])  # same tree: no re-run
    sc = next(c for c in data["criteria"] if c["id"] == "sc-1")
    assert sc["decided_by"] == "person"
    assert "ada answered pass" in sc["evidence"][-1]["detail"]
    ledger = tmp_path / "reports" / "1" / "answers.jsonl"
    [answer] = load_answers(ledger)
    assert (answer.who, answer.note) == ("ada", "tried it")
    (repo / "src/app/core.py").write_text("def add(a, b):\n    return b + a\n")
    code, data = as_json(repo, tmp_path, plan, "--answer", "sc-1=pass")
    assert (code, data["status"]) == (0, "passed")
    assert any("verified again" in w for w in data["warnings"])  # the tree changed


def test_accept_gaps_needs_a_reason_and_is_never_passed(repo: Path, tmp_path: Path) -> None:
    plan = write_plan(tmp_path, phase("1", "src/app/stub.py"))
    code, _ = as_json(repo, tmp_path, plan)
    assert code == 1
    code, _, err = invoke(repo, tmp_path, str(plan), "--accept-gaps")
    assert code == 2
    assert "--reason" in err
    code, data = as_json(
        repo, tmp_path, plan, "--accept-gaps", "--reason", "stub filled in phase 2", "--who", "ada"
    )
    assert (code, data["status"]) == (0, "complete_with_gaps")
    report = Path(data["report"]).read_text()
    assert 'status: "complete_with_gaps"' in report
    assert 'status: "passed"' not in report


def test_a_verifier_command_answers_for_prose(repo: Path, tmp_path: Path) -> None:
    trailer = {
        "verification_id": "{review_id}",
        "criteria": [
            {"id": "sc-1", "result": "uncertain", "reason": "a UI", "question": "Click it"}
        ],
    }
    script = tmp_path / "agent.json"
    script.write_text(json.dumps([{"text": json.dumps(trailer)}]))  # the object alone
    cmd = f"{sys.executable} {FAKE} {script} {tmp_path / 'agent-state'}"
    plan = write_plan(tmp_path, phase("1", "src/app/core.py", success=("It looks right",)))
    code, data = as_json(repo, tmp_path, plan, "--verifier-cmd", cmd, "--base", "HEAD~1")
    # the phase's diff adds src/app/stub.py (NotImplementedError): the placeholder scan of
    # every changed file finds it
    assert (code, data["status"]) == (1, "gaps_found")
    assert "src/app/stub.py" in json.dumps(data["criteria"][-1]["evidence"])
    sc = next(c for c in data["criteria"] if c["id"] == "sc-1")
    assert sc["result"] == "uncertain"
    assert "Click it" in sc["question"]
    prompt = (tmp_path / "agent-state" / "prompt-1.txt").read_text()
    assert "+def add(a, b):" in prompt  # the phase diff BASE..HEAD


def test_the_engine_stops_on_a_failed_phase_and_resumes_after_an_answer(
    repo: Path, tmp_path: Path
) -> None:
    """The run engine's side of a phase boundary, through the library API it calls."""
    plan = Plan(
        format=PlanFormat.NATIVE,
        phases=(
            phase("1", "src/app/core.py", success=("It adds",)),
            phase("2", "src/app/core.py"),
        ),
    )
    plan_path = write_plan(tmp_path, *plan.phases)
    state = tmp_path / "reports"

    def run_phases(attempt: int) -> list[tuple[str, VerificationStatus]]:
        done = []
        for ph in plan.phases:
            answers = tuple(load_answers(state / ph.id / "answers.jsonl"))
            result = verify_phase(
                plan,
                ph.id,
                repo,
                run_dir=tmp_path / "engine" / f"{attempt}-{ph.id}",
                verifier=None,
                options=VerifyOptions(answers=answers),
            )
            done.append((ph.id, result.status))
            if result.status not in (
                VerificationStatus.PASSED,
                VerificationStatus.COMPLETE_WITH_GAPS,
            ):
                break  # the next phase does not start
        return done

    assert run_phases(1) == [("1", VerificationStatus.HUMAN_NEEDED)]
    code, _ = as_json(repo, tmp_path, plan_path, "--phase", "1", "--no-input")
    assert code == 5
    code, _ = as_json(repo, tmp_path, plan_path, "--phase", "1", "--answer", "sc-1=pass")
    assert code == 0
    assert run_phases(2) == [("1", VerificationStatus.PASSED), ("2", VerificationStatus.PASSED)]
    assert phase_state_dir(tmp_path, plan_path, "1").name == "1"


def test_read_plan_is_the_one_loader(tmp_path: Path) -> None:
    plan = Plan(format=PlanFormat.NATIVE, title="x", phases=(phase("1", "a.py"),))
    path = tmp_path / "p.json"
    path.write_text(plan.model_dump_json(by_alias=True))
    loaded = read_plan(path)
    assert loaded.plan == plan
    assert loaded.root == tmp_path
    with pytest.raises(UsageError):
        read_plan(tmp_path)
    # `run` and `verify` read plans through the plans package, not through each other
    assert verify_cli.load_plan is read_plan
    assert not hasattr(run_cli, "load_plan")


def test_native_checks_run_as_shell_commands(repo: Path, tmp_path: Path) -> None:
    unit = Unit(
        id="1-01",
        completed=True,
        tasks=(Task(id="1", name="t", checks=(Check(run="test -f src/app/core.py && exit 0"),)),),
    )
    plan = write_plan(tmp_path, Phase(id="1", units=(unit,)))
    code, data = as_json(repo, tmp_path, plan)
    assert (code, data["status"]) == (0, "passed")
    assert data["criteria"][0]["evidence"][0]["argv"][:2] == ["sh", "-c"]


def test_on_a_terminal_questions_are_asked_one_by_one(
    repo: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # The package re-exports the command as `mergegate.cli.verify`; patch the module itself.
    verify_cli = importlib.import_module("mergegate.cli.verify")
    monkeypatch.setattr(verify_cli, "_interactive", lambda opts: True)
    plan = write_plan(
        tmp_path, phase("1", "src/app/core.py", success=("It adds", "It is fast enough"))
    )
    result = CliRunner().invoke(
        cli,
        [
            "verify",
            str(plan),
            "--repo",
            str(repo),
            "--report-dir",
            str(tmp_path / "r"),
            "--who",
            "grace",
        ],
        input="pass\nran it by hand\nskip\n",
    )
    assert result.exit_code == 5, result.output
    assert "2 question(s) for a person" in result.output
    [answer] = load_answers(tmp_path / "r" / "1" / "answers.jsonl")
    assert (answer.criterion_id, answer.result, answer.who) == ("sc-1", "pass", "grace")
    assert answer.note == "ran it by hand"
    # the follow-up record shows the answer and still asks about sc-2
    assert result.output.count("HUMAN_NEEDED") == 2
    assert "1 of 3 criteria need a person" in result.output
