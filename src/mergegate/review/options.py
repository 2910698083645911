"""From configuration to a review: the options of one run, its agents and where it reports.

This is the one place `[review]` and `[agents]` become review values, for `mergegate review`
and for the run engine alike; the defaults themselves are the configuration's
(`mergegate.config.DEFAULT_REVIEW`, `DEFAULT_AGENTS`), written once there.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field

from mergegate.agents.base import AgentRequest, Backend
from mergegate.agents.registry import backend_from_config, backend_names
from mergegate.agents.sandbox import SandboxPolicy
from mergegate.config import (
    DEFAULT_AGENTS,
    DEFAULT_REVIEW,
    Config,
    RetryConfig,
    StateLayout,
    state_dir,
)
from mergegate.errors import UsageError
from mergegate.review.policy import GatePolicy

__all__ = ["DEFAULT_SCOPE", "ReviewAgents", "ReviewOptions", "report_root"]

_R = DEFAULT_REVIEW
_A = DEFAULT_AGENTS
_RETRY = RetryConfig()
DEFAULT_SCOPE = "change"
"""The scope of a review that names none (`mergegate review` without `--scope`)."""


class ReviewOptions(BaseModel):
    """How one review run behaves. Build it with `from_config`; every default is the
    configuration's. A frozen, JSON-serialisable value (the run engine checkpoints it)."""

    model_config = ConfigDict(frozen=True, extra="forbid", allow_inf_nan=False)

    base: str
    head: str = "HEAD"
    spec: str | None = None
    """Task text and acceptance criteria; without it the spec stage is skipped."""
    scope: str = Field(DEFAULT_SCOPE, min_length=1, max_length=200)
    """What the review is about (a run's task id): the `scope` every verdict object must
    carry."""
    fix: bool = False
    max_rounds: int = Field(_R.max_rounds, ge=1)
    malformed_retries: int = Field(_R.malformed_retries, ge=0)
    transport_retries: int = Field(_R.transport_retries, ge=0)
    backoff_base_s: float = Field(_RETRY.json_retry_delay, ge=0)
    """The first wait before a transport retry (doubling each time, with jitter)."""
    backoff_max_s: float = Field(_RETRY.max_backoff_delay, ge=0)
    policy: GatePolicy = Field(default_factory=GatePolicy)
    defer_out_of_scope: bool = _R.defer_out_of_scope
    diff_size_limit: int = Field(_R.diff_size_limit, ge=1)
    fresh_implementer_after: int | None = _R.fresh_implementer_after
    rereview: Literal["scoped", "full"] = _R.rereview
    """Later rounds review only the fix diff (`scoped`) or the whole change base..new head
    (`full`, where nothing is deferred as out of scope)."""
    stages: tuple[str, ...] = _R.stages
    """The stages to run, in order (`spec` runs only with a `spec`)."""
    timeout_s: float = Field(_A.default_timeout_s, gt=0)
    stall_timeout_s: float = Field(_A.default_stall_timeout_s, gt=0)
    kill_grace_s: float = Field(_A.kill_grace_s, ge=0)
    max_output_bytes: int = Field(_A.max_output_bytes, ge=0)
    sandbox: SandboxPolicy | None = None
    """The sandbox the run's agents were put in, as recorded in its summary (`mergegate
    review` and the run engine set it); None: the caller gave the agents as they are."""

    @classmethod
    def from_config(
        cls,
        config: Config,
        *,
        base: str,
        head: str = "HEAD",
        spec: str | None = None,
        fix: bool = False,
        scope: str = DEFAULT_SCOPE,
    ) -> ReviewOptions:
        """The options `config` describes for reviewing `base..head` (against `spec`)."""
        review = config.review
        return cls(
            base=base,
            head=head,
            spec=spec,
            scope=scope,
            fix=fix,
            max_rounds=review.max_rounds,
            malformed_retries=review.malformed_retries,
            transport_retries=review.transport_retries,
            backoff_base_s=config.retry.json_retry_delay,
            backoff_max_s=config.retry.max_backoff_delay,
            policy=GatePolicy.from_config(review.policy),
            defer_out_of_scope=review.defer_out_of_scope,
            diff_size_limit=review.diff_size_limit,
            fresh_implementer_after=review.fresh_implementer_after,
            rereview=review.rereview,
            stages=tuple(review.stages),
            **AgentRequest.limits_from(config.agents),
        )

    def agent_limits(self) -> dict[str, Any]:
        """The limits every agent request of this run carries, as `AgentRequest` fields."""
        return {
            "timeout_s": self.timeout_s,
            "stall_timeout_s": self.stall_timeout_s,
            "kill_grace_s": self.kill_grace_s,
            "max_output_bytes": self.max_output_bytes,
        }


@dataclass(frozen=True)
class ReviewAgents:
    """The backends of one review run."""

    reviewer: Backend
    implementer: Backend | None = None
    """Needed with `fix`."""
    fresh_implementer: Backend | None = None
    """Used in a fresh session after `fresh_implementer_after` rounds (default: `implementer`)."""

    @classmethod
    def from_config(
        cls,
        config: Config,
        *,
        reviewer: str | None = None,
        reviewer_cmd: str | None = None,
        implementer: str | None = None,
        implementer_cmd: str | None = None,
    ) -> ReviewAgents:
        """The agents `config` names, where a name or a command given here (a flag) beats the
        configured pair: `reviewer="X"` ignores a configured `reviewer_cmd`.

        Raises `UsageError` when no reviewer is named at all, or a name is unknown.
        """
        review = config.review
        chosen = _build(
            config, *_pick(reviewer, reviewer_cmd, review.reviewer, review.reviewer_cmd)
        )
        if chosen is None:
            raise UsageError(
                f"no reviewer: pass --reviewer NAME (one of {', '.join(backend_names())}) or "
                '--reviewer-cmd "PROGRAM ARGS", or set [review] reviewer'
            )
        impl = _build(
            config, *_pick(implementer, implementer_cmd, review.implementer, review.implementer_cmd)
        )
        fresh = _build(config, review.fresh_implementer, None)
        return cls(chosen, impl, fresh)


def _pick(
    given_name: str | None, given_cmd: str | None, conf_name: str | None, conf_cmd: str | None
) -> tuple[str | None, str | None]:
    """Given values beat the config file as a pair."""
    if given_name or given_cmd:
        return given_name, given_cmd
    return conf_name, conf_cmd


def _build(config: Config, name: str | None, cmd: str | None) -> Backend | None:
    if not (name or cmd):
        return None
    return backend_from_config(config.agents, name, cmd=cmd)


def report_root(config: Config, given: Path | None = None) -> Path:
    """Where review runs go (`<root>/<run-id>/`): `given`, else `review.report_dir`, else
    `<state dir>/reviews`."""
    if given is not None:
        return given
    if config.review.report_dir:
        return Path(config.review.report_dir)
    return StateLayout(state_dir(config)).reviews
