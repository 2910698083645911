"""What the agents of one review run cost: tokens (as each backend reports them) and time."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Annotated

from pydantic import BaseModel, BeforeValidator, ConfigDict, Field, PlainSerializer

from mergegate.agents.base import Usage

__all__ = ["FlatUsageTotal", "UsageTotal"]


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


def _nested(value: object) -> object:
    """A total in its flat form (`UsageTotal.to_dict`) as the model's fields: the token
    counts are the usage's (`total_tokens` is derived, and dropped). Anything else (a total,
    the nested form) is left to the model."""
    if not isinstance(value, Mapping) or "usage" in value:
        return value
    usage = {k: value[k] for k in Usage.model_fields if k in value}
    rest = {k: v for k, v in value.items() if k not in Usage.model_fields}
    rest.pop("total_tokens", None)
    return {**rest, "usage": usage}


FlatUsageTotal = Annotated[
    UsageTotal, BeforeValidator(_nested), PlainSerializer(UsageTotal.to_dict)
]
"""A `UsageTotal` recorded in its flat JSON form (`to_dict`: runs, each token count,
total_tokens, duration_s rounded to ms), as a review's outcome keeps it, and read back."""
