"""The whole-file edit protocol: strict parsing, and writes that never leave the work tree."""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from mergegate.agents.edits import (
    MAX_FILES,
    EditProtocolError,
    FileEdit,
    apply_file_edits,
    check_edit_path,
    parse_file_edits,
    parse_until_repeat,
)


def block(path: str, *lines: str) -> str:
    return "".join([f"FILE: {path}\n", "<<<<<<< CONTENT\n", *(f"{x}\n" for x in lines)]) + (
        ">>>>>>> END\n"
    )


# ------------------------------------------------------------------ parsing

PARSE_CASES = [
    pytest.param(block("a.py", "x = 1"), [("a.py", "x = 1\n")], id="one-block"),
    pytest.param(
        "Here you go:\n\n" + block("a.py", "x = 1") + "\nand\n" + block("pkg/b.py", "", "y"),
        [("a.py", "x = 1\n"), ("pkg/b.py", "\ny\n")],
        id="prose-around-two-blocks",
    ),
    pytest.param(block("empty.txt"), [("empty.txt", "")], id="empty-file"),
    pytest.param(
        "FILE: a.py  \r\n<<<<<<< CONTENT\r\nx\r\n>>>>>>> END\r\n",
        [("a.py", "x\n")],
        id="crlf-and-trailing-spaces",
    ),
    pytest.param(
        block("a.py", "FILE: b.py", "<<<<<<< CONTENT", "s = '>>>>>>> END!'"),
        [("a.py", "FILE: b.py\n<<<<<<< CONTENT\ns = '>>>>>>> END!'\n")],
        id="markers-inside-content-are-content",
    ),
    pytest.param("no blocks here\nFILE:x\n", [], id="no-blocks"),
    pytest.param("```\n" + block("a.py", "z") + "```\n", [("a.py", "z\n")], id="fenced"),
]


@pytest.mark.parametrize(("text", "expected"), PARSE_CASES)
def test_parse_file_edits(text: str, expected: list[tuple[str, str]]) -> None:
    assert [(e.path, e.content) for e in parse_file_edits(text)] == expected


ERROR_CASES = [
    pytest.param("FILE: a.py\nx\n>>>>>>> END\n", "must follow", id="no-open-marker"),
    pytest.param("FILE: a.py\n", "must follow", id="header-at-end"),
    pytest.param("FILE: a.py\n<<<<<<< CONTENT\nx = 1\n", "truncated", id="truncated"),
    pytest.param("FILE: \n<<<<<<< CONTENT\n>>>>>>> END\n", "empty path", id="empty-path"),
    pytest.param(block("a.py", "1") + block("a.py", "2"), "twice", id="duplicate"),
]


@pytest.mark.parametrize(("text", "message"), ERROR_CASES)
def test_parse_file_edits_fails_closed(text: str, message: str) -> None:
    with pytest.raises(EditProtocolError, match=message):
        parse_file_edits(text)


def test_parse_caps_the_number_of_files() -> None:
    text = "".join(block(f"f{i}.py", "x") for i in range(MAX_FILES + 1))
    with pytest.raises(EditProtocolError, match="more than"):
        parse_file_edits(text)


def test_parse_reports_the_header_line() -> None:
    with pytest.raises(EditProtocolError) as info:
        parse_file_edits("intro\n\nFILE: a.py\n<<<<<<< CONTENT\n")
    assert info.value.line == 3


def test_parse_is_linear_on_adversarial_input() -> None:
    # 200k header-looking lines without the marker would be quadratic with backtracking.
    text = "FILE: a\n" * 5 + "FILE:" * 200_000
    with pytest.raises(EditProtocolError):
        parse_file_edits(text)
    many_lines = block("big.txt", *(["x" * 50] * 20_000))
    assert len(parse_file_edits(many_lines)[0].content) == 51 * 20_000


# ------------------------------------------------------------------ paths


@pytest.fixture
def tree(tmp_path: Path) -> Path:
    root = tmp_path / "tree"
    (root / "pkg").mkdir(parents=True)
    (root / ".git").mkdir()
    (tmp_path / "outside").mkdir()
    return root


@pytest.mark.parametrize(
    ("path", "reason"),
    [
        ("/etc/passwd", "absolute"),
        ("../x.py", "'..'"),
        ("pkg/../../x.py", "'..'"),
        ("./a.py", "'.'"),
        ("a//b.py", "empty"),
        ("pkg/", "empty"),
        (".git/config", ".git"),
        ("sub/.GIT/hooks/pre-commit", ".git"),
        ("a\\..\\b.py", "backslash"),
        ("C:/x.py", "absolute"),
        ("a\x00b", "control"),
        ("a\nb", "control"),
        ("x" * 2000, "longer"),
    ],
)
def test_lexically_bad_paths_are_refused(tree: Path, path: str, reason: str) -> None:
    with pytest.raises(ValueError, match=reason):
        check_edit_path(tree, path)


def test_symlinked_directory_escaping_the_tree_is_refused(tree: Path) -> None:
    (tree / "link").symlink_to(tree.parent / "outside")
    with pytest.raises(ValueError, match="outside"):
        check_edit_path(tree, "link/evil.py")


def test_symlinked_file_escaping_the_tree_is_refused(tree: Path) -> None:
    target = tree.parent / "outside" / "victim.txt"
    target.write_text("keep")
    (tree / "victim.txt").symlink_to(target)
    outcome = apply_file_edits(tree, [FileEdit("victim.txt", "pwned\n", 1)])
    assert outcome.written == ()
    assert [p for p, _ in outcome.refused] == ["victim.txt"]
    assert target.read_text() == "keep"


def test_symlink_into_git_is_refused(tree: Path) -> None:
    (tree / "hooks").symlink_to(tree / ".git")
    with pytest.raises(ValueError, match=r"\.git"):
        check_edit_path(tree, "hooks/pre-commit")


def test_symlink_inside_the_tree_is_followed(tree: Path) -> None:
    (tree / "alias").symlink_to(tree / "pkg")
    assert check_edit_path(tree, "alias/m.py") == (tree / "pkg" / "m.py").resolve()


def test_file_used_as_a_directory_is_refused(tree: Path) -> None:
    (tree / "pkg" / "mod.py").write_text("x\n")
    with pytest.raises(ValueError, match="not a directory"):
        check_edit_path(tree, "pkg/mod.py/inner.py")


def test_same_batch_file_and_directory_conflict_is_refused(tree: Path) -> None:
    outcome = apply_file_edits(tree, [FileEdit("a", "x\n", 1), FileEdit("a/b", "y\n", 5)])
    assert outcome.written == ()
    assert [p for p, _ in outcome.refused] == ["a/b"]


def test_directory_target_is_refused(tree: Path) -> None:
    with pytest.raises(ValueError, match="directory"):
        check_edit_path(tree, "pkg")


# ------------------------------------------------------------------ applying


def test_apply_writes_files_and_parents(tree: Path) -> None:
    edits = parse_file_edits(block("pkg/new/mod.py", "A = 1") + block("README", "hi"))
    outcome = apply_file_edits(tree, edits)
    assert outcome.written == ("pkg/new/mod.py", "README")
    assert (tree / "pkg/new/mod.py").read_text() == "A = 1\n"
    assert (tree / "README").read_text() == "hi\n"
    assert not [p for p in tree.rglob("*.tmp")]


def test_apply_keeps_the_mode_of_an_existing_file(tree: Path) -> None:
    script = tree / "run.sh"
    script.write_text("old\n")
    script.chmod(0o755)
    apply_file_edits(tree, [FileEdit("run.sh", "new\n", 1)])
    assert script.read_text() == "new\n"
    assert script.stat().st_mode & 0o777 == 0o755


def test_one_refused_path_means_nothing_is_written(tree: Path) -> None:
    edits = [FileEdit("good.py", "x\n", 1), FileEdit("../evil.py", "y\n", 5)]
    outcome = apply_file_edits(tree, edits)
    assert outcome.written == ()
    assert outcome.refused[0][0] == "../evil.py"
    assert not (tree / "good.py").exists()
    assert not (tree.parent / "evil.py").exists()


# ------------------------------------------------------------------ property

SEGMENTS = st.sampled_from(
    ["a", "b.py", "..", ".", "", ".git", "link", "pkg", "~", "out", "c:", "\\", " ", "x\x00"]
)


@settings(
    max_examples=300, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(paths=st.lists(st.lists(SEGMENTS, min_size=1, max_size=5), min_size=1, max_size=4))
def test_no_generated_path_ever_writes_outside_the_tree(
    tmp_path_factory: pytest.TempPathFactory, paths: list[list[str]]
) -> None:
    base = tmp_path_factory.mktemp("prop")
    root, outside = base / "tree", base / "outside"
    (root / "pkg").mkdir(parents=True)
    (root / ".git").mkdir()
    outside.mkdir()
    (root / "link").symlink_to(outside)
    (root / "pkg" / "out").symlink_to(outside)
    edits = [FileEdit("/".join(p), "data\n", 1) for p in paths]
    edits += [FileEdit(str(outside / "abs.py"), "data\n", 1)] if len(paths) % 2 else []
    before_git = sorted(os.listdir(root / ".git"))
    outcome = apply_file_edits(root, _unique(edits))
    assert list(outside.iterdir()) == []
    assert sorted(os.listdir(root / ".git")) == before_git
    for written in outcome.written:
        real = Path(os.path.realpath(root / written))
        assert real.is_relative_to(root.resolve())
        assert ".git" not in real.relative_to(root.resolve()).parts
    assert bool(outcome.written) != bool(outcome.refused) or not edits


def _unique(edits: list[FileEdit]) -> list[FileEdit]:
    seen: dict[str, FileEdit] = {}
    for edit in edits:
        seen.setdefault(edit.path, edit)
    return list(seen.values())


# ------------------------------------------------------------------ a model that starts over


def test_until_repeat_keeps_the_first_block_of_each_file_and_ignores_the_rest() -> None:
    first = block("a.py", "x = 1") + block("b.py", "y = 2")
    again = block("a.py", "x = 3") + "FILE: b.py\n<<<<<<< CONTENT\ny = "  # cut off mid-block
    edits, repeat = parse_until_repeat(first + "note\n" + again)
    assert [(e.path, e.content) for e in edits] == [("a.py", "x = 1\n"), ("b.py", "y = 2\n")]
    assert repeat == 10  # the line of the repeated `FILE: a.py`
    with pytest.raises(EditProtocolError, match="appears twice"):
        parse_file_edits(first + again)  # the strict parser still refuses the whole answer


def test_until_repeat_is_strict_before_the_repeat() -> None:
    assert parse_until_repeat(block("a.py", "x")) == (parse_file_edits(block("a.py", "x")), None)
    with pytest.raises(EditProtocolError, match="no '>>>>>>> END'"):
        parse_until_repeat("FILE: a.py\n<<<<<<< CONTENT\nx\n")
    content_header = block("a.py", "FILE: a.py", "<<<<<<< CONTENT", "z")
    edits, repeat = parse_until_repeat(content_header)
    assert (len(edits), repeat) == (1, None)  # a header inside content is content
