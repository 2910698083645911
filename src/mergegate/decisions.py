"""The shared decision vocabulary and exit codes (ARCHITECTURE §3).

Pure values, no I/O. Every layer — the verdict parser, the review loop, reports and the
CLI — speaks in these terms, so a decision means the same thing wherever it is printed.
"""

from __future__ import annotations

from collections.abc import Iterable
from enum import IntEnum, StrEnum

__all__ = ["Decision", "ExitCode", "worst_exit_code"]


class ExitCode(IntEnum):
    """Process exit codes, identical for every `mergegate` command."""

    OK = 0
    """Approved / ok."""
    NO = 1
    """A real verdict that says no (`reject` or `fixes`)."""
    USAGE = 2
    """Usage or input error: bad arguments, unreadable or invalid file, invalid config."""
    UNDECIDABLE = 3
    """`malformed` / `empty` after the allowed retries; an invalid handoff."""
    AGENT_FAILURE = 4
    """Agent or infrastructure failure: timeout, stall, crash, CLI missing."""
    ESCALATED = 5
    """Escalated to a human: revision cap or stall reached."""
    INTERRUPTED = 130
    """Interrupted by a person (Ctrl-C, SIGINT or SIGTERM): the shell's 128 + SIGINT."""


# How bad each code is when several results are folded into one exit code. A usage error
# means some input was never evaluated at all, so it outranks every evaluated outcome.
_SEVERITY: dict[ExitCode, int] = {
    ExitCode.OK: 0,
    ExitCode.NO: 1,
    ExitCode.UNDECIDABLE: 2,
    ExitCode.AGENT_FAILURE: 3,
    ExitCode.ESCALATED: 4,
    ExitCode.USAGE: 5,
    ExitCode.INTERRUPTED: 6,
}


def worst_exit_code(codes: Iterable[ExitCode]) -> ExitCode:
    """Fold several outcomes into one exit code: the worst wins, `OK` when there are none.

    Order, best to worst: OK < NO < UNDECIDABLE < AGENT_FAILURE < ESCALATED < USAGE <
    INTERRUPTED.
    """
    return max(codes, key=_SEVERITY.__getitem__, default=ExitCode.OK)


class Decision(StrEnum):
    """What a reviewer's output means for the gate. Only `APPROVE` proceeds."""

    APPROVE = "approve"
    """Authoritative, unconditional approval."""
    FIXES = "fixes"
    """Approval conditional on changes, REQUEST_CHANGES, soft or qualified approvals."""
    REJECT = "reject"
    """An explicit no."""
    MALFORMED = "malformed"
    """No authoritative verdict can be found (missing, echoed template, quoted-only,
    conflicting, truncated)."""
    EMPTY = "empty"
    """No output at all."""

    @property
    def proceeds(self) -> bool:
        """True only for `APPROVE`: the gate fails closed."""
        return self is Decision.APPROVE

    @property
    def is_verdict(self) -> bool:
        """True when a reviewer actually decided (approve, fixes, reject)."""
        return self in (Decision.APPROVE, Decision.FIXES, Decision.REJECT)

    @property
    def exit_code(self) -> ExitCode:
        """The exit code a command reports for this decision."""
        if self is Decision.APPROVE:
            return ExitCode.OK
        if self.is_verdict:
            return ExitCode.NO
        return ExitCode.UNDECIDABLE
