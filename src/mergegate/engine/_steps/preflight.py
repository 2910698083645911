"""Preflight of a run: every agent it names is usable here, checked before anything of the run
is made (`run`, `run --dry-run`, `resume`): implementer, reviewer, verifier, the fresh
implementer `[review] fresh_implementer` names, and the advisors. A missing CLI is one line
and exit 4 now, never a run that retries it with backoff and escalates later."""

from __future__ import annotations

from mergegate.agents import Readiness, preflight, require_ready
from mergegate.config import Config
from mergegate.engine._context.run_agents import AgentSpec, RunAgents, build_backend
from mergegate.implementer import advisors_from_config

__all__ = ["check_agents", "require_ready"]


def check_agents(agents: RunAgents, config: Config) -> list[Readiness]:
    """Each agent of the run, checked once per backend (a role named twice is one check)."""
    roles: list[tuple[str, AgentSpec | None]] = [
        ("implementer", agents.implementer),
        ("reviewer", agents.reviewer),
        ("verifier", agents.verifier),
        ("fresh implementer", AgentSpec(name=config.review.fresh_implementer)),
    ]
    found: list[Readiness] = []
    seen: set[AgentSpec] = set()
    for role, spec in roles:
        if spec is None or not spec or spec in seen:
            continue
        seen.add(spec)
        backend = build_backend(spec, config)
        if backend is not None:
            found.append(preflight(backend, label=f"{role} {spec.label()}"))
    for advisor in advisors_from_config(config, names=agents.advisors, cmds=agents.advisor_cmds):
        found.append(preflight(advisor.backend, label=f"advisor {advisor.name}"))
    return found
