"""The report's content, computed from events: plain values the template only lays out.

Everything geometric (the timeline's rows and bars, the charts' bars) is computed here in
pixels, so the template holds no arithmetic and no logic beyond loops. Text stays raw here;
the template's autoescape escapes every field (agent text is untrusted).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from datetime import datetime

from mergegate.events import (
    AgentAttempt,
    CheckRun,
    Escalation,
    EventBase,
    FixRound,
    HandoffFinished,
    HelpAdvice,
    HelpRequested,
    MergeResult,
    PhaseFinished,
    TaskFinished,
    UnitEscalated,
    UnitFinished,
    UnitMerged,
    VerdictEvent,
    VerificationEvent,
)
from mergegate.metrics import Metrics, UsageTotals

__all__ = [
    "Bar",
    "Chart",
    "Row",
    "Timeline",
    "build_charts",
    "build_tables",
    "build_timeline",
    "findings_by_severity",
    "where",
]

XOf = Callable[[datetime], float]
PLOT_W = 960.0
LABEL_W = 300.0
ROW_H = 18.0
AXIS_H = 28.0
MIN_BAR = 2.0
MAX_ROWS_TABLE = 2000
ROLES = ("implementer", "fixer", "reviewer", "advisor", "verifier")


@dataclass(frozen=True)
class Bar:
    x: float
    w: float
    css: str
    title: str


@dataclass
class Row:
    label: str
    level: str
    """phase, unit, task or lane (a role's attempts within a task)."""
    y: float = 0.0
    bars: list[Bar] = field(default_factory=list)


@dataclass(frozen=True)
class Tick:
    x: float
    label: str


@dataclass
class Timeline:
    rows: list[Row]
    ticks: list[Tick]
    width: float
    height: float
    attempts: int
    span_s: float


def _task_label(e: EventBase) -> str:
    return " / ".join(p for p in (e.phase, e.unit, e.task) if p) or (e.run_id or "run")


def _seconds(value: float) -> str:
    if value < 120:
        return f"{value:.1f} s"
    if value < 7200:
        return f"{value / 60:.1f} min"
    return f"{value / 3600:.1f} h"


class _Spans:
    """Start and end of each phase, unit and task, from their events (or their attempts)."""

    def __init__(self) -> None:
        self.start: dict[tuple[str, ...], datetime] = {}
        self.end: dict[tuple[str, ...], datetime] = {}
        self.status: dict[tuple[str, ...], str] = {}
        self.order: list[tuple[str, ...]] = []

    def touch(self, key: tuple[str, ...], begin: datetime, end: datetime) -> None:
        if key not in self.start:
            self.order.append(key)
            self.start[key], self.end[key] = begin, end
            return
        self.start[key] = min(self.start[key], begin)
        self.end[key] = max(self.end[key], end)


def _status_of(e: EventBase) -> str | None:
    """The status an ending event gives its phase, unit or task."""
    if isinstance(e, PhaseFinished | UnitFinished):
        return e.status
    if isinstance(e, TaskFinished):
        return e.decision
    if isinstance(e, UnitMerged):
        return "merged"
    if isinstance(e, UnitEscalated):
        return "needs_manual_review"
    return None


def _keys(e: EventBase) -> list[tuple[str, ...]]:
    keys: list[tuple[str, ...]] = []
    if e.phase:
        keys.append(("phase", e.run_id, e.phase))
    if e.unit:
        keys.append(("unit", e.run_id, e.phase, e.unit))
    if e.task:
        keys.append(("task", e.run_id, e.phase, e.unit, e.task))
    return keys


def build_timeline(events: Sequence[EventBase]) -> Timeline:
    """Phases, units and tasks as spans, and one bar per agent attempt, on one time axis."""
    spans = _Spans()
    attempts = [e for e in events if isinstance(e, AgentAttempt)]
    for e in events:
        begin = getattr(e, "started_at", None) or e.at
        for key in _keys(e):
            spans.touch(key, begin, e.at)
        status = _status_of(e)
        if status is not None and _keys(e):
            spans.status[_keys(e)[-1]] = status
    if not events:
        return Timeline([], [], LABEL_W + PLOT_W, AXIS_H, 0, 0.0)
    t0 = min(getattr(e, "started_at", None) or e.at for e in events)
    t1 = max(e.at for e in events)
    span = max((t1 - t0).total_seconds(), 1e-3)
    scale = PLOT_W / span

    def x_of(moment: datetime) -> float:
        return round(LABEL_W + (moment - t0).total_seconds() * scale, 2)

    rows = _rows(spans, attempts, x_of)
    for i, row in enumerate(rows):
        row.y = AXIS_H + i * ROW_H
    unit, per = (("s", 1.0) if span < 120 else ("min", 60.0)) if span < 7200 else ("h", 3600.0)
    ticks = [Tick(LABEL_W + PLOT_W * k / 5, f"{span * k / 5 / per:.1f} {unit}") for k in range(6)]
    height = AXIS_H + len(rows) * ROW_H + 4
    return Timeline(rows, ticks, LABEL_W + PLOT_W + 20, height, len(attempts), span)


def _rows(spans: _Spans, attempts: list[AgentAttempt], x_of: XOf) -> list[Row]:
    lanes: dict[tuple[str, ...], dict[str, list[AgentAttempt]]] = {}
    for a in attempts:
        owner = _keys(a)[-1] if a.task or a.unit or a.phase else ("task", a.run_id, "", "", "")
        if owner not in spans.start:
            spans.touch(owner, a.started_at or a.at, a.at)
        lanes.setdefault(owner, {}).setdefault(a.role, []).append(a)
    rows: list[Row] = []
    for key in _tree_order(spans.order):
        level = key[0]
        name = key[-1] or (key[1] or "run")
        status = spans.status.get(key, "")
        css = f"span {level} " + ("ok" if status in ("approved", "merged", "completed") else "")
        title = f"{level} {name}: {status or 'no status'}"
        begin, end = x_of(spans.start[key]), x_of(spans.end[key])
        rows.append(
            Row(
                label=f"{level} {name}",
                level=level,
                bars=[Bar(begin, max(MIN_BAR, end - begin), css.strip(), title)],
            )
        )
        for role in sorted(lanes.get(key, {}), key=ROLES.index):
            rows.append(
                Row(label=role, level="lane", bars=[_bar(a, x_of) for a in lanes[key][role]])
            )
    return rows


def _tree_order(keys: list[tuple[str, ...]]) -> list[tuple[str, ...]]:
    """Phases, each followed by its units, each followed by its tasks; every level in the
    order it first appeared (parallel units interleave in time, not on the page)."""
    seen = {k: i for i, k in enumerate(keys)}

    def parent(key: tuple[str, ...]) -> tuple[str, ...] | None:
        found: tuple[str, ...]
        if key[0] == "unit":
            found = ("phase", key[1], key[2])
        elif key[0] == "task":
            found = ("unit", key[1], key[2], key[3])
            if found not in seen:
                found = ("phase", key[1], key[2])
        else:
            return None
        return found if found in seen else None

    children: dict[tuple[str, ...] | None, list[tuple[str, ...]]] = {}
    for key in keys:
        children.setdefault(parent(key), []).append(key)
    ordered: list[tuple[str, ...]] = []
    stack = list(reversed(children.get(None, [])))
    while stack:
        key = stack.pop()
        ordered.append(key)
        stack.extend(reversed(children.get(key, [])))
    return ordered


def _bar(a: AgentAttempt, x_of: XOf) -> Bar:
    begin = x_of(a.started_at or a.at)
    end = x_of(a.at) if a.started_at else begin
    where = f"round {a.round} {a.stage} " if a.round or a.stage else ""
    title = (
        f"{a.role} {where}attempt {a.attempt} ({a.backend}"
        + (f", {a.model}" if a.model else "")
        + f"): {a.status}, {_seconds(a.duration_s)}, {a.tokens:,} tokens"
        + (f", ${a.cost_usd:.4f}" if a.cost_usd is not None else "")
        + (f" — {a.error}" if a.error else "")
    )
    css = f"bar attempt role-{a.role} " + ("ok" if a.ok else "fail")
    return Bar(begin, max(MIN_BAR, end - begin), css, title)


# ---------------------------------------------------------------- findings


@dataclass
class FindingRow:
    severity: str
    id: str
    title: str
    where: str
    location: str
    status: str
    rounds: list[int]


def findings_by_severity(events: Iterable[EventBase]) -> dict[str, list[FindingRow]]:
    """Every finding reported, once per task and review, with its latest status."""
    rows: dict[tuple[object, ...], FindingRow] = {}
    for v in events:
        if not isinstance(v, VerdictEvent):
            continue
        for f in v.findings:
            key = (v.task_key, v.operation, f.id)
            location = f"{f.file}:{f.line}" if f.file and f.line else f.file
            row = rows.get(key)
            if row is None:
                row = rows[key] = FindingRow(
                    f.severity, f.id, f.title, _task_label(v), location, f.status or "open", []
                )
            row.status = f.status or row.status
            if v.round not in row.rounds:
                row.rounds.append(v.round)
    grouped: dict[str, list[FindingRow]] = {"critical": [], "important": [], "minor": []}
    for row in rows.values():
        grouped[row.severity].append(row)
    return grouped


# ---------------------------------------------------------------- charts


@dataclass(frozen=True)
class ChartBar:
    label: str
    y: float
    parts: tuple[Bar, ...]
    value: str


@dataclass(frozen=True)
class Chart:
    title: str
    unit: str
    bars: tuple[ChartBar, ...]
    height: float
    legend: tuple[tuple[str, str], ...]


CHART_LABEL_W = 300.0
CHART_W = 560.0
CHART_ROW = 20.0
CHART_ROWS = 30


def _chart(
    title: str,
    unit: str,
    items: dict[str, UsageTotals],
    parts: tuple[tuple[str, str], ...],
    fmt: str,
) -> Chart:
    ranked = sorted(items.items(), key=lambda kv: -sum(_part(kv[1], p) for p, _ in parts))
    shown = ranked[:CHART_ROWS]
    top = max((sum(_part(u, p) for p, _ in parts) for _, u in shown), default=0.0) or 1.0
    bars = []
    for i, (name, usage) in enumerate(shown):
        x, pieces = CHART_LABEL_W, []
        for attr, css in parts:
            w = CHART_W * _part(usage, attr) / top
            pieces.append(
                Bar(round(x, 2), round(w, 2), css, f"{name}: {attr} {_part(usage, attr):{fmt}}")
            )
            x += w
        total = sum(_part(usage, p) for p, _ in parts)
        bars.append(ChartBar(name, i * CHART_ROW + 4, tuple(pieces), f"{total:{fmt}}"))
    if len(ranked) > CHART_ROWS:
        title += f" (top {CHART_ROWS} of {len(ranked)})"
    legend = tuple((attr.replace("_", " "), css) for attr, css in parts)
    return Chart(title, unit, tuple(bars), len(bars) * CHART_ROW + 8, legend)


def _part(usage: UsageTotals, attr: str) -> float:
    return float(getattr(usage, attr))


def build_charts(metrics: Metrics) -> list[Chart]:
    """Tokens by task, phase and role (input / output / cache), cost by role and backend."""
    tokens = (
        ("tokens_in", "c-in"),
        ("tokens_out", "c-out"),
        ("cache_read_tokens", "c-cache"),
        ("cache_write_tokens", "c-cache-w"),
    )
    cost = (("cost_usd", "c-cost"),)
    charts = [
        _chart("Tokens by task", "tokens", metrics.usage_by_task, tokens, ",.0f"),
        _chart("Tokens by phase", "tokens", metrics.usage_by_phase, tokens, ",.0f"),
        _chart("Tokens by role", "tokens", metrics.usage_by_role, tokens, ",.0f"),
        _chart("Cost by role (US$)", "usd", metrics.usage_by_role, cost, ",.4f"),
        _chart("Cost by backend (US$)", "usd", metrics.usage_by_backend, cost, ",.4f"),
    ]
    return [c for c in charts if c.bars]


# ---------------------------------------------------------------- tables

_TABLE_OF: dict[type[EventBase], str] = {
    VerdictEvent: "verdicts",
    CheckRun: "checks",
    VerificationEvent: "verifications",
    FixRound: "fixes",
    Escalation: "escalations",
    UnitEscalated: "escalations",
    MergeResult: "merges",
    HelpRequested: "help",
    HelpAdvice: "help",
    HandoffFinished: "handoffs",
}
TABLES = (
    "verdicts",
    "checks",
    "verifications",
    "fixes",
    "escalations",
    "merges",
    "help",
    "handoffs",
)


def build_tables(events: Iterable[EventBase]) -> tuple[dict[str, list[EventBase]], dict[str, int]]:
    """The events each table lists (at most `MAX_ROWS_TABLE` each), and how many were cut."""
    tables: dict[str, list[EventBase]] = {name: [] for name in TABLES}
    cut: dict[str, int] = {}
    for e in events:
        name = _TABLE_OF.get(type(e))
        if name is None:
            continue
        if len(tables[name]) >= MAX_ROWS_TABLE:
            cut[name] = cut.get(name, 0) + 1
        else:
            tables[name].append(e)
    return tables, cut


def where(e: EventBase) -> str:
    """The place of an event, for a table cell."""
    return _task_label(e)
