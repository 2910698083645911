"""Metrics and alerts, computed from a run's events (`mergegate.events`), never kept by hand.

* `compute_metrics(events)` — per component (agent roles and handoff types) the seed's success
  rate, average retries before success, retry exhaustion rate and failure types, plus timeouts;
  help-request rate, first-pass approval rate, fix rounds per task, tokens and cost per phase,
  unit, task, role and backend, wall time and agent time.
* `evaluate_alerts(events, rules)`, `AlertMonitor` (live, one event at a time), `AlertingSink`
  (wraps the engine's sink and emits each alert into the stream once) and `exit_code_for`
  (the `--fail-on-alert` decision). Thresholds: `[alerts]` (`AlertRules.from_config`).
* `write_prometheus(path, metrics)` — the Prometheus text format through `prometheus_client`.

Layer L1: pure functions over events and values (the Prometheus file is the one write).
"""

from __future__ import annotations

from mergegate.metrics._alerts import (
    AlertingSink,
    AlertMonitor,
    AlertRules,
    evaluate_alerts,
    exit_code_for,
)
from mergegate.metrics._compute import (
    ComponentMetrics,
    Metrics,
    RunSummary,
    UsageTotals,
    compute_metrics,
)
from mergegate.metrics._prometheus import prometheus_registry, prometheus_text, write_prometheus

__all__ = [
    "AlertMonitor",
    "AlertRules",
    "AlertingSink",
    "ComponentMetrics",
    "Metrics",
    "RunSummary",
    "UsageTotals",
    "compute_metrics",
    "evaluate_alerts",
    "exit_code_for",
    "prometheus_registry",
    "prometheus_text",
    "write_prometheus",
]
