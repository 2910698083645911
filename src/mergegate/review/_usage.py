"""What the agents of one review run cost: tokens (as each backend reports them) and time."""

from __future__ import annotations

from dataclasses import dataclass, field

from mergegate.agents.base import AgentResult, Usage

__all__ = ["UsageTotal", "usage_of"]


def usage_of(result: AgentResult) -> dict[str, int]:
    """The token counts of one run, as the backend reported them (zeros when it reports none)."""
    return result.usage.model_dump()


@dataclass
class UsageTotal:
    """The sum over several agent runs."""

    runs: int = 0
    usage: Usage = field(default_factory=Usage)
    duration_s: float = 0.0

    def add(self, usage: dict[str, int], duration_s: float) -> None:
        self.runs += 1
        summed = {k: v + usage.get(k, 0) for k, v in self.usage.model_dump().items()}
        self.usage = Usage.model_validate(summed)
        self.duration_s += duration_s

    def to_dict(self) -> dict[str, object]:
        return {
            "runs": self.runs,
            **self.usage.model_dump(),
            "total_tokens": self.usage.total_tokens,
            "duration_s": round(self.duration_s, 3),
        }
