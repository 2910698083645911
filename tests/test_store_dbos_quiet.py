"""DBOS's own log lines never reach the console: against an unreachable PostgreSQL every
command prints exactly one line, mergegate's, and exits 4 (infrastructure). DBOS logs through
one logger, `dbos`, and adds a console handler to it whenever a `DBOS(…)` is made and it has
none (`dbos._logger.init_logger`); `mergegate.store` routes it from its first import on."""

from __future__ import annotations

import os
import socket
import subprocess
import sys
from pathlib import Path

import pytest

from _plan_runs import make_plan, repo_with, run_args


def _unreachable_url() -> tuple[str, int]:
    with socket.socket() as sock:  # a port nothing listens on once closed
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]
    return f"postgresql://u:hunter2@127.0.0.1:{port}/fleetdb", port


def _env(tmp_path: Path, url: str) -> dict[str, str]:
    env = {**os.environ, "MERGEGATE_STATE_DIR": str(tmp_path / "state")}
    env["MERGEGATE_DATABASE_URL"] = url
    return env


def _one_error_line(result: subprocess.CompletedProcess[str], port: int) -> None:
    lines = result.stderr.splitlines()
    assert len(lines) == 1, result.stderr
    assert lines[0].startswith("mergegate: error: the database postgresql://u:***@127.0.0.1:")
    assert f":{port}/fleetdb cannot be reached" in lines[0]
    assert "hunter2" not in result.stderr + result.stdout
    assert result.returncode == 4, result.stderr


@pytest.mark.parametrize("queued", [False, True], ids=["run", "run-queue"])
def test_a_run_against_an_unreachable_postgres_is_one_line_and_exit_4(
    tmp_path: Path, queued: bool
) -> None:
    url, port = _unreachable_url()
    repo = repo_with(tmp_path / "repo")
    plan = tmp_path / "plan.json"
    plan.write_text(make_plan({"P1": {"U1": {}}}).model_dump_json(by_alias=True))
    args = [*run_args(repo, "true", "true", str(plan)), *(["--queue"] if queued else [])]
    result = subprocess.run(
        [sys.executable, "-m", "mergegate", *args, "--no-sandbox"],
        capture_output=True,
        text=True,
        env=_env(tmp_path, url),
        cwd=repo,
        timeout=120,
        check=False,
    )
    _one_error_line(result, port)


_DBOS_FIRST = """
import sys
from dbos._logger import init_logger
init_logger()  # DBOS's console handler, as every DBOS(...) adds it to a logger without one
from mergegate.errors import MergegateError
from mergegate.store import executor_work
try:
    executor_work(sys.argv[1])
except MergegateError as exc:
    print(f"mergegate: error: {exc}", file=sys.stderr)
    sys.exit(exc.exit_code)
"""


def test_no_dbos_line_even_when_dbos_set_up_its_console_logging_first(tmp_path: Path) -> None:
    """A DBOS client's migration first logs "Could not connect to postgres database to verify
    existence of …" through DBOS's logger; that line never reaches stderr, whatever handler
    DBOS put there before the store was imported."""
    url, port = _unreachable_url()
    result = subprocess.run(
        [sys.executable, "-c", _DBOS_FIRST, url],
        capture_output=True,
        text=True,
        env=_env(tmp_path, url),
        timeout=120,
        check=False,
    )
    assert "Could not connect" not in result.stderr
    _one_error_line(result, port)
