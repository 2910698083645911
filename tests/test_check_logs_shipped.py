"""A phase check's output off the host that ran it (issue 28): the `verify/` ledger's command
logs stay on that host's disk, so each check that did not pass is an attempt row of the run
(role `check`: its command, outcome, exit code, and its output's host, path, size, SHA-256 and
end) and its output is shipped like an agent's log; `report` and `mergegate logs` on a host
with only the database URL read the shipped copy."""

from __future__ import annotations

import hashlib
from pathlib import Path

import pytest
from click.testing import CliRunner

from _plan_runs import agent, invoke, make_plan, repo_with, run_args
from mergegate.cli import cli
from mergegate.engine._context import attempt_rows
from mergegate.engine._context.attempt_rows import report_logs
from mergegate.store import LogCopies, RunStore


def test_a_failing_phase_check_is_a_row_and_its_output_is_shipped(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A's check passes in A's workspace and fails on the integration tip (B's file is there
    by then): the phase's verification fails, and its failing check is what a person reading
    the run from another host needs first."""
    repo = repo_with(tmp_path / "repo")
    check = "echo checked-out; echo 'B is here' >&2; test ! -f B-T1.txt"
    plan = make_plan({"P1": {"A": {"checks": {"T1": [check]}}, "B": {}}})
    impl, rev = agent(tmp_path, "impl"), agent(tmp_path, "rev")
    code, out, err = invoke(run_args(repo, impl, rev), plan, tmp_path)
    assert out is not None, err
    assert out["phases"][0]["verification"]["status"] == "gaps_found"
    assert code != 0
    run_id = out["run_id"]
    store = RunStore(tmp_path / ".mergegate-state")
    rows = store.rows(run_id)

    [row] = [a for a in rows.attempts() if a.role == "check"]  # the passing ones: not rows
    assert row.attempt == "P1/verify/g01/commands/cmd-01"
    assert (row.status, row.exit_code, row.backend) == ("fail", 1, check)
    data = Path(row.log_path).read_bytes()
    assert data == b"[stdout]\nchecked-out\n\n[stderr]\nB is here\n"
    assert (row.log_bytes, row.log_sha256) == (len(data), hashlib.sha256(data).hexdigest())
    assert "B is here" in row.log_excerpt
    assert LogCopies(rows.db).fetch(row.log_sha256, row.log_bytes).data == data  # shipped

    # another host: the run's folder is not there; the page and `logs` read the copy
    monkeypatch.setattr(attempt_rows.socket, "gethostname", lambda: "elsewhere")
    Path(row.log_path).unlink()
    [shown] = [log for log in report_logs(rows, tmp_path / "copies") if log.role == "check"]
    assert (shown.here, shown.copy_of) == (True, row.host)
    assert Path(shown.path).read_bytes() == data
    printed = CliRunner().invoke(cli, ["logs", run_id, "P1/verify/g01", "--role", "check"])
    assert printed.exit_code == 0, printed.output
    assert "B is here" in printed.stdout
