"""The one sink protocol: anything with `emit(event)`.

Three streams use it with their own event type: the typed run stream
(`EventSink = Sink[EventBase]`, written by `EventLog`), the plain handoff events of
`mergegate.handoff` (`Sink[Mapping[str, Any]]`) and the engine's live view
(`mergegate.engine.EventSink`, a `Sink[RunEvent]`).
"""

from __future__ import annotations

from typing import Protocol, TypeVar, runtime_checkable

__all__ = ["Sink"]

_E_contra = TypeVar("_E_contra", contravariant=True)


@runtime_checkable
class Sink(Protocol[_E_contra]):
    """Takes events of one type, one at a time; what it does with them is its own affair
    (append to a file, keep in a list, show live, forward)."""

    def emit(self, event: _E_contra) -> None: ...
