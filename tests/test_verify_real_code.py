"""Issue 27: `mergegate verify` on real code — one test per class of the issue's "Why", each
built from the class in a small repository of its own (Python or TypeScript), and each
failing on the code before the change (the class was a false gap, a blind pass or a report
in the wrong place)."""

from __future__ import annotations

import json
import os
import re
import shutil
import stat
import sys
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from _gitrepo import change_repo, git, write_files
from mergegate.agents.registry import get_backend
from mergegate.plans import (
    AcceptanceCriterion,
    Artifact,
    KeyLink,
    MustHaves,
    Phase,
    Plan,
    PlanFormat,
    Task,
    Unit,
    Verify,
)
from mergegate.verify import (
    CheckKind,
    Outcome,
    Result,
    VerificationStatus,
    VerifyOptions,
    derive_checks,
    find_gsd_report,
    verify_phase,
)
from mergegate.verify._criteria import declared_ids
from mergegate.verify._environment import find_environment, not_ready
from mergegate.verify._pattern import search_pattern
from mergegate.verify._records import write_gsd_copy

FAKE = Path(__file__).parent / "fakes" / "scripted_agent.py"


def plan_of(*units: Unit, requirements: tuple[str, ...] = (), **phase: Any) -> Plan:
    return Plan(
        format=PlanFormat.NATIVE,
        title="t",
        phases=(Phase(id="1", name="p", requirements=requirements, units=units, **phase),),
    )


def unit(**fields: Any) -> Unit:
    return Unit(id="01-01", completed=True, **fields)


def link(frm: str, to: str, pattern: str | None = None) -> KeyLink:
    return KeyLink.model_validate({"from": frm, "to": to, "pattern": pattern})


def run(plan: Plan, repo: Path, tmp_path: Path, name: str = "run", **kw: Any):  # type: ignore[no-untyped-def]
    verifier = kw.pop("verifier", None)
    return verify_phase(
        plan, "1", repo, run_dir=tmp_path / name, verifier=verifier, options=VerifyOptions(**kw)
    )


def criterion(result: Any, cid: str) -> Any:
    return next(c for c in result.criteria if c.id == cid)


def evidence(result: Any, cid: str, kind: CheckKind) -> Any:
    return next(e for e in criterion(result, cid).evidence if e.check == kind)


# ---------------------------------------------------------------- a TypeScript project

TS = {
    "package.json": json.dumps(
        {
            "name": "demo",
            "main": "dist/server.js",
            "bin": {"demo": "bin/cli.js"},
            "scripts": {"check": "tsc --noEmit", "seed": "node scripts/seed.mjs"},
        }
    ),
    "src/index.ts": "export { createStore } from './store';\n",
    "src/server.ts": (
        "import { createStore } from './index';\n\nexport const store = createStore();\n"
    ),
    "src/store.ts": (
        "import {\n  useState,\n  useEffect,\n} from './hooks';\n\n"
        "export function createStore() {\n  const s = useState(0);\n  useEffect(() => s);\n"
        "  return s;\n}\n"
    ),
    "src/hooks.ts": (
        "export function useState<T>(v: T): T {\n  return v;\n}\n"
        "export function useEffect(f: () => unknown): void {\n  f();\n}\n"
    ),
    "src/barrel.ts": "export {\n  useState,\n  useEffect,\n} from './hooks';\n",
    "src/app.ts": (
        "import { createStore } from './index';\n\nexport const value = createStore()\n"
        "  .toString()\n  .trim();\n"
    ),
    "src/plugins/loader.ts": (
        "import { readdirSync } from 'fs';\n\nexport function load(dir: string) {\n"
        "  return readdirSync(dir + '/plugins').map((f) => f.length);\n}\n"
    ),
    "src/plugins/greet.ts": "export default function greet(n: string) {\n  return `hi ${n}`;\n}\n",
    "app/dashboard/page.tsx": "export default function Page() {\n  return <main>Dash</main>;\n}\n",
    "src/orphan.ts": "// import { x } from './orphan'\nexport const lonely = () => 42;\n",
    "src/commented.ts": "// import { lonely } from './orphan';\nexport const c = 1;\n",
}


@pytest.fixture
def ts_repo(tmp_path: Path) -> Path:
    return change_repo(tmp_path / "ts", {"README.md": "demo\n"}, TS, message="phase 1")


def test_patterns_are_matched_across_lines(ts_repo: Path, tmp_path: Path) -> None:
    """Class "patterns matched line by line": a multi-line `import {…}`, a multi-line
    `export {…} from` and a call chain split before `.method(` are found, as `contains` and
    as key links alike."""
    patterns = [
        ("src/store.ts", r"import \{ useState, useEffect, \} from './hooks'"),
        ("src/barrel.ts", r"export \{useState, useEffect,\} from './hooks'"),
        ("src/app.ts", r"createStore\(\)\.toString\(\)\.trim\(\)"),
    ]
    plan = plan_of(
        unit(
            must_haves=MustHaves(
                artifacts=tuple(Artifact(path=p, contains=pattern) for p, pattern in patterns),
                key_links=tuple(link(p, "src/hooks.ts", pattern) for p, pattern in patterns),
            )
        )
    )
    result = run(plan, ts_repo, tmp_path)
    for n in (1, 2, 3):
        assert (
            evidence(result, f"01-01.artifact-{n}", CheckKind.SUBSTANTIVE).outcome is Outcome.PASS
        )
        assert criterion(result, f"01-01.link-{n}").result is Result.PASS


def test_contains_and_key_link_use_the_same_matcher(ts_repo: Path, tmp_path: Path) -> None:
    """Class "`contains` vs key link": the same regex gives the same answer in both places."""
    regex = r"export function use(State|Effect)"
    plan = plan_of(
        unit(
            must_haves=MustHaves(
                artifacts=(Artifact(path="src/hooks.ts", contains=regex),),
                key_links=(link("src/hooks.ts", "src/store.ts", regex),),
            )
        )
    )
    result = run(plan, ts_repo, tmp_path)
    assert evidence(result, "01-01.artifact-1", CheckKind.SUBSTANTIVE).outcome is Outcome.PASS
    assert criterion(result, "01-01.link-1").result is Result.PASS


@pytest.mark.parametrize(
    ("path", "how"),
    [
        ("src/server.ts", "`main`"),  # package.json main: dist/server.js built from src/
        ("src/plugins/greet.ts", "listed"),  # discovered by directory listing
        ("app/dashboard/page.tsx", "Next.js"),  # a framework's convention folder
    ],
)
def test_convention_loaded_files_are_wired(
    ts_repo: Path, tmp_path: Path, path: str, how: str
) -> None:
    """Class "nothing imports it" for entry points and convention-loaded files."""
    result = run(
        plan_of(unit(must_haves=MustHaves(artifacts=(Artifact(path=path),)))), ts_repo, tmp_path
    )
    wired = evidence(result, "01-01.artifact-1", CheckKind.WIRED)
    assert wired.outcome is Outcome.PASS, wired.detail
    assert how in wired.detail


def test_nothing_imports_it_is_a_question_never_a_gap(ts_repo: Path, tmp_path: Path) -> None:
    """A file only a comment "imports" is not wired (the parser reads code, not comments),
    and "nothing imports it" is uncertain with evidence, not a gap."""
    plan = plan_of(unit(must_haves=MustHaves(artifacts=(Artifact(path="src/orphan.ts"),))))
    result = run(plan, ts_repo, tmp_path)
    wired = evidence(result, "01-01.artifact-1", CheckKind.WIRED)
    assert wired.outcome is Outcome.UNCERTAIN
    assert "searched" in wired.detail
    assert result.status is VerificationStatus.HUMAN_NEEDED


def test_a_missing_tool_inside_a_script_is_unverified_environment(
    ts_repo: Path, tmp_path: Path
) -> None:
    """Class "a missing tool counted as a failure": exit 127 inside `npm run` (tsc not
    installed, no node_modules) is *unverified: environment*, naming tsc."""
    if shutil.which("npm") is None:
        pytest.skip("npm is not installed")
    task = Task(id="1", name="t", verify=Verify(text="<automated>npm run check</automated>"))
    result = run(plan_of(unit(tasks=(task,))), ts_repo, tmp_path)
    found = evidence(result, "01-01.t1.verify", CheckKind.COMMAND)
    assert found.outcome is Outcome.UNVERIFIED
    assert "environment" in found.detail
    assert "tsc" in found.detail
    assert result.status is not VerificationStatus.GAPS_FOUND


def test_npx_runs_offline_and_never_installs(ts_repo: Path, tmp_path: Path) -> None:
    """`npx tsc` runs as `npx --no-install tsc`: offline it is unverified, never a failure,
    and online it could never install a package that happens to be called `tsc`."""
    env = find_environment(ts_repo)
    assert env.command(("npx", "tsc", "--noEmit")) == ("npx", "--no-install", "tsc", "--noEmit")
    assert env.command(("sh", "-c", "cd web && npx tsc")) == (
        "sh",
        "-c",
        "cd web && npx --no-install tsc",
    )
    assert isinstance(env.command(("pnpm", "dlx", "tsc")), str)  # would download: not run
    assert env.variables["npm_config_offline"] == "true"
    if shutil.which("npx") is None:
        pytest.skip("npx is not installed")
    task = Task(id="1", name="t", verify=Verify(text="<automated>npx tsc --noEmit</automated>"))
    result = run(plan_of(unit(tasks=(task,))), ts_repo, tmp_path)
    found = evidence(result, "01-01.t1.verify", CheckKind.COMMAND)
    assert found.argv[:3] == ("npx", "--no-install", "tsc")
    assert found.outcome is Outcome.UNVERIFIED, found.detail


def test_cd_outside_the_repository_is_a_plan_error(ts_repo: Path, tmp_path: Path) -> None:
    """A command starting with `cd /Users/<someone>/…` is a plan error: listed, never run."""
    text = "<automated>cd /Users/someone/demo && npm test</automated>"
    task = Task(id="1", name="t", verify=Verify(text=text))
    plan = plan_of(unit(tasks=(task,)))
    [item, _scan] = derive_checks(plan, plan.phases[0])
    assert item.checks == ()
    assert "plan error" in item.unchecked[0]
    result = run(plan, ts_repo, tmp_path)
    assert criterion(result, "01-01.t1.verify").result is not Result.FAIL


def test_commands_are_never_invented_from_prose(ts_repo: Path, tmp_path: Path) -> None:
    """Class "commands invented from prose": `tsconfig` in a sentence on a Run line and an
    alternative "(or `tsc --noEmit`)" are not commands."""
    text = "Run `npm run check` against `tsconfig` paths (or `tsc --noEmit`)."
    plan = plan_of(unit(tasks=(Task(id="1", name="t", verify=Verify(text=text)),)))
    [item, _scan] = derive_checks(plan, plan.phases[0])
    assert [c.command for c in item.checks] == ["npm run check"]
    ac = AcceptanceCriterion(text="The build works (or `tsc --noEmit` passes) with `tsconfig`")
    plan = plan_of(unit(acceptance_criteria=(ac,)))
    [item, _scan] = derive_checks(plan, plan.phases[0])
    assert item.checks == ()


# ---------------------------------------------------------------- a Python project

PY = {
    "pyproject.toml": (
        '[project]\nname = "calc"\nversion = "0"\n[project.scripts]\ncalc = "calc.cli:main"\n'
    ),
    "src/calc/__init__.py": "",
    "src/calc/core.py": "".join(f"def f{i}(x):\n    return x + {i}\n\n\n" for i in range(19))
    + "VALUE = 1\n",
    "src/calc/cli.py": (
        "import argparse\n\n\ndef main():\n    argparse.ArgumentParser().parse_args()\n"
    ),
}


@pytest.fixture
def py_repo(tmp_path: Path) -> Path:
    return change_repo(tmp_path / "py", {"README.md": "calc\n"}, PY, message="phase 1")


def _script(path: Path, body: str) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(f"#!/bin/sh\n{body}\n")
    path.chmod(path.stat().st_mode | stat.S_IXUSR)


def test_commands_run_in_the_projects_own_environment(py_repo: Path, tmp_path: Path) -> None:
    """Class "commands run outside the project's environment": the project's `.venv` is
    found and first on PATH; a test runner's usage error there (pytest exit 4 for
    `--no-cov` without pytest-cov) is unverified: environment, not a failure."""
    os.symlink(sys.executable, _mk(py_repo / ".venv" / "bin") / "python")
    _script(py_repo / ".venv" / "bin" / "calc-check", "exit 0")
    _script(
        py_repo / ".venv" / "bin" / "pytest",
        'echo "ERROR: usage: pytest [options]" >&2\n'
        'echo "pytest: error: unrecognized arguments: --no-cov" >&2\nexit 4',
    )
    task = Task(
        id="1",
        name="t",
        verify=Verify(
            text="<automated>calc-check</automated>\n<automated>pytest --no-cov</automated>"
        ),
    )
    result = run(plan_of(unit(tasks=(task,))), py_repo, tmp_path)
    found = [
        e for e in criterion(result, "01-01.t1.verify").evidence if e.check == CheckKind.COMMAND
    ]
    assert found[0].outcome is Outcome.PASS, found[0].detail  # .venv/bin is on PATH
    assert found[1].outcome is Outcome.UNVERIFIED
    assert "pytest usage error" in found[1].detail
    assert ".venv" in result.environment


def _mk(path: Path) -> Path:
    path.mkdir(parents=True, exist_ok=True)
    return path


def test_a_line_count_is_a_hint_not_a_verdict(py_repo: Path, tmp_path: Path) -> None:
    """Class "a threshold read as a verdict": a real 78-line module against `min_lines: 80`."""
    lines = len((py_repo / "src/calc/core.py").read_text().split("\n"))
    assert 70 < lines < 80
    plan = plan_of(
        unit(must_haves=MustHaves(artifacts=(Artifact(path="src/calc/core.py", min_lines=80),)))
    )
    result = run(plan, py_repo, tmp_path)
    substantive = evidence(result, "01-01.artifact-1", CheckKind.SUBSTANTIVE)
    assert substantive.outcome is Outcome.PASS
    assert "hint" in substantive.detail


def test_a_stub_under_the_hint_is_still_a_gap(py_repo: Path, tmp_path: Path) -> None:
    (py_repo / "src/calc/todo.py").write_text("def compute(x):\n    # TODO: implement\n    pass\n")
    plan = plan_of(
        unit(must_haves=MustHaves(artifacts=(Artifact(path="src/calc/todo.py", min_lines=30),)))
    )
    result = run(plan, py_repo, tmp_path)
    assert evidence(result, "01-01.artifact-1", CheckKind.SUBSTANTIVE).outcome is Outcome.FAIL


def test_pyproject_entry_points_are_wired(py_repo: Path, tmp_path: Path) -> None:
    plan = plan_of(unit(must_haves=MustHaves(artifacts=(Artifact(path="src/calc/cli.py"),))))
    wired = evidence(run(plan, py_repo, tmp_path), "01-01.artifact-1", CheckKind.WIRED)
    assert wired.outcome is Outcome.PASS
    assert "pyproject.toml" in wired.detail


def test_requirement_coverage_only_from_declared_ids(py_repo: Path, tmp_path: Path) -> None:
    """Class "requirement coverage from words": a ROADMAP field in prose is not split into
    ids, and plans that declare no `requirements:` mean "coverage not declared"."""
    words = ("Per", "coverage", "(thin)", "CALC-01")
    result = run(plan_of(unit(), requirements=words), py_repo, tmp_path)
    assert not [c for c in result.criteria if c.kind.value == "requirement"]
    assert any("coverage not declared" in w for w in result.warnings)
    claimed = Unit(id="01-01", completed=True, requirements=("CALC-01",))
    result = run(plan_of(claimed, requirements=words), py_repo, tmp_path, "claimed")
    reqs = [c for c in result.criteria if c.kind.value == "requirement"]
    assert [(c.id, c.result) for c in reqs] == [("req-CALC-01", Result.PASS)]


def test_an_artifact_renamed_by_the_phase_is_not_missing(py_repo: Path, tmp_path: Path) -> None:
    """Class "renamed on purpose": a later commit of the phase renamed the artifact; git's
    rename detection over the phase's commits finds it."""
    base = git(py_repo, "rev-parse", "HEAD~1")
    git(py_repo, "mv", "src/calc/core.py", "src/calc/arith.py")
    git(py_repo, "commit", "-qm", "rename core to arith")
    plan = plan_of(unit(must_haves=MustHaves(artifacts=(Artifact(path="src/calc/core.py"),))))
    result = run(plan, py_repo, tmp_path, base=base)
    exists = evidence(result, "01-01.artifact-1", CheckKind.EXISTS)
    assert exists.outcome is Outcome.UNCERTAIN
    assert "src/calc/arith.py" in exists.detail
    assert result.status is not VerificationStatus.GAPS_FOUND


# ---------------------------------------------------------------- the verifier agent


def _verifier(tmp_path: Path, steps: list[dict[str, Any]]) -> Any:
    script = tmp_path / "verifier.json"
    script.write_text(json.dumps(steps))
    return get_backend("command", cmd=f"{sys.executable} {FAKE} {script} {tmp_path / 'agent'}")


def _answer(*items: tuple[str, str, dict[str, Any]]) -> dict[str, Any]:
    criteria = [
        {"id": cid, "result": result, "evidence": [cite], "reason": "read it", "question": None}
        for cid, result, cite in items
    ]
    return {"text": json.dumps({"verification_id": "{review_id}", "criteria": criteria})}


def test_the_verifier_sees_the_diff_and_the_files_and_its_quotes_are_checked(
    py_repo: Path, tmp_path: Path
) -> None:
    """Class "the verifier agent judges blind": it gets the phase diff and numbered file
    excerpts; a pass whose quote is not in the tree is uncertain, one whose quote is there
    counts."""
    real = {"file": "src/calc/core.py", "line": 2, "quote": "return x + 0"}
    made_up = {"file": "src/calc/core.py", "line": 2, "quote": "return compute_everything()"}
    plan = plan_of(unit(must_haves=MustHaves(truths=("f0 adds nothing", "it computes everything"))))
    agent = _verifier(
        tmp_path, [_answer(("01-01.truth-1", "pass", real), ("01-01.truth-2", "pass", made_up))]
    )
    result = run(plan, py_repo, tmp_path, verifier=agent, base="HEAD~1")
    assert criterion(result, "01-01.truth-1").result is Result.PASS
    assert criterion(result, "01-01.truth-2").result is Result.UNCERTAIN
    assert "not there" in criterion(result, "01-01.truth-2").question
    prompt = (tmp_path / "agent" / "prompt-1.txt").read_text()
    assert "+def f0(x):" in prompt  # the phase diff
    assert "    2      return x + 0" in prompt  # numbered excerpts of the files it judges


def test_many_criteria_are_judged_in_batches(py_repo: Path, tmp_path: Path) -> None:
    """The output budget: criteria go to the verifier a batch at a time."""
    truths = tuple(f"truth number {n}" for n in range(5))
    cite = {"file": "src/calc/core.py", "line": 1, "quote": "def f0(x):"}
    ids = [f"01-01.truth-{n}" for n in range(1, 6)]
    steps = [
        _answer(*((cid, "pass", cite) for cid in ids[:2])),
        _answer(*((cid, "pass", cite) for cid in ids[2:4])),
        _answer(*((cid, "pass", cite) for cid in ids[4:])),
    ]
    plan = plan_of(unit(must_haves=MustHaves(truths=truths)))
    result = run(plan, py_repo, tmp_path, verifier=_verifier(tmp_path, steps), verifier_batch=2)
    assert [criterion(result, cid).result for cid in ids] == [Result.PASS] * 5
    assert result.verifier is not None
    assert result.verifier.attempts == 3


# ---------------------------------------------------------------- GSD write-back


@pytest.mark.parametrize("phase_id", ["12.3.1", "AE1", "999.2"])
def test_the_existing_report_is_updated_in_place_for_any_phase_id(
    py_repo: Path, tmp_path: Path, phase_id: str
) -> None:
    """Class "reports in the wrong place": the phase's own `*-VERIFICATION.md` is found for
    every id form and updated in place (status and a dated section), never a second file."""
    folder = tmp_path / "phases" / f"{phase_id}-thing"
    existing = folder / f"{phase_id}-VERIFICATION.md"
    write_files(folder, {existing.name: "---\nphase: x\nstatus: passed\n---\n\n# GSD report\n"})
    assert find_gsd_report(folder, phase_id) == existing
    result = run(
        plan_of(unit(must_haves=MustHaves(artifacts=(Artifact(path="src/nope.py"),)))),
        py_repo,
        tmp_path,
    )
    path, problem = write_gsd_copy(folder, result)
    assert (path, problem) == (existing, None)
    assert sorted(p.name for p in folder.iterdir()) == [existing.name]
    text = existing.read_text()
    assert "status: gaps_found" in text
    assert "# GSD report" in text
    assert "## mergegate verification — " in text
    write_gsd_copy(folder, result)
    assert existing.read_text().count("## mergegate verification — ") == 1


def test_a_link_named_only_in_a_comment_or_in_its_target_is_not_proven(
    ts_repo: Path, tmp_path: Path
) -> None:
    """No blind passes: a key link's pattern in a comment of `from`, or only in the `to`
    file that `from` never imports, or imports without naming what the pattern names (a call
    moved elsewhere leaves its import behind), is a question, never a pass."""
    write_files(
        ts_repo,
        {
            "src/late.ts": "// TODO: call createStore() here\nexport const late = 1;\n",
            "src/moved.ts": "import { useState } from './hooks';\n// useEffect went to app.ts\n"
            "export const moved = useState(1);\n",
        },
    )
    plan = plan_of(
        unit(
            must_haves=MustHaves(
                key_links=(
                    link("src/late.ts", "src/store.ts", r"createStore\(\)"),
                    link("src/orphan.ts", "src/hooks.ts", "export function useState"),
                    link("src/store.ts", "src/hooks.ts", "export function useEffect"),
                    link("src/moved.ts", "src/hooks.ts", "export function useEffect"),
                )
            )
        )
    )
    result = run(plan, ts_repo, tmp_path)
    assert criterion(result, "01-01.link-1").result is Result.UNCERTAIN
    assert "only in a comment" in criterion(result, "01-01.link-1").question
    assert criterion(result, "01-01.link-2").result is Result.UNCERTAIN
    assert criterion(result, "01-01.link-3").result is Result.PASS  # imports and calls it
    moved = criterion(result, "01-01.link-4")
    assert moved.result is Result.UNCERTAIN
    assert "without naming what the pattern names" in moved.question


# ---------------------------------------------------------------- rules for all inputs

_WORDS = st.lists(st.from_regex(r"[a-z][a-z0-9_]{0,8}", fullmatch=True), min_size=1, max_size=6)
_GAPS = st.lists(st.sampled_from([" ", "\n", "\n    ", "\t", " \n  "]), min_size=6, max_size=6)


@given(_WORDS, _GAPS)
@settings(max_examples=200, deadline=None)
def test_a_call_chain_is_found_however_its_lines_are_broken(
    words: list[str], gaps: list[str]
) -> None:
    """Whatever whitespace and line breaks sit between the parts of `a.b(c).d(e)`, the
    one-line pattern finds it, and on the line where it starts."""
    chain = ".".join(f"{w}()" for w in words)
    broken = "x = 1\n" + "".join(
        f"{gap}.{w}()" if i else f"{w}()"
        for i, (w, gap) in enumerate(zip(words, gaps, strict=False))
    )
    match = search_pattern(
        chain.replace("(", r"\(").replace(")", r"\)").replace(".", r"\."), broken
    )
    assert match.found
    assert match.line == 2


@given(st.lists(st.text(max_size=30), max_size=8))
@settings(max_examples=300, deadline=None)
def test_requirement_ids_are_never_made_of_prose(values: list[str]) -> None:
    """Every id `declared_ids` returns is id-shaped: upper-case segments with a digit, or at
    least two upper-case words joined by `-`/`_`/`.`; a lower-case word never is one."""
    shape = re.compile(r"[A-Z][A-Z0-9]*(?:[-_.][A-Z0-9]+)+|[A-Z]+[0-9]+[A-Za-z]?")
    for rid in declared_ids(tuple(values)):
        assert shape.fullmatch(rid), rid
        words = re.split(r"[-_.]", rid)
        assert any(c.isdigit() for c in rid) or sum(w.isalpha() for w in words) >= 2
    assert declared_ids(("Per", "coverage", "(thin)", "v1.18", "GH", "issue")) == []


@given(st.text(max_size=40), st.text(max_size=400))
@settings(max_examples=300, deadline=None)
def test_the_matcher_never_raises(pattern: str, text: str) -> None:
    match = search_pattern(pattern, text)
    assert match.found is (match.line is not None)


def test_a_pattern_links_target_outside_the_tree_is_not_a_plan_error(
    ts_repo: Path, tmp_path: Path
) -> None:
    """A key link with a pattern is checked in its `from` file; a `to` such as
    `~/.claude/megazord/` (a real corpus plan) is only not looked in."""
    plan = plan_of(
        unit(must_haves=MustHaves(key_links=(link("src/hooks.ts", "~/.claude/x/", "useState"),)))
    )
    assert criterion(run(plan, ts_repo, tmp_path), "01-01.link-1").result is Result.PASS


@pytest.mark.parametrize(
    ("output", "environment"),
    [
        ("ModuleNotFoundError: No module named 'fastapi'", True),  # third-party, not installed
        ("ModuleNotFoundError: No module named 'calc'", True),  # the project, not installed
        ("ModuleNotFoundError: No module named 'calc.cor'", False),  # a broken import: code
        ("sh: 1: vitest: not found", True),
        ("error TS2322: Type 'string' is not assignable to type 'number'.", False),
    ],
)
def test_environment_or_code(py_repo: Path, output: str, environment: bool) -> None:
    """What makes a failed command "unverified: environment" rather than a gap."""
    env = find_environment(py_repo)
    assert (not_ready(env, ("pytest",), 2, output) is not None) is environment


def test_a_wrapper_component_is_not_a_placeholder() -> None:
    """Found on the corpus (room-cad-renderer's shadcn Button): a component returning
    `<Comp {...props} />` is a wrapper, not an empty component."""
    from mergegate.verify._code import find_stubs

    button = (
        'import * as React from "react";\n\n'
        "export const Button = React.forwardRef<HTMLButtonElement, Props>(\n"
        "  ({ className, asChild = false, ...props }, ref) => {\n"
        '    const Comp = asChild ? Slot : "button";\n'
        "    return (\n      <Comp\n        ref={ref}\n        className={cn(className)}\n"
        "        {...props}\n      />\n    );\n  }\n);\n"
    )
    assert find_stubs("src/components/ui/Button.tsx", button).stub is None
    assert find_stubs("src/Empty.tsx", "export function E() {\n  return <div />;\n}\n").stub


def test_a_quoted_argument_reaches_the_program_as_written() -> None:
    """Runs of spaces inside quotes are the command's data (HumanEval/140's
    `fix_spaces(" Example   3")`); only whitespace outside quotes is folded."""
    from mergegate.verify._commands import classify_command, squeeze_spaces

    form = classify_command("python3 -c  \"print(' a   b')\"\n   --flag")
    assert form.argv == ("python3", "-c", "print(' a   b')", "--flag")
    assert squeeze_spaces("echo 'x  y'   z") == "echo 'x  y' z"
    assert squeeze_spaces('echo "unclosed   rest') == 'echo "unclosed   rest'


# Class "a command string normalised on its way to the program": whatever mergegate folds,
# joins or rewrites in a check command, what the shell takes as data (quoted or escaped) must
# reach the program byte for byte, and a command an importer found as such runs as written.
_SHELLISH = st.text(alphabet="ab \t\n'\"\\;#$", max_size=40)


def _words(command: str) -> list[str] | None:
    import shlex

    try:
        return shlex.split(command)
    except ValueError:
        return None


@settings(max_examples=400)
@given(_SHELLISH)
def test_folding_a_command_keeps_every_word_the_shell_sees(text: str) -> None:
    """`squeeze_spaces` only folds whitespace between words: the words are the same before
    and after, quotes and backslash escapes included (`"a \\"  b"`, `a\\  b`)."""
    from mergegate.verify._commands import squeeze_spaces

    words = _words(text)
    if words is None or "\\\n" in text:  # shlex keeps a continuation as data; sh does not
        return
    assert _words(squeeze_spaces(text)) == words


@settings(max_examples=300)
@given(st.text(alphabet="ab \t'\"\\;$", max_size=40))
def test_a_run_line_command_keeps_every_word(rest: str) -> None:
    """A plain `Run: python3 …` line reaches the check with the words it was written with."""
    from mergegate.verify._commands import commands_in_verify

    words = _words(rest)
    if words is None or rest != rest.rstrip() or "`" in rest:
        return
    found = commands_in_verify(f"Run: python3 {rest}")
    assert found
    assert _words(found[0]) == ["python3", *words]


def test_a_continuation_is_joined_as_the_shell_joins_it() -> None:
    from mergegate.verify._commands import squeeze_spaces

    assert squeeze_spaces("pytest \\\n    -q tests") == "pytest -q tests"
    assert squeeze_spaces("echo a\\\nb") == "echo ab"


def test_a_structured_check_runs_as_written_in_phase_verification() -> None:
    """Phase verification runs a native check and an importer's verify command with the bytes
    the task check ran (`/bin/sh -c RUN`): folded, the script's second line would have become
    part of the first line's comment, and `test -f b.txt` never run."""
    from mergegate.plans import Check

    script = "test -f a.txt  # must exist\ntest -f b.txt"
    quoted = 'python3 -c \'assert f(" a   b") == "_a-b"\''
    task = Task(
        id="1",
        name="t",
        checks=(Check(run=script), Check(run=quoted)),
        verify=Verify(text="", commands=(Check(run=script), Check(run=quoted))),
    )
    plan = plan_of(unit(tasks=(task,)))
    argvs = [spec.argv for item in derive_checks(plan, plan.phases[0]) for spec in item.checks]
    assert ("sh", "-c", script) in argvs
    assert argvs.count(("sh", "-c", script)) == 2
    assert argvs.count(("sh", "-c", quoted)) == 1  # the native check
    assert ("python3", "-c", 'assert f(" a   b") == "_a-b"') in argvs  # the verify command


def test_the_offline_npx_rewrite_leaves_quoted_text_alone() -> None:
    from mergegate.verify._environment import ProjectEnvironment

    env = ProjectEnvironment()
    script = 'echo "x; npx cowsay" && npx tsc'
    assert env.command(("sh", "-c", script)) == (
        "sh",
        "-c",
        'echo "x; npx cowsay" && npx --no-install tsc',
    )
