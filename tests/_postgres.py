"""A throwaway PostgreSQL cluster for the `fleet` tests and bench_fleet.py.

`start_cluster()` runs `initdb` in a fresh temp dir, starts the server on a free port of
127.0.0.1 only (its unix socket inside the temp dir, so nothing else on the host can reach
it), and returns a `PostgresCluster`; `cluster.stop()` stops it by its pid (`pg_ctl -m fast
stop`, then checks the pid is gone) and removes the temp dir.

Postgres refuses to run as root, and CI runs as root: then every server command runs as the
unprivileged `postgres` user that Debian's package creates (`runuser -u postgres --`), and the
temp dir belongs to that user. As any other user, they run as that user.

Connections over TCP need a password (scram-sha-256; a random one per cluster, so tests see
real credentials in their URLs and can check they are never printed); the unix socket in the
temp dir is `trust` for the server's own tools.

When the binaries are missing, `PostgresUnavailable` says so and how to install them
(`scripts/install-postgres.sh`); the conftest fixture turns that into a skip, which
`MERGEGATE_REQUIRE_REAL=1` (CI) turns into a failure.
"""

from __future__ import annotations

import contextlib
import os
import re
import secrets
import shutil
import signal
import socket
import subprocess
import tempfile
import time
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

__all__ = [
    "PG_USER",
    "PostgresCluster",
    "PostgresUnavailable",
    "find_bin_dir",
    "start_cluster",
]

PG_USER = "postgres"
"""The database superuser of a throwaway cluster, and the OS user it runs as under root."""
BIN_ENV = "MERGEGATE_PG_BIN"
"""Optional: the directory of `initdb`, `pg_ctl` and `postgres` (then the only one looked at)."""
_START_ATTEMPTS = 5
_NAME = re.compile(r"^[a-z_][a-z0-9_]{0,62}$")

# fsync off: a throwaway cluster in a temp dir does not need to survive a power cut, and the
# tests are about DBOS's behaviour, not the disk. bench_fleet.py asks for a durable one.
_FAST_SETTINGS = ("fsync = off", "synchronous_commit = off", "full_page_writes = off")


class PostgresUnavailable(RuntimeError):
    """The PostgreSQL server binaries (or the `postgres` user, under root) are missing."""


def find_bin_dir() -> Path | None:
    """The directory of `initdb`, `pg_ctl` and `postgres`: `$MERGEGATE_PG_BIN` if set (and
    nothing else then), else the newest `/usr/lib/postgresql/<major>/bin` (Debian), else the
    one on PATH; None if none."""
    wanted = ("initdb", "pg_ctl", "postgres")
    if os.environ.get(BIN_ENV):
        candidates = [Path(os.environ[BIN_ENV])]
    else:
        versions = Path("/usr/lib/postgresql").glob("*/bin")
        candidates = sorted(versions, key=_major, reverse=True)
        on_path = shutil.which("initdb")
        if on_path:
            candidates.append(Path(on_path).parent)
    for directory in candidates:
        if all(os.access(directory / name, os.X_OK) for name in wanted):
            return directory
    return None


def _major(bin_dir: Path) -> tuple[int, ...]:
    digits = re.findall(r"\d+", bin_dir.parent.name)
    return tuple(int(d) for d in digits)


@dataclass(frozen=True)
class PostgresCluster:
    """A running throwaway cluster. `url()` is a libpq/SQLAlchemy URL with the password."""

    bin_dir: Path
    root: Path
    """The temp dir: `data/`, the socket, `server.log`."""
    port: int
    password: str
    pid: int
    """The postmaster's pid (from `postmaster.pid`)."""
    start_ticks: int
    """The postmaster's start time (`/proc/<pid>/stat` field 22), against pid reuse."""
    run_as: str | None
    """`postgres` when this process is root, else None (commands run as this user)."""

    @property
    def data_dir(self) -> Path:
        return self.root / "data"

    def url(self, database: str = "postgres") -> str:
        """`postgresql://postgres:<password>@127.0.0.1:<port>/<database>`."""
        return f"postgresql://{PG_USER}:{self.password}@127.0.0.1:{self.port}/{database}"

    def create_database(self, name: str) -> str:
        """Create database `name` (lower-case letters, digits, `_`) and return its URL."""
        self._admin(f'CREATE DATABASE "{_checked(name)}"')
        return self.url(name)

    def drop_database(self, name: str) -> None:
        """Drop database `name`, closing any connection still open to it."""
        self._admin(f'DROP DATABASE IF EXISTS "{_checked(name)}" WITH (FORCE)')

    def is_running(self) -> bool:
        """Whether the postmaster recorded at start is still alive (a zombie is not)."""
        return _alive(self.pid, self.start_ticks)

    def stop(self, timeout_s: float = 30.0) -> None:
        """`pg_ctl -m fast stop`, then wait for the recorded pid to be gone, then remove the
        temp dir. Raises `AssertionError` if the server had to be SIGKILLed."""
        if self.is_running():
            _run(
                [
                    str(self.bin_dir / "pg_ctl"),
                    "-D",
                    str(self.data_dir),
                    "-m",
                    "fast",
                    "-w",
                    "-t",
                    str(int(timeout_s)),
                    "stop",
                ],
                self.run_as,
                self.root,
                check=False,
            )
        killed = not _wait_gone(self.pid, self.start_ticks, timeout_s)
        if killed:
            with contextlib.suppress(ProcessLookupError):
                os.kill(self.pid, signal.SIGKILL)
            _wait_gone(self.pid, self.start_ticks, 10.0)
        shutil.rmtree(self.root, ignore_errors=True)
        if killed:
            raise AssertionError(f"postgres pid {self.pid} survived pg_ctl stop; SIGKILLed")

    def _admin(self, statement: str) -> None:
        import psycopg  # DBOS's own driver; imported here so conftest loads without it

        with psycopg.connect(self.url(), autocommit=True, connect_timeout=10) as conn:
            conn.execute(statement.encode())


def start_cluster(*, durable: bool = False, base_dir: Path | None = None) -> PostgresCluster:
    """`initdb` a cluster in a new temp dir and start it on a free port of 127.0.0.1.

    `durable=False` (tests) turns fsync off; `durable=True` (benchmarks) keeps Postgres's
    defaults. Raises `PostgresUnavailable` when the binaries (or, under root, the `postgres`
    user) are missing, `RuntimeError` with the server log when the server does not start.
    """
    bin_dir = find_bin_dir()
    if bin_dir is None:
        raise PostgresUnavailable(
            "PostgreSQL server binaries (initdb, pg_ctl, postgres) not found; "
            "run scripts/install-postgres.sh (Debian package 'postgresql')"
        )
    run_as = _server_user()
    root = Path(tempfile.mkdtemp(prefix="mergegate-pg-", dir=base_dir))
    try:
        password = secrets.token_hex(16)
        _init(bin_dir, root, password, run_as, durable)
        return _start(bin_dir, root, password, run_as)
    except BaseException:
        shutil.rmtree(root, ignore_errors=True)
        raise


def _server_user() -> str | None:
    if os.geteuid() != 0:
        return None
    import pwd

    try:
        pwd.getpwnam(PG_USER)
    except KeyError:
        raise PostgresUnavailable(
            f"running as root, and there is no {PG_USER!r} user to run the server as "
            "(Debian's postgresql package creates it; run scripts/install-postgres.sh)"
        ) from None
    if shutil.which("runuser") is None:
        raise PostgresUnavailable("running as root, and `runuser` (util-linux) is missing")
    return PG_USER


def _init(bin_dir: Path, root: Path, password: str, run_as: str | None, durable: bool) -> None:
    pwfile = root / "pwfile"
    pwfile.write_text(password + "\n")
    pwfile.chmod(0o600)
    if run_as is not None:
        shutil.chown(root, run_as)
        shutil.chown(pwfile, run_as)
    _run(
        [
            str(bin_dir / "initdb"),
            "-D",
            str(root / "data"),
            "-U",
            PG_USER,
            f"--pwfile={pwfile}",
            "--auth-host=scram-sha-256",
            "--auth-local=trust",
            "-E",
            "UTF8",
            "--locale=C",
            "--no-sync",
        ],
        run_as,
        root,
    )
    pwfile.unlink()
    settings = [
        "listen_addresses = '127.0.0.1'",
        f"unix_socket_directories = '{root}'",
        "max_connections = 200",
        *(() if durable else _FAST_SETTINGS),
    ]
    with (root / "data" / "postgresql.conf").open("a") as handle:
        handle.write("\n# mergegate tests\n" + "\n".join(settings) + "\n")


def _start(bin_dir: Path, root: Path, password: str, run_as: str | None) -> PostgresCluster:
    log = root / "server.log"
    for _ in range(_START_ATTEMPTS):
        port = _free_port()
        done = _run(
            [
                str(bin_dir / "pg_ctl"),
                "-D",
                str(root / "data"),
                "-l",
                str(log),
                "-w",
                "-t",
                "60",
                "-o",
                f"-p {port}",
                "start",
            ],
            run_as,
            root,
            check=False,
        )
        if done.returncode == 0:
            pid = int((root / "data" / "postmaster.pid").read_text().split()[0])
            return PostgresCluster(bin_dir, root, port, password, pid, _start_ticks(pid), run_as)
        text = log.read_text(errors="replace") if log.exists() else done.stderr
        if "could not bind" not in text and "already in use" not in text:
            break  # not the port race with another process: do not retry
    raise RuntimeError(f"postgres did not start:\n{done.stderr}\n{_tail(log)}")


def _run(
    argv: Sequence[str], run_as: str | None, cwd: Path, *, check: bool = True
) -> subprocess.CompletedProcess[str]:
    command = ["runuser", "-u", run_as, "--", *argv] if run_as else list(argv)
    env = {**os.environ, "LC_ALL": "C.UTF-8", "LANG": "C.UTF-8"}
    done = subprocess.run(
        command, cwd=cwd, env=env, capture_output=True, text=True, timeout=120, check=False
    )
    if check and done.returncode != 0:
        raise RuntimeError(f"{' '.join(argv[:1])} failed ({done.returncode}): {done.stderr}")
    return done


def _free_port() -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def _stat(pid: int) -> tuple[str, int] | None:
    """(state, start ticks) of a pid, or None when there is no such process."""
    try:
        raw = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return None
    fields = raw[raw.rindex(")") + 2 :].split()
    return fields[0], int(fields[19])


def _start_ticks(pid: int) -> int:
    found = _stat(pid)
    return found[1] if found else 0


def _alive(pid: int, start_ticks: int) -> bool:
    found = _stat(pid)
    if found is None or found[1] != start_ticks:
        return False
    if found[0] == "Z":
        # Exited; reap it if it happens to be our child (a subreaper parent), else PID 1 will.
        with contextlib.suppress(ChildProcessError):
            os.waitpid(pid, os.WNOHANG)
        return False
    return True


def _wait_gone(pid: int, start_ticks: int, timeout_s: float) -> bool:
    deadline = time.monotonic() + timeout_s
    while _alive(pid, start_ticks):
        if time.monotonic() > deadline:
            return False
        time.sleep(0.05)
    return True


def _checked(name: str) -> str:
    if not _NAME.match(name):
        raise ValueError(f"not a safe database name: {name!r}")
    return name


def _tail(log: Path, lines: int = 30) -> str:
    if not log.exists():
        return "(no server log)"
    return "\n".join(log.read_text(errors="replace").splitlines()[-lines:])
