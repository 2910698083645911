"""Throughput of `parse_verdict` on large and hostile inputs, against a plain regex scan.

Run with `make bench` (or `.venv/bin/python bench/bench_verdicts.py`). Two tables:

1. **Linearity per shape.** Every shape (a realistic review, ~250 KB realistic reviews
   repeated, repeated JSON trailers, short lines, fences, label lines, one long verdict
   block of gate lines with reason fields, examples introduced without a colon, bare
   answers after a verdict …) is built at 1/8,
   1/4, 1/2 and 1 MB — all inside the input window — and parsed; the table prints seconds
   per MB at each size and the ratio of the largest input's s/MB to the smallest's. Linear
   time means a flat s/MB, a ratio near 1 (issue 9 measured the old parser at 0.6/0.9/1.6/5.8 s
   for 1k/2k/4k/8k repeated trailers: quadratic).
2. **Past the window.** The same shapes at 10 MB: the parser reads only the last
   `MAX_INPUT_CHARS` characters, so time stays bounded whatever the input size. Each row also
   shows the ratio to a baseline measured in the same run: one `re.findall` for a
   'Ready to merge? …' line over the same text. `gate blocks (window)` stays one window
   long, so its row shows the per-MB cost of the text the parser does read.

Exit status 1 when a shape is not linear (ratio above 2.0) or one input of any shape (10 MB,
or the most of a window shape the parser reads) takes more than 2 s of CPU (issue 23). The
parse is single-threaded, so its CPU seconds are its wall seconds on an idle core; the wall
column also counts the other processes of a busy machine (at load 6 on 2 cores, ~3x). The s/MB
column of a window shape is its cost per MB of the text read; the line window
(`MAX_INPUT_LINES`) bounds its time, not its characters.
"""

from __future__ import annotations

import json
import re
import time
from collections.abc import Callable

from _smoke import goal, sizes
from mergegate.verdicts import parse_verdict
from mergegate.verdicts._text import MAX_INPUT_CHARS, MAX_INPUT_LINES

MB = 1_000_000
_BASELINE = re.compile(r"Ready to merge\?\s*(Yes|No|With fixes)")
_SIZES = sizes((MB // 8, MB // 4, MB // 2, MB), (MB // 64, MB // 32))
_PAST = sizes(10 * MB, MAX_INPUT_CHARS + MB // 10)  # just past the window, in smoke mode
_LINEAR_LIMIT = 2.0
_WINDOW = sizes(MAX_INPUT_CHARS, MB // 32)  # the largest input the parser reads whole

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

**Verdict:** APPROVE — the retry cap is the only follow-up.

The implementation is careful about state, and the tests cover the edge cases we discussed.
"""
_TRAILER = (
    "```json\n"
    + json.dumps(
        {
            "review_id": "mg-bench",
            "verdict": "approve",
            "findings": [
                {"id": "F1", "severity": "minor", "title": "t" * 80, "file": "a.py", "line": 3}
            ],
        }
    )
    + "\n```\n\nReady to merge? Yes\n"
)


def _realistic_250k() -> str:
    """A ~250 KB review: many reviewed files, each with findings, tables, code and a verdict
    line, ending with the overall verdict."""
    parts = []
    for i in range(250_000 // len(_REVIEW_CHUNK) + 1):
        parts.append(_REVIEW_CHUNK.replace("handler.py", f"handler_{i}.py"))
    return "".join(parts)[:250_000] + "\n\n## Overall verdict\n\n**Ready to merge? Yes**\n"


_REALISTIC_250K = _realistic_250k()


# Issue 23: 10 MB of any input parses in at most 2 s. A shape at most one window long (its
# rows past the characters' or the lines' bound are never read) costs what any input can.
_MOST_SECONDS = 2.0
_TABLE_ROW = "| Key 12 | value number 12 for the table |\n"


def _fill(unit: str, size: int) -> str:
    return (unit * (size // len(unit) + 1))[:size]


SHAPES: dict[str, Callable[[int], str]] = {
    "realistic review": lambda n: _fill(_REVIEW_CHUNK, n) + "\n**Ready to merge? Yes**\n",
    "250 KB realistic reviews": lambda n: _fill(_REALISTIC_250K, n),
    "repeated JSON trailers": lambda n: _fill(_TRAILER, n),
    "short lines": lambda n: _fill("x\n", n),
    "fences": lambda n: _fill("```\n", n),
    "label lines": lambda n: _fill("**Status:** looks fine: ok = yes?\n", n),
    "unclosed braces": lambda n: "{" * n,
    "one giant line": lambda n: "a" * n,
    "html comments": lambda n: _fill("<!-- Verdict: APPROVE --><!---->", n),
    "questions": lambda n: _fill("Is it ready to merge? Yes? No. Ready to merge?\n", n),
    # One verdict block without a blank line: every site's block and reason fields are read.
    "gate blocks": lambda n: _fill(
        "gate: PASS\nstatus_reason: 'all checks green, nothing pending'\nnotes: ok\n", n
    ),
    # The same block at most one window long: past the window the rows above divide one
    # window's time by 10 MB, which hides its per-MB cost (issue 23, "Linear time").
    "gate blocks (window)": lambda n: _fill(
        "gate: PASS\nstatus_reason: 'all checks green, nothing pending'\nnotes: ok\n",
        min(n, _WINDOW),
    ),
    # An approving key/value table row, then as many rows as the parser reads: every row
    # after the approval is read as a field, a finding and a reason (`_unweighed`,
    # `_refusals`, `_after`). At most one line window long, like `gate blocks (window)`.
    "approved table (window)": lambda n: (
        "| Field | Value |\n|---|---|\n| Verdict | APPROVE |\n"
        + _fill(_TABLE_ROW, min(n, (MAX_INPUT_LINES - 10) * len(_TABLE_ROW)))
    ),
    # Every reason line after the approval is read as a statement (`_after`, `_statement`).
    "reasons (window)": lambda n: (
        _REASONS + _fill(_REASON, min(n, (MAX_INPUT_LINES - 10) * len(_REASON)))
    ),
    "introduced examples": lambda n: _fill("Reply with a line such as\nVerdict: APPROVE\n\n", n),
    "bare answers": lambda n: _fill("Verdict: APPROVE\nNo issues found. No, wait — fine.\n", n),
    # The template recognisers (issue 23): finding blocks, severity sections, a review log.
    "finding blocks": lambda n: _fill(
        "### Finding 1: leak\n- **Severity:** Low\n- **Suggestion:** close it\n", n
    ),
    "severity sections": lambda n: _fill("#### Critical (Must Fix)\n\n- None found\n\n", n),
    "review log": lambda n: _fill("- Quality re-review: CHANGES_REQUESTED (x)\n  - Fix: y\n", n),
    "code names": lambda n: _fill("Verdict: APPROVE\n`a_b` c_d.e f/g " * 8 + "\n", n),
    # An approving document whose every line is accounted for (`_accounting` walks it all).
    "accounted sections": lambda n: (
        _fill("## Notes\n\n**Date:** 2026-01-02\n| a | 1 |\nProse in a section.\n\n", n)
        + "\n## Verdict\n\n**Verdict:** APPROVED\n"
    ),
    # Text under instruction-like headings, read again for a no (`_accounting._hidden_no`).
    "instruction sections": lambda n: (
        _fill("## Usage\n\nRun it with the defaults; read the log.\n\n", n)
        + "\n## Verdict\n\n**Verdict:** APPROVED\n"
    ),
    # A GSD report whose frontmatter is the whole input (`_templates.gsd` loads it as YAML).
    "gsd frontmatter": lambda n: (
        "---\nstatus: passed\ngaps:\n" + _fill('  - truth: "x"\n    status: failed\n', n) + "---\n"
    ),
    # spectacular's verdict fields, each answer padded with decoration (`_templates.spectacular`
    # strips it from both ends of every field's answer).
    "spectacular fields": lambda n: (
        "## Code Review: Phase 2\n\n" + _fill("**Ready to merge?** Yes " + "🚀!" * 300 + "x\n", n)
    ),
    # A review under an echoed template heading: read twice (`_echoed`).
    "echoed heading": lambda n: (
        "## Output Format\n\n"
        + _fill("### Issues\n\n#### Critical (Must Fix)\nNone.\n\n", n)
        + "### Assessment\n\n**Ready to merge?** Yes\n"
    ),
}


# The strict reading (`parse_verdict(strict=True)`, the Claude Code hook's): every clause after
# the approval is read for an appraisal (`_appraisal`), each 'and' cut reading its start again.
# As many reason lines after an approving verdict as the parser reads (one line window).
_REASON = "Tests pass and the code is clean; no regressions.\n"
_REASONS = "## Review\n\nRead it.\n\n**Verdict:** APPROVED\n\n"
STRICT_SHAPES: dict[str, Callable[[int], str]] = {
    "reasons (window, strict)": lambda n: (
        _REASONS + _fill(_REASON, min(n, (MAX_INPUT_LINES - 10) * len(_REASON)))
    ),
    "and chains (strict)": lambda n: (
        "**Verdict:** APPROVED\n\nTests pass" + _fill(" and the tests pass", n) + ".\n"
    ),
}


def _readings() -> list[tuple[str, Callable[[int], str], Callable[[str], object]]]:
    """Every shape with the reading it is timed with: the default, and the strict shapes."""
    default = [(name, build, parse_verdict) for name, build in SHAPES.items()]
    strict = [
        (name, build, lambda text: parse_verdict(text, strict=True))
        for name, build in STRICT_SHAPES.items()
    ]
    return default + strict


def _timed(fn: Callable[[], object], repeat: int = 1) -> float:
    return _timed_both(fn, repeat)[0]


def _timed_both(fn: Callable[[], object], repeat: int = 1) -> tuple[float, float]:
    """The best (wall, CPU) seconds of `repeat` calls."""
    wall = cpu = float("inf")
    for _ in range(repeat):
        start, start_cpu = time.perf_counter(), time.process_time()
        fn()
        wall = min(wall, time.perf_counter() - start)
        cpu = min(cpu, time.process_time() - start_cpu)
    return wall, cpu


def _linearity() -> bool:
    sizes = " ".join(f"{s / MB:>6.3f}MB" for s in _SIZES)
    print(f"s/MB at {sizes}   largest/smallest")
    ok = True
    for name, build, read in _readings():
        per_mb = []
        for size in _SIZES:
            text = build(size)
            mb = len(text.encode("utf-8")) / MB
            per_mb.append(_timed(lambda text=text, read=read: read(text), repeat=2) / mb)
        ratio = per_mb[-1] / per_mb[0] if per_mb[0] > 0 else 1.0
        ok = ok and (ratio <= _LINEAR_LIMIT or per_mb[-1] < 0.01)
        cells = " ".join(f"{v:8.3f}" for v in per_mb)
        print(f"  {name:26} {cells}   {ratio:5.2f}")
    return ok


def _past_the_window() -> float:
    print(f"\nparser reads at most the last {MAX_INPUT_CHARS / MB:.1f} M characters of an input")
    print(
        f"{f'input ({_PAST / MB:g} MB)':28} "
        f"{'parse s':>8} {'cpu s':>7} {'MB/s':>8} {'s/MB':>7} {'x baseline':>10}"
    )
    worst = 0.0  # the longest parse of any shape, in CPU seconds
    for name, build, read in _readings():
        text = build(_PAST)
        size = len(text.encode("utf-8")) / MB
        ours, cpu = _timed_both(lambda text=text, read=read: read(text))
        base = _timed(lambda text=text: _BASELINE.findall(text), repeat=3)
        per_mb = ours / size
        worst = max(worst, cpu)
        print(
            f"  {name:26} {ours:8.3f} {cpu:7.3f} {size / ours:8.1f} {per_mb:7.3f} "
            f"{ours / max(base, 1e-9):10.1f}"
        )
    print(
        f"worst: {worst:.3f} s of CPU for one input "
        f"(goal: at most {_MOST_SECONDS:g} s for 10 MB of any input)"
    )
    return worst


def main() -> int:
    linear = _linearity()
    worst = _past_the_window()
    return goal(linear and worst <= _MOST_SECONDS)


if __name__ == "__main__":
    raise SystemExit(main())
