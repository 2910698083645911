"""Plans that cannot run are refused alike by `plan show`, `plan check`, `run` and `verify`.

Issue 30's classes, each from a small plan of our own: symlinks out of the repository, paths
that leave it, repeated and look-alike ids, NUL bytes and bidirectional overrides, YAML too
deep to read, cycles and missing dependencies. Every refusal is exit 2 with one line naming
file:line, never a traceback; `plan show` never prints a plan that cannot run as if it could.
"""

from __future__ import annotations

import os
import string
from pathlib import Path

import pytest
from click.testing import CliRunner
from hypothesis import given, settings
from hypothesis import strategies as st

from mergegate.cli import cli
from mergegate.plans import (
    Artifact,
    MustHaves,
    Phase,
    Plan,
    PlanError,
    PlanFormat,
    Task,
    Unit,
    check_plan,
    load_plan,
    require_runnable,
    require_valid,
)
from mergegate.plans._document import read_document

SUPERPOWERS = """\
# Outside Plan

**Goal:** a plan that lives outside the repository

### Task 1: Secret task

**Files:**
- Create: `src/a.py`

- [ ] **Step 1: Run it**

Run: `pytest -q`
Expected: PASS SECRET-CONTENT-OUTSIDE
"""


def native(units: str, *, phases: str = "") -> str:
    return (
        "mergegate_plan: 1\n"
        "title: demo\n"
        "phases:\n"
        "  - id: '1'\n"
        "    name: one\n"
        "    units:\n" + units + phases
    )


UNIT_A = (
    "      - id: a\n"
    "        must_haves: {truths: [a works]}\n"
    "        tasks:\n"
    "          - {id: '1', name: build a, done: built}\n"
)


def invoke(*args: str) -> tuple[int, str, str]:
    result = CliRunner().invoke(cli, list(args))
    assert result.exception is None or isinstance(result.exception, SystemExit), result.output
    return result.exit_code, result.stdout, result.stderr


def refused_alike(path: Path, *needles: str) -> str:
    """`plan show` and `plan check` both exit 2 naming file:line; returns show's stderr."""
    show_code, show_out, show_err = invoke("plan", "show", str(path))
    check_code, check_out, check_err = invoke("plan", "check", str(path))
    assert (show_code, check_code) == (2, 2), (show_out, show_err, check_out, check_err)
    for text in (show_err, check_out + check_err):
        assert "Traceback" not in text
        for needle in needles:
            assert needle in text
    return show_err


def repository(tmp_path: Path) -> Path:
    repo = tmp_path / "repo"
    (repo / ".git").mkdir(parents=True)
    return repo


# ---------------------------------------------------------------- symlinks out


def test_a_plan_file_linked_out_of_the_repository_is_never_shown(tmp_path: Path) -> None:
    outside = tmp_path / "elsewhere" / "secret.md"
    outside.parent.mkdir()
    outside.write_text(SUPERPOWERS, encoding="utf-8")
    repo = repository(tmp_path)
    (repo / "docs").mkdir()
    link = repo / "docs" / "plan.md"
    link.symlink_to(outside)
    code, out, err = invoke("plan", "show", str(link))
    assert code == 2
    assert "SECRET" not in out + err  # nothing of the outside file is printed
    assert err.count("\n") == 1  # one line
    assert "plan.md:1:" in err
    assert "outside the repository" in err
    code, out, _ = invoke("plan", "check", str(link))
    assert code == 2
    assert "SECRET" not in out


def test_a_gsd_tree_never_follows_a_symlink_out(tmp_path: Path) -> None:
    outside = tmp_path / "elsewhere.md"
    outside.write_text("# Roadmap\n\n### Phase 1: Stolen\n**Goal**: SECRET\n", encoding="utf-8")
    repo = repository(tmp_path)
    phase = repo / ".planning" / "phases" / "01-x"
    phase.mkdir(parents=True)
    (repo / ".planning" / "ROADMAP.md").symlink_to(outside)
    (phase / "01-01-PLAN.md").write_text(
        '---\nphase: 01-x\nplan: 01\n---\n<tasks>\n<task type="auto">\n<name>A</name>\n'
        "<done>done</done>\n</task>\n</tasks>\n",
        encoding="utf-8",
    )
    err = refused_alike(repo / ".planning", "ROADMAP.md", "outside the repository")
    assert "SECRET" not in err
    with pytest.raises(PlanError, match="outside the repository"):
        load_plan(repo / ".planning")


def test_a_symlinked_directory_out_of_a_gsd_tree_is_refused(tmp_path: Path) -> None:
    outside = tmp_path / "shared-phase"
    outside.mkdir()
    (outside / "02-01-PLAN.md").write_text("# x\n", encoding="utf-8")
    repo = repository(tmp_path)
    phases = repo / ".planning" / "phases"
    phases.mkdir(parents=True)
    (repo / ".planning" / "ROADMAP.md").write_text("# R\n\n### Phase 2: Two\n", encoding="utf-8")
    (phases / "02-two").symlink_to(outside, target_is_directory=True)
    refused_alike(repo / ".planning", "phases/02-two", "outside the repository")


def test_a_symlink_inside_the_repository_is_read(tmp_path: Path) -> None:
    repo = repository(tmp_path)
    (repo / "plans").mkdir()
    (repo / "plans" / "real.md").write_text(SUPERPOWERS, encoding="utf-8")
    (repo / "plan.md").symlink_to(repo / "plans" / "real.md")
    assert [t.name for _, t in load_plan(repo / "plan.md").plan.tasks()] == ["Task 1: Secret task"]
    phase = repo / ".planning" / "phases" / "01-x"
    phase.mkdir(parents=True)
    (repo / "kept").mkdir()
    (repo / "kept" / "01-01-PLAN.md").write_text(
        '---\nphase: 01-x\nplan: 01\n---\n<tasks>\n<task type="auto">\n<name>A</name>\n'
        "<done>done</done>\n</task>\n</tasks>\n",
        encoding="utf-8",
    )
    (phase / "01-01-PLAN.md").symlink_to(repo / "kept" / "01-01-PLAN.md")
    units = [u.id for _, u in load_plan(repo / ".planning").plan.units()]
    assert units == ["01-01"]  # a link that stays inside is read like the file it names


def test_a_fifo_is_refused_instead_of_read(tmp_path: Path) -> None:
    fifo = tmp_path / "plan.md"
    os.mkfifo(fifo)
    with pytest.raises(PlanError, match="not a regular file"):
        load_plan(fifo)  # opening it for reading would wait for a writer forever
    with pytest.raises(PlanError, match="not a regular file"):
        read_document(fifo, "plan.md")


# ---------------------------------------------------------------- paths that leave


@pytest.mark.parametrize(
    ("field", "where"),
    [
        ("        must_haves: {artifacts: [{path: ../../etc/passwd}]}\n", "artifact"),
        ("        must_haves: {artifacts: [{path: /etc/passwd}]}\n", "artifact"),
        (
            "        must_haves: {key_links: [{from: ~/.ssh/config, to: src/a.py}]}\n",
            "key link",
        ),
        (
            "        must_haves: {truths: [x]}\n        source: {file: ../outside.md, line: 3}\n",
            "source file",
        ),
    ],
)
def test_paths_outside_the_repository_are_errors_in_show_and_check(
    tmp_path: Path, field: str, where: str
) -> None:
    units = "      - id: a\n" + field + "        tasks:\n          - {id: '1', name: a, done: d}\n"
    path = tmp_path / "plan.yaml"
    path.write_text(native(units), encoding="utf-8")
    refused_alike(path, where, "outside the repository", "plan.yaml:")


def test_a_phase_directory_outside_is_an_error(tmp_path: Path) -> None:
    path = tmp_path / "plan.yaml"
    text = native(UNIT_A).replace("    name: one\n", "    name: one\n    directory: ../../x\n")
    path.write_text(text, encoding="utf-8")
    refused_alike(path, "phase directory", "climbs out")


def test_a_file_the_agent_is_told_to_read_outside_is_only_a_warning(tmp_path: Path) -> None:
    # Real GSD plans list absolute `read_first` paths; mergegate never opens them.
    path = tmp_path / "plan.yaml"
    path.write_text(native(UNIT_A.replace("done: built", "done: built, read_first: [/x/y.md]")))
    code, out, _ = invoke("plan", "check", str(path))
    assert code == 0
    assert "warning: a file unit a names '/x/y.md' is an absolute path" in out


# ---------------------------------------------------------------- ids


def test_repeated_unit_ids_stop_show_as_well_as_check(tmp_path: Path) -> None:
    second = "  - id: '2'\n    name: two\n    units:\n" + UNIT_A
    path = tmp_path / "plan.yaml"
    path.write_text(native(UNIT_A, phases=second), encoding="utf-8")
    err = refused_alike(path, "unit id 'a' is used twice")
    assert "cannot run" not in err  # the tree's header says it, on stdout
    _, out, _ = invoke("plan", "show", str(path))
    assert out.splitlines()[0].endswith("cannot run: 1 error(s), see stderr")


def test_repeated_task_ids_in_a_unit_are_an_error(tmp_path: Path) -> None:
    units = UNIT_A + "          - {id: '1', name: again, done: d}\n"
    path = tmp_path / "plan.yaml"
    path.write_text(native(units), encoding="utf-8")
    refused_alike(path, "task of unit a id '1' is used twice")


@pytest.mark.parametrize(
    ("first", "second", "code"),
    [
        ("auth", "\u0430uth", "bad-id"),  # Cyrillic а: outside the alphabet
        ("01-01", "01-0l", "confusable-id"),  # l for 1
        ("build", "Build", "confusable-id"),  # one folder on a case-insensitive disk
        ("modern", "modem", "confusable-id"),  # rn for m
        ("1-1", "01-01", "confusable-id"),  # leading zeros
        ("a\u200bb", "ab", "bad-id"),  # a zero-width space
    ],
)
def test_look_alike_ids_are_errors(tmp_path: Path, first: str, second: str, code: str) -> None:
    unit_b = UNIT_A.replace("id: a", f"id: '{second}'")
    path = tmp_path / "plan.yaml"
    path.write_text(native(UNIT_A.replace("id: a", f"id: '{first}'") + unit_b), encoding="utf-8")
    issues = check_plan(load_plan(path).plan)
    assert code in [i.code for i in issues if i.severity.value == "error"]
    refused_alike(path, "plan.yaml:")


_ALPHABET = string.ascii_letters + string.digits + "._-"
_ids = st.text(_ALPHABET, min_size=1, max_size=12).filter(
    lambda s: s[0].isalnum() and ".." not in s and not s.endswith((".", ".lock"))
)
_LOOKS = {"0": "O", "O": "0", "o": "0", "1": "l", "l": "1", "I": "l", "i": "l"}


def _plan_of(*ids: str) -> Plan:
    units = tuple(
        Unit(id=i, tasks=(Task(id="1", name="t", done="d"),), must_haves=MustHaves(truths=("x",)))
        for i in ids
    )
    return Plan(format=PlanFormat.NATIVE, phases=(Phase(id="1", units=units),))


def _errors(plan: Plan) -> set[str]:
    return {issue.code for issue in check_plan(plan) if issue.severity.value == "error"}


@settings(max_examples=200, deadline=None)
@given(_ids, st.data())
def test_any_look_alike_of_an_id_is_refused(unit_id: str, data: st.DataObject) -> None:
    """For every id, a variant a reader cannot tell from it is refused beside it."""
    spots = [k for k, ch in enumerate(unit_id) if ch in _LOOKS or ch.isalpha()]
    if not spots:
        return
    k = data.draw(st.sampled_from(spots))
    ch = unit_id[k]
    twin = unit_id[:k] + (_LOOKS.get(ch) or ch.swapcase()) + unit_id[k + 1 :]
    if twin == unit_id:
        return
    assert _errors(_plan_of(unit_id)) == set()
    assert _errors(_plan_of(unit_id, twin)) & {"confusable-id", "bad-id"}


@settings(max_examples=200, deadline=None)
@given(st.text(min_size=1, max_size=12))
def test_an_id_outside_the_alphabet_is_refused(unit_id: str) -> None:
    ok = (
        all(ch in _ALPHABET for ch in unit_id)
        and unit_id[0].isalnum()
        and ".." not in unit_id
        and not unit_id.endswith((".", ".lock"))
    )
    assert ("bad-id" in _errors(_plan_of(unit_id))) is not ok


# ---------------------------------------------------------------- NUL, bidi, depth


def test_a_nul_byte_in_a_markdown_plan_is_refused_at_its_line(tmp_path: Path) -> None:
    path = tmp_path / "plan.md"
    path.write_text(SUPERPOWERS.replace("`pytest -q`", "`pytest -q\x00; rm -rf ~`"))
    err = refused_alike(path, "plan.md:12:", "NUL")
    assert err.count("\n") == 1


def test_a_nul_escape_in_native_yaml_is_refused(tmp_path: Path) -> None:
    path = tmp_path / "plan.yaml"
    path.write_text(native(UNIT_A.replace("done: built", 'done: "built\\0hidden"')))
    refused_alike(path, "plan.yaml:", "U+0000")


def test_a_bidirectional_override_is_refused(tmp_path: Path) -> None:
    path = tmp_path / "plan.md"
    path.write_text(SUPERPOWERS.replace("Secret task", "Secret \u202etask"))
    refused_alike(path, "plan.md:5:", "U+202E")


def test_yaml_nested_too_deep_is_one_line_not_a_traceback(tmp_path: Path) -> None:
    path = tmp_path / "plan.yaml"
    deep = 100_000
    path.write_text(native(UNIT_A) + "extra_field: " + "[" * deep + "]" * deep + "\n")
    err = refused_alike(path, "plan.yaml:", "nested deeper than")
    assert err.count("\n") == 1


@pytest.mark.parametrize(
    "value",
    [
        "[" * 100_000 + "]" * 100_000,  # libyaml refuses it; the lenient reader must too
        "\n" + "".join("  " * i + "-\n" for i in range(1, 300)),  # block nesting
    ],
)
def test_gsd_frontmatter_nested_too_deep_is_an_error(tmp_path: Path, value: str) -> None:
    path = tmp_path / "01-01-PLAN.md"
    path.write_text(
        f'---\nphase: 01-x\nplan: 01\nnote: {value}\n---\n<tasks>\n<task type="auto">\n'
        "<name>A</name>\n<done>d</done>\n</task>\n</tasks>\n"
    )
    refused_alike(path, "01-01-PLAN.md:", "nested deeper than")


# ---------------------------------------------------------------- dependencies, one gate


def _cyclic() -> Plan:
    def unit(uid: str, dep: str) -> Unit:
        return Unit(
            id=uid,
            depends_on=(dep,),
            tasks=(Task(id="1", name="t", done="d"),),
            must_haves=MustHaves(artifacts=(Artifact(path="src/a.py"),)),
        )

    one = Phase(id="1", units=(unit("a", "b"), unit("b", "a")))
    two = Phase(id="2", units=(unit("c", "nowhere"),))
    fine = Phase(id="3", units=(Unit(id="d", must_haves=MustHaves(truths=("x",))),))
    return Plan(format=PlanFormat.NATIVE, phases=(one, two, fine))


def test_cycles_and_missing_dependencies_stop_run_and_verify_at_one_gate() -> None:
    plan = _cyclic()
    with pytest.raises(PlanError, match="dependency cycle"):
        require_runnable(plan)
    with pytest.raises(PlanError, match="dependency cycle"):
        require_valid(plan, phase="1")
    with pytest.raises(PlanError, match="'nowhere', which is no unit"):
        require_valid(plan, phase="2")
    require_valid(plan, phase="3")  # a record of finished work: no tasks needed, own phase only
    with pytest.raises(PlanError, match="no tasks"):
        require_runnable(plan, phase="3")


def test_verify_refuses_a_phase_with_a_cycle(tmp_path: Path) -> None:
    path = tmp_path / "plan.json"
    path.write_text(_cyclic().model_dump_json(by_alias=True))
    code, _, err = invoke("verify", str(path), "--phase", "1", "--dry-run", "--repo", str(tmp_path))
    assert code == 2
    assert "dependency cycle" in err
    assert "Traceback" not in err
    code, _, _ = invoke("verify", str(path), "--phase", "3", "--dry-run", "--repo", str(tmp_path))
    assert code == 0


def test_show_exits_2_on_a_cycle(tmp_path: Path) -> None:
    path = tmp_path / "plan.yaml"
    units = UNIT_A.replace("      - id: a\n", "      - id: a\n        depends_on: [b]\n")
    units += UNIT_A.replace("id: a", "id: b").replace(
        "      - id: b\n", "      - id: b\n        depends_on: [a]\n"
    )
    path.write_text(native(units), encoding="utf-8")
    refused_alike(path, "dependency cycle")


def test_run_refuses_what_plan_check_refuses(tmp_path: Path) -> None:
    # Look-alike unit ids were accepted by `run` (they name two branches a person cannot
    # tell apart); it now refuses them at the same gate, with the same file:line.
    unit_b = UNIT_A.replace("id: a", "id: A")
    path = tmp_path / "plan.yaml"
    path.write_text(native(UNIT_A + unit_b), encoding="utf-8")
    code, out, err = invoke("run", str(path), "--dry-run", "--repo", str(tmp_path))
    assert code == 2
    assert out == ""
    assert err.startswith("mergegate: error: plan.yaml:")
    assert "unit id 'A' looks like 'a'" in err
    assert err.count("\n") == 1
