"""Seed 004's severity rule as a policy preset (issue 25 item 9): `[review.policy] preset =
"seed-004"` lets only critical findings block; warnings are reported, and a notice says when
a task has accumulated 4 or more. The default stays the project's choice: warnings block."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from click.testing import CliRunner

from _gitrepo import change_repo
from _verdict_object import finding, verdict_object
from mergegate.cli import cli
from test_review_config import APP, CHANGED
from test_review_e2e import agent_cmd

SEED_004 = '[review.policy]\npreset = "seed-004"\n'
WARNINGS = [finding(f"W-{n}", "important", f"warning number {n}") for n in range(1, 5)]


def review(tmp_path: Path, config: str, answer: str) -> tuple[int, dict[str, Any], str]:
    repo = change_repo(tmp_path / "repo", {**APP, "mergegate.toml": config}, CHANGED)
    reviewer = agent_cmd(tmp_path, "rv", [{"text": answer}])
    result = CliRunner().invoke(
        cli,
        [
            *("review", "--repo", str(repo), "--base", "HEAD~1", "--format", "json"),
            *("--report-dir", str(tmp_path / "reports"), "--progress", "plain"),
            *("--reviewer-cmd", reviewer),
        ],
    )
    assert result.exception is None or isinstance(result.exception, SystemExit), result.output
    return result.exit_code, json.loads(result.stdout or "{}"), result.stderr


def test_seed_004_preset_reports_warnings_and_blocks_only_critical(tmp_path: Path) -> None:
    """Seed 004, Discretion 3 "Warning Blocking Behavior" ("Warnings are never blocking by
    themselves -- only critical findings block"; "4+ warnings in a single task: Log a notice
    that accumulated warnings are high, but still continue"): under the `seed-004` preset an
    approval listing four warnings passes (exit 0) with a notice, and the reviewer is told
    that warnings do not block."""
    code, out, stderr = review(tmp_path, SEED_004, verdict_object("approve", WARNINGS))
    assert code == 0, (out, stderr)
    assert out["decision"] == "approve"
    assert len(out["findings"]) == 4
    assert "4 warnings (important findings) accumulated" in stderr
    prompt = (tmp_path / "rv-state" / "prompt-1.txt").read_text()
    assert "no condition, no critical finding (important and minor findings are reported" in prompt


def test_the_default_policy_keeps_warnings_blocking(tmp_path: Path) -> None:
    """Seed 001 ("Review found 'Important' issues → but implementation is solid → proceed
    anyway" is WRONG): the project's default blocks the same approval listing warnings; the
    notice is given all the same."""
    code, out, stderr = review(tmp_path, "", verdict_object("approve", WARNINGS))
    assert code == 1, (out, stderr)
    assert out["decision"] != "approve"
    assert "4 warnings (important findings) accumulated" in stderr
    prompt = (tmp_path / "rv-state" / "prompt-1.txt").read_text()
    assert "no condition, no critical or important finding." in prompt


def test_seed_004_preset_still_blocks_critical_and_request_changes(tmp_path: Path) -> None:
    """Seed 004, Severity Levels ("critical: Blocks task completion"): under the preset a
    critical finding blocks, and a `request_changes` object never passes (only an approving
    verdict object passes under any policy)."""
    critical = [finding("C-1", "critical", "data loss")]
    code, out, _ = review(tmp_path / "a", SEED_004, verdict_object("approve", critical))
    assert code == 1, out
    code, out, _ = review(tmp_path / "b", SEED_004, verdict_object("request_changes", WARNINGS))
    assert code == 1, out


def test_a_key_beside_the_preset_wins(tmp_path: Path) -> None:
    """The preset fills the keys not written: `blocking_severities` beside it overrides."""
    config = SEED_004 + 'blocking_severities = ["critical", "important"]\n'
    code, out, _ = review(tmp_path, config, verdict_object("approve", WARNINGS))
    assert code == 1, out
