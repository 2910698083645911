"""The run report: one self-contained HTML file per run.

* `write_report(run_dir)` — `<run dir>/report.html` from the run's `events.jsonl`: a timeline
  (phases, units, tasks, one bar per agent attempt), verdicts with their evidence line,
  findings by severity, checks, verification results, alerts, token and cost charts, and
  the run's records for people (`ReportRecord`: reviews, summaries) and its agents' logs
  (`ReportLog`: where each is, the end of those on another host) when given. Inline
  CSS and SVG, no script, a strict Content-Security-Policy; every agent text escaped.

Finding a run's folder is `mergegate.store`'s (`resolve_run`, `find_runs`), beside the runs'
records.

Layer L2 (beside the agent backends): reads events and metrics, writes one file.
"""

from __future__ import annotations

from mergegate.report._html import (
    MAX_RECORDS,
    REPORT_FILE,
    Folded,
    ReportLog,
    ReportRecord,
    content_security_policy,
    prepare_template,
    render_report,
    report_alerts,
    write_report,
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
