"""The values of a verification: criteria, the checks derived from them, evidence, results.

Every value is frozen and serialisable (the JSON twin of `VERIFICATION.md` is
`VerificationResult.model_dump(mode="json")`). Vocabulary:

* a **criterion** is something the plan says must hold (a success criterion, a truth, an
  artifact, a key link, a task's verify/done text, an acceptance criterion, a native check,
  a requirement id);
* a **check** is what mergegate runs itself to test it (a command, an artifact level, a
  pattern, an import, requirement coverage); each check that runs leaves **evidence**;
* a criterion whose words say more than its checks can test needs **judgement**: the
  verifier agent's, then a person's.
"""

from __future__ import annotations

from datetime import datetime
from enum import StrEnum
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field

from mergegate.decisions import ExitCode
from mergegate.plans import SourceRef

__all__ = [
    "Answer",
    "CheckKind",
    "CheckSpec",
    "Counts",
    "Criterion",
    "CriterionChecks",
    "CriterionKind",
    "CriterionResult",
    "Evidence",
    "GapAcceptance",
    "Outcome",
    "Result",
    "VerificationResult",
    "VerificationStatus",
    "VerifierRun",
]


class _Frozen(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")


class CriterionKind(StrEnum):
    """Where in the plan a criterion comes from."""

    SUCCESS_CRITERION = "success_criterion"
    """A phase success criterion (GSD ROADMAP `**Success Criteria**`)."""
    TRUTH = "truth"
    """`must_haves.truths`: an observable statement in prose."""
    ARTIFACT = "artifact"
    """`must_haves.artifacts`: a file that must exist, be substantive and be wired."""
    KEY_LINK = "key_link"
    """`must_haves.key_links`: a connection between two files."""
    ACCEPTANCE = "acceptance"
    """An acceptance criterion of a unit or a task."""
    TASK_VERIFY = "task_verify"
    """A task's `verify` block (text and the commands in it)."""
    TASK_DONE = "task_done"
    """A task's definition of done, in prose."""
    CHECK = "check"
    """A native plan check: a command with an expected exit code."""
    REQUIREMENT = "requirement"
    """A requirement id of the phase, or one a unit claims."""
    PLACEHOLDERS = "placeholders"
    """Every file the phase changed is free of placeholder code (not only the artifacts)."""


class CheckKind(StrEnum):
    """What mergegate runs itself."""

    COMMAND = "command"
    EXISTS = "exists"
    SUBSTANTIVE = "substantive"
    WIRED = "wired"
    PATTERN = "pattern"
    IMPORT = "import"
    REQUIREMENT = "requirement"
    STUBS = "stubs"


class CheckSpec(_Frozen):
    """One check derived from a criterion; pure data, decided before anything runs."""

    kind: CheckKind
    description: str
    """For people: what will be run or looked at."""
    command: str | None = None
    """COMMAND: the command text as the plan wrote it."""
    argv: tuple[str, ...] = ()
    """COMMAND: exactly what will be started (a plain argv, or `sh -c TEXT` for a command
    that needs a shell: `&&`, redirections, globs, variables)."""
    expect_exit: int = 0
    timeout_s: float | None = None
    path: str | None = None
    """EXISTS/SUBSTANTIVE/WIRED: the artifact; PATTERN/IMPORT: the `from` file."""
    target: str | None = None
    """IMPORT: the `to` of a key link (a path in the tree or a module name)."""
    pattern: str | None = None
    min_lines: int | None = None
    contains: str | None = None
    exports: tuple[str, ...] = ()
    requirement: str | None = None
    claimed_by: tuple[str, ...] = ()
    """REQUIREMENT: the units that claim the id (decided from the plan alone)."""
    known: bool = True
    """REQUIREMENT: the id is one of the phase's requirements."""
    files: tuple[str, ...] = ()
    """STUBS: the files the plan lists (the phase's changed files are added when it runs)."""
    silent: tuple[str, ...] = ()
    """REQUIREMENT: units that declare no requirements (an unclaimed id is then unverified:
    coverage not declared, not uncovered)."""


class Criterion(_Frozen):
    """One thing the plan says must hold."""

    id: str
    """Stable and typeable: `sc-1`, `04-01.artifact-2`, `04-01.t1.verify`, `req-PROJ-01`."""
    kind: CriterionKind
    text: str
    source: SourceRef | None = None
    unit: str | None = None
    task: str | None = None


class CriterionChecks(_Frozen):
    """A criterion and the checks derived from it (what `--dry-run` lists)."""

    criterion: Criterion
    checks: tuple[CheckSpec, ...] = ()
    judgement: str | None = None
    """Why the checks alone cannot decide it (its prose says more); None when they can."""
    unchecked: tuple[str, ...] = ()
    """Commands or references in the criterion that no program can check, and why."""


class Outcome(StrEnum):
    """What one piece of evidence says."""

    PASS = "pass"  # noqa: S105 - a result, not a password
    FAIL = "fail"
    UNCERTAIN = "uncertain"
    """The verifier agent could not decide; a person should."""
    UNVERIFIED = "unverified"
    """The check could not run or could not decide (skipped commands, a missing tool)."""
    SKIPPED = "skipped"
    """The check does not apply here (e.g. `wired` for a test file); neither for nor against."""


class Evidence(_Frozen):
    """What one check, the verifier agent or a person found."""

    check: CheckKind | Literal["agent", "person"]
    by: Literal["program", "agent", "person"]
    outcome: Outcome
    detail: str
    command: str | None = None
    argv: tuple[str, ...] = ()
    exit_code: int | None = None
    excerpt: str | None = None
    """A bounded excerpt of the command's output (its end)."""
    duration_s: float | None = None
    log: str | None = None
    """Where the full (capped) output is, relative to the run directory."""


class Result(StrEnum):
    """The result of one criterion."""

    PASS = "pass"  # noqa: S105 - a result, not a password
    FAIL = "fail"
    UNCERTAIN = "uncertain"
    """The verifier agent could not decide: a question for a person."""
    UNVERIFIED = "unverified"
    """Nothing could decide it (no verifier, malformed verifier output, commands skipped)."""


class Answer(_Frozen):
    """A person's answer to an open criterion, with who gave it and when."""

    criterion_id: str
    result: Literal["pass", "fail"]
    note: str = ""
    who: str
    at: datetime
    fingerprint: str = ""
    """The criterion's fingerprint (kind and text) when answered: an answer never carries over
    to a criterion whose words changed."""


class GapAcceptance(_Frozen):
    """A person's explicit override: the phase completes with its gaps, never as `passed`."""

    reason: str = Field(min_length=1)
    who: str
    at: datetime


class CriterionResult(_Frozen):
    """One criterion's result with all of its evidence."""

    id: str
    kind: CriterionKind
    text: str
    source: str | None = None
    """`file:line` in the plan."""
    unit: str | None = None
    task: str | None = None
    result: Result
    decided_by: Literal["program", "agent", "person"] | None = None
    """Who decided the result; an agent's `pass` is shown apart from program evidence."""
    evidence: tuple[Evidence, ...] = ()
    question: str | None = None
    """For a person, when the result is `uncertain` or `unverified`."""
    judgement: str | None = None
    """Why program checks alone could not decide it (then the verifier agent was asked)."""
    unchecked: tuple[str, ...] = ()
    fingerprint: str = ""
    next_step: str | None = None
    """For a failed criterion: what to do (which task or check to rerun, which file lacks
    what)."""


class VerificationStatus(StrEnum):
    """The phase's status; `passed` only on passing evidence for every criterion."""

    PASSED = "passed"
    GAPS_FOUND = "gaps_found"
    HUMAN_NEEDED = "human_needed"
    COMPLETE_WITH_GAPS = "complete_with_gaps"
    """A person accepted the gaps (`--accept-gaps --reason`); never `passed`."""


_STATUS_EXIT = {
    VerificationStatus.PASSED: ExitCode.OK,
    VerificationStatus.GAPS_FOUND: ExitCode.NO,
    VerificationStatus.HUMAN_NEEDED: ExitCode.ESCALATED,
    VerificationStatus.COMPLETE_WITH_GAPS: ExitCode.OK,
}


class Counts(_Frozen):
    criteria: int = 0
    passed: int = 0
    failed: int = 0
    uncertain: int = 0
    unverified: int = 0
    checks_run: int = 0
    """Program checks that ran and decided something (pass or fail)."""
    by_program: int = 0
    by_agent: int = 0
    by_person: int = 0


class VerifierRun(_Frozen):
    """What happened with the verifier agent (one call per phase, one retry when malformed)."""

    backend: str
    status: Literal["ok", "malformed", "agent_failed", "not_needed"]
    attempts: int = 0
    verification_id: str = ""
    template: str = ""
    template_sha256: str = ""
    detail: str = ""
    """Why the answer could not be used (the parse error, the agent failure)."""
    outputs: tuple[str, ...] = ()
    """Files in the run directory holding each attempt's prompt and raw output."""


class VerificationResult(_Frozen):
    """The whole answer for one phase; also the JSON twin of `VERIFICATION.md`."""

    schema_version: Literal[1] = 1
    run_id: str
    plan_title: str = ""
    plan_format: str = ""
    phase_id: str
    phase_name: str = ""
    goal: str = ""
    status: VerificationStatus
    reason: str
    verified_at: datetime
    repo: str
    head: str | None = None
    tree: str | None = None
    """A fingerprint of the work tree (HEAD and the content of changed files)."""
    criteria: tuple[CriterionResult, ...] = ()
    counts: Counts = Field(default_factory=Counts)
    warnings: tuple[str, ...] = ()
    verifier: VerifierRun | None = None
    answers: tuple[Answer, ...] = ()
    acceptance: GapAcceptance | None = None
    commands_run: bool = True
    """False when `--no-commands` skipped the command checks."""
    environment: str = ""
    """The project environment commands ran in (what was found, what is missing)."""

    @property
    def exit_code(self) -> ExitCode:
        return _STATUS_EXIT[self.status]

    @property
    def questions(self) -> tuple[CriterionResult, ...]:
        """Criteria a person can answer: uncertain or unverified."""
        return tuple(c for c in self.criteria if c.result in (Result.UNCERTAIN, Result.UNVERIFIED))
