"""The self-contained HTML report of one run: Jinja2 with autoescape, inline CSS and SVG.

Agent text is untrusted, so the page is built to run nothing of it:

* every value goes through Jinja2's autoescape (`Environment(autoescape=True)`); the only
  value marked safe is the stylesheet, a file of this package;
* there is no script at all, and the Content-Security-Policy forbids any:
  `default-src 'none'; style-src 'sha256-…'; img-src data:; base-uri 'none'; form-action 'none'`
  (the style hash pins our stylesheet, so even an injected `style` attribute would not apply);
* no link is built from data (the only `href`s are the page's own `#anchors`), so a
  `javascript:` URL in agent output is only ever text.
"""

from __future__ import annotations

import base64
import contextlib
import hashlib
import threading
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import UTC, datetime
from functools import cache, lru_cache
from importlib import resources
from pathlib import Path
from typing import Any

from jinja2 import Environment, StrictUndefined, Template
from markupsafe import Markup

from mergegate import __version__
from mergegate.atomic_files import write_atomic
from mergegate.errors import UsageError
from mergegate.events import (
    SCHEMA_VERSION,
    Alert,
    EventBase,
    EventStream,
    ReviewFinished,
    RunFinished,
    RunStarted,
    read_events,
)
from mergegate.metrics import AlertRules, Metrics, compute_metrics, evaluate_alerts
from mergegate.report._view import (
    ROLES,
    build_charts,
    build_tables,
    build_timeline,
    findings_by_severity,
    where,
)

__all__ = [
    "MAX_RECORDS",
    "REPORT_FILE",
    "Folded",
    "ReportLog",
    "ReportRecord",
    "content_security_policy",
    "prepare_template",
    "render_report",
    "report_alerts",
    "write_report",
]

REPORT_FILE = "report.html"


@cache
def _stylesheet() -> str:
    text = resources.files(__package__).joinpath("templates", "report.css").read_text("utf-8")
    if "</" in text:  # pragma: no cover - a packaging mistake, not data
        raise RuntimeError("the report stylesheet must not contain '</'")
    return text


def content_security_policy() -> str:
    """The page's policy: nothing may load or run but the report's own stylesheet."""
    digest = base64.b64encode(hashlib.sha256(_stylesheet().encode("utf-8")).digest()).decode()
    return (
        f"default-src 'none'; style-src 'sha256-{digest}'; img-src data:; "
        "base-uri 'none'; form-action 'none'"
    )


_COMPILING = threading.Lock()
"""Held while the template compiles: the end of a run waits for a compile under way in the
background (`prepare_template`) instead of compiling it a second time."""


def _template() -> Template:
    with _COMPILING:
        return _compiled()


def prepare_template() -> threading.Thread:
    """Compile the report's template in a background thread, once per process: a run calls
    this as it starts, so the compile (about a fifth of a second of CPU) happens while the
    run waits for its agents instead of at its end, where it delayed every run's (and every
    resume's) result. What the compile raises is raised again by the end of the run's own
    call, which compiles anew (nothing is cached for a compile that failed). The thread."""
    thread = threading.Thread(
        target=_compile_quietly, name="mergegate-report-template", daemon=True
    )
    thread.start()
    return thread


def _compile_quietly() -> None:
    with contextlib.suppress(Exception):
        _template()


@cache
def _compiled() -> Template:
    env = Environment(
        autoescape=True, undefined=StrictUndefined, trim_blocks=True, lstrip_blocks=True
    )
    env.filters.update(
        secs=_secs,
        num=lambda n: f"{n:,}",
        pct=lambda r: "—" if r is None else f"{r:.1%}",
        ratio=lambda r: "—" if r is None else f"{r:.2f}",
        usd=lambda v: f"${v:,.4f}",
        when=lambda t: "—" if t is None else t.astimezone(UTC).strftime("%Y-%m-%d %H:%M:%S UTC"),
        css=_css_name,
        where=where,
    )
    env.globals["roles"] = ROLES
    source = resources.files(__package__).joinpath("templates", "report.html.j2").read_text("utf-8")
    return env.from_string(source)


def _secs(value: float) -> str:
    if value < 120:
        return f"{value:.1f} s"
    if value < 7200:
        return f"{value / 60:.1f} min"
    return f"{value / 3600:.2f} h"


def _css_name(value: object) -> str:
    """A class-name suffix: letters, digits, `_` and `-` only (anything else becomes `-`)."""
    return _css_of(str(value)[:40])  # one character each: the first 40 make the name


@lru_cache(maxsize=1024)
def _css_of(text: str) -> str:
    # a page calls it once a row (a status, a role, a kind: a few distinct values), so
    # each is built once; a bounded cache, since `text` may come from an agent
    return "".join(c if c.isascii() and (c.isalnum() or c in "_-") else "-" for c in text)[:40]


@dataclass(frozen=True)
class ReportRecord:
    """A record for people the page shows as it is (a review report, a summary): its title
    and its markdown, both escaped on the page like any agent text."""

    title: str
    markdown: str


MAX_RECORDS = 500
"""The most records, and the most agent logs, one page shows (the rest are counted)."""


@dataclass(frozen=True)
class ReportLog:
    """An agent attempt's log as the run's database names it: the log stays on the disk of
    the host that ran the attempt (`host`, `path`); `here` when it is on this one (the page
    names the file), else the page shows `excerpt`, its end (untrusted agent text, escaped),
    and says where the full log is (and, when a copy was shipped, `path` is this host's copy:
    `copy_of`)."""

    attempt: str
    role: str
    status: str
    host: str
    path: str
    size: int
    sha256: str
    excerpt: str
    here: bool
    copy_of: str = ""
    """`path` is this host's copy of the log shipped from host `copy_of` (checked against
    `sha256`); empty: `path` is the original."""
    problem: str = ""
    """Why no copy of a log of another host is here (not shipped, or refused)."""


@dataclass(frozen=True)
class _Run:
    run_id: str
    status: str
    plan: str
    started: datetime | None
    exit_code: int | None
    message: str


def _run_header(events: Sequence[EventBase], fallback_id: str) -> _Run:
    started = next((e for e in events if isinstance(e, RunStarted)), None)
    finished = next((e for e in reversed(events) if isinstance(e, RunFinished)), None)
    review = next(
        (e for e in reversed(events) if isinstance(e, ReviewFinished) and not e.task), None
    )
    run_id = next((e.run_id for e in events if e.run_id), fallback_id)
    status = finished.status if finished else (review.status if review else "unfinished")
    return _Run(
        run_id=run_id,
        status=status,
        plan=started.plan if started else "",
        started=started.at if started else (events[0].at if events else None),
        exit_code=finished.exit_code if finished else None,
        message=finished.message if finished else (review.message if review else ""),
    )


def render_report(
    stream: EventStream,
    *,
    rules: AlertRules | None = None,
    generated: datetime | None = None,
    records: Sequence[ReportRecord] = (),
    logs: Sequence[ReportLog] = (),
    folded: Folded | None = None,
) -> str:
    """The HTML page for one run's stream, the `records` the run keeps for people (its
    reviews and summaries, from its database) and its agents' `logs` (where each is, and
    the end of those not on this host). Alerts: those in the stream plus any the
    rules find now (each once). `folded`: the metrics and alerts the caller computed over
    this same `stream` already (the end of a run), instead of folding it again here."""
    events = stream.known()
    folded = folded or Folded(compute_metrics(stream.events), tuple(report_alerts(events, rules)))
    metrics, alerts = folded.metrics, list(folded.alerts)
    tables, cut = build_tables(events)
    notes = []
    if stream.unknown:
        notes.append(f"{stream.unknown} event(s) of kinds this version does not know were kept out")
    if stream.replayed:
        notes.append(f"{stream.replayed} replayed event(s) were counted once")
    if stream.torn:
        notes.append("the last line of the stream was cut by a crash and skipped")
    values: dict[str, Any] = {
        "csp": content_security_policy(),
        # our own file (never data), pinned by the CSP hash
        "css": Markup(_stylesheet()),  # noqa: S704
        "run": _run_header(events, stream.source.parent.name if stream.source else "run"),
        "metrics": metrics,
        "alerts": alerts,
        "timeline": build_timeline(events),
        "tables": tables,
        "cut": cut,
        "findings": findings_by_severity(events),
        "charts": build_charts(metrics),
        "stream_note": "; ".join(notes),
        "version": __version__,
        "source": str(stream.source or "events"),
        "schema_version": SCHEMA_VERSION,
        "generated": generated or datetime.now(UTC),
        "records": records[:MAX_RECORDS],
        "records_cut": max(0, len(records) - MAX_RECORDS),
        "logs": logs[:MAX_RECORDS],
        "logs_cut": max(0, len(logs) - MAX_RECORDS),
    }
    return _template().render(values)


@dataclass(frozen=True)
class Folded:
    """What one fold of a stream gives the report: its metrics, and its alerts (those in the
    stream, then those the rules find that it does not hold, each once)."""

    metrics: Metrics
    alerts: tuple[Alert, ...]


def report_alerts(events: Sequence[EventBase], rules: AlertRules | None) -> list[Alert]:
    """The alerts of a stream as the report shows them: those it holds, in its order, then
    those the rules find that it does not hold."""
    recorded = [e for e in events if isinstance(e, Alert)]
    seen = {a.key for a in recorded}
    found = [a for a in evaluate_alerts(events, rules) if a.key not in seen]
    return recorded + found


def write_report(
    run_dir: Path,
    *,
    stream: EventStream | None = None,
    output: Path | None = None,
    rules: AlertRules | None = None,
    records: Sequence[ReportRecord] = (),
    logs: Sequence[ReportLog] = (),
    folded: Folded | None = None,
) -> Path:
    """Write `<run_dir>/report.html` (or `output`) atomically and return its path.

    The engine calls this at the end of a run; `mergegate report` calls it for any run.
    `stream` defaults to the run's `events.jsonl`; `folded`, see `render_report`. Raises
    `UsageError` (exit 2) when the stream cannot be read or the file cannot be written.
    """
    if stream is None:
        stream = read_events(run_dir)
    target = output or run_dir / REPORT_FILE
    try:
        write_atomic(
            target, render_report(stream, rules=rules, records=records, logs=logs, folded=folded)
        )
    except OSError as exc:
        raise UsageError(f"cannot write the report {target}: {exc.strerror or exc}") from exc
    return target
