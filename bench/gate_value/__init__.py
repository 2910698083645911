"""The gate-value benchmark (issue 29): HumanEval problems run through three arms — the
implementer alone, the implementer with the visible check and retries, and `mergegate run` —
judged afterwards by the problems' own hidden tests. `bench/bench_gate_value.py` is its command.

Rooms: `problems` (the data, the stub, the visible examples, the plan), `hidden` (the bench's
own oracle: hidden tests and example checks run in a child process), `sloppy` (the scripted
implementer's fixed list of subtly wrong answers), `arms` (one problem through one arm),
`scoring` (metrics, confidence intervals, the table), `agents/` (the command agents).
"""
