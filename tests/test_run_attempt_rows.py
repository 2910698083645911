"""An agent attempt as a row of the run's database (`AttemptRecord`): what ran and how it
ended, with the agent's log left on the host that ran it — its path, size, SHA-256 and a
bounded excerpt of its end in the row."""

from __future__ import annotations

import hashlib
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from _plan_runs import agent, invoke, make_plan, repo_with, run_args
from mergegate.engine._context.attempt_rows import log_digest, report_logs
from mergegate.store import EXCERPT_CHARS, RunStore


@settings(max_examples=60, deadline=None)
@given(st.text(max_size=EXCERPT_CHARS + 50), st.integers(min_value=0, max_value=3))
def test_the_excerpt_is_the_logs_last_characters_whatever_they_are(
    tmp_path_factory: pytest.TempPathFactory, text: str, repeat: int
) -> None:
    body = text * (repeat + 1)
    path = tmp_path_factory.mktemp("log") / "agent.log"
    data = body.encode("utf-8", "surrogatepass")
    path.write_bytes(data)
    size, sha, excerpt = log_digest(path)
    assert size == len(data)
    assert sha == hashlib.sha256(data).hexdigest()
    decoded = data.decode("utf-8", "replace").replace("\x00", "\ufffd")
    assert excerpt == decoded[-EXCERPT_CHARS:]
    assert "\x00" not in excerpt


def test_a_large_log_is_hashed_whole_and_cut_to_its_end(tmp_path: Path) -> None:
    path = tmp_path / "agent.log"
    data = ("é" * 3_000_001).encode() + b"\x00the end\n"
    path.write_bytes(data)
    size, sha, excerpt = log_digest(path)
    assert (size, sha) == (len(data), hashlib.sha256(data).hexdigest())
    assert len(excerpt) == EXCERPT_CHARS
    assert excerpt.endswith("é\ufffdthe end\n")
    assert log_digest(tmp_path / "missing.log") == (0, "", "")


def test_each_agent_attempt_of_a_run_is_a_row(tmp_path: Path) -> None:
    repo = repo_with(tmp_path / "repo")
    impl = agent(tmp_path, "impl", {"*": {"implement": [{}]}})
    rev = agent(tmp_path, "rev", {"*": {"review": [{"text": "APPROVE"}]}})
    plan = make_plan({"P1": {"A": {"tasks": ["T1", "T2"]}}})
    code, out, err = invoke(run_args(repo, impl, rev), plan, tmp_path)
    assert code == 0, err
    assert out is not None
    store = RunStore(tmp_path / ".mergegate-state")
    attempts = store.rows(out["run_id"]).attempts()
    # the implementer's, and each stage's reviewer (its log is its raw output), per task
    assert [(a.attempt.split("/")[:3], a.role, a.status) for a in attempts] == [
        (["P1", "A", "T1"], "implementer", "ok"),
        (["P1", "A", "T1"], "reviewer", "ok"),
        (["P1", "A", "T1"], "reviewer", "ok"),
        (["P1", "A", "T2"], "implementer", "ok"),
        (["P1", "A", "T2"], "reviewer", "ok"),
        (["P1", "A", "T2"], "reviewer", "ok"),
    ]
    for found in attempts:
        assert found.host
        assert (store.run_dir(out["run_id"]) / found.attempt).is_dir()
        # the log stays where the backend wrote it; the row vouches for it
        data = Path(found.log_path).read_bytes()
        assert found.log_bytes == len(data)
        assert found.log_sha256 == hashlib.sha256(data).hexdigest()
        assert found.log_excerpt == data.decode("utf-8", "replace")[-EXCERPT_CHARS:]


def test_the_report_names_a_log_here_and_shows_the_end_of_one_that_is_not(
    tmp_path: Path,
) -> None:
    """One machine, the run's own SQLite file: the page written at the end of the run names
    each log's file and shows the run's reviews and summaries from the rows; a log no longer
    at its path (another host's, a deleted state directory) is shown by its end."""
    repo = repo_with(tmp_path / "repo")
    impl = agent(tmp_path, "impl", {"*": {"implement": [{}]}})
    rev = agent(tmp_path, "rev", {"*": {"review": [{"text": "APPROVE"}]}})
    plan = make_plan({"P1": {"A": {"tasks": ["T1", "T2"]}}})
    code, out, err = invoke(run_args(repo, impl, rev), plan, tmp_path)
    assert code == 0, err
    assert out is not None
    store = RunStore(tmp_path / ".mergegate-state")
    rows = store.rows(out["run_id"])
    page = (store.run_dir(out["run_id"]) / "report.html").read_text()
    assert "Review of task P1/A/T1" in page
    assert "Unit P1/A summary (SUMMARY.md)" in page
    assert "full log on host" not in page
    attempts = rows.attempts()
    first = attempts[0]
    assert first.log_excerpt
    assert [log.here for log in report_logs(rows)] == [True] * len(attempts)
    Path(first.log_path).unlink()
    shown = report_logs(rows)
    assert [log.here for log in shown] == [False] + [True] * (len(attempts) - 1)
    assert shown[0].excerpt == first.log_excerpt
