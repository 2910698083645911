"""Shared fixtures. Tests never touch the user's state or a paid agent."""

from __future__ import annotations

import hashlib
import json
import os
from collections.abc import Generator, Iterator
from pathlib import Path

import pytest

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
