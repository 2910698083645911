"""Throughput of `parse_verdict` on large and hostile inputs, against a plain regex scan.

Run with `make bench` (or `.venv/bin/python bench/bench_verdicts.py`). For every input it prints
the input size, parse time, MB/s, seconds per MB of input, and the ratio to a baseline measured
in the same run: one `re.findall` for a 'Ready to merge? …' line over the same text. The parser
reads at most the last `MAX_INPUT_CHARS` characters; the figures are per MB of *input*.
"""

from __future__ import annotations

import re
import time
from collections.abc import Callable

from mergegate.verdicts import parse_verdict
from mergegate.verdicts._text import MAX_INPUT_CHARS

MB = 1_000_000
_BASELINE = re.compile(r"Ready to merge\?\s*(Yes|No|With fixes)")

_REVIEW_CHUNK = """## Review of `src/service/handler.py`

### Strengths
- The handler validates its input before touching the database.
- Errors are mapped to typed responses; see `errors.py:88`.

### Issues

#### Important
- `handler.py:142` — the retry loop has no upper bound; add a cap of 3.

| check | result |
|---|---|
| unit tests | 412 passed |
| lint | clean |

```python
def handle(request):
    if not request.ok:
        raise BadRequest(request)
    return respond(request)
```

> Earlier reviewer note: consider caching the lookup.

The implementation is careful about state, and the tests cover the edge cases we discussed.
"""


def _inputs() -> list[tuple[str, str]]:
    review = _REVIEW_CHUNK * (3 * MB // len(_REVIEW_CHUNK)) + "\n**Ready to merge? Yes**\n"
    return [
        ("realistic review, 3 MB", review),
        ("unclosed braces, 10 MB", "{" * (10 * MB)),
        ("thousands of fences, 4 MB", "```\n" * (MB)),
        ("one giant line, 10 MB", "a" * (10 * MB)),
        ("10 MB of short lines", "x\n" * (5 * MB)),
        ("truncated JSON trailer, 2 MB", '```json\n{"verdict": "approve", "x": "' + "y" * 2 * MB),
        ("many label lines, 5 MB", "**Status:** looks fine: ok = yes?\n" * (5 * MB // 34)),
    ]


def _timed(fn: Callable[[], object], repeat: int = 3) -> float:
    best = float("inf")
    for _ in range(repeat):
        start = time.perf_counter()
        fn()
        best = min(best, time.perf_counter() - start)
    return best


def main() -> int:
    print(f"parser reads at most the last {MAX_INPUT_CHARS / MB:.1f} M characters of an input")
    print(f"{'input':32} {'MB':>6} {'parse s':>8} {'MB/s':>8} {'s/MB':>7} {'x baseline':>10}")
    worst = 0.0
    for name, text in _inputs():
        size = len(text.encode("utf-8")) / MB
        ours = _timed(lambda text=text: parse_verdict(text), repeat=1)
        base = _timed(lambda text=text: _BASELINE.findall(text))
        per_mb = ours / size
        worst = max(worst, per_mb)
        print(
            f"{name:32} {size:6.1f} {ours:8.3f} {size / ours:8.1f} {per_mb:7.3f} "
            f"{ours / base:10.1f}"
        )
    print(f"worst: {worst:.3f} s per MB of input (goal: well under 1 s per MB)")
    return 0 if worst < 1.0 else 1


if __name__ == "__main__":
    raise SystemExit(main())
