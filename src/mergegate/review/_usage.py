"""What the agents of one review run cost: tokens (as each backend reports them) and time."""

from __future__ import annotations

from dataclasses import dataclass

from mergegate.agents.base import AgentResult

__all__ = ["UsageTotal", "usage_of"]


def usage_of(result: AgentResult) -> dict[str, int]:
    """The token counts of one run, as the backend reported them (zeros when it reports none)."""
    return result.usage.model_dump()


@dataclass
class UsageTotal:
    """The sum over several agent runs."""

    runs: int = 0
    input_tokens: int = 0
    output_tokens: int = 0
    cache_read_tokens: int = 0
    cache_write_tokens: int = 0
    duration_s: float = 0.0

    def add(self, usage: dict[str, int], duration_s: float) -> None:
        self.runs += 1
        self.input_tokens += usage.get("input_tokens", 0)
        self.output_tokens += usage.get("output_tokens", 0)
        self.cache_read_tokens += usage.get("cache_read_tokens", 0)
        self.cache_write_tokens += usage.get("cache_write_tokens", 0)
        self.duration_s += duration_s

    @property
    def total_tokens(self) -> int:
        return (
            self.input_tokens
            + self.output_tokens
            + self.cache_read_tokens
            + self.cache_write_tokens
        )

    def to_dict(self) -> dict[str, object]:
        return {
            **self.__dict__,
            "total_tokens": self.total_tokens,
            "duration_s": round(self.duration_s, 3),
        }
