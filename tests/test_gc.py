"""`mergegate gc`: a finished run's unit and progress branches deleted in the repository and
on a bare remote; never another run's, never a branch mergegate did not name for the run (a
`--into` branch, a person's), the integration branch only with `--include-integration`; a
run that is not finished refused with nothing deleted; `--dry-run` deletes nothing; a branch
that moved since it was listed is kept."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest
from click.testing import CliRunner

from _cards import card
from _gitrepo import git
from _plan_runs import repo_with
from mergegate.cli import cli
from mergegate.engine import EngineRunRecord
from mergegate.plans import Plan, PlanFormat
from mergegate.store import RunState, RunStore

RUN = "20261101-120000-aaaa"
OTHER = "20261101-120000-bbbb"
RECENT = "20261120-120000-cccc"
ITS = [f"mergegate-unit/{RUN}/U1", f"mergegate-unit/{RUN}/U2", f"mergegate-wip/{RUN}/U2"]
NOT_ITS = [
    f"mergegate-unit/{OTHER}/U1",
    f"mergegate-wip/{OTHER}/U1",
    f"mergegate/{OTHER}",
    f"mergegate-unit/{RUN}-x/U1",  # shares the run's text, not its prefix
    "main",
    "release",  # the `--into` of RUN: a person's branch
    "feature",
]


def _record(
    run_id: str, status: RunState, finished: str | None, remote: str | None = None
) -> EngineRunRecord:
    return card(
        run_id,
        into="release" if run_id == RUN else f"mergegate/{run_id}",
        status=status,
        finished=finished,
        remote=remote,
    )


@pytest.fixture
def fleet_repo(tmp_path: Path) -> tuple[Path, Path]:
    """A repository holding three runs' branches and a person's, all pushed to a bare
    remote `origin`; RUN and RECENT completed, OTHER still running."""
    repo = repo_with(tmp_path / "repo")
    remote = tmp_path / "remote.git"
    git(tmp_path, "init", "-q", "--bare", str(remote))
    git(repo, "remote", "add", "origin", str(remote))
    branches = [*ITS, f"mergegate/{RUN}", *NOT_ITS, f"mergegate-unit/{RECENT}/U1"]
    for name in branches:
        if name != "main":
            git(repo, "branch", name)
    git(repo, "push", "-q", "origin", *branches)
    store = RunStore(Path(os.environ["MERGEGATE_STATE_DIR"]))
    plan = Plan(format=PlanFormat.NATIVE, title="p")
    store.create(_record(RUN, RunState.COMPLETED, "2026-11-01T13:00:00+00:00"), plan)
    store.create(_record(OTHER, RunState.RUNNING, None), plan)
    store.create(
        _record(RECENT, RunState.COMPLETED, "2026-11-20T13:00:00+00:00", str(remote)), plan
    )
    return repo, remote


def _local(repo: Path) -> set[str]:
    return set(git(repo, "for-each-ref", "--format=%(refname:short)", "refs/heads").split())


def _remote(remote: Path) -> set[str]:
    return set(git(remote, "for-each-ref", "--format=%(refname:short)", "refs/heads").split())


def _gc(repo: Path, *args: str) -> tuple[int, str, str]:
    result = CliRunner().invoke(cli, ["gc", "--repo", str(repo), *args])
    return result.exit_code, result.stdout, result.stderr


def test_a_finished_runs_branches_go_here_and_on_the_remote(
    fleet_repo: tuple[Path, Path],
) -> None:
    repo, remote = fleet_repo
    before_local, before_remote = _local(repo), _remote(remote)
    code, out, err = _gc(repo, RUN, "--remote", "origin", "--format", "json")
    assert code == 0, err
    [found] = json.loads(out)
    assert found["local"] == found["remote"] == sorted(ITS)
    assert _local(repo) == before_local - set(ITS)
    assert _remote(remote) == before_remote - set(ITS)
    assert f"mergegate/{RUN}" in _local(repo) & _remote(remote)  # not without the flag
    assert set(NOT_ITS) <= _local(repo) & _remote(remote)


def test_the_integration_branch_only_when_asked(fleet_repo: tuple[Path, Path]) -> None:
    repo, remote = fleet_repo
    code, _out, err = _gc(repo, RUN, "--remote", "origin", "--include-integration")
    assert code == 0, err
    gone = {*ITS, f"mergegate/{RUN}"}
    assert not gone & (_local(repo) | _remote(remote))
    assert "release" in _local(repo) & _remote(remote)  # its --into: a person's branch


def test_dry_run_lists_and_deletes_nothing(fleet_repo: tuple[Path, Path]) -> None:
    repo, remote = fleet_repo
    before = (_local(repo), _remote(remote))
    code, out, err = _gc(repo, RUN, "--remote", "origin", "--dry-run")
    assert code == 0, err
    assert (_local(repo), _remote(remote)) == before
    for name in ITS:
        assert f"{RUN}: would delete {name}\n" in out
        assert f"{RUN}: would delete {name} on {remote}\n" in out
    assert "6 branch(es) and 0 log(s) to delete (a dry run: nothing deleted)" in err


def test_a_run_not_finished_is_refused_and_nothing_deleted(
    fleet_repo: tuple[Path, Path],
) -> None:
    repo, remote = fleet_repo
    before = (_local(repo), _remote(remote))
    code, _out, err = _gc(repo, OTHER, "--remote", "origin")
    assert code == 2
    assert f"run {OTHER} is running, not finished" in err
    assert (_local(repo), _remote(remote)) == before


def test_finished_before_takes_only_runs_finished_earlier(
    fleet_repo: tuple[Path, Path],
) -> None:
    repo, remote = fleet_repo
    code, out, err = _gc(repo, "--finished-before", "2026-11-10", "--remote", "origin")
    assert code == 0, err
    assert not set(ITS) & (_local(repo) | _remote(remote))
    assert f"mergegate-unit/{RECENT}/U1" in _local(repo) & _remote(remote)  # finished later
    assert f"mergegate-unit/{OTHER}/U1" in _local(repo) & _remote(remote)  # not finished
    assert RECENT not in out
    assert OTHER not in out


def test_a_branch_that_moved_since_it_was_listed_is_kept(
    fleet_repo: tuple[Path, Path], monkeypatch: pytest.MonkeyPatch
) -> None:
    """Deletion is a compare and swap from the commit listed, locally and on the remote."""
    from mergegate.engine._runs import gc as gc_module

    repo, _remote_dir = fleet_repo
    moved = ITS[0]
    listed = gc_module.list_branches

    def then_moved(*args: object, **kwargs: object) -> dict[str, str]:
        found = listed(*args, **kwargs)  # type: ignore[arg-type]
        git(repo, "commit", "-q", "--allow-empty", "-m", "later")
        git(repo, "branch", "-f", moved, "HEAD")
        return found

    monkeypatch.setattr(gc_module, "list_branches", then_moved)
    code, _out, err = _gc(repo, RUN)
    assert code == 0, err
    assert moved in _local(repo)
    assert not set(ITS[1:]) & _local(repo)


def test_a_run_queued_with_a_remote_is_collected_there_by_default(
    fleet_repo: tuple[Path, Path],
) -> None:
    repo, remote = fleet_repo
    code, _out, err = _gc(repo, RECENT)  # queued with --remote: no --remote needed
    assert code == 0, err
    assert f"mergegate-unit/{RECENT}/U1" not in _local(repo) | _remote(remote)
    assert set(ITS) <= _local(repo) & _remote(remote)


def test_neither_or_both_selectors_is_a_usage_error(fleet_repo: tuple[Path, Path]) -> None:
    repo, _remote_dir = fleet_repo
    for args in ((), (RUN, "--finished-before", "2026-11-10")):
        code, _out, err = _gc(repo, *args)
        assert code == 2
        assert "name one RUN, or give --finished-before DATE" in err
