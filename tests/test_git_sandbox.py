"""mergegate's own git commands never run what an agent could plant: one test per mechanism.

Each test plants a program the way an agent could (a hook, a config key, an attribute), shows
with plain `git` that the plant works (the control), then runs mergegate's commit, diff,
status or snapshot and asserts that the program never ran.
"""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest

from _gitrepo import change_repo, git
from mergegate.errors import UsageError
from mergegate.git import (
    CONFIG_OVERRIDES,
    GitRepository,
    driver_overrides,
    run_git,
    snapshot_worktree,
    throwaway_checkout,
    verify_unchanged,
)

HOOKS = (
    "pre-commit",
    "prepare-commit-msg",
    "commit-msg",
    "post-commit",
    "post-checkout",
    "reference-transaction",
    "post-index-change",
    "pre-auto-gc",
)


@pytest.fixture(autouse=True)
def home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A HOME of the test's own: the global config under test is a file we write."""
    path = tmp_path / "home"
    path.mkdir()
    monkeypatch.setenv("HOME", str(path))
    for name in ("XDG_CONFIG_HOME", "GIT_CONFIG_GLOBAL", "GIT_CONFIG_NOSYSTEM"):
        monkeypatch.delenv(name, raising=False)
    return path


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    return change_repo(tmp_path / "repo", {"app.py": "x = 1\n"}, {"app.py": "x = 2\n"})


@pytest.fixture
def marker(tmp_path: Path) -> Path:
    return tmp_path / "ran"


def program(tmp_path: Path, marker: Path, name: str = "planted") -> Path:
    """An executable that records its name and arguments, and copies stdin to stdout (so it
    also works as a filter or a textconv)."""
    path = tmp_path / name
    path.write_text(f'#!/bin/sh\necho "{name} $*" >> {marker}\ncat\n')
    path.chmod(0o755)
    return path


def plant_hooks(hooks_dir: Path, marker: Path) -> None:
    hooks_dir.mkdir(parents=True, exist_ok=True)
    for name in HOOKS:
        (hooks_dir / name).write_text(f'#!/bin/sh\necho "hook {name}" >> {marker}\n')
        (hooks_dir / name).chmod(0o755)


def ran(marker: Path) -> list[str]:
    return marker.read_text().splitlines() if marker.exists() else []


def control(repo: Path, marker: Path, *args: str) -> None:
    """Plain git (the user's, no overrides) does run the plant; then forget that it did."""
    subprocess.run(["git", *args], cwd=repo, capture_output=True, check=False)
    assert ran(marker), f"control: git {' '.join(args)} did not run the plant"
    marker.unlink()


def commit_a_change(repo: Path) -> str | None:
    (repo / "app.py").write_text("x = 3\n")
    return GitRepository(repo).commit_all("fix")


def test_hooks_in_the_hooks_directory_never_run(repo: Path, marker: Path) -> None:
    plant_hooks(repo / ".git" / "hooks", marker)
    control(repo, marker, "commit", "--allow-empty", "--no-verify", "-qm", "control")
    sha = commit_a_change(repo)
    assert sha == git(repo, "rev-parse", "HEAD")
    with throwaway_checkout(repo, "HEAD~1"):
        pass
    assert ran(marker) == []


def test_a_planted_core_hooks_path_is_overridden(repo: Path, tmp_path: Path, marker: Path) -> None:
    plant_hooks(tmp_path / "elsewhere", marker)
    git(repo, "config", "core.hooksPath", str(tmp_path / "elsewhere"))
    control(repo, marker, "commit", "--allow-empty", "-qm", "control")
    assert commit_a_change(repo) is not None
    assert ran(marker) == []


def test_core_fsmonitor_never_runs(repo: Path, tmp_path: Path, marker: Path) -> None:
    git(repo, "config", "core.fsmonitor", str(program(tmp_path, marker)))
    control(repo, marker, "status")
    before = snapshot_worktree(repo)
    assert before is not None
    assert verify_unchanged(before) == []
    GitRepository(repo).diff("HEAD~1", "HEAD")
    assert commit_a_change(repo) is not None
    assert ran(marker) == []


def test_filters_never_run_and_content_is_committed_as_written(
    repo: Path, tmp_path: Path, marker: Path
) -> None:
    (repo / ".gitattributes").write_text("*.py filter=evil\n")
    planted = program(tmp_path, marker)
    git(repo, "config", "filter.evil.clean", f"{planted} clean")
    git(repo, "config", "filter.evil.smudge", f"{planted} smudge")
    git(repo, "config", "filter.evil.process", f"{planted} process")
    git(repo, "config", "filter.evil.required", "true")
    (repo / "app.py").write_text("x = 3\n")
    control(repo, marker, "add", "--dry-run", "--ignore-missing", "app.py")
    control(repo, marker, "diff", "--stat")
    sha = GitRepository(repo).commit_all("fix")
    assert sha is not None
    with throwaway_checkout(repo, sha) as checkout:
        assert (checkout / "app.py").read_text() == "x = 3\n"
    assert ran(marker) == []
    assert git(repo, "cat-file", "blob", f"{sha}:app.py") == "x = 3"


def test_a_filter_named_in_an_included_file_never_runs(
    repo: Path, tmp_path: Path, marker: Path
) -> None:
    included = tmp_path / "included.gitconfig"
    included.write_text(f'[filter "inc"]\n\tclean = {program(tmp_path, marker)}\n')
    git(repo, "config", "include.path", str(included))
    (repo / ".gitattributes").write_text("* filter=inc\n")
    (repo / "app.py").write_text("x = 3\n")
    control(repo, marker, "diff", "--stat")
    assert GitRepository(repo).commit_all("fix") is not None
    assert ran(marker) == []


def test_diff_drivers_and_textconv_never_run(repo: Path, tmp_path: Path, marker: Path) -> None:
    planted = program(tmp_path, marker)
    git(repo, "config", "diff.external", str(planted))
    git(repo, "config", "diff.evil.command", str(planted))
    git(repo, "config", "diff.evil.textconv", str(planted))
    (repo / ".gitattributes").write_text("*.py diff=evil\n")
    control(repo, marker, "diff", "HEAD~1", "HEAD")
    repository = GitRepository(repo)
    diff = repository.diff("HEAD~1", "HEAD")
    assert "-x = 1\n+x = 2" in diff  # the real diff, not a program's output
    assert repository.changed_files("HEAD~1", "HEAD") == ["app.py"]
    assert repository.read_file("HEAD", "app.py") == "x = 2\n"
    assert commit_a_change(repo) is not None
    assert ran(marker) == []


def test_the_signing_program_never_runs(repo: Path, tmp_path: Path, marker: Path) -> None:
    git(repo, "config", "commit.gpgSign", "true")
    git(repo, "config", "gpg.program", str(program(tmp_path, marker)))
    control(repo, marker, "commit", "--allow-empty", "-qm", "control")
    sha = commit_a_change(repo)
    assert sha is not None
    assert ran(marker) == []
    assert "gpgsig" not in git(repo, "cat-file", "commit", sha)


def test_the_global_config_is_kept_but_its_programs_never_run(
    repo: Path, tmp_path: Path, home: Path, marker: Path
) -> None:
    planted = program(tmp_path, marker)
    (home / ".gitconfig").write_text(
        f"[core]\n\tfsmonitor = {planted}\n\thooksPath = {tmp_path / 'global-hooks'}\n"
        f'[filter "glob"]\n\tclean = {planted}\n'
        "[user]\n\tname = Global Person\n\temail = global@example.com\n"
    )
    plant_hooks(tmp_path / "global-hooks", marker)
    git(repo, "config", "--unset", "user.name")
    git(repo, "config", "--unset", "user.email")
    (repo / ".gitattributes").write_text("* filter=glob\n")
    control(repo, marker, "status")
    sha = commit_a_change(repo)
    assert sha is not None
    assert ran(marker) == []
    # The identity still comes from the global config.
    assert git(repo, "log", "-1", "--format=%an <%ae>") == "Global Person <global@example.com>"


def test_replace_refs_cannot_swap_content(repo: Path) -> None:
    real = git(repo, "rev-parse", "HEAD:app.py")
    fake = subprocess.run(
        ["git", "hash-object", "-w", "--stdin"],
        cwd=repo,
        input="planted = True\n",
        capture_output=True,
        text=True,
        check=True,
    ).stdout.strip()
    git(repo, "replace", real, fake)
    assert git(repo, "cat-file", "blob", "HEAD:app.py") == "planted = True"  # the control
    repository = GitRepository(repo)
    assert repository.read_file("HEAD", "app.py") == "x = 2\n"
    assert "+x = 2" in repository.diff("HEAD~1", "HEAD")


def test_every_call_carries_the_fixed_overrides(repo: Path, tmp_path: Path) -> None:
    git(repo, "config", "core.hooksPath", str(tmp_path))
    git(repo, "config", "credential.helper", "store")
    for key, value in CONFIG_OVERRIDES:
        lines = run_git(repo, "config", "--get-all", key).stdout.decode().splitlines()
        assert lines[-1:] == [value], key  # the last value wins; an empty one resets a list
    assert run_git(repo, "config", "--get", "core.hooksPath").stdout.strip() == b"/dev/null"


def test_driver_names_are_found_in_any_spelling(repo: Path) -> None:
    config = repo / ".git" / "config"
    with config.open("a") as handle:
        handle.write('[filter "a=b.c"]\n\tclean = x\n[merge "m"]\n\tdriver = y\n')
        handle.write('[hook "lint"]\n\tcommand = z\n\tevent = pre-commit\n')
    # `git var -l` lists the config as the command sees it (our overrides included).
    listed = set(run_git(repo, "var", "-l").stdout.decode().splitlines())
    assert {
        "filter.a=b.c.clean=",
        "filter.a=b.c.required=false",
        "merge.m.driver=false",
        "hook.lint.enabled=false",
    } <= listed


def test_driver_overrides() -> None:
    names = ["filter.lfs.clean", "filter.lfs.required", "merge.x.y.driver", "hook.a.command"]
    overrides = dict(driver_overrides([*names, "core.fsmonitor", "user.name"]))
    assert overrides == {
        "filter.lfs.clean": "",
        "filter.lfs.smudge": "",
        "filter.lfs.process": "",
        "filter.lfs.required": "false",
        "merge.x.y.driver": "false",
        "hook.a.enabled": "false",
    }


def test_a_git_hook_environment_cannot_redirect_mergegate(
    repo: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    other = change_repo(tmp_path / "other", {"o.txt": "o\n"}, {"o.txt": "p\n"})
    monkeypatch.setenv("GIT_DIR", str(other / ".git"))
    monkeypatch.setenv("GIT_EXTERNAL_DIFF", "/bin/false")
    assert GitRepository(repo).read_file("HEAD", "app.py") == "x = 2\n"


def test_throwaway_checkout_of_a_shallow_repository(repo: Path, tmp_path: Path) -> None:
    shallow = tmp_path / "shallow"
    subprocess.run(
        ["git", "clone", "-q", "--depth", "1", f"file://{repo}", str(shallow)],
        check=True,
        capture_output=True,
    )
    with throwaway_checkout(shallow, "HEAD") as checkout:
        assert (checkout / "app.py").read_text() == "x = 2\n"
        assert git(checkout, "log", "--format=%s") == "change"  # history reads, no error
    assert not checkout.exists()


def test_throwaway_checkout_is_its_own_repository_and_is_removed(
    repo: Path, tmp_path: Path
) -> None:
    where = tmp_path / "co"
    with throwaway_checkout(repo, "HEAD~1", where) as checkout:
        assert checkout == where
        assert (checkout / "app.py").read_text() == "x = 1\n"
        assert not (checkout / ".git" / "hooks").exists()  # no template hooks
        assert git(checkout, "rev-parse", "--git-common-dir") == ".git"
        assert git(checkout, "status", "--porcelain") == ""
        (checkout / "locked").mkdir()
        (checkout / "locked" / "f").write_text("x")
        (checkout / "locked").chmod(0o500)  # an agent's read-only leftovers
    assert not where.exists()
    assert (repo / "app.py").read_text() == "x = 2\n"  # the user's tree was never touched


def test_repository_checkout_keeps_one_path_per_name(repo: Path) -> None:
    repository = GitRepository(repo)
    with repository.checkout("HEAD") as first:
        pass
    with repository.checkout("HEAD~1") as second:
        assert (second / "app.py").read_text() == "x = 1\n"
    assert first == second  # a resumed agent session finds its directory again
    assert not second.exists()


def test_a_malformed_config_is_a_clear_error(repo: Path) -> None:
    (repo / ".git" / "config").write_text("[core\n\tbroken\n")
    with pytest.raises(UsageError, match=r"not a git work tree: .*bad config"):
        GitRepository(repo)


# ---------------------------------------------------------------- the config view is a cache


@pytest.mark.parametrize("where", ["repository", "new global file", "include target"])
def test_a_filter_planted_after_a_cached_listing_never_runs(
    repo: Path, tmp_path: Path, home: Path, marker: Path, where: str
) -> None:
    """The names of the effective config are kept between git commands only while every file
    git reads config from holds the same bytes: a plant made after a command (in the
    repository's config, in a global file that did not exist, in an include target that
    already existed) is seen by the next one."""
    included = tmp_path / "included.gitconfig"
    included.write_text("[core]\n\tquotePath = true\n")
    git(repo, "config", "include.path", str(included))
    (repo / ".gitattributes").write_text("* filter=late\n")
    repository = GitRepository(repo)
    assert repository.changed_files("HEAD~1", "HEAD") == ["app.py"]  # the listing is cached
    plant = f'[filter "late"]\n\tclean = {program(tmp_path, marker)}\n\trequired = true\n'
    target = {
        "repository": repo / ".git" / "config",
        "new global file": home / ".gitconfig",
        "include target": included,
    }[where]
    with target.open("a") as handle:
        handle.write(plant)
    (repo / "app.py").write_text("x = 3\n")
    control(repo, marker, "diff", "--stat")
    assert repository.commit_all("fix") is not None
    assert ran(marker) == []
    assert git(repo, "cat-file", "blob", "HEAD:app.py") == "x = 3"


def test_an_unchanged_config_is_listed_once(repo: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from mergegate.git import _command

    listings = []
    real = _command.run_command

    def counting(argv: list[str], *args: object, **kwargs: object) -> object:
        if "--show-origin" in argv:
            listings.append(argv)
        return real(argv, *args, **kwargs)  # type: ignore[arg-type]

    monkeypatch.setattr(_command, "run_command", counting)
    repository = GitRepository(repo)
    for _ in range(3):
        repository.diff("HEAD~1", "HEAD")
        snapshot_worktree(repo)
    assert len(listings) == 1
