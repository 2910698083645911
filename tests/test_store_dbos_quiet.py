"""DBOS's own log lines never reach the console: against an unreachable PostgreSQL every
command prints exactly one line, mergegate's, and exits 4 (infrastructure); so does every command
given a wrong password or a database that does not exist (and none creates it). DBOS logs through
one logger, `dbos`, and adds a console handler to it whenever a `DBOS(…)` is made and it has
none (`dbos._logger.init_logger`); `mergegate.store` routes it from its first import on."""

from __future__ import annotations

import os
import socket
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path

import psycopg
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


def _broken(postgres_url: str, broken: str) -> tuple[str, str]:
    """`postgres_url` broken the way `broken` says, and the reason the server gives."""
    head, _, database = postgres_url.rpartition("/")
    user, _, rest = head.removeprefix("postgresql://").partition(":")
    _, _, where = rest.partition("@")
    if broken == "wrong-password":
        return f"postgresql://{user}:hunter2@{where}/{database}", "password authentication failed"
    missing = f"{database}_missing"
    return f"{head}/{missing}", f'database "{missing}" does not exist'


def _databases(postgres_url: str) -> set[str]:
    head, _, _ = postgres_url.rpartition("/")
    with psycopg.connect(f"{head}/postgres", autocommit=True) as conn:
        return {row[0] for row in conn.execute("SELECT datname FROM pg_database")}


_COMMANDS: dict[str, Callable[[Path, Path], list[str]]] = {
    "run": lambda repo, plan: [*run_args(repo, "true", "true", str(plan)), "--no-sandbox"],
    "run-queue": lambda repo, plan: [
        *run_args(repo, "true", "true", str(plan)),
        "--no-sandbox",
        "--queue",
    ],
    "worker": lambda repo, plan: ["worker", "--id", "w1"],
    "workers-list": lambda repo, plan: ["workers", "list"],
    "workers-recover": lambda repo, plan: ["workers", "recover", "w1"],
    "status": lambda repo, plan: ["status", "r1"],
    "runs": lambda repo, plan: ["runs"],
    "stats": lambda repo, plan: ["stats"],
    "report": lambda repo, plan: ["report", "r1"],
    "resume": lambda repo, plan: ["resume", "r1"],
    "cancel": lambda repo, plan: ["cancel", "r1"],
    "gc": lambda repo, plan: ["gc", "r1", "--dry-run"],
    "logs": lambda repo, plan: ["logs", "r1"],
}


@pytest.mark.fleet
@pytest.mark.parametrize("broken", ["wrong-password", "missing-database"])
@pytest.mark.parametrize("command", sorted(_COMMANDS))
def test_a_wrong_password_or_a_missing_database_is_one_line_and_exit_4(
    tmp_path: Path, postgres_url: str, broken: str, command: str
) -> None:
    """Every command that needs the fleet's database, given one it cannot use (a wrong
    password; a database that does not exist, which nothing creates behind the user's back):
    mergegate's one line naming the server's reason, exit 4, no DBOS line, no password."""
    url, reason = _broken(postgres_url, broken)
    repo = repo_with(tmp_path / "repo")
    plan = tmp_path / "plan.json"
    plan.write_text(make_plan({"P1": {"U1": {}}}).model_dump_json(by_alias=True))
    result = subprocess.run(
        [sys.executable, "-m", "mergegate", *_COMMANDS[command](repo, plan)],
        capture_output=True,
        text=True,
        env=_env(tmp_path, url),
        cwd=repo,
        timeout=120,
        check=False,
    )
    lines = result.stderr.splitlines()
    assert len(lines) == 1, result.stderr
    assert lines[0].startswith("mergegate: error: the database postgresql://"), lines
    assert "cannot be reached" in lines[0], lines
    assert reason in lines[0], lines
    password = postgres_url.rpartition("@")[0].rpartition(":")[2]
    for secret in ("hunter2", password):
        assert secret not in result.stderr + result.stdout
    assert result.returncode == 4, result.stderr
    # nothing made the database the URL names: a typo must not start an empty fleet
    assert f"{postgres_url.rpartition('/')[2]}_missing" not in _databases(postgres_url)


@pytest.mark.parametrize("command", sorted(set(_COMMANDS) - {"run", "run-queue"}))
def test_every_command_against_an_unreachable_postgres_is_one_line_and_exit_4(
    tmp_path: Path, command: str
) -> None:
    """The other commands that need the fleet's database (`run` is above), against a server
    that does not listen: mergegate's one line, exit 4, no DBOS line."""
    url, port = _unreachable_url()
    repo = repo_with(tmp_path / "repo")
    plan = tmp_path / "plan.json"
    plan.write_text(make_plan({"P1": {"U1": {}}}).model_dump_json(by_alias=True))
    result = subprocess.run(
        [sys.executable, "-m", "mergegate", *_COMMANDS[command](repo, plan)],
        capture_output=True,
        text=True,
        env=_env(tmp_path, url),
        cwd=repo,
        timeout=120,
        check=False,
    )
    _one_error_line(result, port)
