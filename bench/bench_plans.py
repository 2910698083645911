"""`mergegate plan show` (the import) on a generated GSD tree of 30 phases and 100 units.

Baseline, measured in the same run on the same tree: walking the directories and reading every
file's bytes (what any importer has to do at least). Reported: the best of several runs of

* read bytes  — `os.walk` + `read_bytes` of every file;
* import      — `load_plan(tree)` (scanning, YAML, model validation, dependency resolution);
* validate    — `plan_errors(plan)`: the one validation `plan show`, `plan check`, `run` and
  `verify` share (ids, text, paths, dependencies), on the imported plan;
* show json   — import + validation + the JSON `plan show --format json` prints;

each as seconds and as a ratio to the baseline, plus the whole `mergegate plan show --format
json` process next to a `mergegate --version` process (interpreter start and module imports,
which the import target does not include). The issue's target: the import
under 0.5 s. Plans are shaped like real ones (frontmatter with must_haves, objective,
context, three tasks with fenced code, `<automated>` checks, acceptance criteria; ~9 KB each).

Last, fence pairing on adversarial text (1 and 4 MB of openers that never close, then of
nested pairs) next to splitting the same text into lines: pairing must stay linear (a ratio
that does not grow with the size).

Run: `make bench` or `.venv/bin/python bench/bench_plans.py`.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

from _smoke import goal, sizes
from mergegate.plans import load_plan, plan_errors
from mergegate.plans._document import Document

REPEATS = sizes(5, 1)
PHASES = sizes(30, 3)
UNITS = sizes(100, 6)
FENCES = sizes((1_000_000, 4_000_000), (100_000, 400_000))
TARGET_S = 0.5


def plan_text(phase: str, slug: str, number: int, wave: int) -> str:
    deps = f'["{phase}-{number - 1:02d}"]' if number > 1 else "[]"
    truths = "\n".join(
        f'    - "Truth {k} of plan {number} holds: value_{k} == {k}"' for k in range(5)
    )
    artifacts = "\n".join(
        f'    - path: "src/{slug}/module_{number}_{k}.py"\n'
        f'      provides: "Part {k}"\n      contains: "def part_{k}"'
        for k in range(3)
    )
    tasks = "\n\n".join(task_text(number, k) for k in range(1, 4))
    return f"""---
phase: {phase}-{slug}
plan: {number:02d}
type: execute
wave: {wave}
depends_on: {deps}
files_modified:
  - src/{slug}/module_{number}_0.py
  - src/{slug}/module_{number}_1.py
  - tests/test_{slug}_{number}.py
autonomous: true
requirements: [REQ-{phase}-{number}]
must_haves:
  truths:
{truths}
  artifacts:
{artifacts}
  key_links:
    - from: "tests/test_{slug}_{number}.py"
      to: "src/{slug}/module_{number}_0.py"
      via: "import"
      pattern: "from src\\\\.{slug} import"
---

<objective>
Implement part {number} of phase {phase}: the {slug} module with its tests.

Purpose: later phases build on it.
Output: three modules and their tests.
</objective>

<execution_context>
@$HOME/.claude/get-shit-done/workflows/execute-plan.md
</execution_context>

<context>
@.planning/PROJECT.md
@.planning/ROADMAP.md
@src/{slug}/__init__.py

<interfaces>
```python
def part(value: int) -> Array<int>: ...  # generics and <tags> in code are text
```
</interfaces>
</context>

<tasks>

{tasks}

</tasks>

<verification>
- [ ] `pytest tests/test_{slug}_{number}.py -q` passes
- [ ] `ruff check src/{slug}` is clean
</verification>

<success_criteria>
1. All three parts exist and are tested
2. No lint findings
</success_criteria>

<output>
After completion, create `.planning/phases/{phase}-{slug}/{phase}-{number:02d}-SUMMARY.md`
</output>
"""


def task_text(number: int, k: int) -> str:
    body = "\n".join(
        f"    {n}. Write step {n} of part {k}: keep functions small, type them, test them & "
        "document the contract; values < 0 are rejected."
        for n in range(1, 9)
    )
    return f"""<task type="auto" tdd="true">
  <name>Task {k}: Part {k} of plan {number}</name>
  <files>src/module_{number}_{k}.py, tests/test_module_{number}_{k}.py</files>
  <read_first>
    - src/module_{number}_{k}.py (existing pattern — keep it)
  </read_first>
  <action>
{body}

    ```python
    def part_{k}(value: int) -> int:
        # <task> inside code is text, not a task
        return value * {k}
    ```
  </action>
  <verify>
    <automated>pytest tests/test_module_{number}_{k}.py -q</automated>
  </verify>
  <acceptance_criteria>
    - `grep -c "def part_{k}" src/module_{number}_{k}.py` returns 1
    - the tests pass
  </acceptance_criteria>
  <done>part_{k} exists, is tested and typed</done>
</task>"""


def roadmap(slugs: list[str]) -> str:
    sections = [
        f"### Phase {n}: {slug.title()}\n**Goal**: {slug} works\n**Depends on**: Phase {n - 1}\n"
        f"**Requirements**: REQ-{n:02d}\n**Success Criteria** (what must be TRUE):\n"
        f"  1. {slug} is built\n  2. {slug} is tested\n**Plans:** TBD\n"
        for n, slug in enumerate(slugs, start=1)
    ]
    return "# Roadmap: Bench\n\n## Phase Details\n\n" + "\n".join(sections)


def build_tree(root: Path) -> Path:
    planning = root / ".planning"
    slugs = [f"area-{n}" for n in range(1, PHASES + 1)]
    (planning / "phases").mkdir(parents=True)
    (planning / "ROADMAP.md").write_text(roadmap(slugs), encoding="utf-8")
    per_phase = [UNITS // PHASES + (1 if n < UNITS % PHASES else 0) for n in range(PHASES)]
    for n, (slug, count) in enumerate(zip(slugs, per_phase, strict=True), start=1):
        phase = f"{n:02d}"
        directory = planning / "phases" / f"{phase}-{slug}"
        directory.mkdir()
        (directory / f"{phase}-CONTEXT.md").write_text("# Context\n\nNotes.\n" * 40)
        for number in range(1, count + 1):
            text = plan_text(phase, slug, number, wave=number)
            (directory / f"{phase}-{number:02d}-PLAN.md").write_text(text, encoding="utf-8")
            if n < PHASES // 2:
                (directory / f"{phase}-{number:02d}-SUMMARY.md").write_text("---\nplan: x\n---\n")
    return planning


def read_bytes(root: Path) -> int:
    total = 0
    for directory, _, names in os.walk(root):
        for name in names:
            total += len((Path(directory) / name).read_bytes())
    return total


def best(fn: Callable[[], object]) -> float:
    times = []
    for _ in range(REPEATS):
        start = time.perf_counter()
        fn()
        times.append(time.perf_counter() - start)
    return min(times)


def main() -> int:
    with tempfile.TemporaryDirectory() as tmp:
        tree = build_tree(Path(tmp))
        plan = load_plan(tree).plan
        units = sum(len(p.units) for p in plan.phases)
        tasks = sum(1 for _ in plan.tasks())
        assert (len(plan.phases), units, tasks) == (PHASES, UNITS, 3 * UNITS), (units, tasks)
        size = read_bytes(tree)
        base = best(lambda: read_bytes(tree))
        ours = best(lambda: load_plan(tree))
        validated = best(lambda: plan_errors(plan))
        assert plan_errors(plan) == ()
        shown = best(lambda: _show(tree))
        cli = str(Path(sys.executable).with_name("mergegate"))
        command = [cli, "plan", "show", str(tree), "--format", "json"]
        done = subprocess.run(command, capture_output=True, check=True)
        assert json.loads(done.stdout)["format"] == "gsd"
        startup = best(lambda: subprocess.run([cli, "--version"], capture_output=True, check=True))
        process = best(lambda: subprocess.run(command, capture_output=True, check=True))
    print(f"GSD tree: {PHASES} phases, {units} units, {tasks} tasks, {size / 1e6:.2f} MB")
    print(f"{'step':<14}{'seconds':>10}{'x read bytes':>14}")
    print(f"{'read bytes':<14}{base:>10.4f}{1.0:>14.1f}")
    print(f"{'import':<14}{ours:>10.4f}{ours / base:>14.1f}")
    print(f"{'validate':<14}{validated:>10.4f}{validated / base:>14.1f}")
    print(f"{'show json':<14}{shown:>10.4f}{shown / base:>14.1f}")
    print(f"{'CLI startup':<14}{startup:>10.4f}{startup / base:>14.1f}  (mergegate --version)")
    print(f"{'CLI show json':<14}{process:>10.4f}{process / base:>14.1f}  (the whole process)")
    verdict = "ok" if ours < TARGET_S else "TOO SLOW"
    print(f"import under {TARGET_S} s: {verdict}")
    fences()
    return goal(ours < TARGET_S)


def _show(tree: Path) -> str:
    result = load_plan(tree)
    plan_errors(result.plan)
    return json.dumps(result.plan.model_dump(mode="json", by_alias=True))


def fences() -> None:
    """Fence pairing next to `str.split` of the same text, at two sizes (linear: same ratio)."""
    print(f"{'fences':<22}{'MB':>6}{'split s':>10}{'pairing s':>11}{'x split':>9}")
    for name, unit in (("openers, never closed", "```bash\n"), ("nested pairs", NESTED)):
        for size in FENCES:
            text = unit * (size // len(unit))
            split = best(lambda text=text: text.split("\n"))
            paired = best(lambda text=text: Document.from_text("f.md", text))
            ratio = paired / split
            print(f"{name:<22}{size / 1e6:>6.1f}{split:>10.4f}{paired:>11.4f}{ratio:>9.1f}")


NESTED = "```markdown\n# x\n```bash\nrun\n```\ntext\n```\n- [ ] **Step 1: go**\n"


if __name__ == "__main__":
    raise SystemExit(main())
