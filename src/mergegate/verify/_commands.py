"""Commands in plan text: found only behind explicit markers, and classified before any runs.

mergegate never invents a command. A command is taken from plan prose only when the plan
marks it as one:

* `<automated>CMD</automated>` (GSD), anywhere;
* a `Run: CMD` or ``Run `CMD` `` line, anywhere;
* in a verify block (and in acceptance criteria, which are written the same way): a fenced
  `bash`/`sh`/`shell`/`console` block (one command per line), and an inline backticked
  command whose program is a known test, build or lint runner (`go test`, `npm test`,
  `pytest`, `npx tsc` …; never `grep`, `ls` or an installer, whose exit status does not mean
  what the prose around them says).

Each command is then classified. Its exit status must be the verdict, so a pipeline (`| head`,
`| wc -l`), a list (`;`), `||` or a background job is not a check a program can decide; it is
reported as such. A plain command runs as an argv; one that needs a shell (`&&`,
redirections, globs, variables) runs as `sh -c TEXT`, shown exactly that way in `--dry-run`.
"""

from __future__ import annotations

import re
import shlex
from dataclasses import dataclass

__all__ = [
    "CommandForm",
    "classify_command",
    "commands_in_prose",
    "commands_in_verify",
    "residue",
]

_AUTOMATED = re.compile(r"<automated>(.*?)</automated>", re.DOTALL | re.IGNORECASE)
_RUN_LINE = re.compile(r"^[ \t]*(?:[-*][ \t]+)?\**Run\**:?\**[ \t]+(.+?)[ \t]*$", re.MULTILINE)
_BACKTICK = re.compile(r"(?<!`)`([^`\n]{2,400})`(?!`)")
_FENCE = re.compile(
    r"^[ \t]*(`{3,}|~{3,})[ \t]*([A-Za-z]*)[^\n]*\n(.*?)^[ \t]*\1[ \t]*$",
    re.MULTILINE | re.DOTALL,
)
_SHELL_FENCES = frozenset({"", "bash", "sh", "shell", "console", "zsh", "terminal"})
_MAX_COMMAND_CHARS = 1000

# Program → the first arguments that make it a check (None: any). Test, build, lint and type
# runners only; installers and file tools are left out on purpose.
_ANY = None
_SCRIPT_VERBS = frozenset({"test", "t", "run", "run-script", "build", "lint", "typecheck", "check"})
_RUNNERS: dict[str, frozenset[str] | None] = {
    "go": frozenset({"test", "build", "vet"}),
    "cargo": frozenset({"test", "build", "check", "clippy", "fmt"}),
    "npm": _SCRIPT_VERBS,
    "pnpm": _SCRIPT_VERBS,
    "yarn": _SCRIPT_VERBS,
    "bun": frozenset({"test", "run"}),
    "deno": frozenset({"test", "lint", "check"}),
    "npx": frozenset(
        {"tsc", "vitest", "jest", "eslint", "prettier", "playwright", "tsx", "biome", "mocha"}
    ),
    "python": frozenset({"-m"}),
    "python3": frozenset({"-m"}),
    "uv": frozenset({"run"}),
    "poetry": frozenset({"run"}),
    "hatch": frozenset({"run", "test"}),
    "dotnet": frozenset({"test", "build"}),
    "swift": frozenset({"test", "build"}),
    "mix": frozenset({"test", "compile"}),
    "bundle": frozenset({"exec"}),
    "ruff": frozenset({"check", "format"}),
    **dict.fromkeys(
        (
            "pytest",
            "tox",
            "nox",
            "mypy",
            "pyright",
            "tsc",
            "vitest",
            "jest",
            "eslint",
            "make",
            "mvn",
            "gradle",
            "./gradlew",
            "rspec",
            "golangci-lint",
            "staticcheck",
            "ctest",
            "node",
            "shellcheck",
        ),
        _ANY,
    ),
}
_PYTHON_MODULES = frozenset({"pytest", "unittest", "mypy", "ruff", "compileall", "pyright"})

# Shell words (outside quotes) after which the exit status is not the command's own verdict.
_UNDECIDABLE_TOKENS = frozenset({"|", "||", ";", "&", "|&", ";;", ";&"})
_SHELL_TOKENS = frozenset({"&&", ">", ">>", "<", ">&", "<&", "&>", "(", ")", "<<", "<<<"})
_SHELL_WORD = re.compile(r"[$`*?\[\]{}~]")
# Programs that print something for a reader to judge: their exit status is not the verdict
# (`grep -c X` exits 1 on a count of 0 and 0 on any other count; `head`, `cat`, `wc` always 0).
_INSPECTION = frozenset(
    [
        "grep",
        "egrep",
        "fgrep",
        "rg",
        "ag",
        "ack",
        "wc",
        "head",
        "tail",
        "cat",
        "less",
        "more",
        "ls",
        "tree",
        "find",
        "stat",
        "file",
        "echo",
        "printf",
        "sed",
        "awk",
        "jq",
        "yq",
        "sort",
        "uniq",
        "cut",
        "tr",
        "diff",
        "curl",
        "wget",
        "open",
        "xdg-open",
    ]
)
_INSPECTION_SUBCOMMANDS = {
    "npm": frozenset({"view", "info", "ls", "list", "outdated"}),
    "git": frozenset({"log", "show", "diff", "status", "grep", "blame", "ls-files"}),
}


@dataclass(frozen=True, slots=True)
class CommandForm:
    """How a command would run: an argv, or why no program can decide it."""

    text: str
    argv: tuple[str, ...] = ()
    via_shell: bool = False
    problem: str | None = None
    """Set when the command is not a check a program can decide."""


def classify_command(text: str) -> CommandForm:
    """Split `text` into what would run; `problem` says why it must not run as a check."""
    command = " ".join(text.split())
    tokens, problem = _tokens(command)
    if problem is None:
        problem = _undecidable(tokens)
    if problem is not None:
        return CommandForm(command, problem=problem)
    if any(t in _SHELL_TOKENS for t in tokens) or _SHELL_WORD.search(command):
        return CommandForm(command, argv=("sh", "-c", command), via_shell=True)
    return CommandForm(command, argv=tuple(shlex.split(command)))


def _tokens(command: str) -> tuple[list[str], str | None]:
    if not command:
        return [], "an empty command"
    if len(command) > _MAX_COMMAND_CHARS:
        return [], f"longer than {_MAX_COMMAND_CHARS} characters"
    try:
        lexer = shlex.shlex(command, posix=True, punctuation_chars=True)
        lexer.whitespace_split = True
        return list(lexer), None
    except ValueError as exc:
        return [], f"cannot be split into words ({exc})"


def _undecidable(tokens: list[str]) -> str | None:
    """Why the command's exit status would not be its verdict, or None."""
    bad = sorted({t for t in tokens if t in _UNDECIDABLE_TOKENS})
    if bad:
        return (
            f"uses {' '.join(bad)}: its exit status is not the check's own "
            "(a pipeline ends with `head`/`wc`, a list with its last command)"
        )
    inspection = _inspection(tokens)
    if inspection:
        return (
            f"`{inspection}` prints something for a reader to judge; its exit status is not "
            "the check's verdict"
        )
    return None


def _inspection(tokens: list[str]) -> str | None:
    """The first inspection program among the commands of an `&&` chain, if any."""
    start = True
    for i, word in enumerate(tokens):
        if word in _SHELL_TOKENS:
            start = word == "&&"
            continue
        if start:
            name = word.rsplit("/", 1)[-1]
            subs = _INSPECTION_SUBCOMMANDS.get(name)
            if name in _INSPECTION:
                return name
            if subs is not None and i + 1 < len(tokens) and tokens[i + 1] in subs:
                return f"{name} {tokens[i + 1]}"
        start = False
    return None


def _is_runner(command: str) -> bool:
    """True when `command` starts with a known test/build/lint runner (see `_RUNNERS`)."""
    try:
        words = shlex.split(command)
    except ValueError:
        return False
    if not words or words[0] not in _RUNNERS:
        return False
    allowed = _RUNNERS[words[0]]
    if allowed is None:
        return True
    if len(words) < 2 or words[1] not in allowed:
        return False
    if words[1] == "-m":
        return len(words) > 2 and words[2] in _PYTHON_MODULES
    return True


def _marked(text: str) -> list[str]:
    """Commands behind `<automated>` and `Run:` markers."""
    found = [m.group(1) for m in _AUTOMATED.finditer(text)]
    for match in _RUN_LINE.finditer(text):
        rest = match.group(1)
        inline = _BACKTICK.findall(rest)
        found.extend(inline if inline else [rest])
    return [" ".join(c.split()) for c in found if c.strip()]


def _fenced(text: str) -> list[str]:
    """One command per logical line of each shell-fenced block (comments and prompts off)."""
    commands = []
    for match in _FENCE.finditer(text):
        if match.group(2).lower() not in _SHELL_FENCES:
            continue
        body = re.sub(r"\\\n", " ", match.group(3))
        for raw in body.splitlines():
            line = raw.strip().removeprefix("$ ")
            if line and not line.startswith("#"):
                commands.append(line)
    return commands


def _without_fences(text: str) -> str:
    return _FENCE.sub(lambda m: "\n" * m.group(0).count("\n"), text)


def _backticked_runners(text: str) -> list[str]:
    return [c.strip() for c in _BACKTICK.findall(_without_fences(text)) if _is_runner(c.strip())]


def _unique(items: list[str]) -> list[str]:
    return list(dict.fromkeys(items))


def commands_in_verify(text: str) -> list[str]:
    """The commands a verify block (or an acceptance criterion) marks, in order, once each."""
    return _unique([*_marked(text), *_fenced(text), *_backticked_runners(_strip_marked(text))])


def commands_in_prose(text: str) -> list[str]:
    """The commands plain prose (truths, success criteria, done text) marks explicitly."""
    return _unique(_marked(text))


def _strip_marked(text: str) -> str:
    """Text without `<automated>` blocks and `Run:` lines (their commands are taken already)."""
    return _RUN_LINE.sub("", _AUTOMATED.sub("", text))


# Words that only say "the commands pass"; anything else in a verify block is a claim the
# commands do not test, and sends the criterion to the verifier agent as well.
_FILLER = frozenset(
    [
        "a",
        "all",
        "and",
        "any",
        "are",
        "both",
        "build",
        "builds",
        "clean",
        "cleanly",
        "code",
        "compile",
        "compiles",
        "compilation",
        "error",
        "errors",
        "exit",
        "exits",
        "existing",
        "expected",
        "from",
        "green",
        "in",
        "is",
        "it",
        "must",
        "new",
        "no",
        "ok",
        "pass",
        "passed",
        "passes",
        "passing",
        "project",
        "root",
        "run",
        "running",
        "runs",
        "should",
        "succeed",
        "succeeds",
        "success",
        "successfully",
        "test",
        "tests",
        "that",
        "the",
        "then",
        "to",
        "verify",
        "warning",
        "warnings",
        "with",
        "without",
        "zero",
        "0",
        "0.",
    ]
)
_WORD = re.compile(r"[A-Za-z0-9][A-Za-z0-9._'-]*")


def residue(text: str, commands: list[str]) -> str:
    """What `text` says besides its commands and the words that only say they pass."""
    rest = _AUTOMATED.sub(" ", text)
    rest = _FENCE.sub(" ", rest)
    for command in sorted(commands, key=len, reverse=True):
        rest = rest.replace(f"`{command}`", " ").replace(command, " ")
    rest = _BACKTICK.sub(lambda m: " " if _is_runner(m.group(1).strip()) else m.group(0), rest)
    rest = re.sub(r"\bRun\b:?", " ", rest, flags=re.IGNORECASE)
    words = [w for w in _WORD.findall(rest) if w.lower().strip(".") not in _FILLER]
    return " ".join(words)
