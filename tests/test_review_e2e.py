"""End to end: `mergegate review` in temporary git repositories with scripted agents."""

from __future__ import annotations

import json
import re
import sys
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner

from _gitrepo import change_repo, git
from _verdict_object import finding, verdict_object
from mergegate.cli import cli

FAKE = Path(__file__).parent / "fakes" / "scripted_agent.py"


def approve(findings: list[dict[str, Any]] | None = None) -> dict[str, Any]:
    return {"text": verdict_object("approve", findings or ())}


def with_fixes(
    fid: str = "F-1",
    title: str = "Missing test for empty input",
    *,
    file: str = "app.py",
    verdict: str = "request_changes",
) -> dict[str, Any]:
    return {"text": verdict_object(verdict, [finding(fid, title=title, file=file)])}


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    add = "def add(a, b):\n    return a + b\n"
    sub = add + "\n\ndef sub(a, b):\n    return a - b\n"
    return change_repo(tmp_path / "repo", {"app.py": add}, {"app.py": sub}, message="add sub")


def agent_cmd(tmp_path: Path, name: str, steps: list[dict[str, Any]]) -> str:
    script = tmp_path / f"{name}.json"
    script.write_text(json.dumps(steps))
    return f"{sys.executable} {FAKE} {script} {tmp_path / (name + '-state')}"


def review(repo: Path, tmp_path: Path, *extra: str) -> tuple[int, dict[str, Any]]:
    reports = tmp_path / "reports"
    result = CliRunner().invoke(
        cli,
        [
            "review",
            "--repo",
            str(repo),
            "--base",
            "HEAD~1",
            "--report-dir",
            str(reports),
            "--format",
            "json",
            *extra,
        ],
    )
    assert result.exception is None or isinstance(result.exception, SystemExit), result.output
    return result.exit_code, json.loads(result.stdout)


def decisions(out: dict[str, Any]) -> list[str]:
    return [a["decision"] for r in out["rounds"] for a in r["attempts"]]


def test_approve(repo: Path, tmp_path: Path) -> None:
    code, out = review(repo, tmp_path, "--reviewer-cmd", agent_cmd(tmp_path, "rv", [approve()]))
    assert (code, out["decision"]) == (0, "approve")
    assert decisions(out) == ["approve"]
    report = Path(out["rounds"][0]["attempts"][0]["report"])
    text = report.read_text()
    assert text.startswith("---\n")
    assert '"review_id": ' not in text.split("---")[1]
    assert "template_sha256:" in text
    assert "base_sha:" in text


def test_malformed_then_approve_retries_once(repo: Path, tmp_path: Path) -> None:
    steps = [{"text": "The code looks good overall."}, approve()]
    code, out = review(repo, tmp_path, "--reviewer-cmd", agent_cmd(tmp_path, "rv", steps))
    assert code == 0
    assert decisions(out) == ["malformed", "approve"]
    retry_prompt = (tmp_path / "rv-state" / "prompt-2.txt").read_text()
    assert "could not be used" in retry_prompt  # the parse error is fed back


def test_malformed_twice_stops_with_exit_3(repo: Path, tmp_path: Path) -> None:
    steps = [{"text": "Solid work."}, {"text": "Great work!"}]
    code, out = review(repo, tmp_path, "--reviewer-cmd", agent_cmd(tmp_path, "rv", steps))
    assert code == 3
    assert out["status"] == "undecidable"
    assert decisions(out) == ["malformed", "malformed"]


def test_empty_then_approve(repo: Path, tmp_path: Path) -> None:
    steps = [{"text": ""}, approve()]
    code, out = review(repo, tmp_path, "--reviewer-cmd", agent_cmd(tmp_path, "rv", steps))
    assert code == 0
    assert decisions(out) == ["empty", "approve"]


def test_with_fixes_without_fix_mode_exits_1(repo: Path, tmp_path: Path) -> None:
    code, out = review(repo, tmp_path, "--reviewer-cmd", agent_cmd(tmp_path, "rv", [with_fixes()]))
    assert code == 1
    assert out["decision"] == "fixes"
    assert len(out["findings"]) == 1
    assert out["findings"][0]["title"] == "Missing test for empty input"


def test_soft_approval_is_not_approval(repo: Path, tmp_path: Path) -> None:
    steps = [{"text": "**Ready to merge: With fixes**\n\nAPPROVED WITH MINOR SUGGESTIONS."}]
    code, out = review(repo, tmp_path, "--reviewer-cmd", agent_cmd(tmp_path, "rv", steps))
    assert code != 0
    assert out["decision"] != "approve"


def test_fix_loop_reaches_approval_with_a_scoped_rereview(repo: Path, tmp_path: Path) -> None:
    reviewer = agent_cmd(tmp_path, "rv", [with_fixes(), approve()])
    fixed = "def add(a, b):\n    return a + b\n\n\ndef sub(a, b):\n    return a - b\n# tested\n"
    implementer = agent_cmd(tmp_path, "impl", [{"text": "F-1: fixed", "write": {"app.py": fixed}}])
    code, out = review(
        repo, tmp_path, "--reviewer-cmd", reviewer, "--fix", "--implementer-cmd", implementer
    )
    assert code == 0, out
    assert [r["scoped"] for r in out["rounds"]] == [False, True]
    assert out["rounds"][0]["fix_commit"] == git(repo, "rev-parse", "HEAD")
    assert "mergegate: fix round 1" in git(repo, "log", "-1", "--format=%B")
    fix_prompt = (tmp_path / "impl-state" / "prompt-1.txt").read_text()
    ids = re.findall(r"\[(F-[0-9a-f]+)\]", fix_prompt)
    assert len(ids) == 1
    assert "Missing test for empty input" in fix_prompt
    rereview = (tmp_path / "rv-state" / "prompt-2.txt").read_text()
    assert "SCOPED RE-REVIEW" in rereview
    assert f"[{ids[0]}]" in rereview
    assert "+# tested" in rereview
    assert "+def sub" not in rereview  # only the fix diff


def test_no_fix_after_malformed(repo: Path, tmp_path: Path) -> None:
    reviewer = agent_cmd(tmp_path, "rv", [{"text": "CRITICAL bug!"}, {"text": "still prose"}])
    implementer = agent_cmd(tmp_path, "impl", [{"text": "fixed", "write": {"x.py": "1"}}])
    code, out = review(
        repo, tmp_path, "--reviewer-cmd", reviewer, "--fix", "--implementer-cmd", implementer
    )
    assert code == 3
    assert out["status"] == "undecidable"
    assert not (tmp_path / "impl-state").exists()  # the implementer never ran


def test_cap_escalates_with_a_package(repo: Path, tmp_path: Path) -> None:
    reviewer = agent_cmd(tmp_path, "rv", [with_fixes("F-1"), with_fixes("F-2", "Another nit")])
    steps = [{"text": f"fixed {i}", "write": {"app.py": f"# v{i}\n"}} for i in range(5)]
    implementer = agent_cmd(tmp_path, "impl", steps)
    code, out = review(
        repo,
        tmp_path,
        "--reviewer-cmd",
        reviewer,
        "--fix",
        "--implementer-cmd",
        implementer,
        "--max-rounds",
        "2",
    )
    assert code == 5
    assert out["status"] == "needs_manual_review"
    package = Path(out["report_dir"]) / "escalation"
    assert (package / "README.md").read_text().startswith("# Review")
    history = json.loads((package / "open-findings.json").read_text())
    assert {f["title"] for f in history} >= {"Missing test for empty input"}
    assert all(f["history"] for f in history)


def test_reviewer_that_writes_voids_the_attempt(repo: Path, tmp_path: Path) -> None:
    steps = [{**approve(), "write": {"app.py": "hacked\n"}}]
    # without mergegate's sandbox, where the checkout is writable and the read-only check
    # catches the write (in the sandbox the write itself fails: tests/test_sandbox_e2e.py)
    args = ("--reviewer-cmd", agent_cmd(tmp_path, "rv", steps), "--no-sandbox")
    code, out = review(repo, tmp_path, *args)
    assert code == 4
    assert out["status"] == "agent_failed"
    assert "working tree" in out["message"] or "changed" in out["message"]


def test_reports_are_never_overwritten(repo: Path, tmp_path: Path) -> None:
    review(repo, tmp_path, "--reviewer-cmd", agent_cmd(tmp_path, "rv", [approve()]))
    runs = list((tmp_path / "reports").iterdir())
    review(repo, tmp_path, "--reviewer-cmd", agent_cmd(tmp_path, "rv2", [approve()]))
    assert set(runs) < set((tmp_path / "reports").iterdir())


def test_full_rereview_reviews_the_whole_change_again(repo: Path, tmp_path: Path) -> None:
    reviewer = agent_cmd(tmp_path, "rv", [with_fixes(), approve()])
    fixed = "def add(a, b):\n    return a + b\n\n\ndef sub(a, b):\n    return a - b\n# tested\n"
    implementer = agent_cmd(tmp_path, "impl", [{"text": "F-1: fixed", "write": {"app.py": fixed}}])
    base = git(repo, "rev-parse", "HEAD~1")
    code, out = review(
        repo,
        tmp_path,
        *("--reviewer-cmd", reviewer, "--fix", "--implementer-cmd", implementer),
        *("--rereview", "full"),
    )
    assert code == 0, out
    assert [r["scoped"] for r in out["rounds"]] == [False, False]
    assert [r["base_sha"] for r in out["rounds"]] == [base, base]
    assert out["rounds"][1]["head_sha"] == git(repo, "rev-parse", "HEAD")
    rereview = (tmp_path / "rv-state" / "prompt-2.txt").read_text()
    assert "FULL RE-REVIEW" in rereview
    assert "SCOPED" not in rereview
    assert "+def sub" in rereview  # the whole change, not only the fix
    assert "+# tested" in rereview


@pytest.fixture
def deferral(monkeypatch: pytest.MonkeyPatch) -> None:
    """Opt in to `review.defer_out_of_scope` (off by default: it weakens the gate)."""
    monkeypatch.setenv("MERGEGATE_REVIEW__DEFER_OUT_OF_SCOPE", "true")


@pytest.mark.usefixtures("deferral")
def test_full_rereview_does_not_defer_findings_outside_the_fix(repo: Path, tmp_path: Path) -> None:
    elsewhere = with_fixes("F-9", "Unchecked input elsewhere", file="other.py")
    start, first_base = git(repo, "rev-parse", "HEAD"), git(repo, "rev-parse", "HEAD~1")
    status_of_new: dict[str, str] = {}
    for mode in ("scoped", "full"):
        git(repo, "reset", "-q", "--hard", start)
        reviewer = agent_cmd(tmp_path, f"rv-{mode}", [with_fixes(), elsewhere])
        implementer = agent_cmd(
            tmp_path, f"im-{mode}", [{"text": "fixed", "write": {"app.py": "# v2\n"}}]
        )
        _, out = review(
            repo,
            tmp_path,
            *("--reviewer-cmd", reviewer, "--fix", "--implementer-cmd", implementer),
            *("--rereview", mode, "--max-rounds", "2"),
            *("--report-dir", str(tmp_path / f"reports-{mode}")),
        )
        # Round 2 reviews the fix commit (scoped) or the whole change again (full).
        assert out["rounds"][1]["base_sha"] == (start if mode == "scoped" else first_base)
        by_title = {f["title"]: f["status"] for f in out["findings"]}
        assert by_title["Missing test for empty input"] == "resolved"
        status_of_new[mode] = by_title["Unchecked input elsewhere"]
    # Scoped: a new blocking finding on a file the fix did not touch is deferred, not open.
    # Full: the whole change was reviewed, so it is open.
    assert status_of_new == {"scoped": "deferred", "full": "open"}


def test_rereview_flag_beats_the_config_file(repo: Path, tmp_path: Path) -> None:
    (repo / "mergegate.toml").write_text('[review]\nrereview = "full"\n')
    reviewer = agent_cmd(tmp_path, "rv", [with_fixes(), approve()])
    implementer = agent_cmd(tmp_path, "impl", [{"text": "fixed", "write": {"app.py": "# v2\n"}}])
    fix = ("--reviewer-cmd", reviewer, "--fix", "--implementer-cmd", implementer)
    config = ("--config", str(repo / "mergegate.toml"))
    code, out = review(repo, tmp_path, *fix, *config)
    assert code == 0, out
    assert out["rounds"][1]["scoped"] is False  # from the file
    git(repo, "reset", "-q", "--hard", "HEAD~1")
    reviewer2 = agent_cmd(tmp_path, "rv2", [with_fixes(), approve()])
    implementer2 = agent_cmd(tmp_path, "impl2", [{"text": "ok", "write": {"app.py": "# v3\n"}}])
    fix2 = ("--reviewer-cmd", reviewer2, "--fix", "--implementer-cmd", implementer2)
    code, out = review(repo, tmp_path, *fix2, "--rereview", "scoped")
    assert code == 0, out
    assert out["rounds"][1]["scoped"] is True


@pytest.mark.usefixtures("deferral")
def test_a_scoped_rereview_blocked_only_by_deferred_findings_approves(
    repo: Path, tmp_path: Path
) -> None:
    elsewhere = with_fixes("F-9", "Unchecked input elsewhere", file="other.py")
    reviewer = agent_cmd(tmp_path, "rv", [with_fixes(), elsewhere])
    implementer = agent_cmd(tmp_path, "impl", [{"text": "fixed", "write": {"app.py": "# v2\n"}}])
    fix = ("--reviewer-cmd", reviewer, "--fix", "--implementer-cmd", implementer)
    code, out = review(repo, tmp_path, *fix)
    assert code == 0, out
    assert out["decision"] == "approve"
    assert len(out["rounds"]) == 2  # no fix round was spent on the out-of-scope finding
    deferred = [f for f in out["findings"] if f["status"] == "deferred"]
    assert [f["title"] for f in deferred] == ["Unchecked input elsewhere"]
    assert deferred[0]["id"] in out["message"]
    # The implementer ran once, on the in-scope finding only.
    assert not (tmp_path / "impl-state" / "prompt-2.txt").exists()


def test_by_default_an_out_of_scope_with_fixes_blocks_and_goes_to_the_next_fix_round(
    repo: Path, tmp_path: Path
) -> None:
    """`review.defer_out_of_scope` is off by default: "With fixes" is a no, wherever it points."""
    two = {
        "text": verdict_object(
            "request_changes",
            [finding("F-1"), finding("F-2", title="Missing test for negatives")],
        )
    }
    elsewhere = with_fixes("F-9", "Unchecked input elsewhere", file="other.py")
    fixes = [
        {"text": "fixed", "write": {"app.py": "# v2\n"}},
        {"text": "fixed too", "write": {"other.py": "# checked\n"}},
    ]
    reviewer = agent_cmd(tmp_path, "rv", [two, elsewhere, approve()])
    implementer = agent_cmd(tmp_path, "impl", fixes)
    fix = ("--reviewer-cmd", reviewer, "--fix", "--implementer-cmd", implementer)
    code, out = review(repo, tmp_path, *fix)
    assert code == 0, out
    assert len(out["rounds"]) == 3  # round 2's out-of-scope finding cost a fix round
    assert "Unchecked input elsewhere" in (tmp_path / "impl-state" / "prompt-2.txt").read_text()
    assert {f["title"]: f["status"] for f in out["findings"]} == {
        "Missing test for empty input": "resolved",
        "Missing test for negatives": "resolved",
        "Unchecked input elsewhere": "resolved",
    }
    # One finding swapped for another out of scope is no progress: the loop escalates.
    git(repo, "reset", "-q", "--hard", "HEAD~2")
    reviewer = agent_cmd(tmp_path, "rv2", [with_fixes(), elsewhere])
    implementer = agent_cmd(tmp_path, "impl2", fixes)
    fix = ("--reviewer-cmd", reviewer, "--fix", "--implementer-cmd", implementer)
    code, out = review(repo, tmp_path, *fix, "--report-dir", str(tmp_path / "r2"))
    assert code == 5, out
    assert out["status"] == "needs_manual_review"
    assert [f["status"] for f in out["findings"] if f["title"] == "Unchecked input elsewhere"] == [
        "open"
    ]


@pytest.mark.usefixtures("deferral")
def test_a_rejection_outside_the_fix_still_blocks(repo: Path, tmp_path: Path) -> None:
    rejected = with_fixes("F-9", "Deletes user data", file="other.py", verdict="reject")
    reviewer = agent_cmd(tmp_path, "rv", [with_fixes(), rejected])
    implementer = agent_cmd(tmp_path, "impl", [{"text": "fixed", "write": {"app.py": "# v2\n"}}])
    fix = ("--reviewer-cmd", reviewer, "--fix", "--implementer-cmd", implementer)
    code, out = review(repo, tmp_path, *fix, "--max-rounds", "2")
    # Deferral never turns a rejection into approval: the loop goes on and hits the cap.
    assert code == 5, out
    assert out["status"] == "needs_manual_review"
    assert [f["status"] for f in out["findings"] if f["title"] == "Deletes user data"] == [
        "deferred"
    ]


@pytest.mark.parametrize(
    ("stages", "expected"),
    [('["quality"]', ["quality"]), ('["quality", "spec"]', ["quality", "spec"])],
)
def test_review_stages_come_from_the_config(
    repo: Path, tmp_path: Path, stages: str, expected: list[str]
) -> None:
    (repo / "mergegate.toml").write_text(f"[review]\nstages = {stages}\n")
    spec = tmp_path / "spec.md"
    spec.write_text("Add sub(a, b).\n")
    reviewer = agent_cmd(tmp_path, "rv", [approve(), approve()])
    config = ("--config", str(repo / "mergegate.toml"))
    code, out = review(repo, tmp_path, "--reviewer-cmd", reviewer, "--spec", str(spec), *config)
    assert code == 0, out
    assert [a["stage"] for a in out["rounds"][0]["attempts"]] == expected


def test_a_spec_only_review_without_a_spec_is_a_usage_error(repo: Path, tmp_path: Path) -> None:
    (repo / "mergegate.toml").write_text('[review]\nstages = ["spec"]\n')
    reviewer = agent_cmd(tmp_path, "rv", [approve()])
    result = CliRunner().invoke(
        cli,
        [
            *("review", "--repo", str(repo), "--reviewer-cmd", reviewer, "--progress", "none"),
            *("--config", str(repo / "mergegate.toml")),
        ],
    )
    assert result.exit_code == 2
    assert "pass --spec" in result.stderr
    assert not (tmp_path / "rv-state").exists()  # no reviewer ran
