"""Edit-protocol parsing cost, as a ratio to a bare `str.split` of the same answer.

A ratio that stays flat as the answer grows shows the parser is linear (no backtracking).
Run: `make bench` or `.venv/bin/python bench/bench_edits.py`.
"""

from __future__ import annotations

import time
from collections.abc import Callable

from _smoke import sizes
from mergegate.agents.edits import parse_file_edits

RUNS = sizes(5, 1)


def answer(files: int, lines: int) -> str:
    body = "".join(
        f"    value_{i} = compute({i})  # a typical line of code\n" for i in range(lines)
    )
    blocks = (f"FILE: pkg/mod_{n}.py\n<<<<<<< CONTENT\n{body}>>>>>>> END\n" for n in range(files))
    return "Here are the files.\n" + "".join(blocks)


def best_of(runs: int, work: Callable[[], object]) -> float:
    times = []
    for _ in range(runs):
        start = time.perf_counter()
        work()
        times.append(time.perf_counter() - start)
    return min(times)


def main() -> None:
    for files, lines in sizes(((5, 100), (20, 1000), (60, 1000)), ((5, 100), (10, 200))):
        text = answer(files, lines)
        baseline = best_of(RUNS, lambda text=text: text.split("\n"))
        parsed = best_of(RUNS, lambda text=text: parse_file_edits(text))
        print(
            f"{len(text) / 1e6:6.2f} MB, {files:3d} files: parse = {parsed / baseline:5.1f}x "
            f"str.split (baseline {baseline * 1e3:.2f} ms)"
        )


if __name__ == "__main__":
    main()
