"""Folding many outcomes into one exit code, against a plain `max()` over ints (same run)."""

from __future__ import annotations

import random
import timeit

from _smoke import sizes
from mergegate.decisions import ExitCode, worst_exit_code


def main() -> None:
    rng = random.Random(7)
    codes = [rng.choice(list(ExitCode)) for _ in range(sizes(10_000, 1_000))]
    ints = [int(c) for c in codes]
    n = sizes(50, 3)
    ours = timeit.timeit(lambda: worst_exit_code(codes), number=n)
    base = timeit.timeit(lambda: max(ints), number=n)
    print(f"worst_exit_code over {len(codes)} codes: {ours / base:.1f}x a bare max() of ints")


if __name__ == "__main__":
    main()
