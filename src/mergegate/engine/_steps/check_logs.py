"""A phase check's output off the host that ran it: the `verify/` ledger's command logs as
attempt rows of the run, shipped like an agent's log.

The verification's result (a row, and the `verification` record) keeps each check's outcome
and the end of its output; its whole output (each stream capped by the check runner) is on the
disk of the host that verified the phase. A check that did not pass is what a person reading a
failed run needs first, so each such check becomes an attempt row (role `check`, its folder
`<phase>/verify/gNN/commands/cmd-NN`, its command as the backend) whose log is the check's two
streams in one file written beside them (`output.log`), shipped through the same path as an
agent's log (`ship_log`); `report`, `mergegate logs` and `gc` then treat it as any attempt's.
A passing check's output stays on its host: it decided nothing a person must read, and every
run would otherwise store every check's output twice.
"""

from __future__ import annotations

import socket
from pathlib import Path

from mergegate.atomic_files import write_atomic
from mergegate.engine._context.attempt_rows import log_digest, ship_log
from mergegate.store import AttemptRecord, RunRows
from mergegate.verify import Evidence, Outcome, VerificationResult

__all__ = ["CHECK_ROLE", "OUTPUT_LOG", "record_check_logs"]

CHECK_ROLE = "check"
"""The role of a phase check's attempt row (`mergegate logs --role check`)."""
OUTPUT_LOG = "output.log"
"""The file, in a check's folder, of its two streams together: the row's log."""
_STREAMS = ("stdout", "stderr")


def _failed_checks(result: VerificationResult) -> list[Evidence]:
    """The command checks that did not pass and left a log, each once (a command two
    criteria share ran once)."""
    found: dict[str, Evidence] = {}
    for criterion in result.criteria:
        for evidence in criterion.evidence:
            if evidence.log and evidence.outcome is not Outcome.PASS:
                found.setdefault(evidence.log, evidence)
    return list(found.values())


def _joined_output(folder: Path) -> Path | None:
    """The check's streams (`command.stdout.log`, `command.stderr.log`) in one file beside
    them, each under its name; None when it printed nothing (nothing to read elsewhere)."""
    parts = []
    for stream in _STREAMS:
        try:
            data = (folder / f"command.{stream}.log").read_bytes()
        except OSError:
            continue
        if data:
            parts.append(f"[{stream}]\n".encode() + data)
    if not parts:
        return None
    target = folder / OUTPUT_LOG
    write_atomic(target, b"\n".join(parts), durable=False)
    return target


def _row(run_dir: Path, folder: Path, log: Path, evidence: Evidence) -> AttemptRecord:
    size, sha, excerpt = log_digest(log)
    try:
        where = folder.resolve().relative_to(run_dir.resolve()).as_posix()
    except ValueError:
        where = folder.as_posix()
    return AttemptRecord(
        attempt=where[-1_000:],
        role=CHECK_ROLE,
        backend=(evidence.command or " ".join(evidence.argv))[:200],
        status=evidence.outcome.value,
        exit_code=evidence.exit_code,
        duration_s=evidence.duration_s or 0.0,
        error=evidence.detail.replace("\x00", "\ufffd")[:1_000],
        host=socket.gethostname()[:255],
        log_path=str(log)[:4_096],
        log_bytes=size,
        log_sha256=sha,
        log_excerpt=excerpt,
    )


def record_check_logs(
    rows: RunRows,
    run_dir: Path,
    verify_dir: Path,
    result: VerificationResult,
    store_url: str | None,
) -> list[AttemptRecord]:
    """Each check of `result` that did not pass (its log under `verify_dir`, the ledger's
    folder of this verification) as an attempt row of the run, its output shipped; the rows.
    Written again as they were by a step run again (a row per folder, a copy per content)."""
    recorded = []
    for evidence in _failed_checks(result):
        assert evidence.log is not None
        folder = verify_dir / evidence.log
        log = _joined_output(folder)
        if log is None:
            continue
        record = _row(run_dir, folder, log, evidence)
        rows.record_attempt(record)
        ship_log(rows, record, store_url)
        recorded.append(record)
    return recorded
