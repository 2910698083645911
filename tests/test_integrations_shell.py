"""The latch's reading of a Bash command (`mergegate.integrations._shell`): commands, not text.

A command that commits, merges, rebases, pushes or tags is refused however it is spelled or
wrapped; text that only mentions one (a quoted argument, a comment) is not a command; when the
reader cannot tell, it refuses.
"""

from __future__ import annotations

import shlex

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from mergegate.integrations._shell import mentions_git, refusal

REFUSED = [
    "git commit -m 'fix'",
    "git -C x push",
    "git -c user.name=x -C repo --no-pager commit -m y",
    "env X=1 git push",
    "X=1 git push",
    'bash -c "git push"',
    "bash -lc 'cd x && git commit -am y'",
    "sh -c 'sh -c \"git push\"'",
    "a && git push",
    "(cd x; git push)",
    "{ git push; }",
    "echo $(git tag v1)",
    "echo `git merge y`",
    "f() { git push; }",
    "if true; then git merge y; fi",
    "for i in 1; do git push; done",
    "while false; do :; done; \"git\" pu'sh'",
    "g\\it push",
    "/usr/bin/git push",
    "git-push origin",
    "hub push",
    "sudo git push",
    "timeout 5 git push",
    "nice -n 5 bash -c 'git push'",
    "echo push | xargs git",
    "find . -exec git push \\;",
    'eval "git push"',
    "echo a#b; git push",
    "git push#x",
    "git \\\n push",
    "git\tpush",
    "cat <<EOF\n$(git push)\nEOF",
    "bash <<EOF\ngit status\nEOF",
    "echo ZwlpdCBwdXNo | base64 -d | sh",
    'bash -c "$CMD"',
    "$GIT push",
    "git ci -m x",
    "git -c alias.st=commit st",
    "git pull",
    "git cherry-pick abc",
    "git revert HEAD",
    "git am < patch",
    "git update-ref refs/heads/main HEAD",
    "git branch -f main feature",
    "git checkout -B main feature",
    "git reset --hard origin/main",
    "git tag v1",
    "git submodule foreach git push",
    "gh pr merge 3",
    "gh pr review 3 --approve",
    "gh api -X PUT repos/o/r/pulls/1/merge",
    "gh api repos/o/r/git/refs -f ref=refs/heads/x",
    "gh repo sync",
    "gh release create v1",
    "gh my-alias",
    "python -c 'import os; os.system(\"git push\")'",
    "node -e \"require('child_process').execSync('git push')\"",
    "cat script | python",
    "mergegate hook claude-code release --session s --reason r",
    "python -m mergegate hook claude-code release --session s --reason r",
]

ALLOWED = [
    "git status",
    "git diff HEAD~1",
    "git log --oneline | head",
    "git add -A && git status",
    "git stash",
    "git restore --staged app.py",
    "git checkout -b fix",
    "git switch main",
    "git reset --hard",
    "git reset HEAD app.py",
    "git fetch origin",
    "git tag",
    "git tag -l 'v*'",
    "git rebase --abort",
    "git merge --abort",
    "git branch",
    "git show HEAD:app.py",
    "echo 'git push'",
    'echo "git commit -m x"',
    "# git push",
    "ls  # git push",
    "grep -rn 'git push' docs/",
    "cat <<'EOF'\ngit push\nEOF",
    "echo $'git push'",
    "pytest -q",
    "python -m pytest -k 'git push'",
    "npm test && git status",
    "make test",
    "cd git && ls",
    "gh pr view 3",
    "gh pr list",
    "gh api repos/o/r/pulls",
    "mergegate hook claude-code status",
    "true",
]


@pytest.mark.parametrize("command", REFUSED)
def test_commands_that_move_work_on_are_refused(command: str) -> None:
    found = refusal(command)
    assert found is not None, command
    assert found.why
    assert len(found.command) <= 120


@pytest.mark.parametrize("command", ALLOWED)
def test_harmless_commands_and_text_about_git_are_allowed(command: str) -> None:
    assert refusal(command) is None, refusal(command)


def test_the_state_directory_is_guarded() -> None:
    guarded = ("/home/u/.local/state/mergegate", "~/.local/state/mergegate")
    assert refusal("rm -rf ~/.local/state/mergegate/hooks", guarded) is not None
    assert refusal("cat /home/u/.local/state/mergegate/x", guarded) is not None
    assert refusal("ls ~/.local/state", guarded) is None


def test_too_deep_and_too_long_are_refused() -> None:
    nested = "git status"
    for _ in range(10):
        nested = f"bash -c {shlex.quote(nested)}"
    assert refusal(nested) is not None
    assert refusal("true; " * 300_000) is not None


# ---------------------------------------------------------------- for all inputs
GATED = ["commit -m x", "push", "push --force origin main", "merge main", "rebase main", "tag v2"]
WRAPPERS = ["", "env A=1 ", "sudo ", "timeout 9 ", "nohup ", "command ", "time ", "B=2 "]
GIT_OPTIONS = ["", "-C sub ", "-c a.b=c ", "--no-pager ", "--git-dir=.git "]
CONTEXTS = [
    "{}",
    "true; {}",
    "true && {}",
    "false || {}",
    "({})",
    "echo $({})",
    "x | {}",
    "if true; then {}; fi",
    "bash -c {quoted}",
    "{} > /dev/null 2>&1",
]


@settings(max_examples=300, deadline=None)
@given(
    wrapper=st.sampled_from(WRAPPERS),
    options=st.sampled_from(GIT_OPTIONS),
    gated=st.sampled_from(GATED),
    context=st.sampled_from(CONTEXTS),
)
def test_a_gated_git_command_is_refused_in_any_context(
    wrapper: str, options: str, gated: str, context: str
) -> None:
    inner = f"{wrapper}git {options}{gated}"
    command = context.replace("{quoted}", shlex.quote(inner)).replace("{}", inner)
    assert refusal(command) is not None, command


@settings(max_examples=300, deadline=None)
@given(text=st.text(alphabet=st.characters(blacklist_characters="\x00"), max_size=200))
def test_quoted_text_is_never_a_command(text: str) -> None:
    assert refusal(f"echo {shlex.quote(text)}") is None
    assert refusal(f"git commit -m {shlex.quote(text)} --dry-run") is not None


@settings(max_examples=300, deadline=None)
@given(text=st.text(alphabet=st.characters(blacklist_categories=("Cc", "Cs")), max_size=200))
def test_a_comment_is_never_a_command(text: str) -> None:
    assert refusal(f"git status # {text}") is None


@settings(max_examples=300, deadline=None)
@given(text=st.text(max_size=300))
def test_any_text_gives_an_answer_without_raising(text: str) -> None:
    found = refusal(text)
    if found is None:
        return
    assert found.why
    assert found.command is not None


@pytest.mark.timeout(60)
@pytest.mark.parametrize(
    "hostile",
    [
        "mergegate " * 100_000,
        "git " * 200_000,
        "echo " + "[" * 500_000,
        "echo " + "$(" * 50_000,
        "(" * 100_000,
        "echo '" + "\\" * 400_000,
        "a=" + "b" * 900_000,
    ],
)
def test_hostile_commands_are_read_in_linear_time(hostile: str) -> None:
    """Bounded by pytest's timeout only to catch a quadratic path (measured in bench/)."""
    found = refusal(hostile)
    assert found is None or found.why


def test_code_points_that_crash_the_grammar_are_read_safely() -> None:
    """tree-sitter-bash 0.25.1 crashes (SIGSEGV, not always) on `{` followed by some code
    points (U+10FFFF, U+DED9D …): the reader parses an ASCII copy and reads words from the
    original."""
    for _ in range(2000):
        assert refusal("{\U0010ffff") is None
        assert refusal("x{\U000ded9d") is None
    found = refusal("git commit -m 'é {\U0010ffff'")
    assert found is not None
    assert "é" in found.command
    assert refusal("echo 'git push \U0010ffff'") is None


def test_mentions_git_is_about_git_and_a_verb_after_it() -> None:
    assert mentions_git('subprocess.run(["git", "push"])')
    assert mentions_git("gh pr merge")
    assert not mentions_git("push the git button")
    assert not mentions_git("digit pusher")
    assert not mentions_git("legit commit")
