"""The configuration values: frozen pydantic models, one per section of `mergegate.toml`.

Every section forbids unknown keys (a typo is an error, not a silently ignored setting) and
validates strictly (a TOML string is not a number; `inf` and `nan` are not limits). Defaults are
the documented ones in `docs/configuration.md`; a test checks that every field there is
documented. These fields are the one place each default is written: the library's own defaults
(`AgentRequest`, the supervisor's `Limits`, `ReviewOptions`) are read from `DEFAULT_AGENTS` and
`DEFAULT_REVIEW`.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, field_validator, model_validator

from mergegate.config._database import DatabaseUrl, object_store_dir
from mergegate.config._hooks import HOOKS_DEFAULTS, TIMEOUT_MAX_S

__all__ = [
    "DEFAULT_AGENTS",
    "DEFAULT_CONCURRENCY",
    "DEFAULT_ENGINE",
    "DEFAULT_REVIEW",
    "MAX_ATTEMPTS_CEILING",
    "MAX_JSON_RETRIES_CEILING",
    "POLICY_PRESETS",
    "AgentsConfig",
    "AlertsConfig",
    "BackendValue",
    "Config",
    "EngineSettings",
    "HandoffValidationConfig",
    "HooksConfig",
    "RetryConfig",
    "ReviewConfig",
    "ReviewPolicyConfig",
    "RunConfig",
    "SandboxConfig",
]

DEFAULT_CONCURRENCY = 2
"""Units running at once when nothing says otherwise: `[run] concurrency`, a run's options,
a fleet worker and the durable engine's queue all start from it."""
MAX_JSON_RETRIES_CEILING = 5
"""Hard ceiling on retries of one handoff (seed 002: "hard limit of 5 retries")."""
MAX_ATTEMPTS_CEILING = MAX_JSON_RETRIES_CEILING + 1
"""The first attempt plus at most `MAX_JSON_RETRIES_CEILING` retries."""

Severity = Literal["critical", "important", "minor"]
BackendValue = str | int | float | bool | list[str]


class _Section(BaseModel):
    # allow_inf_nan=False: TOML has `inf` and `nan`, and neither is a time or size limit.
    model_config = ConfigDict(frozen=True, extra="forbid", strict=True, allow_inf_nan=False)


class RetryConfig(_Section):
    """`[retry]`: seed 002's `retry_settings`, in snake_case."""

    max_json_retries: int = Field(MAX_JSON_RETRIES_CEILING, ge=0, le=MAX_JSON_RETRIES_CEILING)
    """Retries after the first attempt, for handoff types without an entry in `max_attempts`."""
    json_retry_delay: float = Field(1.0, ge=0.0, le=3600.0)
    """Base delay in seconds before a retry."""
    use_exponential_backoff: bool = True
    """Double the delay on each retry (with jitter), up to `max_backoff_delay`."""
    max_backoff_delay: float = Field(30.0, ge=0.0, le=3600.0)
    """No single wait is longer than this, jitter included."""
    retry_prompt_reduction: bool = True
    """Shrink the retry prompt on later attempts: full → minimal template → JSON only."""
    enable_partial_recovery: Literal[False] = False
    """Accepted for seed compatibility, and only as `false`: truncated JSON is never completed."""
    max_attempts: dict[str, int] = Field(default_factory=lambda: {"review-verdict": 2})
    """Total attempts (first ask + retries) per handoff type, 1..6; overrides `max_json_retries`.
    The review verdict defaults to 2 (one retry). Tables from files merge over the default."""

    @field_validator("max_attempts")
    @classmethod
    def _attempts_within_ceiling(cls, value: dict[str, int]) -> dict[str, int]:
        for name, attempts in value.items():
            if not 1 <= attempts <= MAX_ATTEMPTS_CEILING:
                raise ValueError(
                    f"max_attempts[{name!r}] must be between 1 and {MAX_ATTEMPTS_CEILING} "
                    f"(the first attempt plus at most {MAX_JSON_RETRIES_CEILING} retries), "
                    f"got {attempts}"
                )
        return value

    def attempts_for(self, handoff_type: str) -> int:
        """How many attempts (first ask included) a handoff of this type may make."""
        attempts = self.max_attempts.get(handoff_type, self.max_json_retries + 1)
        return max(1, min(attempts, MAX_ATTEMPTS_CEILING))


class HandoffValidationConfig(_Section):
    """`[handoff_validation]`: seed 002's keys of the same name."""

    strict_schema_validation: bool = True
    """Fields a schema does not declare are errors (catches `sucess`); false ignores them.
    Types are strict either way: `"yes"` is never a boolean, `"12"` never a number."""
    log_all_handoffs: bool = True
    """Append the debug record of every handoff, recovered ones included, to
    `<state>/handoffs.jsonl`."""
    save_failed_handoffs: bool = True
    """Write a file per escalated or fatal handoff (record and raw outputs)."""
    failed_handoff_dir: str = "failed_handoffs"
    """Where failed handoffs go; relative paths are under the state directory."""
    schemas: dict[str, str] = Field(default_factory=dict)
    """Extra schema names: name = path of a JSON Schema file (relative to the project root)."""


POLICY_PRESETS: dict[str, dict[str, Any]] = {
    "default": {},
    # Seed 004's severity rule: "only critical findings block"; warnings (important) and info
    # (minor) are reported. A prose review that asks for fixes listing only those passes.
    "seed-004": {
        "with_fixes_blocks": False,
        "blocking_severities": ("critical",),
        "minor_blocks": False,
    },
}
"""`[review.policy] preset`: the keys each preset sets; a key written beside it wins."""


class ReviewPolicyConfig(_Section):
    """`[review.policy]`: what blocks a merge. Soft wording is never approval (not configurable).

    `preset` names a set of the other keys (`POLICY_PRESETS`): `default` (critical and
    important block, "With fixes" blocks) or `seed-004` (only critical blocks). Keys written
    beside the preset override it."""

    preset: Literal["default", "seed-004"] = "default"
    with_fixes_blocks: bool = True
    blocking_severities: tuple[Severity, ...] = Field(("critical", "important"), strict=False)
    minor_blocks: bool = False
    warning_notice_at: int = Field(4, ge=1, le=1000)
    """A notice when one task's review has recorded this many important findings (seed 004's
    "4+ warnings in a single task"); it never blocks."""

    @model_validator(mode="before")
    @classmethod
    def _apply_preset(cls, data: Any) -> Any:
        if not isinstance(data, dict) or not isinstance(data.get("preset"), str):
            return data
        return {**POLICY_PRESETS.get(data["preset"], {}), **data}


class ReviewConfig(_Section):
    """`[review]`: the review gate and its revision loop."""

    mode: Literal["auto", "manual", "off"] = "auto"
    reviewer: str | None = None
    reviewer_cmd: str | None = None
    implementer: str | None = None
    implementer_cmd: str | None = None
    max_rounds: int = Field(3, ge=1, le=50)
    malformed_retries: int = Field(1, ge=0, le=MAX_JSON_RETRIES_CEILING)
    transport_retries: int = Field(3, ge=0, le=MAX_JSON_RETRIES_CEILING)
    """A reviewer run that fails by transport (unreachable, HTTP 5xx/429, dead before any
    output) is run again this many times, with `[retry]`'s backoff; counted apart from
    malformed answers."""
    fresh_implementer_after: int | None = Field(None, ge=1)
    fresh_implementer: str | None = None
    defer_out_of_scope: bool = False
    """Opt-in, and it weakens the gate: a scoped re-review's new blocking finding on a file the
    fix did not touch is deferred (recorded, not blocking) instead of going to the next fix
    round. Off, such a "With fixes" blocks like any other (the seeds: "With fixes" → stop)."""
    rereview: Literal["scoped", "full"] = "scoped"
    """Later rounds re-review only the fix diff (`scoped`) or the whole change (`full`)."""
    diff_size_limit: int = Field(200_000, ge=1)
    report_dir: str | None = None
    policy: ReviewPolicyConfig = Field(default_factory=ReviewPolicyConfig)
    stages: tuple[Literal["spec", "quality"], ...] = Field(("spec", "quality"), strict=False)

    @field_validator("stages")
    @classmethod
    def _stages_unique(
        cls, value: tuple[Literal["spec", "quality"], ...]
    ) -> tuple[Literal["spec", "quality"], ...]:
        if not value:
            raise ValueError("at least one review stage is required")
        if len(set(value)) != len(value):
            raise ValueError(f"review stages must not repeat, got {list(value)}")
        return value


class AgentsConfig(_Section):
    """`[agents]`: limits for every agent run, and free-form per-backend tables."""

    default_timeout_s: float = Field(1800.0, gt=0)
    """Wall-clock limit of one agent run."""
    default_stall_timeout_s: float = Field(300.0, gt=0)
    """A run with no output growth for this long is stalled and stopped."""
    kill_grace_s: float = Field(10.0, ge=0)
    """Seconds between SIGTERM and SIGKILL when a run's process group is stopped."""
    max_output_bytes: int = Field(50 * 1024 * 1024, ge=1024)
    """Per stream (stdout, stderr): bytes of a CLI agent's output written to its log before
    only the tail is kept."""
    backends: dict[str, dict[str, BackendValue]] = Field(default_factory=dict)
    """`[agents.backends.NAME]` tables, e.g. `model = "..."`; each backend documents its keys."""
    advisors: tuple[str, ...] = Field((), strict=False)
    """Backends consulted when an implementer asks for help: `NAME` or `NAME:MODEL` (the
    model overrides the backend table's), each with its `[agents.backends.NAME]` options."""
    advisor_cmds: tuple[str, ...] = Field((), strict=False)
    """Advisor programs for the `command` backend; `{prompt_file}` is the request's file."""
    advisor_attempts: int = Field(3, ge=1, le=3)
    """Attempts per advisor (an invalid `advice` reply is asked again in its session), with
    exponential backoff between them; the count survives a crash."""
    max_help_requests: int = Field(2, ge=0, le=10)
    """Help requests answered per task; one more escalates the task to a person."""
    transport_retries: int = Field(2, ge=0, le=5)
    """Retries, with backoff, of an agent call whose endpoint could not be reached (status
    `missing`) before the call counts as failed."""
    stuck_restarts: int = Field(1, ge=0, le=3)
    """Fresh starts (clean work tree, new session) after a timeout or stall before escalating."""

    @field_validator("advisors", "advisor_cmds")
    @classmethod
    def _entries_not_blank(cls, value: tuple[str, ...]) -> tuple[str, ...]:
        if any(not entry.strip() for entry in value):
            raise ValueError("entries must not be empty")
        return value


class RunConfig(_Section):
    """`[run]`: how `mergegate run` executes a plan (flags override some of these)."""

    concurrency: int = Field(DEFAULT_CONCURRENCY, ge=1, le=64)
    """Units running at once within a wave (`--concurrency`)."""
    on_escalation: Literal["skip", "continue", "stop"] = "skip"
    """`continue`: independent units finish and the run stops at the phase boundary; `stop`:
    no agent starts after the first escalation."""
    fix_commits: Literal["separate", "amend"] = "separate"
    """Fix rounds commit separately, or fold into the task's commit (seed 004, pitfall 6)."""
    check_timeout_s: float = Field(600.0, gt=0)
    """Wall-clock limit of one task check, unless the check sets its own."""
    max_wall_s: float | None = Field(None, gt=0)
    """Budget: the whole run's wall time."""
    task_wall_s: float | None = Field(None, gt=0)
    """Budget: one task's wall time (implement, checks, review and fixes)."""
    max_tokens: int | None = Field(None, ge=1)
    """Budget: tokens the run's agents may use (where backends report them)."""
    max_cost_usd: float | None = Field(None, gt=0)
    """Budget: cost the run's agents may spend (where backends report it)."""


class SandboxConfig(_Section):
    """`[sandbox]`: what a person opens to every agent and task check on purpose, beyond the
    sandbox's own view (their workspace, their private HOME, the system's programs). Paths
    start with `/` or `~`; `--sandbox-allow` and `--sandbox-read` add to these."""

    allow: tuple[str, ...] = Field((), strict=False)
    """Directories or files every sandboxed process may read and write."""
    read: tuple[str, ...] = Field((), strict=False)
    """Directories or files every sandboxed process may read (toolchains, caches)."""

    @field_validator("allow", "read")
    @classmethod
    def _absolute(cls, value: tuple[str, ...]) -> tuple[str, ...]:
        for entry in value:
            if not entry.startswith(("/", "~")):
                raise ValueError(f"{entry!r}: a sandbox path starts with / or ~")
            if "\0" in entry:
                raise ValueError("a sandbox path holds no NUL byte")
        return value


class HooksConfig(_Section):
    """`[hooks]`: which subagent results the agent-CLI hooks (`mergegate hook ...`) gate.
    The hook itself reads this section without pydantic (`_hooks.HooksSection`, the same
    defaults, the same checks)."""

    subagent_types: tuple[str, ...] = Field(HOOKS_DEFAULTS.subagent_types, strict=False)
    """Glob patterns (case-insensitive) for subagent types that are code reviewers."""
    prompt_markers: tuple[str, ...] = Field(HOOKS_DEFAULTS.prompt_markers, strict=False)
    """A subagent whose prompt contains one of these texts (case-insensitive) is a reviewer."""
    result_markers: tuple[str, ...] = Field(HOOKS_DEFAULTS.result_markers, strict=False)
    """A subagent result containing one of these texts (case-insensitive) is a review."""
    timeout_s: float = Field(HOOKS_DEFAULTS.timeout_s, gt=0, le=TIMEOUT_MAX_S)
    """The hook answers "blocked: timed out" after this many seconds, whatever it was doing."""
    fix_subagent_types: tuple[str, ...] = Field(HOOKS_DEFAULTS.fix_subagent_types, strict=False)
    """While a review's "no" holds (the latch), subagents of these types (globs,
    case-insensitive) still run as fix work. Read from flags and the environment only: a
    project file setting it makes the hook block (an agent can write that file)."""


class AlertsConfig(_Section):
    """`[alerts]`: seed 002's alert conditions, raised as `alert` events while a run goes on and
    listed in its summary and report (see docs/observability.md)."""

    enabled: bool = True
    retry_exhaustion_rate: float = Field(0.05, ge=0.0, le=1.0)
    """Alert when more than this share of a component's operations failed on their last
    allowed attempt (seed: "retry exhaustion rate > 5%")."""
    average_retries: float = Field(2.0, ge=0.0)
    """Alert when a component needed more than this many retries on average before it
    succeeded (seed: "average retries > 2")."""
    component_seconds: float = Field(300.0, gt=0.0)
    """Alert when one attempt of a component (an agent run, a check, a handoff attempt) took
    longer than this (seed: "any component timeout > 300s")."""
    circular_repeats: int = Field(3, ge=2, le=100)
    """Alert when the same failure repeats on this many attempts in a row (a circular retry)."""
    finding_rounds: int = Field(3, ge=2, le=100)
    """Alert when one finding is reported in this many review rounds, or comes back after a
    round that did not report it (a circular fix loop)."""
    fail_on_alert: bool = False
    """Make `mergegate run` (and `stats --fail-on-alert`) exit 5 when an alert was raised."""


class EngineSettings(_Section):
    """`[engine]`: where durable run state lives (DBOS's system database) and how units are
    taken from its queue. One machine needs none of it; a fleet sets `database_url` to one
    Postgres and starts workers with distinct `executor_id`s (docs/fleet.md)."""

    # A validation error's text must not quote the URL it rejects (its password).
    model_config = ConfigDict(**_Section.model_config, hide_input_in_errors=True)

    database_url: DatabaseUrl | None = None
    """Unset: each run keeps its state in its own SQLite file under the state directory.
    `postgresql://...`: every run's state in that database, shared by a fleet of workers.
    `sqlite:////<absolute path>`: one SQLite file for every run of this machine. Also
    `MERGEGATE_DATABASE_URL`. Its password is never shown (`DatabaseUrl`)."""
    executor_id: str = Field("local", pattern=r"^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$")
    """This process's identity in the database: pending work recorded under it is recovered
    by the next process that starts with the same id (one stable id per worker host)."""
    global_concurrency: int | None = Field(None, ge=1, le=10_000)
    """Units running at once across every worker of a run's queue; unset: no fleet-wide cap."""
    worker_concurrency: int | None = Field(None, ge=1, le=64)
    """Units one worker process runs at once; unset: the run's concurrency. Each worker keeps
    its own number (not stored with the queue: see docs/fleet.md, Limits)."""
    polling_interval_s: float = Field(0.1, ge=0.01, le=10.0)
    """How often a worker looks for queued units (DBOS's own default, 1 s, would add up to a
    second to every dispatch)."""
    remote: str | None = None
    """The git remote the workers of a queued run share (`run --queue --remote`): the name
    of one of the repository's remotes (`origin`) or a URL (a path, `file://`, `ssh://`,
    `user@host:path`). Unset: every worker reaches the repository itself (docs/fleet.md)."""
    recover_silent_after_s: float | None = Field(None, ge=10.0)
    """A worker recovers the work of any worker silent for longer than this (`mergegate
    worker --recover-silent-after`); unset: only `mergegate workers recover` does."""
    log_store: str | None = Field(None, max_length=4_096)
    """Where a worker ships each finished attempt's full agent log for `report` on other
    hosts: a `file:///<absolute directory>` every host mounts (an NFS export, a bucket mounted
    with a FUSE client); unset: into the database (`mergegate_blobs`). No other scheme: no
    network client is built in (docs/fleet.md, Agent logs on other hosts)."""

    @field_validator("log_store")
    @classmethod
    def _file_url(cls, value: str | None) -> str | None:
        if value is not None:
            object_store_dir(value)
        return value


class Config(_Section):
    """The whole configuration. Build it with `load_config()`; every value is frozen."""

    # `[engine] database_url` may hold a password: a ValidationError's text never quotes input
    # (`load_config` reports inputs itself, redacted).
    model_config = ConfigDict(**_Section.model_config, hide_input_in_errors=True)

    retry: RetryConfig = Field(default_factory=RetryConfig)
    handoff_validation: HandoffValidationConfig = Field(default_factory=HandoffValidationConfig)
    review: ReviewConfig = Field(default_factory=ReviewConfig)
    agents: AgentsConfig = Field(default_factory=AgentsConfig)
    run: RunConfig = Field(default_factory=RunConfig)
    hooks: HooksConfig = Field(default_factory=HooksConfig)
    alerts: AlertsConfig = Field(default_factory=AlertsConfig)
    engine: EngineSettings = Field(default_factory=EngineSettings)
    sandbox: SandboxConfig = Field(default_factory=SandboxConfig)
    root: Path | None = Field(None, exclude=True)
    """The project root the loader found (not a setting; `None` for a bare `Config()`)."""
    source: Path | None = Field(None, exclude=True)
    """The config file that was read, if any (not a setting)."""


SECTIONS: tuple[str, ...] = (
    "retry",
    "handoff_validation",
    "review",
    "agents",
    "hooks",
    "alerts",
    "engine",
    "run",
    "sandbox",
)

DEFAULT_AGENTS = AgentsConfig()
"""The `[agents]` defaults, read by the library's own defaults so each is written once."""
DEFAULT_REVIEW = ReviewConfig()
"""The `[review]` defaults, read by `ReviewOptions`."""
DEFAULT_ENGINE = EngineSettings()
"""The `[engine]` defaults, read by the durable store's own defaults (poll interval, executor)."""
