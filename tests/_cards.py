"""A run's card for tests of the store and of what reads cards: the engine's typed card with
the least a card holds (one implementer, the default options)."""

from __future__ import annotations

from typing import Any

from mergegate.engine import AgentSpec, EngineRunRecord, RunAgents, RunOptions


def card(run_id: str = "r1", **fields: Any) -> EngineRunRecord:
    """A card for `run_id`: repository `/r`, integration branch `i`, base `0…0` unless
    `fields` say otherwise."""
    given: dict[str, Any] = {"repo": "/r", "into": "i", "base_sha": "0" * 40, **fields}
    given.setdefault("agents", RunAgents(implementer=AgentSpec(name="scripted")))
    given.setdefault("options", RunOptions())
    return EngineRunRecord(run_id=run_id, **given)
