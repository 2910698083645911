"""Reviewer usage in `mergegate review`: per attempt, in the reports, and totalled per run.

The reviewer is the `openai` backend against an in-process model server whose turns report
fixed token counts, and answer with the prompt's own `review_id` (`Turn.echo`).
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner

from _gitrepo import change_repo
from _verdict_object import verdict_object
from mergegate.cli import cli
from mergegate.testing.model_server import ModelServer, Script, Turn, TurnUsage

ECHO = {"{{review_id}}": '"review_id": "', "{{scope}}": '"scope": "'}
APPROVE = verdict_object(review_id="{{review_id}}", scope="{{scope}}")
USAGE = {"input_tokens": 0, "output_tokens": 0, "cache_read_tokens": 0, "cache_write_tokens": 0}


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    add = "def add(a, b):\n    return a + b\n"
    neg = add + "\n\ndef neg(a):\n    return -a\n"
    return change_repo(tmp_path / "repo", {"app.py": add}, {"app.py": neg}, message="add neg")


def review_with(server: ModelServer, repo: Path, tmp_path: Path) -> tuple[int, dict[str, Any]]:
    (repo / "mergegate.toml").write_text(
        "[agents.backends.openai]\n"
        f'base_url = "{server.openai_base_url}"\n'
        'model = "mock-model"\n'
        "trust_env = false\n"
    )
    result = CliRunner().invoke(
        cli,
        [
            *("review", "--repo", str(repo), "--reviewer", "openai", "--format", "json"),
            *("--config", str(repo / "mergegate.toml")),
            *("--report-dir", str(tmp_path / "reports")),
        ],
    )
    assert result.exception is None or isinstance(result.exception, SystemExit), result.output
    return result.exit_code, json.loads(result.stdout)


def test_usage_is_recorded_per_attempt_in_reports_and_totalled(repo: Path, tmp_path: Path) -> None:
    script = Script(
        turns=[
            Turn(
                match="STAGE 2 of 2",
                text="Looks fine to me.",
                usage=TurnUsage(input_tokens=1200, output_tokens=7),
            ),
            Turn(
                match="could not be used",
                text=APPROVE,
                echo=ECHO,
                usage=TurnUsage(input_tokens=1500, output_tokens=40),
            ),
        ]
    )
    with ModelServer(script) as server:
        code, out = review_with(server, repo, tmp_path)
    assert code == 0, out
    attempts = out["rounds"][0]["attempts"]
    assert [a["decision"] for a in attempts] == ["malformed", "approve"]
    assert [a["usage"] for a in attempts] == [
        {**USAGE, "input_tokens": 1200, "output_tokens": 7},
        {**USAGE, "input_tokens": 1500, "output_tokens": 40},
    ]
    assert all(a["duration_s"] > 0 for a in attempts)
    total = out["usage"]["reviewer"]
    assert (total["runs"], total["input_tokens"], total["output_tokens"]) == (2, 2700, 47)
    assert total["total_tokens"] == 2747
    assert total["duration_s"] == pytest.approx(sum(a["duration_s"] for a in attempts), abs=0.01)
    assert "implementer" not in out["usage"]  # no fix round ran
    # The attempt report: frontmatter and JSON twin.
    report = Path(attempts[1]["report"])
    frontmatter = report.read_text().split("---\n")[1]
    assert "usage:\n  input_tokens: 1500\n  output_tokens: 40\n" in frontmatter
    assert "duration_s: " in frontmatter
    twin = json.loads(report.with_suffix(".json").read_text())
    assert twin["usage"]["input_tokens"] == 1500
    summary = json.loads((Path(out["report_dir"]) / "summary.json").read_text())
    assert summary["usage"]["reviewer"]["input_tokens"] == 2700
    assert (
        "reviewer total: 2 run(s), 2700 input and 47 output tokens"
        in (Path(out["report_dir"]) / "summary.md").read_text()
    )


def test_computed_usage_is_the_servers_count_of_the_request(repo: Path, tmp_path: Path) -> None:
    with ModelServer(Script(turns=[Turn(match="STAGE 2 of 2", text=APPROVE, echo=ECHO)])) as srv:
        code, out = review_with(srv, repo, tmp_path)
        request = srv.requests[-1]
    assert code == 0, out
    usage = out["rounds"][0]["attempts"][0]["usage"]
    # chars / 4 of the body it received: at least the prompt, which holds the whole diff.
    assert usage["input_tokens"] >= len(request.prompt) // 4
    assert "+def neg(a):" in request.prompt
    assert usage["output_tokens"] > 0
