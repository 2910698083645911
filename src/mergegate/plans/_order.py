"""The order units run in: waves computed from `depends_on`, declared waves as a floor.

A unit's wave is the larger of the wave it declares and one more than the wave of every unit
of the same phase it depends on. So a declared wave never makes a unit run *earlier* than its
dependencies allow (the dependency list wins when the two disagree, and `wave_conflicts`
reports it), and never later than the author asked without a reason in the plan. Dependencies
on units of earlier phases are met by running phases in order; `plan check` reports the ones
that point at later phases or at nothing.
"""

from __future__ import annotations

from collections import deque

from mergegate.plans._model import Phase, PlanIssue, Severity, Unit

__all__ = ["CycleError", "unit_waves", "wave_conflicts"]


class CycleError(ValueError):
    """The units of a phase depend on each other in a circle; `cycle` names them in order."""

    def __init__(self, cycle: tuple[Unit, ...]) -> None:
        super().__init__("dependency cycle: " + " → ".join(unit.id for unit in (*cycle, cycle[0])))
        self.cycle = cycle


def unit_waves(phase: Phase) -> tuple[tuple[Unit, ...], ...]:
    """The phase's units grouped into waves, in run order; units keep plan order in a wave.

    Raises `CycleError` when dependencies inside the phase form a cycle.
    """
    levels = _levels(phase)
    ordered = sorted(set(levels.values()))
    return tuple(tuple(u for u in phase.units if levels[u.id] == level) for level in ordered)


def wave_conflicts(phase: Phase) -> list[PlanIssue]:
    """Units whose declared wave does not come after a unit they depend on (same phase)."""
    by_id = {unit.id: unit for unit in phase.units}
    issues = []
    for unit in phase.units:
        if unit.wave is None:
            continue
        for dep in unit.depends_on:
            other = by_id.get(dep)
            if other is None or other is unit or other.wave is None or other.wave < unit.wave:
                continue
            issues.append(
                PlanIssue(
                    severity=Severity.WARNING,
                    code="wave-conflict",
                    message=(
                        f"unit {unit.id} declares wave {unit.wave} but depends on {other.id} "
                        f"(wave {other.wave}); it runs after {other.id}"
                    ),
                    source=unit.source,
                )
            )
    return issues


def _levels(phase: Phase) -> dict[str, int]:
    units = {unit.id: unit for unit in phase.units}
    deps = {
        u.id: [d for d in dict.fromkeys(u.depends_on) if d in units and d != u.id]
        for u in phase.units
    }
    waiting = {uid: len(found) for uid, found in deps.items()}
    users: dict[str, list[str]] = {uid: [] for uid in units}
    for uid, found in deps.items():
        for dep in found:
            users[dep].append(uid)
    # No declared wave means wave 1, as in GSD.
    level: dict[str, int] = {uid: _declared(units[uid]) for uid in units}
    ready = deque(uid for uid, count in waiting.items() if count == 0)
    done = 0
    while ready:
        uid = ready.popleft()
        done += 1
        for user in users[uid]:
            level[user] = max(level[user], level[uid] + 1)
            waiting[user] -= 1
            if waiting[user] == 0:
                ready.append(user)
    if done < len(units):
        raise CycleError(_find_cycle(units, deps, {u for u, c in waiting.items() if c > 0}))
    return level


def _declared(unit: Unit) -> int:
    return 1 if unit.wave is None else unit.wave


def _find_cycle(
    units: dict[str, Unit], deps: dict[str, list[str]], stuck: set[str]
) -> tuple[Unit, ...]:
    """One cycle among the units Kahn's algorithm could not order (iterative walk)."""
    start = next(uid for uid in units if uid in stuck)
    path: list[str] = []
    index: dict[str, int] = {}
    current = start
    while current not in index:
        index[current] = len(path)
        path.append(current)
        current = next(dep for dep in deps[current] if dep in stuck)
    return tuple(units[uid] for uid in path[index[current] :])
