"""Shared fixtures. Tests never touch the user's state or a paid agent."""

from __future__ import annotations

import hashlib
import json
import os
import subprocess
from collections.abc import Generator, Iterator
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner, Result

from _postgres import PostgresCluster, PostgresUnavailable, start_cluster

REAL_MARKERS = ("real_cli", "real_model", "browser", "fleet", "sandbox")
SHARED = Path(__file__).resolve().parents[1].parent / "shared"


SANDBOX_ALLOW_ENV = "MERGEGATE_SANDBOX__ALLOW"


@pytest.fixture(autouse=True)
def _isolated_state(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Point mergegate's state dir at a temporary directory and drop agent variables.

    Agents run in mergegate's sandbox in tests as everywhere; the scripted agents record what
    they saw into the test's folder, so it is opened to them on purpose (`[sandbox] allow`
    through its environment variable). The sandbox tests take it away again."""
    monkeypatch.setenv("MERGEGATE_STATE_DIR", str(tmp_path / ".mergegate-state"))
    monkeypatch.setenv(SANDBOX_ALLOW_ENV, json.dumps([str(tmp_path)]))
    # The hook's per-user state falls back to $XDG_STATE_HOME (never the real home).
    monkeypatch.setenv("XDG_STATE_HOME", str(tmp_path / ".xdg-state"))
    for name in list(os.environ):
        if name == "CLAUDECODE" or name.startswith(("CLAUDE_CODE_", "ANTHROPIC_", "OPENAI_")):
            monkeypatch.delenv(name, raising=False)


def _mergegate_argv(args: object) -> bool:
    """Whether a child's argv runs mergegate (`python -m mergegate …`, a `mergegate` script)."""
    argv = [str(a) for a in args] if isinstance(args, (list, tuple)) else [str(args)]
    return any(a == "mergegate" and i > 0 and argv[i - 1] == "-m" for i, a in enumerate(argv)) or (
        bool(argv) and Path(argv[0]).name == "mergegate"
    )


def _text(data: object) -> str:
    if isinstance(data, bytes):
        return data.decode("utf-8", "replace")
    return data if isinstance(data, str) else ""


@pytest.fixture(autouse=True)
def console_tracebacks(monkeypatch: pytest.MonkeyPatch) -> Iterator[list[str]]:
    """Fails any test in which mergegate printed a Python traceback on stderr, or let an
    exception escape a command (the traceback a person would see): every in-process CLI
    call (`CliRunner.invoke`) and every `mergegate` child a test reads the stderr of
    (`Popen.communicate`, and so `subprocess.run`) is looked at (issue 24: no console
    traceback on any path)."""
    seen: list[str] = []
    invoke = CliRunner.invoke
    communicate = subprocess.Popen.communicate

    def checked_invoke(self: CliRunner, *args: Any, **kwargs: Any) -> Result:
        result = invoke(self, *args, **kwargs)
        escaped = result.exception is not None and not isinstance(result.exception, SystemExit)
        if "Traceback (most recent call last)" in result.stderr or escaped:
            what = repr(result.exception) if escaped else result.stderr[-2000:]
            seen.append(f"mergegate {args[1] if len(args) > 1 else ''}: {what}")
        return result

    def checked_communicate(self: subprocess.Popen[Any], *args: Any, **kwargs: Any) -> Any:
        out, err = communicate(self, *args, **kwargs)
        if _mergegate_argv(self.args) and "Traceback (most recent call last)" in _text(err):
            seen.append(f"{self.args}: {_text(err)[-2000:]}")
        return out, err

    monkeypatch.setattr(CliRunner, "invoke", checked_invoke)
    monkeypatch.setattr(subprocess.Popen, "communicate", checked_communicate)
    yield seen  # what it found so far (its own test reads it)
    if seen:
        pytest.fail("a console traceback (issue 24):\n" + "\n---\n".join(seen), pytrace=False)


@pytest.fixture
def sandbox_available() -> None:
    """Skip (a failure under MERGEGATE_REQUIRE_REAL=1) when no bubblewrap sandbox can be made
    here; mark the test `sandbox`."""
    from mergegate.processes import sandbox_problem

    problem = sandbox_problem()
    if problem is not None:
        pytest.skip(f"no sandbox here: {problem} (scripts/install-sandbox.sh)")


@pytest.fixture
def shared_dir() -> Path:
    """`../shared` beside the checkout (skips when absent)."""
    if not SHARED.is_dir():
        pytest.skip("../shared is not beside this checkout")
    return SHARED


@pytest.fixture(scope="session")
def postgres_cluster() -> Iterator[PostgresCluster]:
    """One throwaway PostgreSQL cluster for the session (127.0.0.1, a free port), started on
    first use and stopped by its pid at the end; skips when the binaries are missing."""
    try:
        cluster = start_cluster()
    except PostgresUnavailable as exc:
        pytest.skip(str(exc))
    yield cluster
    cluster.stop()


@pytest.fixture
def postgres_url(
    postgres_cluster: PostgresCluster, request: pytest.FixtureRequest
) -> Iterator[str]:
    """A fresh database of the session's cluster, for this test only (dropped afterwards):
    `postgresql://postgres:<password>@127.0.0.1:<port>/<name>`."""
    name = "t_" + hashlib.sha256(request.node.nodeid.encode()).hexdigest()[:16]
    postgres_cluster.drop_database(name)  # a leftover of an interrupted earlier session
    url = postgres_cluster.create_database(name)
    yield url
    postgres_cluster.drop_database(name)


@pytest.fixture(params=["sqlite", pytest.param("postgres", marks=pytest.mark.fleet)])
def database_url(request: pytest.FixtureRequest, tmp_path: Path) -> str:
    """A database every process of a test shares, once each way: a SQLite file of the test's
    own, and (marker `fleet`) a fresh PostgreSQL database (`postgres_url`)."""
    if request.param == "sqlite":
        return f"sqlite:///{tmp_path / 'shared.sqlite'}"
    url: str = request.getfixturevalue("postgres_url")
    return url


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_makereport(
    item: pytest.Item, call: pytest.CallInfo[None]
) -> Generator[None, pytest.TestReport, None]:
    """With MERGEGATE_REQUIRE_REAL=1 (CI), a real_cli/real_model/browser/fleet/sandbox test may
    not skip."""
    outcome = yield
    report: pytest.TestReport = outcome.get_result()
    if (
        os.environ.get("MERGEGATE_REQUIRE_REAL") == "1"
        and report.skipped
        and any(item.get_closest_marker(m) for m in REAL_MARKERS)
    ):
        report.outcome = "failed"
        report.longrepr = f"MERGEGATE_REQUIRE_REAL=1 but the test skipped: {report.longrepr}"
