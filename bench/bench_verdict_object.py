"""The decision from a verdict object, against `json.loads` of the same bytes in the same run.

Run with `make bench` (or `.venv/bin/python bench/bench_verdict_object.py`). For each answer
(an approval with no finding, a refusal with three findings, one with twenty, and the
largest realistic answer the schema allows, ~50 KB), the table prints the median time of
`decide_object(bytes, request)` — strict reading (duplicate keys, NaN, text beside the object),
schema validation and the approval rule — and of `json.loads` of the same bytes, and their
ratio.

Exit status 1 when a decision from a valid object takes more than 1 ms (issue 22).
"""

from __future__ import annotations

import json
import statistics
import time
from collections.abc import Callable

from _smoke import goal, sizes
from mergegate.verdicts import VerdictRequest, decide_object

LIMIT_S = 0.001
REPEAT = sizes(2000, 5)
REQUEST = VerdictRequest("mg-0123456789abcdef", "task-1")


def _finding(n: int, size: int = 60) -> dict[str, object]:
    return {
        "id": f"F-{n}",
        "severity": "minor" if n % 3 else "important",
        "title": f"finding {n}: " + "t" * size,
        "file": f"src/module_{n}.py",
        "line": n + 1,
        "detail": "d" * (size * 4),
        "suggestion": "s" * size,
        "requirement": None,
    }


def _answer(verdict: str, findings: int, size: int = 60) -> bytes:
    body = {
        "review_id": REQUEST.review_id,
        "scope": REQUEST.scope,
        "verdict": verdict,
        "conditions": [],
        "findings": [_finding(n, size) for n in range(findings)],
        "summary": "the change does what the task asks",
        "confidence": 0.8,
    }
    return json.dumps(body).encode()


ANSWERS = {
    "approve, no finding": _answer("approve", 0),
    "request_changes, 3 findings": _answer("request_changes", 3),
    "request_changes, 20 findings": _answer("request_changes", 20),
    "approve, 40 long findings": _answer("approve", 40, size=250),
}


def _median(action: Callable[[], object]) -> float:
    samples = []
    for _ in range(REPEAT):
        started = time.perf_counter()
        action()
        samples.append(time.perf_counter() - started)
    return statistics.median(samples)


def main() -> int:
    print(f"{'answer':<30} {'bytes':>7} {'decide (µs)':>12} {'json.loads (µs)':>16} {'ratio':>6}")
    worst = 0.0
    for name, data in ANSWERS.items():
        decided = decide_object(data, REQUEST)
        assert decided.obj is not None, decided.reason  # a valid object: the path measured
        decide = _median(lambda data=data: decide_object(data, REQUEST))
        loads = _median(lambda data=data: json.loads(data))
        worst = max(worst, decide)
        print(
            f"{name:<30} {len(data):>7} {decide * 1e6:>12.1f} {loads * 1e6:>16.1f} "
            f"{decide / loads:>6.1f}"
        )
    verdict = "ok" if worst <= LIMIT_S else "TOO SLOW"
    print(f"slowest decision {worst * 1e3:.3f} ms (limit {LIMIT_S * 1e3:.0f} ms): {verdict}")
    return goal(worst <= LIMIT_S)


if __name__ == "__main__":
    raise SystemExit(main())
