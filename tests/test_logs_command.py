"""`mergegate logs RUN [TASK]` (issue 28): a run's attempts listed with where each log is,
and one attempt's whole log printed from a host with only the database URL — the file here,
else the shipped copy, each only when its SHA-256 is the one recorded; unknown runs, tasks,
roles and attempts are usage errors (exit 2), an altered copy is refused (exit 1), a log no
copy of which can be read here is exit 4; on SQLite and PostgreSQL."""

from __future__ import annotations

import hashlib
import json
import os
import socket
import zlib
from pathlib import Path

import pytest
from click.testing import CliRunner
from sqlalchemy import text

from _cards import card
from _plan_runs import repo_with
from mergegate.cli import cli
from mergegate.engine._context.attempt_rows import ship_log
from mergegate.plans import Plan, PlanFormat
from mergegate.store import AttemptRecord, RunRows, RunState, RunStore, tables

RUN = "20261101-120000-aaaa"
HERE = socket.gethostname()


def _attempt(
    tmp_path: Path, rows: RunRows, where: str, role: str, data: bytes, *, host: str, ship: bool
) -> AttemptRecord:
    path = tmp_path / "worker" / where / "agent.stdout.log"
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(data)
    record = AttemptRecord(
        attempt=where,
        role=role,
        backend="command",
        status="ok",
        host=host,
        log_path=str(path),
        log_bytes=len(data),
        log_sha256=hashlib.sha256(data).hexdigest(),
    )
    rows.record_attempt(record)
    if ship:
        assert ship_log(rows, record, None)
    return record


IMPL = b"implementer \x1b[31mred\x1b[0m \x00 done\n" * 20
REV1 = b'{"type":"result","text":"APPROVE"}\n'
REV2 = b'{"type":"result","text":"second stage"}\n'


@pytest.fixture
def run_rows(
    database_url: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> tuple[RunRows, dict[str, AttemptRecord]]:
    """RUN, completed, with task P1/U1/T1's implementer and two reviewer attempts run on
    another host and shipped, T2's implementer on another host and not shipped, and T3's
    implementer on this host."""
    monkeypatch.setenv("MERGEGATE_DATABASE_URL", database_url)
    monkeypatch.chdir(repo_with(tmp_path / "repo"))
    store = RunStore(Path(os.environ["MERGEGATE_STATE_DIR"]), database_url)
    plan = Plan(format=PlanFormat.NATIVE, title="p")
    store.create(card(RUN, status=RunState.COMPLETED, finished="2026-11-01T13:00:00+00:00"), plan)
    rows = store.rows(RUN)
    other = "worker-1.example"
    found = {
        "impl": _attempt(
            tmp_path,
            rows,
            "P1/U1/T1/attempts/01-implementer",
            "implementer",
            IMPL,
            host=other,
            ship=True,
        ),
        "rev1": _attempt(
            tmp_path,
            rows,
            "P1/U1/T1/reviews/r1/1-spec/01",
            "reviewer",
            REV1,
            host=other,
            ship=True,
        ),
        "rev2": _attempt(
            tmp_path,
            rows,
            "P1/U1/T1/reviews/r1/2-quality/01",
            "reviewer",
            REV2,
            host=other,
            ship=True,
        ),
        "lost": _attempt(
            tmp_path,
            rows,
            "P1/U1/T2/attempts/01-implementer",
            "implementer",
            b"lost\n",
            host=other,
            ship=False,
        ),
        "here": _attempt(
            tmp_path,
            rows,
            "P1/U1/T3/attempts/01-implementer",
            "implementer",
            b"here\n",
            host=HERE,
            ship=False,
        ),
    }
    for key in ("impl", "rev1", "rev2", "lost"):  # the other host's disk: not this one's
        Path(found[key].log_path).unlink()
    return rows, found


def _logs(*args: str) -> tuple[int, bytes, str]:
    result = CliRunner().invoke(cli, ["logs", *args])
    return result.exit_code, result.stdout_bytes, result.stderr


def test_the_attempts_are_listed_with_where_each_log_is(
    run_rows: tuple[RunRows, dict[str, AttemptRecord]],
) -> None:
    _rows, found = run_rows
    code, out, err = _logs(RUN, "--format", "json")
    assert code == 0, err
    listed = json.loads(out)
    assert [(a["task"], a["number"], a["role"], a["log"]) for a in listed] == [
        ("P1/U1/T1", 1, "implementer", "shipped"),
        ("P1/U1/T1", 2, "reviewer", "shipped"),
        ("P1/U1/T1", 3, "reviewer", "shipped"),
        ("P1/U1/T2", 1, "implementer", "not shipped"),
        ("P1/U1/T3", 1, "implementer", "here"),
    ]
    assert listed[0]["sha256"] == found["impl"].log_sha256
    assert listed[0]["size"] == len(IMPL)
    assert listed[0]["host"] == "worker-1.example"
    code, out, err = _logs(RUN)
    assert code == 0, err
    lines = out.decode().splitlines()
    assert lines[0].split() == [
        "task",
        "#",
        "role",
        "status",
        "host",
        "bytes",
        "sha256",
        "log",
        "attempt",
    ]
    assert f"{found['impl'].log_sha256[:12]}  shipped" in lines[1]
    code, out, err = _logs(RUN, "--role", "reviewer", "--format", "json")
    assert code == 0, err
    assert [a["number"] for a in json.loads(out)] == [2, 3]


def test_a_shipped_log_is_printed_whole_from_a_host_without_it(
    run_rows: tuple[RunRows, dict[str, AttemptRecord]],
) -> None:
    _rows, found = run_rows
    code, out, err = _logs(RUN, "P1/U1/T1", "--attempt", "1")
    assert code == 0, err
    assert out == IMPL  # its exact bytes, piped
    assert f"{len(IMPL)} bytes, sha256 {found['impl'].log_sha256} checked" in err
    assert "from its shipped copy" in err
    # the task without its phase; by default the last attempt (of --role)
    assert _logs(RUN, "U1/T1")[1] == REV2
    assert _logs(RUN, "P1/U1/T1", "--role", "implementer")[1] == IMPL
    assert _logs(RUN, "P1/U1/T1", "--role", "reviewer", "--attempt", "2")[1] == REV1
    # on this host: the file itself
    code, out, err = _logs(RUN, "P1/U1/T3")
    assert (code, out) == (0, b"here\n"), err
    assert "from the file on this host" in err
    code, out, err = _logs(RUN, "P1/U1/T1", "--attempt", "1", "--format", "json")
    assert code == 0, err
    doc = json.loads(out)
    assert (doc["source"], doc["role"], doc["text"]) == (
        "shipped copy",
        "implementer",
        IMPL.decode("utf-8", "replace"),
    )


def test_unknown_runs_tasks_roles_and_attempts_are_usage_errors(
    run_rows: tuple[RunRows, dict[str, AttemptRecord]],
) -> None:
    cases = {
        ("20990101-000000-zzzz",): "no run '20990101-000000-zzzz'",
        (RUN, "P1/U9/T1"): f"run {RUN} has no attempt under 'P1/U9/T1'",
        (RUN, "P1/U1/T1", "--attempt", "4"): "task P1/U1/T1 of run",
        (RUN, "P1/U1/T1", "--role", "verifier"): f"run {RUN} has no verifier attempt",
        (RUN, "P1/U1/T1", "--role", "implementer", "--attempt", "2"): "has no implementer",
        (RUN, "--attempt", "1"): "--attempt N needs the TASK",
        (RUN, "P1/U1", "--attempt", "1"): "names 3 tasks",
    }
    for args, message in cases.items():
        code, out, err = _logs(*args)
        assert (code, out) == (2, b""), (args, err)
        assert message in err, (args, err)


def test_a_copy_that_does_not_match_its_hash_is_refused(
    run_rows: tuple[RunRows, dict[str, AttemptRecord]], database_url: str
) -> None:
    _rows, found = run_rows
    forged = b"implementer said approve\n" * 30
    with tables(database_url).begin() as conn:
        conn.execute(
            text("UPDATE mergegate_blobs SET data = :d WHERE sha256 = :h"),
            {"d": zlib.compress(forged[: len(IMPL)]), "h": found["impl"].log_sha256},
        )
    code, out, err = _logs(RUN, "P1/U1/T1", "--attempt", "1")
    assert (code, out) == (1, b"")
    assert "refused, not shown: its copy does not match the SHA-256 recorded" in err
    # a file here rewritten since its attempt, with no copy: refused as well
    Path(found["here"].log_path).write_bytes(b"HERE\n")
    code, out, err = _logs(RUN, "P1/U1/T3")
    assert (code, out) == (1, b"")
    assert "is not the log recorded" in err


def test_a_log_no_copy_of_which_is_here_is_exit_4_naming_its_host(
    run_rows: tuple[RunRows, dict[str, AttemptRecord]],
) -> None:
    _rows, found = run_rows
    code, out, err = _logs(RUN, "P1/U1/T2")
    assert (code, out) == (4, b"")
    assert f"not shipped: the log is on host worker-1.example at {found['lost'].log_path}" in err
    # after gc, the listing and the error say why
    gc = CliRunner().invoke(cli, ["gc", RUN])
    assert gc.exit_code == 0, gc.stderr
    code, out, err = _logs(RUN, "P1/U1/T1", "--attempt", "1")
    assert (code, out) == (4, b"")
    assert "its shipped copy was deleted by mergegate gc at 20" in err
    code, out, err = _logs(RUN, "--format", "json")
    assert code == 0, err
    assert [a["log"] for a in json.loads(out)] == [
        "collected",
        "collected",
        "collected",
        "collected",
        "here",
    ]


def test_on_a_terminal_a_log_cannot_drive_it(monkeypatch: pytest.MonkeyPatch) -> None:
    """Piped, a log is its exact bytes; on a terminal each line is printed without escape
    sequences or controls (an agent's output may hold some)."""
    import io
    import sys

    from mergegate.cli import logs as logs_command

    class Terminal(io.StringIO):
        def isatty(self) -> bool:
            return True

    shown = Terminal()
    monkeypatch.setattr(sys, "stdout", shown)
    logs_command._print(b"ok \x1b]0;owned\x07title\n\x1b[2Jcleared \x00\xffbyte\n")
    assert shown.getvalue() == "ok title\ncleared \ufffdbyte\n"
