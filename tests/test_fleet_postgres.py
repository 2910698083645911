"""The throwaway PostgreSQL of the `fleet` tests: loopback only, a password over TCP, one
database per test, and stopped by its pid."""

from __future__ import annotations

import os
import socket
import subprocess
import sys
from pathlib import Path

import psycopg
import pytest

from _postgres import PostgresCluster, start_cluster
from mergegate.config import DatabaseUrl

pytestmark = pytest.mark.fleet


def _listening_ports(pid: int) -> set[tuple[str, int]]:
    """(address, port) of every TCP socket in LISTEN state owned by `pid` (from /proc)."""
    inodes = set()
    for fd in Path(f"/proc/{pid}/fd").iterdir():
        target = os.readlink(fd)
        if target.startswith("socket:["):
            inodes.add(target[8:-1])
    found = set()
    for table, family in (("tcp", socket.AF_INET), ("tcp6", socket.AF_INET6)):
        for line in Path(f"/proc/net/{table}").read_text().splitlines()[1:]:
            fields = line.split()
            if fields[3] != "0A" or fields[9] not in inodes:  # 0A: LISTEN
                continue
            address, port = fields[1].split(":")
            packed = bytes.fromhex(address)
            if family == socket.AF_INET:
                packed = packed[::-1]
            else:
                packed = b"".join(packed[i : i + 4][::-1] for i in range(0, 16, 4))
            found.add((socket.inet_ntop(family, packed), int(port, 16)))
    return found


def test_the_server_listens_on_loopback_only(postgres_cluster: PostgresCluster) -> None:
    assert postgres_cluster.is_running()
    assert _listening_ports(postgres_cluster.pid) == {("127.0.0.1", postgres_cluster.port)}
    # The unix socket lives in the cluster's own temp dir, not in /var/run/postgresql.
    assert (postgres_cluster.root / f".s.PGSQL.{postgres_cluster.port}").is_socket()


def test_tcp_needs_the_password(postgres_cluster: PostgresCluster) -> None:
    wrong = postgres_cluster.url().replace(postgres_cluster.password, "not-the-password")
    with pytest.raises(psycopg.OperationalError, match="password authentication failed"):
        psycopg.connect(wrong, connect_timeout=10).close()
    no_password = postgres_cluster.url().replace(f":{postgres_cluster.password}", "")
    with pytest.raises(psycopg.OperationalError):
        psycopg.connect(no_password, connect_timeout=10).close()


def test_each_test_gets_its_own_database(postgres_url: str) -> None:
    name = postgres_url.rsplit("/", 1)[1]
    assert name.startswith("t_")
    with psycopg.connect(postgres_url) as conn:
        assert conn.execute("select current_database()").fetchone() == (name,)
        conn.execute("create table mine (x int)")
    assert DatabaseUrl(postgres_url).is_postgres  # the fixture's URL is a valid database_url


def test_another_test_does_not_see_that_database(postgres_url: str) -> None:
    with psycopg.connect(postgres_url) as conn:
        found = conn.execute("select count(*) from pg_tables where tablename = 'mine'").fetchone()
    assert found == (0,)


def test_stop_ends_the_server_by_its_pid_and_removes_its_files() -> None:
    cluster = start_cluster()
    try:
        assert cluster.is_running()
        if os.geteuid() == 0:
            assert cluster.run_as == "postgres"
            owner = cluster.data_dir.stat().st_uid
            assert owner != 0  # the server does not run as root
    finally:
        cluster.stop()
    assert not cluster.is_running()
    assert not cluster.root.exists()
    with pytest.raises(psycopg.OperationalError):
        psycopg.connect(cluster.url(), connect_timeout=3).close()


@pytest.mark.slow
@pytest.mark.parametrize("require_real", ["0", "1"])
def test_without_postgres_a_fleet_test_skips_and_ci_fails_it(
    tmp_path: Path, require_real: str
) -> None:
    env = {
        **os.environ,
        "MERGEGATE_PG_BIN": str(tmp_path / "no-postgres-here"),
        "MERGEGATE_REQUIRE_REAL": require_real,
    }
    test = f"{Path(__file__)}::test_each_test_gets_its_own_database"
    proc = subprocess.run(
        [sys.executable, "-m", "pytest", "-q", "-rs", "-p", "no:cacheprovider", test],
        env=env,
        capture_output=True,
        text=True,
        check=False,
        timeout=120,
        cwd=Path(__file__).parents[1],
    )
    if require_real == "1":
        assert proc.returncode == 1, proc.stdout
        assert "MERGEGATE_REQUIRE_REAL=1 but the test skipped" in proc.stdout
    else:
        assert proc.returncode == 0, proc.stdout
        assert "1 skipped" in proc.stdout
    assert "scripts/install-postgres.sh" in proc.stdout
