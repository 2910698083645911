"""Git in a workspace mergegate made obeys only mergegate (`mergegate.git`): every way an agent
can make a workspace's `.git` send git elsewhere is refused before git runs, destructive
commands never leave the workspace's root, commits sit on the commit the caller recorded
whatever the agent committed, and a branch moves only from the tip the caller recorded."""

from __future__ import annotations

import os
import shutil
from collections.abc import Callable
from pathlib import Path

import pytest

from _gitrepo import git, write_files
from mergegate.decisions import ExitCode
from mergegate.errors import UsageError
from mergegate.git import (
    BranchMovedError,
    GitRepository,
    Workspace,
    WorkspaceError,
    add_workspace,
    advance_branch,
    check_workspace,
    commit_with_key,
    identify,
    prepare_merge,
    publish,
    reset_clean,
    run_git,
    snapshot_worktree,
    verify_unchanged,
)

BRANCH = "mergegate-unit/r1/U1"


@pytest.fixture(autouse=True)
def home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A scratch HOME with files that must survive whatever happens in a workspace."""
    path = tmp_path / "home"
    path.mkdir()
    (path / "canary.txt").write_text("keep me\n")
    monkeypatch.setenv("HOME", str(path))
    monkeypatch.delenv("XDG_CONFIG_HOME", raising=False)
    return path


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    """The user's repository: `main` checked out at one commit."""
    root = tmp_path / "repo"
    root.mkdir()
    git(root, "init", "-q", "-b", "main")
    git(root, "config", "user.email", "t@example.com")
    git(root, "config", "user.name", "t")
    write_files(root, {"a.txt": "a\n"})
    git(root, "add", "-A")
    git(root, "commit", "-qm", "base")
    return root


@pytest.fixture
def made(repo: Path, tmp_path: Path) -> tuple[Workspace, str]:
    """A unit's workspace on `BRANCH` at `main`, and `main`'s commit."""
    base = git(repo, "rev-parse", "main")
    workspace, head = add_workspace(repo, tmp_path / "ws" / "U1", BRANCH, base)
    assert head == base
    return workspace, base


# ---------------------------------------------------------------- the .git check

Tamper = Callable[[Path, Path], None]
"""Does to a workspace root what an agent could, given the user's repository."""


def _gitfile(root: Path, repo: Path) -> None:
    shutil.rmtree(root / ".git")
    (root / ".git").write_text(f"gitdir: {repo / '.git'}\n")


def _symlink(root: Path, repo: Path) -> None:
    shutil.rmtree(root / ".git")
    (root / ".git").symlink_to(repo / ".git")


def _moved_in(root: Path, repo: Path) -> None:
    """The user's `.git` itself moved into the workspace (a real directory, not ours)."""
    shutil.rmtree(root / ".git")
    shutil.move(str(repo / ".git"), str(root / ".git"))


def _copied(root: Path, repo: Path) -> None:
    shutil.rmtree(root / ".git")
    shutil.copytree(repo / ".git", root / ".git")


def _commondir(root: Path, repo: Path) -> None:
    (root / ".git" / "commondir").write_text(f"{repo / '.git'}\n")


def _refs_link(root: Path, repo: Path) -> None:
    shutil.rmtree(root / ".git" / "refs" / "heads")
    (root / ".git" / "refs" / "heads").symlink_to(repo / ".git" / "refs" / "heads")


def _deep_refs_link(root: Path, repo: Path) -> None:
    deep = root / ".git" / "refs" / "heads" / "mergegate-unit"
    shutil.rmtree(deep)
    deep.symlink_to(repo / ".git" / "refs" / "heads")


def _index_link(root: Path, repo: Path) -> None:
    (root / ".git" / "index").unlink()
    (root / ".git" / "index").symlink_to(repo / ".git" / "index")


def _objects_link(root: Path, repo: Path) -> None:
    shutil.rmtree(root / ".git" / "objects")
    (root / ".git" / "objects").symlink_to(repo / ".git" / "objects")


def _log_hardlink(root: Path, repo: Path) -> None:
    log = root / ".git" / "logs" / "HEAD"
    log.unlink()
    os.link(repo / ".git" / "logs" / "HEAD", log)


def _root_symlink(root: Path, repo: Path) -> None:
    shutil.move(str(root), str(root.with_name("elsewhere")))
    root.symlink_to(repo)


def _root_gone(root: Path, repo: Path) -> None:
    shutil.rmtree(root)


TAMPERS: dict[str, tuple[Tamper, str]] = {
    "gitfile": (_gitfile, "gitfile"),
    "symlink": (_symlink, "symlink"),
    "the user's .git moved in": (_moved_in, "replaced"),
    "commondir": (_commondir, "commondir"),
    "refs/heads symlinked": (_refs_link, "link"),
    "a ref directory symlinked": (_deep_refs_link, "link"),
    "index symlinked": (_index_link, "link"),
    "objects symlinked": (_objects_link, "link"),
    "a reflog hard-linked": (_log_hardlink, "link"),
    "the root a symlink": (_root_symlink, "symlink"),
    "the root removed": (_root_gone, "missing"),
}


@pytest.mark.parametrize("name", sorted(TAMPERS))
def test_a_tampered_workspace_runs_no_git_at_all(
    name: str, repo: Path, made: tuple[Workspace, str], home: Path
) -> None:
    workspace, base = made
    tamper, words = TAMPERS[name]
    git(workspace.root, "config", "core.worktree", str(home))  # and the HOME attack on top
    user_index = (repo / ".git" / "index").read_bytes()
    tamper(workspace.root, repo)
    with pytest.raises(WorkspaceError, match=words) as caught:
        check_workspace(workspace)
    assert caught.value.exit_code is ExitCode.ESCALATED
    # every operation refuses before git runs: nothing reset, cleaned or committed anywhere
    write_files(home, {"untracked.txt": "mine\n"})
    for operation in (
        lambda: reset_clean(workspace, base),
        lambda: commit_with_key(workspace, "m", "Mergegate-Task: r1/U1/T1", onto=base),
        lambda: run_git(workspace, "status"),
        lambda: publish(repo, workspace, "0" * 40, base, branch="x"),
    ):
        with pytest.raises(WorkspaceError):
            operation()
    assert (home / "canary.txt").read_text() == "keep me\n"
    assert (home / "untracked.txt").read_text() == "mine\n"
    # the user's repository (wherever the agent put its .git) is as it was
    users = repo / ".git" if (repo / ".git").is_dir() else workspace.root / ".git"
    assert git(repo, f"--git-dir={users}", "rev-parse", "main") == base
    assert git(repo, f"--git-dir={users}", "branch", "--list", "x") == ""
    assert (users / "index").read_bytes() == user_index


def test_a_git_dir_recreated_as_a_copy_of_the_users_is_refused_or_confined(
    repo: Path, made: tuple[Workspace, str], home: Path
) -> None:
    """A new `.git` directory may get the freed inode of the old one back (filesystems reuse
    inode numbers), so the identity alone cannot always tell a recreated `.git`; the
    structural checks make it harmless: git's writes stay in it and in the workspace."""
    workspace, base = made
    user_index = (repo / ".git" / "index").read_bytes()
    _copied(workspace.root, repo)
    git(workspace.root, "config", "core.worktree", str(home))
    write_files(workspace.root, {"b.txt": "b\n"})
    try:
        commit_with_key(workspace, "T1", "Mergegate-Task: r1/U1/T1", onto=base)
        reset_clean(workspace, base)
    except WorkspaceError:
        pass  # refused: the inode was not reused
    assert git(repo, "rev-parse", "main") == base
    assert (repo / ".git" / "index").read_bytes() == user_index
    assert git(repo, "status", "--porcelain") == ""
    assert sorted(p.name for p in home.iterdir()) == ["canary.txt"]


def test_an_untouched_workspace_passes_and_is_named_explicitly(
    made: tuple[Workspace, str],
) -> None:
    workspace, _ = made
    check_workspace(workspace)
    assert identify(workspace.root) == workspace
    out = run_git(workspace, "rev-parse", "--show-toplevel", "--absolute-git-dir")
    assert out.stdout.decode().split() == [str(workspace.root), str(workspace.git_dir)]


def test_the_check_is_bounded(made: tuple[Workspace, str]) -> None:
    workspace, _ = made
    many = workspace.git_dir / "refs" / "tags"
    for i in range(10_001):
        (many / f"t{i}").touch()
    with pytest.raises(WorkspaceError, match="more than"):
        check_workspace(workspace)


# ---------------------------------------------------------------- where git works


def test_core_worktree_never_moves_a_reset_out_of_the_workspace(
    made: tuple[Workspace, str], home: Path
) -> None:
    workspace, base = made
    git(workspace.root, "config", "core.worktree", str(home))
    git(workspace.root, "config", "core.bare", "true")
    write_files(workspace.root, {"a.txt": "edited\n", "junk/b.txt": "b\n"})
    reset_clean(workspace, base)
    assert (home / "canary.txt").read_text() == "keep me\n"
    assert sorted(p.name for p in home.iterdir()) == ["canary.txt"]
    assert (workspace.root / "a.txt").read_text() == "a\n"
    assert not (workspace.root / "junk").exists()


@pytest.mark.parametrize(
    "args",
    [
        ("reset", "-q", "--hard"),
        ("clean", "-f", "-d"),
        ("-c", "user.name=x", "checkout", "--", "."),
        ("restore", "a.txt"),
        ("read-tree", "-u", "--reset", "HEAD"),
        ("stash",),
    ],
)
def test_destructive_commands_run_only_in_a_workspace(repo: Path, args: tuple[str, ...]) -> None:
    write_files(repo, {"a.txt": "yours\n", "untracked.txt": "yours too\n"})
    with pytest.raises(UsageError, match="not a workspace mergegate made"):
        run_git(repo, *args)
    assert (repo / "a.txt").read_text() == "yours\n"
    assert (repo / "untracked.txt").read_text() == "yours too\n"


def test_a_snapshot_of_a_workspace_reads_the_workspace_not_core_worktree(
    made: tuple[Workspace, str], home: Path
) -> None:
    workspace = made[0]
    git(workspace.root, "config", "core.worktree", str(home))
    snapshot = snapshot_worktree(workspace.root)
    assert snapshot is not None
    assert snapshot.toplevel == workspace.root
    assert snapshot.status == ()  # $HOME's files are not the workspace's untracked files
    assert verify_unchanged(snapshot) == []
    _gitfile(workspace.root, workspace.root.parent)
    assert verify_unchanged(snapshot)


def test_the_repository_of_a_workspace_commits_there(
    made: tuple[Workspace, str], home: Path
) -> None:
    workspace = made[0]
    git(workspace.root, "config", "core.worktree", str(home))
    write_files(workspace.root, {"a.txt": "changed\n"})
    sha = GitRepository(workspace).commit_all("fix")
    assert sha is not None
    assert git(workspace.root, "--work-tree", str(workspace.root), "show", f"{sha}:a.txt") == (
        "changed"
    )
    assert sorted(p.name for p in home.iterdir()) == ["canary.txt"]


def test_an_existing_workspace_not_shaped_as_made_is_made_again(
    repo: Path, made: tuple[Workspace, str]
) -> None:
    workspace, base = made
    _gitfile(workspace.root, repo)
    again, head = add_workspace(repo, workspace.root, BRANCH, base)
    assert head == base
    assert (again.root / ".git").is_dir()
    check_workspace(again)
    assert git(repo, "rev-parse", "main") == base


# ---------------------------------------------------------------- commits on recorded parents


def test_a_forged_task_trailer_never_passes_for_mergegates_commit(
    made: tuple[Workspace, str],
) -> None:
    """The agent's own commit carries the very trailer mergegate would write, and another
    unit's: mergegate still makes its own commit on the recorded parent, folding the agent's
    in, with a message of its own."""
    workspace, base = made
    write_files(workspace.root, {"b.txt": "b\n"})
    git(workspace.root, "add", "-A")
    key = "Mergegate-Task: r1/U1/T1"
    git(workspace.root, "commit", "-qm", f"agent\n\n{key}\nMergegate-Unit: r1/U2")
    agents = git(workspace.root, "rev-parse", "HEAD")
    write_files(workspace.root, {"c.txt": "not committed by the agent\n"})
    sha = commit_with_key(workspace, "T1: do it", key, onto=base)
    assert sha not in (None, agents)
    assert git(workspace.root, "rev-parse", f"{sha}^") == base
    assert git(workspace.root, "log", "-1", "--format=%B", sha).splitlines() == [
        "T1: do it",
        "",
        key,
    ]
    assert git(workspace.root, "ls-tree", "--name-only", sha).split() == ["a.txt", "b.txt", "c.txt"]


def test_an_empty_forged_commit_is_nothing_to_commit(made: tuple[Workspace, str]) -> None:
    workspace, base = made
    git(workspace.root, "commit", "-q", "--allow-empty", "-m", "x\n\nMergegate-Task: r1/U1/T1")
    assert commit_with_key(workspace, "T1", "Mergegate-Task: r1/U1/T1", onto=base) is None


def test_a_commit_made_again_after_a_crash_is_the_same_tree_on_the_same_parent(
    made: tuple[Workspace, str],
) -> None:
    workspace, base = made
    write_files(workspace.root, {"b.txt": "b\n"})
    first = commit_with_key(workspace, "T1", "Mergegate-Task: r1/U1/T1", onto=base)
    again = commit_with_key(workspace, "T1", "Mergegate-Task: r1/U1/T1", onto=base)
    assert first is not None
    assert again is not None
    trees = git(workspace.root, "rev-parse", f"{first}^{{tree}}", f"{again}^{{tree}}").split()
    assert trees[0] == trees[1]
    assert git(workspace.root, "rev-parse", f"{again}^") == base


def test_an_amend_folds_into_the_recorded_commit_and_keeps_its_message(
    made: tuple[Workspace, str],
) -> None:
    workspace, base = made
    write_files(workspace.root, {"b.txt": "b\n"})
    task = commit_with_key(workspace, "T1: do it", "Mergegate-Task: r1/U1/T1", onto=base)
    assert task is not None
    write_files(workspace.root, {"b.txt": "fixed\n"})
    git(workspace.root, "commit", "-qam", "agent's own message\n\nMergegate-Unit: r1/U2")
    fixed = commit_with_key(
        workspace, "unused", "Mergegate-Fix: r1/U1/T1/r01", onto=task, amend=True
    )
    assert fixed is not None
    assert git(workspace.root, "rev-parse", f"{fixed}^") == base
    message = git(workspace.root, "log", "-1", "--format=%B", fixed)
    assert message.splitlines() == [
        "T1: do it",
        "",
        "Mergegate-Task: r1/U1/T1",
        "Mergegate-Fix: r1/U1/T1/r01",
    ]


# ---------------------------------------------------------------- compare and swap


def test_a_branch_moves_only_from_the_recorded_tip(repo: Path, made: tuple[Workspace, str]) -> None:
    workspace, base = made
    write_files(workspace.root, {"b.txt": "b\n"})
    head = commit_with_key(workspace, "T1", "Mergegate-Task: r1/U1/T1", onto=base)
    assert head is not None
    publish(repo, workspace, head, base, branch=BRANCH)
    git(repo, "branch", "mergegate/r1", base)
    merge = prepare_merge(repo, base, head, "Merge unit U1", "Mergegate-Unit: r1/U1")
    assert merge.commit is not None
    assert git(repo, "rev-parse", "mergegate/r1") == base  # prepared on no branch
    assert advance_branch(repo, "mergegate/r1", base, merge.commit, "merge") is True
    assert advance_branch(repo, "mergegate/r1", base, merge.commit, "merge") is False
    # someone moves it; mergegate's next move from its recorded tip is refused, naming both
    git(repo, "branch", "-f", "mergegate/r1", base)
    with pytest.raises(BranchMovedError) as caught:
        advance_branch(repo, "mergegate/r1", merge.commit, head, "merge")
    assert caught.value.expected == merge.commit
    assert caught.value.found == base
    assert f"left it at {merge.commit}" in str(caught.value)
    assert f"now at {base}" in str(caught.value)
    assert caught.value.exit_code is ExitCode.ESCALATED
    assert git(repo, "rev-parse", "mergegate/r1") == base
    git(repo, "branch", "-D", "mergegate/r1")
    with pytest.raises(BranchMovedError, match="deleted"):
        advance_branch(repo, "mergegate/r1", base, merge.commit, "merge")


def test_a_branch_moved_error_survives_pickling() -> None:
    import pickle

    error = BranchMovedError("mergegate/r1", "a" * 40, None)
    again = pickle.loads(pickle.dumps(error))
    assert isinstance(again, BranchMovedError)
    assert (again.branch, again.expected, again.found, str(again)) == (
        error.branch,
        error.expected,
        None,
        str(error),
    )


def test_the_new_commit_is_read_from_the_ref_git_wrote_not_asked_for(
    made: tuple[Workspace, str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """After its own commit, mergegate reads HEAD and the ref it names from the files git just
    wrote (no `rev-parse`): the same id git gives; a symbolic ref to a symbolic ref is asked."""
    from mergegate.git import _workspaces

    asked: list[tuple[str, ...]] = []
    real = _workspaces.run_git

    def counted(where: object, *args: str, **kwargs: object) -> object:
        asked.append(args)
        return real(where, *args, **kwargs)  # type: ignore[arg-type]

    monkeypatch.setattr(_workspaces, "run_git", counted)
    workspace, base = made
    write_files(workspace.root, {"b.txt": "b\n"})
    sha = commit_with_key(workspace, "T1", "Mergegate-Task: r1/U1/T1", onto=base)
    assert sha == git(workspace.root, "rev-parse", "HEAD")
    assert not [a for a in asked if "rev-parse" in a]
    # HEAD -> refs/heads/alias -> the branch: git says where it leads
    branch = git(workspace.root, "symbolic-ref", "HEAD")
    git(workspace.root, "symbolic-ref", "refs/heads/alias", branch)
    git(workspace.root, "symbolic-ref", "HEAD", "refs/heads/alias")
    write_files(workspace.root, {"c.txt": "c\n"})
    again = commit_with_key(workspace, "T2", "Mergegate-Task: r1/U1/T2", onto=sha)
    assert again == git(workspace.root, "rev-parse", "HEAD")
    assert again != sha
    assert [a for a in asked if "rev-parse" in a]


# ---------------------------------------------------------------- processes per unit


def _record_git(monkeypatch: pytest.MonkeyPatch, *modules: object) -> list[tuple[str, ...]]:
    """Every git command the given modules run, from now on."""
    asked: list[tuple[str, ...]] = []
    for module in modules:
        real = module.run_git  # type: ignore[attr-defined]

        def counted(where: object, *args: str, _real: object = real, **kwargs: object) -> object:
            asked.append(args)
            return _real(where, *args, **kwargs)  # type: ignore[operator]

        monkeypatch.setattr(module, "run_git", counted)
    return asked


@pytest.mark.parametrize("object_format", ["sha1", "sha256"])
def test_a_workspace_is_made_without_git_init_and_reads_as_one_git_made(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, object_format: str
) -> None:
    """The `.git` of a workspace (and of a review checkout) is written without `git init`,
    and is what `git init --template=` makes: the same local config, HEAD unborn, the
    object format of the source; git reads it and commits in it."""
    from mergegate.git import _checkout, _workspaces

    source = tmp_path / "src"
    source.mkdir()
    git(source, "init", "-q", "-b", "main", f"--object-format={object_format}")
    write_files(source, {"a.txt": "a\n"})
    git(source, "add", "-A")
    git(source, "-c", "user.email=t@e", "-c", "user.name=t", "commit", "-qm", "base")
    base = git(source, "rev-parse", "main")
    asked = _record_git(monkeypatch, _checkout, _workspaces)
    workspace, head = add_workspace(source, tmp_path / "ws", BRANCH, base)
    assert head == base
    assert not [a for a in asked if "init" in a]
    by_git = tmp_path / "by-git"
    by_git.mkdir()
    git(by_git, "init", "-q", "--template=", f"--object-format={object_format}", ".")
    local = ("config", "--local", "--list")
    settings = set(git(by_git, *local).splitlines())
    assert settings <= set(git(tmp_path / "ws", *local).splitlines())
    assert git(tmp_path / "ws", "rev-parse", "--show-object-format") == object_format
    assert git(tmp_path / "ws", "rev-parse", "HEAD") == base
    write_files(workspace.root, {"b.txt": "b\n"})
    sha = commit_with_key(workspace, "T1", "Mergegate-Task: r1/U1/T1", onto=base)
    assert sha is not None
    made_here = {p.relative_to(tmp_path / "ws") for p in (tmp_path / "ws" / ".git").rglob("*")}
    assert {p.relative_to(by_git) for p in (by_git / ".git").rglob("*")} <= made_here


def test_publishing_the_workspaces_head_sets_no_ref_of_its_own(
    repo: Path, made: tuple[Workspace, str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """The unit's last commit, where the workspace's HEAD is, travels as a bundle of HEAD: no
    `update-ref` in the workspace first; a commit HEAD has moved away from is still carried
    (through mergegate's own ref), and the repository gets exactly that commit."""
    from mergegate.git import _workspaces

    workspace, base = made
    write_files(workspace.root, {"b.txt": "b\n"})
    first = commit_with_key(workspace, "T1", "Mergegate-Task: r1/U1/T1", onto=base)
    assert first is not None
    asked = _record_git(monkeypatch, _workspaces)
    publish(repo, workspace, first, base, branch=BRANCH)
    assert [a[0] for a in asked] == ["bundle", "bundle", "update-ref"]
    assert git(repo, "rev-parse", f"refs/heads/{BRANCH}") == first
    # HEAD moves on: the commit published is still the one asked for
    write_files(workspace.root, {"c.txt": "c\n"})
    second = commit_with_key(workspace, "T2", "Mergegate-Task: r1/U1/T2", onto=first)
    assert second is not None
    write_files(workspace.root, {"d.txt": "d\n"})
    third = commit_with_key(workspace, "T3", "Mergegate-Task: r1/U1/T3", onto=second)
    assert third is not None
    publish(repo, workspace, second, first, branch=BRANCH)
    assert git(repo, "rev-parse", f"refs/heads/{BRANCH}") == second
    assert git(repo, "cat-file", "-t", second) == "commit"
    assert run_git(repo, "cat-file", "-e", third).returncode != 0


def _count_listings(monkeypatch: pytest.MonkeyPatch) -> list[Path]:
    """The places `git config --list` runs in, from now on."""
    from mergegate.git import _command

    listed: list[Path] = []
    real = _command.run_command

    def counting(argv: list[str], cwd: Path, *args: object, **kwargs: object) -> object:
        if "--show-origin" in argv:
            listed.append(cwd)
        return real(argv, cwd, *args, **kwargs)  # type: ignore[arg-type]

    monkeypatch.setattr(_command, "run_command", counting)
    return listed


def test_a_workspace_whose_config_holds_the_same_bytes_is_not_listed_again(
    repo: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Every workspace of a run gets the same config written: the key names listed for one
    serve the next (a `git config --list` fewer, two a unit), while a workspace whose config
    differs — an agent's filter, a changed global file — is listed anew and its driver is
    switched off."""
    base = git(repo, "rev-parse", "main")
    listed = _count_listings(monkeypatch)
    first, _ = add_workspace(repo, tmp_path / "ws" / "U1", BRANCH, base)
    assert run_git(first, "diff", "--stat").ok
    second, _ = add_workspace(repo, tmp_path / "ws" / "U2", "mergegate-unit/r1/U2", base)
    assert run_git(second, "diff", "--stat").ok
    assert [p for p in listed if p != repo] == [first.root]
    third, _ = add_workspace(repo, tmp_path / "ws" / "U3", "mergegate-unit/r1/U3", base)
    marker = tmp_path / "ran"
    with (third.git_dir / "config").open("a") as handle:
        handle.write(f'[filter "x"]\n\tclean = touch {marker}\n\trequired = true\n')
    write_files(third.root, {".gitattributes": "* filter=x\n", "b.txt": "b\n"})
    assert commit_with_key(third, "T1", "Mergegate-Task: r1/U3/T1", onto=base) is not None
    assert [p for p in listed if p != repo] == [first.root, third.root]
    assert not marker.exists()
