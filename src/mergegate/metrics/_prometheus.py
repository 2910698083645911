"""`Metrics` in the Prometheus text format, for node-exporter's textfile collector.

`prometheus_client` renders the exposition format (escaping, `# HELP`/`# TYPE`, `_total`
suffixes) and `write_to_textfile` writes it the way the textfile collector needs: to a temporary
file beside the target, renamed over it, so a scrape never reads half a file. The registry is a
dedicated one (never the process-wide default), filled by one collector built from the metrics.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

from prometheus_client import CollectorRegistry, generate_latest, write_to_textfile
from prometheus_client.core import CounterMetricFamily, GaugeMetricFamily, Metric
from prometheus_client.registry import Collector

from mergegate.errors import UsageError
from mergegate.metrics._compute import Metrics, UsageTotals

__all__ = ["prometheus_registry", "prometheus_text", "write_prometheus"]

PREFIX = "mergegate"


class _MetricsCollector(Collector):
    def __init__(self, metrics: Metrics, alerts: dict[str, int]) -> None:
        self.metrics = metrics
        self.alerts = alerts

    def collect(self) -> Iterator[Metric]:
        yield from self._components()
        yield from self._usage()
        yield from self._runs()

    def _components(self) -> Iterator[Metric]:
        m = self.metrics
        counters = {
            "operations": "Operations of a component (an agent role or a handoff type)",
            "succeeded": "Operations that ended in success",
            "exhausted": "Operations that failed on their last allowed attempt",
            "attempts": "Attempts, retries included",
            "timeouts": "Attempts stopped by a wall-clock or stall limit",
        }
        for name, doc in counters.items():
            family = CounterMetricFamily(f"{PREFIX}_component_{name}", doc, labels=["component"])
            for c in m.components.values():
                family.add_metric([c.component], getattr(c, name))
            yield family
        failures = CounterMetricFamily(
            f"{PREFIX}_component_failures",
            "Failed attempts by failure type",
            labels=["component", "type"],
        )
        for c in m.components.values():
            for kind, count in c.failure_types.items():
                failures.add_metric([c.component, kind], count)
        yield failures
        ratios = {
            "success_ratio": ("success_rate", "Share of operations that succeeded"),
            "retry_exhaustion_ratio": ("retry_exhaustion_rate", "Share of operations exhausted"),
            "average_retries": ("average_retries", "Average retries before success"),
        }
        for name, (attr, doc) in ratios.items():
            gauge = GaugeMetricFamily(f"{PREFIX}_component_{name}", doc, labels=["component"])
            for c in m.components.values():
                value = getattr(c, attr)
                if value is not None:
                    gauge.add_metric([c.component], value)
            yield gauge
        longest = GaugeMetricFamily(
            f"{PREFIX}_component_longest_attempt_seconds",
            "The longest single attempt",
            labels=["component"],
        )
        for c in m.components.values():
            longest.add_metric([c.component], c.longest_s)
        yield longest

    def _usage(self) -> Iterator[Metric]:
        by_role = self.metrics.usage_by_role
        tokens = CounterMetricFamily(
            f"{PREFIX}_agent_tokens", "Tokens by role and kind", labels=["role", "kind"]
        )
        cost = CounterMetricFamily(
            f"{PREFIX}_agent_cost_usd", "Reported cost in US dollars by role", labels=["role"]
        )
        seconds = CounterMetricFamily(
            f"{PREFIX}_agent_seconds", "Agent run time by role", labels=["role"]
        )
        for role, usage in by_role.items():
            for kind, value in _token_kinds(usage).items():
                tokens.add_metric([role, kind], value)
            cost.add_metric([role], usage.cost_usd)
            seconds.add_metric([role], usage.agent_s)
        yield from (tokens, cost, seconds)

    def _runs(self) -> Iterator[Metric]:
        m = self.metrics
        plain = {
            "runs": ("Runs in this report", len(m.runs)),
            "tasks": ("Tasks seen", m.tasks),
            "help_requests": ("Help requests from agents", m.help_requests),
            "fix_rounds": ("Fix rounds", m.fix_rounds),
            "escalations": ("Escalations to a person", m.escalations),
            "merges": ("Units merged", m.merges),
            "run_wall_seconds": ("Wall time of the runs, summed", m.wall_s),
        }
        for name, (doc, value) in plain.items():
            yield CounterMetricFamily(f"{PREFIX}_{name}", doc, value=value)
        verdicts = CounterMetricFamily(
            f"{PREFIX}_verdicts", "Parsed reviewer verdicts by decision", labels=["decision"]
        )
        for decision, count in m.verdicts.items():
            verdicts.add_metric([decision], count)
        yield verdicts
        rates = {
            "first_pass_approval_ratio": (
                "Reviews approved in their first round",
                "first_pass_approval_rate",
            ),
            "help_request_ratio": ("Help requests per implementer attempt", "help_request_rate"),
            "fix_rounds_per_task": ("Fix rounds per task", "fix_rounds_per_task"),
        }
        for name, (doc, attr) in rates.items():
            value = getattr(m, attr)
            if value is not None:
                yield GaugeMetricFamily(f"{PREFIX}_{name}", doc, value=value)
        alerts = CounterMetricFamily(f"{PREFIX}_alerts", "Alerts raised by rule", labels=["rule"])
        for rule, count in sorted(self.alerts.items()):
            alerts.add_metric([rule], count)
        yield alerts


def _token_kinds(usage: UsageTotals) -> dict[str, int]:
    return {
        "input": usage.tokens_in,
        "output": usage.tokens_out,
        "cache_read": usage.cache_read_tokens,
        "cache_write": usage.cache_write_tokens,
    }


def prometheus_registry(
    metrics: Metrics, alerts: dict[str, int] | None = None
) -> CollectorRegistry:
    """A dedicated registry holding `metrics` (and alert counts by rule)."""
    registry = CollectorRegistry(auto_describe=False)
    registry.register(_MetricsCollector(metrics, alerts if alerts is not None else metrics.alerts))
    return registry


def prometheus_text(metrics: Metrics, alerts: dict[str, int] | None = None) -> str:
    return generate_latest(prometheus_registry(metrics, alerts)).decode("utf-8")


def write_prometheus(path: Path, metrics: Metrics, alerts: dict[str, int] | None = None) -> Path:
    """Write the metrics to `path` atomically (node-exporter textfile convention: name it
    `*.prom` in the collector's directory). `UsageError` (exit 2) when it cannot be written."""
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        write_to_textfile(str(path), prometheus_registry(metrics, alerts))
    except OSError as exc:
        raise UsageError(f"cannot write {path}: {exc.strerror or exc}") from exc
    return path
