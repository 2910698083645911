"""What the agents of one review run cost: tokens (as each backend reports them) and time."""

from __future__ import annotations

from pydantic import BaseModel, ConfigDict, Field

from mergegate.agents.base import Usage

__all__ = ["UsageTotal"]


class UsageTotal(BaseModel):
    """The sum over several agent runs (a frozen value: `add` returns a new total)."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    runs: int = 0
    usage: Usage = Field(default_factory=Usage)
    duration_s: float = 0.0

    def add(self, usage: Usage, duration_s: float) -> UsageTotal:
        summed = {k: v + getattr(usage, k) for k, v in self.usage.model_dump().items()}
        return UsageTotal(
            runs=self.runs + 1,
            usage=Usage.model_validate(summed),
            duration_s=self.duration_s + duration_s,
        )

    def to_dict(self) -> dict[str, object]:
        """The JSON view: runs, each token count, total_tokens, duration_s (rounded to ms)."""
        return {
            "runs": self.runs,
            **self.usage.model_dump(),
            "total_tokens": self.usage.total_tokens,
            "duration_s": round(self.duration_s, 3),
        }
