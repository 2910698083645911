"""The metrics of one arm, with Wilson confidence intervals, and the Markdown table.

Per arm, over its problems (an outcome is "right" when the work at its end — merged, or the
unit's last commit — passes the hidden tests):

* merged: tasks that reached the integration branch (for `agent`: its run ended `ok`);
* merge precision: of the merged tasks, the share that is right;
* bad work stopped: of the wrong outcomes, the share not merged;
* good work refused: of the right outcomes, the share not merged;
* right and merged: the share of all tasks that ended merged and right (the yield);
* tokens and wall time per task, and the mix of exit codes.
"""

from __future__ import annotations

import math
import statistics
from collections import Counter
from dataclasses import dataclass
from typing import Any

from gate_value.arms import Outcome

Z95 = 1.959964


@dataclass(frozen=True)
class Proportion:
    hits: int
    total: int

    @property
    def value(self) -> float | None:
        return self.hits / self.total if self.total else None

    def wilson(self, z: float = Z95) -> tuple[float, float] | None:
        """The Wilson score interval (95 % by default); None for an empty denominator."""
        if not self.total:
            return None
        n, p = self.total, self.hits / self.total
        centre = (p + z * z / (2 * n)) / (1 + z * z / n)
        half = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / (1 + z * z / n)
        # at 0 and n the exact bounds are 0 and 1; floating point would miss them by an ulp
        low = 0.0 if self.hits == 0 else max(0.0, centre - half)
        high = 1.0 if self.hits == self.total else min(1.0, centre + half)
        return low, high

    def to_json(self) -> dict[str, Any]:
        interval = self.wilson()
        return {
            "hits": self.hits,
            "total": self.total,
            "value": self.value,
            "ci95": list(interval) if interval else None,
        }

    def cell(self) -> str:
        """`0.83 [0.71, 0.91] (25/30)`, or `n/a (0/0)`."""
        interval = self.wilson()
        if self.value is None or interval is None:
            return f"n/a ({self.hits}/{self.total})"
        low, high = interval
        return f"{self.value:.2f} [{low:.2f}, {high:.2f}] ({self.hits}/{self.total})"


def summarize(outcomes: list[Outcome]) -> dict[str, Any]:
    """The metrics of one arm's outcomes (see the module's docstring)."""
    merged = [o for o in outcomes if o.merged]
    wrong = [o for o in outcomes if not o.passes_hidden]
    right = [o for o in outcomes if o.passes_hidden]
    tokens = [o.tokens for o in outcomes if o.tokens is not None]
    walls = [o.wall_s for o in outcomes]
    first = [o for o in outcomes if o.first_passes_hidden is not None]
    return {
        "tasks": len(outcomes),
        "merged": Proportion(len(merged), len(outcomes)).to_json(),
        "merge_precision": Proportion(sum(o.passes_hidden for o in merged), len(merged)).to_json(),
        "bad_work_stopped": Proportion(sum(not o.merged for o in wrong), len(wrong)).to_json(),
        "good_work_refused": Proportion(sum(not o.merged for o in right), len(right)).to_json(),
        "right_and_merged": Proportion(
            sum(o.merged and o.passes_hidden for o in outcomes), len(outcomes)
        ).to_json(),
        "first_answer_right": Proportion(
            sum(bool(o.first_passes_hidden) for o in first), len(first)
        ).to_json(),
        "tokens_per_task": statistics.fmean(tokens) if tokens and any(tokens) else None,
        "wall_s_per_task": statistics.fmean(walls) if walls else None,
        "wall_s_median": statistics.median(walls) if walls else None,
        "exit_codes": {
            str(k): v for k, v in sorted(Counter(o.exit_code for o in outcomes).items())
        },
        "statuses": dict(sorted(Counter(o.status for o in outcomes).items())),
    }


def _proportion(data: dict[str, Any]) -> Proportion:
    return Proportion(int(data["hits"]), int(data["total"]))


def table(summaries: dict[str, dict[str, Any]]) -> str:
    """One Markdown table: a row per arm."""
    head = (
        "| arm | tasks | merged | merge precision [95% CI] | bad work stopped [95% CI] "
        "| good work refused [95% CI] | merged and right | tokens/task | wall s/task "
        "| exit codes |\n|---|---|---|---|---|---|---|---|---|---|\n"
    )
    rows = []
    for arm, s in summaries.items():
        tokens = f"{s['tokens_per_task']:.0f}" if s["tokens_per_task"] else "n/a"
        codes = ", ".join(f"{k}: {v}" for k, v in s["exit_codes"].items())
        merged = _proportion(s["merged"])
        rows.append(
            f"| {arm} | {s['tasks']} | {merged.hits} "
            f"| {_proportion(s['merge_precision']).cell()} "
            f"| {_proportion(s['bad_work_stopped']).cell()} "
            f"| {_proportion(s['good_work_refused']).cell()} "
            f"| {_proportion(s['right_and_merged']).cell()} "
            f"| {tokens} | {s['wall_s_per_task']:.1f} | {codes} |"
        )
    return head + "\n".join(rows) + "\n"
