"""Handoff extraction + validation throughput against plain `json.loads` of the same payloads.

Baselines, measured in the same run on the same payloads:

* `json.loads` alone (no validation, no duplicate-key check, no search for the object);
* pydantic's strict validation of the same text against the same model
  (`validate_json(strict=True)`: parsing and validation, nothing else).

mergegate's `extract` additionally scans for the last top-level object, rejects duplicate keys
and NaN, validates strictly from the JSON text and runs the consistency check. Figures are
ratios (how many times slower than the baseline), best of several repeats.

Run: `make bench` or `.venv/bin/python bench/bench_handoff.py`.
"""

from __future__ import annotations

import json
import re
import time
from collections.abc import Callable
from typing import Any

from pydantic import TypeAdapter

from _smoke import sizes
from mergegate.handoff import (
    AgentResultPayload,
    ReviewVerdictPayload,
    SupervisorDecision,
    extract,
)

REPEATS = sizes(7, 1)
COUNT = sizes(2000, 20)
HOSTILE = sizes(2_000_000, 20_000)


def payloads() -> dict[str, tuple[Any, list[str]]]:
    agent = [
        json.dumps(
            {
                "task_id": f"T-{i}",
                "success": i % 3 != 0,
                "completed_normally": True,
                "todos": [f"todo {j}" for j in range(i % 4)],
                "scratchpad_path": f"/tmp/scratch/{i}.md",
                "execution_time": i * 0.5,
            }
        )
        for i in range(COUNT)
    ]
    verdicts = [
        json.dumps(
            {
                "review_id": f"r-{i}",
                "verdict": "request_changes",
                "findings": [
                    {
                        "id": f"F{i}-{j}",
                        "severity": ("critical", "important", "minor")[j % 3],
                        "title": f"Finding {j} of review {i}",
                        "file": f"src/module_{j}.py",
                        "line": 10 + j,
                        "detail": "Explain the problem and the fix. " * 3,
                    }
                    for j in range(5)
                ],
            }
        )
        for i in range(COUNT)
    ]
    decisions = [
        json.dumps(
            {
                "action": "execute",
                "session_id": f"s-{i}",
                "reason": "next task in the plan",
                "task_id": str(i),
                "task_title": f"Task {i}",
                "subtasks": ["write tests", "implement", "document"],
                "project_root": "/repo",
                "guidance": "keep it small",
            }
        )
        for i in range(COUNT)
    ]
    return {
        "agent-result": (AgentResultPayload, agent),
        "review-verdict": (ReviewVerdictPayload, verdicts),
        "supervisor-decision": (SupervisorDecision, decisions),
    }


def best(fn: Callable[[], object]) -> float:
    times = []
    for _ in range(REPEATS):
        start = time.perf_counter()
        fn()
        times.append(time.perf_counter() - start)
    return min(times)


def wrap(text: str) -> str:
    """How agents really answer: prose, an echoed example, then the fenced answer."""
    return (
        'I finished the task. The expected format was {"task_id": "<string>", ...}.\n'
        f"Here is my report:\n```json\n{text}\n```\nLet me know if anything is missing.\n"
    )


def bench_payloads() -> None:
    print(
        f"{'schema':<22}{'n':>6}{'json.loads':>14}{'+validate':>14}"
        f"{'extract':>12}{'x loads':>10}{'x validate':>12}{'wrapped x loads':>17}"
    )
    for name, (model, texts) in payloads().items():
        adapter: TypeAdapter[Any] = TypeAdapter(model)
        wrapped = [wrap(text) for text in texts]
        for text in texts + wrapped:  # every payload must be valid, or the figures mean nothing
            assert extract(text, name).ok
        loads = best(lambda texts=texts: [json.loads(t) for t in texts])
        validate = best(
            # from the JSON text: strict Python-mode validation refuses a string for an enum
            # (`Severity`), which JSON mode reads as the enum's value, as `extract` does
            lambda texts=texts, a=adapter: [a.validate_json(t, strict=True) for t in texts]
        )
        ours = best(lambda texts=texts, n=name: [extract(t, n) for t in texts])
        ours_wrapped = best(lambda w=wrapped, n=name: [extract(t, n) for t in w])
        per = 1e6 / len(texts)
        print(
            f"{name:<22}{len(texts):>6}{loads * per:>12.1f}us{validate * per:>12.1f}us"
            f"{ours * per:>10.1f}us{ours / loads:>10.2f}{ours / validate:>12.2f}"
            f"{ours_wrapped / loads:>17.2f}"
        )


def bench_hostile() -> None:
    """Throughput on hostile input against a plain regex scan of the same bytes."""
    size = HOSTILE
    cases = {
        "unclosed braces": "{" * size,
        "brace-quote pairs": '{"' * (size // 2),
        "prose with stray braces": ("word {x} " * (size // 9))[:size],
        "many small objects": ('{"a": 1} ' * (size // 9))[:size],
    }
    baseline_re = re.compile(r'[{}\[\]"]')
    print(
        f"\n{f'hostile input ({size / 1e6:g} MB)':<26}"
        f"{'extract MB/s':>14}{'regex MB/s':>12}{'x regex':>10}"
    )
    for label, text in cases.items():
        ours = best(lambda t=text: extract(t, "agent-result"))
        base = best(lambda t=text: sum(1 for _ in baseline_re.finditer(t)))
        mb = len(text) / 1e6
        print(f"{label:<26}{mb / ours:>14.1f}{mb / base:>12.1f}{ours / base:>10.2f}")


if __name__ == "__main__":
    bench_payloads()
    bench_hostile()
