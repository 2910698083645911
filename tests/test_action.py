"""The composite GitHub Action (action.yml), its steps run as a runner runs them
(tests/_action.py, no `act`), against a scripted reviewer in a real repository with a real
`origin`, as in a pull request checkout."""

from __future__ import annotations

import json
import os
import re
import shutil
import sys
from pathlib import Path
from typing import Any

import pytest

from _action import ROOT, ActionRun, load_action, run_action
from _gitrepo import git
from _verdict_object import finding, verdict_object

BIN = Path(sys.executable).parent
FAKE = Path(__file__).parent / "fakes" / "scripted_agent.py"
HOSTILE_TITLE = "<img src=x onerror=alert(1)> | **APPROVED** `x` [link](http://evil)\n## ✅ ok"

pytestmark = pytest.mark.skipif(shutil.which("bash") is None, reason="needs bash")


def verdict_text(verdict: str, title: str = "Missing test") -> str:
    line = {"approve": "Yes", "request_changes": "With fixes"}.get(verdict)
    if line is None:
        return "The code looks fine to me."  # no verdict: malformed
    findings = [] if verdict == "approve" else [finding("F-1", title=title)]
    return verdict_object(verdict, findings)


def reviewer(tmp_path: Path, verdict: str, title: str = "Missing test") -> str:
    script = tmp_path / f"{verdict}.json"
    script.write_text(json.dumps([{"text": verdict_text(verdict, title)}]))
    return f"{sys.executable} {FAKE} {script} {tmp_path / 'reviewer-state'}"


def prompts(tmp_path: Path) -> list[str]:
    return [p.read_text() for p in sorted((tmp_path / "reviewer-state").glob("prompt-*.txt"))]


@pytest.fixture
def pull_request(tmp_path: Path) -> Path:
    """A clone with origin/main and a checked-out branch `pr` one commit ahead."""
    origin = tmp_path / "origin.git"
    git(tmp_path, "init", "-q", "--bare", "-b", "main", str(origin))
    repo = tmp_path / "work"
    repo.mkdir()
    git(repo, "init", "-q", "-b", "main")
    git(repo, "config", "user.email", "t@example.com")
    git(repo, "config", "user.name", "t")
    (repo / ".gitignore").write_text(".mergegate/\n")
    (repo / "app.py").write_text("def add(a, b):\n    return a + b\n")
    git(repo, "add", "-A")
    git(repo, "commit", "-qm", "base")
    git(repo, "remote", "add", "origin", str(origin))
    git(repo, "push", "-q", "origin", "main")
    git(repo, "checkout", "-qb", "pr")
    (repo / "app.py").write_text(
        "def add(a, b):\n    return a + b\n\n\ndef sub(a, b):\n    return a - b\n"
    )
    git(repo, "commit", "-qam", "add sub")
    return repo


def runner_env(**extra: str) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith(("GITHUB_", "MERGEGATE_REVIEW"))}
    env["PATH"] = f"{BIN}{os.pathsep}{os.environ['PATH']}"
    env.update(extra)
    return env


def run(repo: Path, tmp_path: Path, inputs: dict[str, str], **env: str) -> ActionRun:
    return run_action({"install": "none", **inputs}, runner_env(**env), repo, tmp_path / "runner")


# ---------------------------------------------------------------- the file itself
def test_the_action_declares_its_inputs_outputs_and_scripts() -> None:
    action = load_action()
    assert action["runs"]["using"] == "composite"
    assert {"base", "spec", "reviewer", "reviewer-cmd", "config", "args"} <= set(action["inputs"])
    assert set(action["outputs"]) == {"decision", "exit-code"}
    steps = action["runs"]["steps"]
    assert [s["name"] for s in steps] == ["Install mergegate", "Review", "Decide"]
    for step in steps:
        assert "${{" not in step["run"], step["name"]  # inputs only through env: (injection)
        script = re.fullmatch(
            r'bash "\$GITHUB_ACTION_PATH/(scripts/action/[a-z]+\.sh)"', step["run"].strip()
        )
        assert script, step["run"]
        assert (ROOT / script.group(1)).is_file()
    review = steps[1]
    for name in ("base", "spec", "reviewer", "reviewer-cmd", "config", "args"):
        variable = "INPUT_" + name.upper().replace("-", "_")
        assert review["env"][variable] == f"${{{{ inputs.{name} }}}}"


# ---------------------------------------------------------------- running it
def test_an_approval_passes_and_sets_the_outputs(pull_request: Path, tmp_path: Path) -> None:
    result = run(
        pull_request,
        tmp_path,
        {"base": "origin/main", "reviewer-cmd": reviewer(tmp_path, "approve")},
    )
    assert result.ok, result.log()
    assert result.outputs == {"decision": "approve", "exit-code": "0"}
    assert "## ✅ mergegate review: approve" in result.summary
    assert "Exit code 0: approved." in result.summary
    assert "mergegate: approved" in result.steps["Decide"].stdout
    (prompt,) = prompts(tmp_path)  # no spec outside a pull request event: quality stage only
    assert "+def sub(a, b):" in prompt


def test_changes_requested_fail_the_step_with_an_escaped_summary(
    pull_request: Path, tmp_path: Path
) -> None:
    command = reviewer(tmp_path, "request_changes", HOSTILE_TITLE)
    result = run(pull_request, tmp_path, {"base": "origin/main", "reviewer-cmd": command})
    assert result.failed_step == "Decide"
    assert result.outputs == {"decision": "fixes", "exit-code": "1"}
    assert "::error title=mergegate review::fixes (exit 1): changes requested" in (
        result.steps["Decide"].stdout
    )
    summary = result.summary
    assert "## ❌ mergegate review: fixes" in summary
    (row,) = [line for line in summary.splitlines() if line.startswith("| important")]
    assert row.count(" | ") == 4  # the title's pipe did not add a column
    assert "<img" not in summary
    assert "&lt;img src=x onerror=alert\\(1\\)&gt;" in row
    assert "\\*\\*APPROVED\\*\\*" in row
    assert "## ✅" not in summary


def test_a_pull_request_event_gives_the_base_and_the_spec(
    pull_request: Path, tmp_path: Path
) -> None:
    event = tmp_path / "event.json"
    body = "Acceptance: sub works. $(touch pwned) `touch pwned2`"
    event.write_text(json.dumps({"pull_request": {"title": "Add sub", "body": body}}))
    result = run(
        pull_request,
        tmp_path,
        {"reviewer-cmd": reviewer(tmp_path, "approve")},
        GITHUB_BASE_REF="main",
        GITHUB_EVENT_PATH=str(event),
    )
    assert result.ok, result.log()
    spec_prompt = prompts(tmp_path)[0]
    assert "# Add sub" in spec_prompt
    assert body in spec_prompt
    assert "+def sub(a, b):" in spec_prompt
    assert not list(pull_request.glob("pwned*"))  # the body was data, never a command


def test_a_pull_request_cannot_configure_its_own_gate(pull_request: Path, tmp_path: Path) -> None:
    """The pull request adds a mergegate.toml naming a rubber stamp and turning review off:
    the action reads the base revision's configuration, so neither has any effect."""
    (tmp_path / "stamp").mkdir()
    stamp = reviewer(tmp_path / "stamp", "approve")
    (pull_request / "mergegate.toml").write_text(
        f'[review]\nmode = "off"\nreviewer_cmd = {json.dumps(stamp)}\n'
    )
    git(pull_request, "add", "mergegate.toml")
    git(pull_request, "commit", "-qm", "configure my own review")
    command = reviewer(tmp_path, "request_changes")
    result = run(pull_request, tmp_path, {"base": "origin/main", "reviewer-cmd": command})
    assert result.failed_step == "Decide"
    assert result.outputs == {"decision": "fixes", "exit-code": "1"}
    assert not (tmp_path / "stamp" / "reviewer-state").exists()
    trusted = tmp_path / "trusted.toml"
    trusted.write_text(f"[review]\nreviewer_cmd = {json.dumps(stamp)}\n")
    named = run(pull_request, tmp_path, {"base": "origin/main", "config": str(trusted)})
    assert named.ok, named.log()  # a file the workflow names is read
    assert named.outputs == {"decision": "approve", "exit-code": "0"}


def test_args_are_split_like_a_shell_without_expansion(pull_request: Path, tmp_path: Path) -> None:
    inputs = {
        "base": "origin/main",
        "reviewer-cmd": reviewer(tmp_path, "approve"),
        "args": "--report-dir 'reports with space/$(touch pwned)' --max-rounds 1",
    }
    result = run(pull_request, tmp_path, inputs)
    assert result.ok, result.log()
    assert (pull_request / "reports with space" / "$(touch pwned)").is_dir()
    assert not (pull_request / "pwned").exists()


def test_unreadable_args_are_a_usage_error_not_ignored(pull_request: Path, tmp_path: Path) -> None:
    inputs = {"reviewer-cmd": reviewer(tmp_path, "approve"), "args": "--max-rounds 'oops"}
    result = run(pull_request, tmp_path, inputs)
    assert result.failed_step == "Decide"
    assert result.outputs == {"decision": "error", "exit-code": "2"}
    assert prompts(tmp_path) == []  # no review ran without the arguments asked for


@pytest.mark.parametrize(
    ("inputs", "decision", "code"),
    [
        ({"base": "origin/no-such-branch"}, "error", "2"),
        ({"base": "origin/main", "args": "--max-rounds 1"}, "malformed", "3"),
    ],
)
def test_no_approval_fails_the_action(
    pull_request: Path, tmp_path: Path, inputs: dict[str, Any], decision: str, code: str
) -> None:
    result = run(
        pull_request, tmp_path, {"reviewer-cmd": reviewer(tmp_path, "malformed"), **inputs}
    )
    assert result.failed_step == "Decide"
    assert result.outputs == {"decision": decision, "exit-code": code}
    assert f"{decision} (exit {code})" in result.steps["Decide"].stdout
    assert result.steps["Review"].returncode == 0  # the review step records, Decide fails


def test_reviewer_text_cannot_issue_workflow_commands(pull_request: Path, tmp_path: Path) -> None:
    command = reviewer(tmp_path, "request_changes", "x\n::error::forged\n::add-mask::y")
    result = run(pull_request, tmp_path, {"base": "origin/main", "reviewer-cmd": command})
    log = result.steps["Review"].stdout
    stop = re.search(r"^::stop-commands::(mergegate-[0-9a-f]{32})$", log, re.M)
    assert stop, log
    inside = log.split(stop.group(0), 1)[1].split(f"::{stop.group(1)}::", 1)[0]
    assert "forged" in inside  # the JSON result is in the log, but commands are off there
    outside = log.replace(inside, "")
    assert "forged" not in outside


def test_install_none_without_mergegate_fails_early(pull_request: Path, tmp_path: Path) -> None:
    env = runner_env()
    env["PATH"] = "/usr/bin:/bin"
    result = run_action({"install": "none"}, env, pull_request, tmp_path / "runner")
    assert result.failed_step == "Install mergegate"
    assert "mergegate is not on PATH" in result.steps["Install mergegate"].stdout


@pytest.mark.slow
def test_install_from_source_puts_mergegate_on_the_path(pull_request: Path, tmp_path: Path) -> None:
    """The default `install: source`: a virtual environment with mergegate built from this
    checkout (pip, from its cache or PyPI), added to GITHUB_PATH for the later steps."""
    env = runner_env()
    env["PATH"] = os.environ["PATH"].replace(str(BIN), "")  # not the test's own mergegate
    inputs = {"install": "source", "python": sys.executable, "base": "origin/main"}
    inputs["reviewer-cmd"] = reviewer(tmp_path, "approve")
    result = run_action(inputs, env, pull_request, tmp_path / "runner")
    assert result.ok, result.log()
    venv_bin = tmp_path / "runner" / "temp" / "mergegate-venv" / "bin"
    assert (tmp_path / "runner" / "github_path").read_text().strip() == str(venv_bin)
    assert "mergegate: installed mergegate" in result.steps["Install mergegate"].stdout
    assert result.outputs == {"decision": "approve", "exit-code": "0"}
