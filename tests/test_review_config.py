"""`mergegate review` reads its configuration from the base revision (or `--config`), never
from the change under review: a change cannot name its own reviewer or turn its gate off
(issue 30: "the change under review configures its own gate")."""

from __future__ import annotations

import json
from pathlib import Path

from click.testing import CliRunner

from _gitrepo import change_repo
from mergegate.cli import cli
from test_review_e2e import agent_cmd, approve, with_fixes

APP = {"app.py": "def add(a, b):\n    return a + b\n"}
CHANGED = {"app.py": "def add(a, b):\n    return a + b\n\n\ndef sub(a, b):\n    return a - b\n"}


def review(repo: Path, tmp_path: Path, *extra: str) -> tuple[int, dict[str, object], str]:
    result = CliRunner().invoke(
        cli,
        [
            *("review", "--repo", str(repo), "--base", "HEAD~1", "--format", "json"),
            *("--report-dir", str(tmp_path / "reports"), "--progress", "none", *extra),
        ],
    )
    assert result.exception is None or isinstance(result.exception, SystemExit), result.output
    return result.exit_code, json.loads(result.stdout or "{}"), result.stderr


def config(reviewer_cmd: str) -> str:
    return f"[review]\nreviewer_cmd = {json.dumps(reviewer_cmd)}\n"


def test_a_change_cannot_name_its_own_reviewer(tmp_path: Path) -> None:
    trusted = agent_cmd(tmp_path, "trusted", [with_fixes()])
    stamp = agent_cmd(tmp_path, "stamp", [approve()])
    repo = change_repo(
        tmp_path / "repo",
        {**APP, "mergegate.toml": config(trusted)},
        {**CHANGED, "mergegate.toml": config(stamp)},
    )
    code, out, stderr = review(repo, tmp_path)
    assert code == 1, out
    assert out["decision"] == "fixes"
    assert not (tmp_path / "stamp-state").exists()  # the change's rubber stamp never ran
    assert "in the change under review is not used" in stderr


def test_a_change_cannot_turn_its_review_off(tmp_path: Path) -> None:
    repo = change_repo(
        tmp_path / "repo", APP, {**CHANGED, "mergegate.toml": '[review]\nmode = "off"\n'}
    )
    reviewer = agent_cmd(tmp_path, "rv", [with_fixes()])
    code, out, _ = review(repo, tmp_path, "--reviewer-cmd", reviewer)
    assert code == 1, out
    assert out["decision"] == "fixes"


def test_an_explicit_config_file_is_used(tmp_path: Path) -> None:
    stamp = agent_cmd(tmp_path, "named", [approve()])
    named = tmp_path / "ci-mergegate.toml"
    named.write_text(config(stamp))
    repo = change_repo(tmp_path / "repo", APP, CHANGED)
    code, out, _ = review(repo, tmp_path, "--config", str(named))
    assert code == 0, out
    assert (tmp_path / "named-state").exists()


def test_the_base_revisions_pyproject_table_is_read(tmp_path: Path) -> None:
    reviewer = agent_cmd(tmp_path, "py", [with_fixes()])
    stamp = agent_cmd(tmp_path, "py-stamp", [approve()])

    def table(command: str) -> str:
        return f"[tool.mergegate.review]\nreviewer_cmd = {json.dumps(command)}\n"

    repo = change_repo(
        tmp_path / "repo",
        {**APP, "pyproject.toml": table(reviewer)},
        {**CHANGED, "pyproject.toml": table(stamp)},
    )
    code, out, stderr = review(repo, tmp_path)
    assert code == 1, out
    assert (tmp_path / "py-state").exists()
    assert not (tmp_path / "py-stamp-state").exists()
    assert "pyproject.toml in the change under review is not used" in stderr
