"""Seed 002's failed handoffs for the reviewer (issue 25 item 4): a reviewer run that fails by
transport is run again with a backoff, counted apart from malformed answers; one that hits its
token limit is run again once with the diff alone, then escalated with that reason."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from _gitrepo import change_repo
from test_review_config import APP, CHANGED, review
from test_review_e2e import agent_cmd, approve

FAST = "[retry]\njson_retry_delay = 0.01\nmax_backoff_delay = 0.05\n"
UNAVAILABLE = {"shell": "echo 'HTTP 503 Service Unavailable' >&2", "exit": 1, "text": ""}
TOO_LONG = {
    "shell": "echo 'API Error: 400 prompt is too long: 250000 tokens > 200000 maximum' >&2",
    "exit": 1,
    "text": "",
}


def _review(tmp_path: Path, steps: list[dict[str, Any]], config: str = FAST) -> tuple[int, Any]:
    repo = change_repo(tmp_path / "repo", {**APP, "mergegate.toml": config}, CHANGED)
    code, out, _ = review(repo, tmp_path, "--reviewer-cmd", agent_cmd(tmp_path, "rv", steps))
    return code, out


def _attempts(out: dict[str, Any]) -> list[dict[str, Any]]:
    return [a for r in out["rounds"] for a in r["attempts"]]


def test_a_transport_failure_is_retried_with_backoff_apart_from_malformed(
    tmp_path: Path,
) -> None:
    """Seed 002, Code Review Findings #3 ("Code review agent lacks retry logic ... MCP tool
    calls have no retry") and "Network timeout simulation": an unavailable reviewer (HTTP
    503, nothing written) is run again after a backoff; its retry does not use up the one
    malformed retry (a malformed answer after it is still asked again), and the record says
    which run failed by transport."""
    malformed = {"text": "Looks fine to me."}
    code, out = _review(tmp_path, [UNAVAILABLE, malformed, approve()])
    assert code == 0, out
    attempts = _attempts(out)
    assert [a["decision"] for a in attempts] == ["none", "malformed", "approve"]
    assert attempts[0]["note"].startswith("transport: ")
    assert "HTTP 503" in attempts[0]["note"]
    prompts = sorted((tmp_path / "rv-state").glob("prompt-*.txt"))
    assert "## The change under review" in prompts[1].read_text()  # a complete dispatch again


def test_transport_retries_are_capped_then_the_reviewer_failed(tmp_path: Path) -> None:
    """Seed 002, "Hard limit ... then escalate to fatal error": `[review] transport_retries`
    bounds the retries; then the review ends as an agent failure (exit 4)."""
    config = FAST + "[review]\ntransport_retries = 2\n"
    code, out = _review(tmp_path, [UNAVAILABLE], config)
    assert code == 4, out
    assert [a["decision"] for a in _attempts(out)] == ["none", "none", "none"]
    assert "HTTP 503" in out["message"]


def test_a_token_limit_is_retried_once_with_the_diff_alone(tmp_path: Path) -> None:
    """Seed 002, "Handle token limit failures specially" / "Context Window Exhaustion ...
    Progressive prompt reduction": the reviewer's "prompt is too long" is classified as a
    token limit and run again once, in a fresh dispatch whose prompt carries the diff alone."""
    code, out = _review(tmp_path, [TOO_LONG, approve()])
    assert code == 0, out
    attempts = _attempts(out)
    assert [a["decision"] for a in attempts] == ["none", "approve"]
    assert attempts[0]["note"].startswith("token_limit: ")
    first, second = (tmp_path / "rv-state" / f"prompt-{n}.txt" for n in (1, 2))
    assert "### Affected files" in first.read_text()
    assert "### Affected files" not in second.read_text()
    assert "The affected files are left out" in second.read_text()


def test_a_token_limit_with_the_diff_alone_escalates_with_that_reason(tmp_path: Path) -> None:
    """Seed 002 ("Handle token limit failures specially"): when the diff alone does not fit
    either, the review escalates to a person (exit 5) saying so — not an agent failure, not
    a malformed review."""
    code, out = _review(tmp_path, [TOO_LONG, TOO_LONG])
    assert code == 5, out
    assert out["status"] == "needs_manual_review"
    assert "token limit" in out["message"]
    assert [a["decision"] for a in _attempts(out)] == ["none", "none"]
    summary = json.loads((Path(out["report_dir"]) / "summary.json").read_text())
    assert summary["status"] == "needs_manual_review"
