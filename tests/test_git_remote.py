"""A fleet worker's mirror of a shared remote (`mergegate.git.Remote`): fetches and pushes over
the remote's own protocol only, compare-and-swap on the integration branch, and a unit's
workspace rebuilt on another host from what the first host pushed (its commits and its
uncommitted files)."""

from __future__ import annotations

from pathlib import Path

import pytest

from _gitrepo import git, write_files
from mergegate.errors import UsageError
from mergegate.git import (
    BranchMovedError,
    GitError,
    Remote,
    Workspace,
    add_workspace,
    commit_with_key,
    prepare_merge,
    push_branch,
    remote_protocol,
    remote_tip,
    remote_url,
    wip_branch,
)

BRANCH = "mergegate-unit/r1/U1"


@pytest.fixture
def origin(tmp_path: Path) -> Path:
    """A bare remote with `main` at one commit (pushed from a scratch clone)."""
    seed = tmp_path / "seed"
    seed.mkdir()
    git(seed, "init", "-q", "-b", "main")
    write_files(seed, {"a.txt": "a\n"})
    git(seed, "add", "-A")
    git(seed, "-c", "user.name=t", "-c", "user.email=t@t", "commit", "-q", "-m", "base")
    bare = tmp_path / "origin.git"
    git(tmp_path, "init", "-q", "--bare", str(bare))
    git(seed, "push", "-q", str(bare), "main")
    return bare


def _host(tmp_path: Path, origin: Path, name: str) -> Remote:
    return Remote(str(origin), tmp_path / name / "mirrors" / "origin.git")


def _unit_on(tmp_path: Path, origin: Path, name: str) -> tuple[Remote, Workspace, str]:
    """Host `name`'s mirror, and a unit workspace made there on `BRANCH` at `main`'s tip."""
    remote = _host(tmp_path, origin, name)
    with remote.locked():
        base = remote.fetch("main")["main"]
    assert base is not None
    ws, _ = add_workspace(remote.mirror, tmp_path / name / "ws", BRANCH, base)
    return remote, ws, base


def test_protocols_are_an_allow_list() -> None:
    assert remote_protocol("/srv/git/repo.git") == "file"
    assert remote_protocol("file:///srv/git/repo.git") == "file"
    assert remote_protocol("ssh://git@example.org/repo.git") == "ssh"
    assert remote_protocol("git@example.org:team/repo.git") == "ssh"
    for url in ("https://example.org/repo.git", "ext::sh -c evil", "git://example.org/r", "r"):
        with pytest.raises(UsageError):
            remote_protocol(url)
    with pytest.raises(UsageError, match="password"):
        remote_protocol("ssh://me:secret@example.org/repo.git")


def test_fetch_brings_the_remotes_tips_and_none_for_a_missing_branch(
    tmp_path: Path, origin: Path
) -> None:
    remote = _host(tmp_path, origin, "h1")
    with remote.locked():
        tips = remote.fetch("main", "nope")
    assert tips["main"] == git(origin, "rev-parse", "main")
    assert tips["nope"] is None


def test_the_integration_branch_moves_only_from_the_expected_tip(
    tmp_path: Path, origin: Path
) -> None:
    remote, ws, base = _unit_on(tmp_path, origin, "h1")
    write_files(ws.root, {"b.txt": "b\n"})
    head = commit_with_key(ws, "unit", "Mergegate-Task: r1/U1/T1", onto=base)
    assert head is not None
    remote.checkpoint(ws, BRANCH)
    merged = prepare_merge(remote.mirror, base, head, "merge U1", "Mergegate-Unit: r1/U1")
    assert merged.commit is not None
    with remote.locked():
        assert remote.advance("main", base, merged.commit) is True
        assert remote.advance("main", base, merged.commit) is False  # done before a crash
    assert git(origin, "rev-parse", "main") == merged.commit
    # a second writer holding the old tip is refused, and the remote keeps the first merge
    with remote.locked(), pytest.raises(GitError):
        remote.push_branch("main", head, expect=base)
    with remote.locked(), pytest.raises(BranchMovedError, match=merged.commit):
        remote.advance("main", base, head)
    assert git(origin, "rev-parse", "main") == merged.commit


def test_a_unit_continues_on_another_host_with_its_commits_and_uncommitted_files(
    tmp_path: Path, origin: Path
) -> None:
    first, ws, base = _unit_on(tmp_path, origin, "h1")
    assert first.checkpoint(ws, BRANCH) == base  # the workspace's birth, on the remote
    assert git(origin, "rev-parse", BRANCH) == base
    write_files(ws.root, {"b.txt": "committed\n"})
    committed = commit_with_key(ws, "task 1", "Mergegate-Task: r1/U1/T1", onto=base)
    assert committed is not None
    # the implementer of the next task changed, added and deleted files, then the host died
    write_files(ws.root, {"b.txt": "changed\n", "new/c.txt": "c\n"})
    (ws.root / "a.txt").unlink()
    assert first.checkpoint(ws, BRANCH) == committed
    assert git(origin, "rev-parse", BRANCH) == committed
    assert git(origin, "rev-parse", f"{wip_branch(BRANCH)}^") == committed

    second = _host(tmp_path, origin, "h2")
    moved = tmp_path / "h2" / "ws"
    rebuilt = second.rebuild_workspace(moved, BRANCH)
    assert rebuilt is not None
    assert rebuilt[1] == committed
    assert git(moved, "rev-parse", "HEAD") == committed
    assert git(moved, "symbolic-ref", "--short", "HEAD") == BRANCH
    assert (moved / "b.txt").read_text() == "changed\n"
    assert (moved / "new" / "c.txt").read_text() == "c\n"
    assert not (moved / "a.txt").exists()
    # the next commit step finds exactly the work the first host had not committed
    again = commit_with_key(rebuilt[0], "task 2", "Mergegate-Task: r1/U1/T2", onto=committed)
    assert git(moved, "diff", "--name-status", f"{committed}..{again}").splitlines() == [
        "D\ta.txt",
        "M\tb.txt",
        "A\tnew/c.txt",
    ]
    # the second host never wrote into the first one's mirror, nor the first into its own
    assert (
        not (tmp_path / "h2" / "ws" / ".git" / "objects" / "info" / "alternates")
        .read_text()
        .startswith(str(first.mirror))
    )


def test_a_stale_progress_commit_is_not_restored(tmp_path: Path, origin: Path) -> None:
    first, ws, base = _unit_on(tmp_path, origin, "h1")
    write_files(ws.root, {"b.txt": "draft\n"})
    first.checkpoint(ws, BRANCH)  # progress on top of base
    write_files(ws.root, {"b.txt": "final\n"})
    final = commit_with_key(ws, "task 1", "Mergegate-Task: r1/U1/T1", onto=base)
    assert final is not None
    first.checkpoint(ws, BRANCH)  # committed and clean: the progress commit is now stale
    moved = tmp_path / "h2" / "ws"
    rebuilt = _host(tmp_path, origin, "h2").rebuild_workspace(moved, BRANCH)
    assert rebuilt is not None
    assert rebuilt[1] == final
    assert (moved / "b.txt").read_text() == "final\n"
    assert git(moved, "status", "--porcelain") == ""


def test_no_branch_on_the_remote_means_nothing_to_rebuild(tmp_path: Path, origin: Path) -> None:
    assert _host(tmp_path, origin, "h2").rebuild_workspace(tmp_path / "h2" / "ws", BRANCH) is None
    assert not (tmp_path / "h2" / "ws").exists()


def test_a_commit_missing_everywhere_is_an_error(tmp_path: Path, origin: Path) -> None:
    remote = _host(tmp_path, origin, "h1")
    with pytest.raises(GitError, match="neither"):
        remote.ensure_commit("0" * 40, "main")
    remote.ensure_commit(git(origin, "rev-parse", "main"), "main")


def test_no_other_protocol_is_reachable_even_through_configuration(
    tmp_path: Path, origin: Path
) -> None:
    remote = _host(tmp_path, origin, "h1")
    with remote.locked():
        remote.fetch("main")
    # a planted rewrite of the remote's URL to another protocol (ext:: runs a program)
    marker = tmp_path / "ran"
    git(remote.mirror, "config", f"url.ext::sh -c touch\\ {marker}\\ #.insteadOf", str(origin))
    with remote.locked(), pytest.raises(GitError):
        remote.fetch("main")
    assert not marker.exists()


def test_a_branch_is_created_on_the_remote_only_when_it_has_none(
    tmp_path: Path, origin: Path
) -> None:
    tip = git(origin, "rev-parse", "main")
    assert remote_tip(tmp_path, str(origin), "main") == tip
    assert remote_tip(tmp_path, str(origin), "mergegate/r1") is None
    push_branch(origin, str(origin), "mergegate/r1", tip, expect=None)
    assert remote_tip(tmp_path, str(origin), "mergegate/r1") == tip
    # creating it again with the same commit changes nothing; with another, is refused
    push_branch(origin, str(origin), "mergegate/r1", tip, expect=None)
    other = git(origin, "-c", "user.name=t", "-c", "user.email=t@t", "commit-tree",
                "main^{tree}", "-p", "main", "-m", "other")  # fmt: skip
    with pytest.raises(GitError):
        push_branch(origin, str(origin), "mergegate/r1", other, expect=None)
    assert remote_tip(tmp_path, str(origin), "mergegate/r1") == tip


def test_a_remote_is_named_or_given_by_url(tmp_path: Path, origin: Path) -> None:
    clone = tmp_path / "clone"
    git(tmp_path, "clone", "-q", str(origin), str(clone))
    assert remote_url(clone, "origin") == str(origin)  # a clone's `origin`, by name
    assert remote_url(clone, "ssh://git@example.org/r.git") == "ssh://git@example.org/r.git"
    with pytest.raises(UsageError, match="no remote named 'upstream'"):
        remote_url(clone, "upstream")
    git(clone, "remote", "add", "web", "https://example.org/r.git")
    with pytest.raises(UsageError, match="unsupported"):  # a name, resolved, then checked
        remote_url(clone, "web")


def test_files_thrown_away_by_a_reset_are_never_restored(tmp_path: Path, origin: Path) -> None:
    first, ws, base = _unit_on(tmp_path, origin, "h1")
    write_files(ws.root, {"b.txt": "a stalled attempt\n"})
    first.checkpoint(ws, BRANCH)
    assert remote_tip(tmp_path, str(origin), wip_branch(BRANCH)) is not None
    git(ws.root, "reset", "-q", "--hard", base)  # the engine's reset after a stall
    git(ws.root, "clean", "-q", "-f", "-d")
    first.checkpoint(ws, BRANCH)
    assert remote_tip(tmp_path, str(origin), wip_branch(BRANCH)) is None
    moved = tmp_path / "h2" / "ws"
    rebuilt = _host(tmp_path, origin, "h2").rebuild_workspace(moved, BRANCH)
    assert rebuilt is not None
    assert rebuilt[1] == base
    assert not (moved / "b.txt").exists()
    assert git(moved, "status", "--porcelain") == ""


def test_a_workspace_is_known_stale_once_another_host_moved_its_unit(
    tmp_path: Path, origin: Path
) -> None:
    """What a worker checks before it uses a workspace it trusted for another workflow (a
    unit's task that ran here after a recovery, then the unit went on elsewhere): the
    remote's unit and progress branches are still where this mirror last saw or put them.
    Either moved by another host, the workspace is stale (its commits may lack what the run
    recorded since)."""
    first, ws, base = _unit_on(tmp_path, origin, "h1")
    first.checkpoint(ws, BRANCH)
    with first.locked():
        assert first.unchanged(BRANCH)
    second = _host(tmp_path, origin, "h2")
    rebuilt = second.rebuild_workspace(tmp_path / "h2" / "ws", BRANCH)
    assert rebuilt is not None
    other, _ = rebuilt
    write_files(other.root, {"b.txt": "on h2\n"})  # h2's implementer: files not committed
    second.checkpoint(other, BRANCH)
    with first.locked():
        assert not first.unchanged(BRANCH)  # only the progress branch moved
    with second.locked():
        assert second.unchanged(BRANCH)
    commit_with_key(other, "task 2", "Mergegate-Task: r1/U1/T2", onto=base)
    second.checkpoint(other, BRANCH)
    with first.locked():
        assert not first.unchanged(BRANCH)
    again = first.rebuild_workspace(tmp_path / "h1" / "ws2", BRANCH)
    assert again is not None
    with first.locked():
        assert first.unchanged(BRANCH)
    # h1 leaves a progress commit; h2, the unit moved there, commits its files (dropping it)
    write_files(again[0].root, {"c.txt": "on h1\n"})
    first.checkpoint(again[0], BRANCH)
    moved = second.rebuild_workspace(tmp_path / "h2" / "ws3", BRANCH)
    assert moved is not None
    commit_with_key(moved[0], "task 3", "Mergegate-Task: r1/U1/T3", onto=moved[1])
    second.checkpoint(moved[0], BRANCH)
    assert git(origin, "branch", "--list", wip_branch(BRANCH)) == ""
    with first.locked():
        assert not first.unchanged(BRANCH)
    assert first.rebuild_workspace(tmp_path / "h1" / "ws4", BRANCH) is not None
    with first.locked():
        assert first.unchanged(BRANCH)  # the progress branch gone here too, as there
