"""The bench's own oracle: a problem's hidden tests, and its visible examples, run against a
module's text in a child process (a fresh temporary directory, a time limit, a memory cap).

This is the only place the hidden tests are used. They are written to a temporary directory
that exists only while they run — never into a problem's repository, a plan or a prompt — and
only after the arm being measured has finished with that problem.
"""

from __future__ import annotations

import json
import resource
import subprocess
import sys
import tempfile
from dataclasses import dataclass
from pathlib import Path

from gate_value.problems import SOLUTION_FILE, Example, Problem

HIDDEN_TIMEOUT_S = 20.0
MEMORY_CAP_BYTES = 2 * 1024**3
"""A mutated or model-written solution can allocate without end; the child dies instead."""

_EXAMPLES_RUNNER = r"""
import json, signal, sys
sys.path.insert(0, sys.argv[1])
def alarm(signum, frame):
    raise TimeoutError("example timed out")
signal.signal(signal.SIGALRM, alarm)
examples = json.loads(open(sys.argv[2]).read())
try:
    namespace = {}
    exec("from solution import *", namespace)
except BaseException:
    print(json.dumps([False] * len(examples)))
    sys.exit(0)
results = []
for example in examples:
    signal.alarm(5)
    try:
        results.append(bool(eval(example["call"], dict(namespace)) == eval(example["expected"])))
    except BaseException:
        results.append(False)
    finally:
        signal.alarm(0)
print(json.dumps(results))
"""


@dataclass(frozen=True)
class HiddenResult:
    passed: bool
    detail: str
    """The end of the child's output when it failed ("timed out" on the time limit)."""


def _limit_memory() -> None:
    resource.setrlimit(resource.RLIMIT_AS, (MEMORY_CAP_BYTES, MEMORY_CAP_BYTES))


def _run_python(script: Path, *args: str, timeout: float) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-I", "-B", str(script), *args],
        cwd=script.parent,
        capture_output=True,
        text=True,
        timeout=timeout,
        stdin=subprocess.DEVNULL,
        preexec_fn=_limit_memory,
        check=False,
    )


def run_hidden(problem: Problem, module_text: str | None) -> HiddenResult:
    """The problem's hidden tests against `module_text` (None: the file is missing), the way
    HumanEval's own harness runs them: the module, the test suite, `check(entry_point)`."""
    if module_text is None:
        return HiddenResult(False, f"no {SOLUTION_FILE}")
    program = f"{module_text}\n\n{problem.test}\n\ncheck({problem.entry_point})\n"
    with tempfile.TemporaryDirectory(prefix="gate-value-hidden-") as tmp:
        script = Path(tmp) / "hidden_check.py"
        script.write_text(program, encoding="utf-8")
        try:
            done = _run_python(script, timeout=HIDDEN_TIMEOUT_S)
        except subprocess.TimeoutExpired:
            return HiddenResult(False, "timed out")
    if done.returncode == 0:
        return HiddenResult(True, "")
    return HiddenResult(False, (done.stderr or done.stdout)[-400:])


def examples_pass(module_text: str, examples: list[Example]) -> list[bool]:
    """For each example, whether `module_text` gives the expected value (False on any error,
    on a 5-second limit per example, and for all of them when the module does not import)."""
    if not examples:
        return []
    with tempfile.TemporaryDirectory(prefix="gate-value-examples-") as tmp:
        root = Path(tmp)
        (root / SOLUTION_FILE).write_text(module_text, encoding="utf-8")
        data = [{"call": e.call, "expected": e.expected} for e in examples]
        (root / "examples.json").write_text(json.dumps(data), encoding="utf-8")
        script = root / "run_examples.py"
        script.write_text(_EXAMPLES_RUNNER, encoding="utf-8")
        try:
            done = _run_python(script, str(root), str(root / "examples.json"), timeout=60)
        except subprocess.TimeoutExpired:
            return [False] * len(examples)
    try:
        results = json.loads(done.stdout.strip().splitlines()[-1])
    except (json.JSONDecodeError, IndexError):
        return [False] * len(examples)
    return [bool(r) for r in results] if len(results) == len(examples) else [False] * len(examples)


def valid_examples(problem: Problem, examples: list[Example]) -> list[Example]:
    """The examples the reference solution agrees with: the visible check must pass on right
    work (a developer fixes a wrong example in a docstring before making it a check)."""
    verdicts = examples_pass(problem.reference(), examples)
    return [e for e, ok in zip(examples, verdicts, strict=True) if ok]
