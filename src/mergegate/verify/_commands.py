"""Commands in plan text: found only in explicit verify fields, classified before any runs.

mergegate never invents a command. The exact rule: a command is taken from plan text only

* from `<automated>CMD</automated>` (GSD), in any field;
* from a `Run` marker: the backticked span right after "Run"/"Run:" (``Run `CMD` ``, also
  mid-line after a sentence: "… clean. Run `go vet ./...`"), or the plain rest of a `Run:`
  line (with the colon) when it starts with a program rather than a word ("Run: the tests"
  is prose);
* from a fenced `bash`/`sh`/`shell`/`console`/`zsh` block (or one without a language): in a
  task's verify field, always; anywhere else only when an `Expected:` line follows it
  directly (superpowers' step form);
* in a verify field or an acceptance criterion, from a backticked span in *command
  position* — starting a line, a list item or a sentence — whose program is a known test,
  build or lint runner (`go test`, `npm test`, `pytest`, `npx tsc` …) or a predicate
  (`test -f x`; a plain `grep PATTERN FILE` the sentence says "matches"). A span anywhere
  else in a sentence ("(or `tsc --noEmit`)", "against `tsconfig`") is prose. A span the
  sentence reads the output of ("`grep -c x f` returns 0") is not a check either: no exit
  status decides it.

Structured commands an importer found (`Verify.commands`, native `checks`) are used as given:
phase verification runs the bytes the task check ran. A command found in prose is folded (runs
of whitespace made one space, continuations joined), but what the shell takes as data — quoted
or backslash-escaped text — is never altered by any fold or rewrite (`shell_data`).

Each command is then classified. Its exit status must be the verdict, so a pipeline (`| head`,
`| wc -l`), a list (`;`), `||` or a background job is not a check a program can decide; it is
reported as such. A command that changes directory out of the repository (`cd /Users/me/app`,
`cd ~/x`, `cd ..`, `pushd`, `-C`/`--prefix`/`--cwd` with such a path) is a plan error: listed,
never run. A plain command runs as an argv; one that needs a shell (`&&`, redirections,
globs, variables) runs as `sh -c TEXT`, shown exactly that way in `--dry-run`.
"""

from __future__ import annotations

import re
import shlex
from dataclasses import dataclass

__all__ = [
    "CommandForm",
    "classify_command",
    "commands_in_criterion",
    "commands_in_prose",
    "commands_in_verify",
    "residue",
]

_AUTOMATED = re.compile(r"<automated>(.*?)</automated>", re.DOTALL | re.IGNORECASE)
_RUN_LINE = re.compile(r"^[ \t]*(?:[-*][ \t]+)?\**Run\**(:?)\**[ \t]+(.+?)[ \t]*$", re.MULTILINE)
_BACKTICK = re.compile(r"(?<!`)`([^`\n]{2,400})`(?!`)")
_FENCE = re.compile(
    r"^[ \t]*(`{3,}|~{3,})[ \t]*([A-Za-z]*)[^\n]*\n(.*?)^[ \t]*\1[ \t]*$",
    re.MULTILINE | re.DOTALL,
)
_SHELL_FENCES = frozenset({"", "bash", "sh", "shell", "console", "zsh", "terminal"})
_EXPECTED_NEXT = re.compile(
    r"[ \t]*\n(?:[ \t]*\n)?[ \t]*(?:[-*][ \t]+)?\**Expected\**:", re.IGNORECASE
)
# "Run `cmd`" inside a sentence (not at a line start): the span right after the verb.
_RUN_INLINE = re.compile(r"(?<=[.;!?] )\**Run\**:?\**[ \t]+`([^`\n]{2,400})`")
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


def shell_data(text: str) -> list[bool]:
    """For each character of `text`, whether it is data the shell passes on as written: inside
    quotes (`'…'`, `"…"`, the quote marks included), or escaped by a backslash (the backslash
    included), by POSIX `sh` rules (no `$'…'`: `/bin/sh`, dash, has none). Whitespace and
    separators there are not the command's structure, so no rewrite may touch them. A
    backslash-newline outside quotes is a line continuation, not data. Linear; an unclosed
    quote makes the rest data (a rewrite then leaves it alone)."""
    marks = [False] * len(text)
    i, end = 0, len(text)
    while i < end:
        char = text[i]
        if char == "\\" and i + 1 < end:
            if text[i + 1] != "\n":
                marks[i] = marks[i + 1] = True
            i += 2
        elif char in "'\"":
            i = _quoted_until(text, i, escapes=char == '"', marks=marks)
        else:
            i += 1
    return marks


def _quoted_until(text: str, start: int, *, escapes: bool, marks: list[bool]) -> int:
    """Mark the quote opened at `start` as data; the index just after its closing mark."""
    quote = text[start]
    marks[start] = True
    i = start + 1
    while i < len(text):
        marks[i] = True
        if escapes and text[i] == "\\" and i + 1 < len(text):
            marks[i + 1] = True
            i += 2
            continue
        i += 1
        if text[i - 1] == quote:
            return i
    return i


def squeeze_spaces(text: str) -> str:
    """`text` with each run of whitespace outside quotes made one space (a command written
    over several lines of a plan) and each line continuation (backslash-newline) removed, as
    the shell reads them; what the shell takes as data — quoted or backslash-escaped — is kept
    byte for byte: `f(" a   b")`, `"a \\"  b"` and `a\\  b` reach the program as written
    (`shell_data`). Linear."""
    marks = shell_data(text)
    out: list[str] = []
    pending = False
    i = 0
    while i < len(text):
        char = text[i]
        if not marks[i] and char == "\\" and text[i + 1 : i + 2] == "\n":
            i += 2  # a continuation joins the lines, as `sh` does
            continue
        if not marks[i] and char.isspace():
            pending = True
        else:
            if pending and out:
                out.append(" ")
            pending = False
            out.append(char)
        i += 1
    return "".join(out)


def classify_command(text: str, *, as_written: bool = False) -> CommandForm:
    """Split `text` into what would run; `problem` says why it must not run as a check.

    Found in prose, `text` is folded first (`squeeze_spaces`). `as_written` (a command an
    importer found as such: `Verify.commands`, a native check) runs the bytes the task check
    ran — `/bin/sh -c` of the text as given whenever it spans lines (a newline may be a
    separator, a heredoc or a comment's end) — and is only classified on its folded copy."""
    folded = squeeze_spaces(text)
    command = text if as_written else folded
    tokens, problem = _tokens(folded)
    if problem is None:
        problem = _leaves_repository(tokens) or _undecidable(tokens)
    if problem is not None:
        return CommandForm(command, problem=problem)
    shell = any(t in _SHELL_TOKENS for t in tokens) or _SHELL_WORD.search(folded) is not None
    if shell or "\n" in command:
        return CommandForm(command, argv=("sh", "-c", command), via_shell=True)
    try:
        return CommandForm(command, argv=tuple(shlex.split(command)))
    except ValueError as exc:  # a comment hid an unclosed quote from the first split
        return CommandForm(command, problem=f"cannot be split into words ({exc})")


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


_GREP_READ_FLAGS = re.compile(
    r"(^|\s)-(\w*[cvL]\w*|-count|-invert-match|-files-without-match|-only-matching)\b"
)
_CD = frozenset({"cd", "pushd"})
_DIR_FLAGS = frozenset({"-C", "--prefix", "--cwd", "--cd", "--dir", "--chdir", "--directory"})
_HOME_PATH = re.compile(r"^(~|/Users/|/home/|/root/|[A-Za-z]:[\\/])")


def _escapes(path: str) -> bool:
    """True when a directory argument leaves the tree: absolute, `~`, or above it by `..`."""
    if path.startswith(("/", "~")) or re.match(r"^[A-Za-z]:[\\/]", path):
        return True
    depth = 0
    for part in path.replace("\\", "/").split("/"):
        if part == "..":
            depth -= 1
            if depth < 0:
                return True
        elif part not in ("", "."):
            depth += 1
    return False


def _leaves_repository(tokens: list[str]) -> str | None:
    """A plan error: the command changes directory out of the repository, or names a path in
    someone's home directory (a plan written on another machine)."""
    for i, word in enumerate(tokens):
        value = None
        if word in _CD or word in _DIR_FLAGS:
            value = tokens[i + 1] if i + 1 < len(tokens) else None
        elif "=" in word and word.split("=", 1)[0] in _DIR_FLAGS:
            value = word.split("=", 1)[1]
        if value is not None and _escapes(value):
            return f"plan error: `{word} {value}` leaves the repository (commands run in it)"
        if _HOME_PATH.match(word):
            return f"plan error: {word!r} is a path on another machine, outside the repository"
    return None


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
            if name == "grep" and not _grep_reads(tokens[i + 1 :]):
                start = False
                continue  # a plain grep is a predicate: it exits 0 exactly when it matches
            if name in _INSPECTION:
                return name
            if subs is not None and i + 1 < len(tokens) and tokens[i + 1] in subs:
                return f"{name} {tokens[i + 1]}"
        start = False
    return None


def _grep_reads(args: list[str]) -> bool:
    """True when grep's flags make it print something to read rather than answer yes/no."""
    for word in args:
        if word in _SHELL_TOKENS:
            break
        if _GREP_READ_FLAGS.search(word):
            return True
    return False


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


# A predicate whose exit status answers the sentence around it ("`test -f x` succeeds",
# "`grep "export function f" x.ts` matches"); `grep -c`/`-v`/`-L`/`-o` print something to read.
_PREDICATES = frozenset({"test", "["})
_SAYS_PASSES = re.compile(
    r"^\W*(exits?|exit code|returns? (exit )?(code )?0\b|succeeds?|passes|pass\b|matches|match\b|"
    r"finds?|is green|compiles|builds|runs clean|runs without|—|-|:|$)",
    re.IGNORECASE,
)
_SAYS_OUTPUT = re.compile(
    r"^\W*(returns?|prints?|outputs?|shows?|reports?|lists?|counts?|gives|displays?|"
    r"should (return|print|output|show|report))\b",
    re.IGNORECASE,
)
_RUN_VERB = re.compile(r"(?:\*\*)?\b(?:Run|run|Execute|execute)(?:\*\*)?:?(?:\*\*)?\s*$")
_SENTENCE_START = re.compile(r"(^|[.;!?]\s+)$")
_BULLET = re.compile(r"^\s*(?:[-*+]|\d+[.)])?\s*(?:\*\*)?\s*")
_AFTER_MAX = 80


def _predicate(command: str, after: str) -> bool:
    """`test …`/`[ … ]`, or a plain `grep` the sentence says must match."""
    try:
        words = shlex.split(command)
    except ValueError:
        return False
    if not words:
        return False
    if words[0] in _PREDICATES:
        return True
    says_match = re.match(r"^\W*(matches|match\b|finds?|succeeds?|exits 0|returns a match)", after)
    return words[0] == "grep" and not _GREP_READ_FLAGS.search(command) and says_match is not None


def _command_position(before: str) -> bool:
    """The backticked span starts a line, a list item or a sentence, or follows "Run"."""
    line = before.rsplit("\n", 1)[-1]
    if _RUN_VERB.search(line):
        return True
    rest = _BULLET.sub("", line, count=1)
    return not rest.strip() or _SENTENCE_START.search(rest) is not None


def _leading_commands(text: str) -> tuple[list[str], list[str]]:
    """Backticked commands in command position, and those whose output the sentence reads.

    A span is a command only where a command stands: at the start of a line, list item or
    sentence, or after "Run"; and only a known runner or a predicate. A span in the middle of
    a sentence ("(or `tsc --noEmit`)", "against `tsconfig`") is prose, never a command.
    """
    found: list[str] = []
    read: list[str] = []
    for match in _BACKTICK.finditer(text):
        command = match.group(1).strip()
        after = text[match.end() : match.end() + _AFTER_MAX].split("\n", 1)[0]
        if not _command_position(text[: match.start()]):
            continue
        if not (_is_runner(command) or _predicate(command, after)):
            continue
        if _SAYS_OUTPUT.match(after) and not _SAYS_PASSES.match(after):
            read.append(command)
            continue
        found.append(command)
    return found, read


_PLAIN_NOT_PROGRAMS = frozenset(
    [
        "the",
        "a",
        "an",
        "all",
        "any",
        "each",
        "every",
        "tests",
        "test-suite",
        "suite",
        "it",
        "this",
        "that",
        "these",
        "those",
        "them",
        "both",
        "your",
        "our",
        "my",
        "and",
        "to",
        "with",
        "from",
        "in",
        "on",
        "check",
        "verify",
        "make-sure",
        "ensure",
    ]
)


def _plain_run_command(rest: str) -> str | None:
    """The text after `Run:` when it is itself a command (no backticks, a program first)."""
    words = rest.split()
    if not words or "`" in rest:
        return None
    first = words[0]
    if first.lower() in _PLAIN_NOT_PROGRAMS or (first[:1].isupper() and "/" not in first):
        return None
    if not re.fullmatch(r"[\w./@+-]+", first):
        return None
    return squeeze_spaces(rest)


def _marked(text: str) -> list[str]:
    """Commands behind `<automated>` and `Run:` markers (a backticked span right after "Run",
    or the plain rest of a `Run:` line that starts with a program)."""
    found = [m.group(1) for m in _AUTOMATED.finditer(text)]
    for match in _RUN_LINE.finditer(text):
        rest = match.group(2)
        inline = _BACKTICK.match(rest.strip())
        if inline is not None:
            found.append(inline.group(1))
            continue
        plain = _plain_run_command(rest) if match.group(1) else None
        if plain is not None:
            found.append(plain)
    found += [m.group(1) for m in _RUN_INLINE.finditer(text)]
    return [squeeze_spaces(c) for c in found if c.strip()]


def _fenced(text: str, *, expected_only: bool) -> list[str]:
    """One command per logical line of each shell-fenced block (comments and prompts off);
    with `expected_only`, only blocks directly followed by an `Expected:` line."""
    commands = []
    for match in _FENCE.finditer(text):
        if match.group(2).lower() not in _SHELL_FENCES:
            continue
        if expected_only and not _EXPECTED_NEXT.match(text, match.end()):
            continue
        body = re.sub(r"\\\n", " ", match.group(3))
        for raw in body.splitlines():
            line = raw.strip().removeprefix("$ ")
            if line and not line.startswith("#"):
                commands.append(line)
    return commands


def _without_fences(text: str) -> str:
    return _FENCE.sub(lambda m: "\n" * m.group(0).count("\n"), text)


def _unique(items: list[str]) -> list[str]:
    return list(dict.fromkeys(items))


def commands_in_verify(text: str) -> list[str]:
    """The commands a verify field marks, in order, once each: `<automated>`, `Run:`, every
    shell-fenced block, and backticked runners in command position."""
    leading, _ = _leading_commands(_without_fences(_strip_marked(text)))
    return _unique([*_marked(text), *_fenced(text, expected_only=False), *leading])


def commands_in_criterion(text: str) -> list[str]:
    """The commands an acceptance criterion states: as in a verify field, except that a fenced
    block counts only when an `Expected:` line follows it directly."""
    leading, _ = _leading_commands(_without_fences(_strip_marked(text)))
    return _unique([*_marked(text), *_fenced(text, expected_only=True), *leading])


def commands_in_prose(text: str) -> list[str]:
    """The commands plain prose (truths, success criteria, done text) marks explicitly:
    `<automated>`, `Run:`, and fenced blocks an `Expected:` line follows."""
    return _unique([*_marked(text), *_fenced(text, expected_only=True)])


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
        "match",
        "matches",
        "matched",
        "finds",
        "found",
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
