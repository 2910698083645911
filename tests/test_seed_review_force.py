"""Seed 004 (issue 25 item 16): "The `/mz:review` standalone skill handles on-demand review
regardless of config setting" — `mergegate review --force` reviews with `review.mode = off`."""

from __future__ import annotations

from pathlib import Path

from _gitrepo import change_repo
from test_review_config import APP, CHANGED, review
from test_review_e2e import agent_cmd, with_fixes

OFF = '[review]\nmode = "off"\n'


def test_force_reviews_with_the_mode_off(tmp_path: Path) -> None:
    """Seed 004, Open Question 3 ("/mz:review handles on-demand review regardless of config
    setting"): with `review.mode = off` in the trusted configuration, `review` alone does not
    review (exit 0, no reviewer started), and `review --force` runs the reviewer and decides
    from its verdict (here: fixes, exit 1)."""
    repo = change_repo(tmp_path / "repo", {**APP, "mergegate.toml": OFF}, CHANGED)
    reviewer = agent_cmd(tmp_path, "rv", [with_fixes(), with_fixes()])
    code, out, stderr = review(repo, tmp_path, "--reviewer-cmd", reviewer)
    assert (code, out) == (0, {})
    assert "review is off" in stderr
    assert "--force" in stderr
    assert not (tmp_path / "rv-state").exists()  # no reviewer ran
    code, out, _ = review(repo, tmp_path, "--reviewer-cmd", reviewer, "--force")
    assert code == 1, out
    assert out["decision"] == "fixes"
    assert (tmp_path / "rv-state").exists()
