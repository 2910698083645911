"""Which shell commands carry work past a review: read as commands, never as text.

While a session's latch is closed (`_latch`), the hook refuses a Bash tool call that commits,
merges, rebases, pushes or tags — with git (or hub), or `gh pr merge` and friends. The command
is parsed with tree-sitter-bash, a full grammar of bash (command substitutions, subshells,
pipelines, `&&`/`;` lists, compound commands, functions, heredocs, comments, quoting), so:

* a quoted string or a comment that mentions `git push` is an argument or a comment, not a
  command (`echo "git push"`, `# git push`, `grep -n 'git push' docs/`);
* every command anywhere in the tree is checked: `a && git push`, `(cd x; git push)`,
  `echo $(git tag v1)`, `f() { git push; }`, `if …; then git merge …; fi`;
* words are read as the shell reads them: `"git" pu'sh'`, `g\\it push`, `/usr/bin/git push`;
* a program that runs its arguments is looked through: `env X=1 git push`, `sudo git push`,
  `timeout 5 git push`, `xargs git`, `find -exec git push`; `bash -c "git push"` and
  `eval "git push"` are parsed in turn (to a bounded depth);
* git's own options are skipped (`git -C x -c k=v push`), and git is judged by an allow-list
  of subcommands that leave the branch alone (status, diff, add, restore, stash, fetch, …):
  anything else — an alias, a subcommand from an expansion — is refused.

When mergegate cannot tell, it refuses: a command name or git subcommand that comes from an
expansion, `bash -c "$CMD"`, a shell reading commands from its input (`… | sh`, `sh <<EOF`),
inline interpreter code that mentions git (`python -c "…git push…"`), text that does not parse
and mentions git, scripts nested too deep or too long to read. A script file the command runs
(`./deploy.sh`) is not opened: that limit is documented (docs/integrations.md).

Why tree-sitter-bash and not `shlex`: shlex splits words but knows no command structure —
`;`, `&&`, `|`, newlines, `$( )`, backquotes, heredocs and comments (a `#` inside a word is not
one) all need a grammar, and getting one wrong either way lets a push through or blocks an
`echo`. bashlex is GPL-licensed and stops at constructs it does not know; tree-sitter-bash
(MIT) is the grammar editors use, error-tolerant, linear, in C.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass
from functools import lru_cache
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from tree_sitter import Node, Parser

__all__ = ["Refusal", "mentions_git", "refusal"]

MAX_SCRIPT_BYTES = 1024 * 1024
MAX_NODES = 200_000
MAX_DEPTH = 6
_SHOWN = 80


@dataclass(frozen=True)
class Refusal:
    """A command the latch refuses, and why (both plain text, cut to a bound)."""

    command: str
    why: str


# ---------------------------------------------------------------- what git may do
_GIT_ALLOWED_WORDS = """
    add annotate apply archive blame bugreport bundle cat-file check-attr check-ignore
    check-mailmap check-ref-format checkout-index clean clone column config count-objects
    credential describe diff diff-files diff-index diff-tree difftool fetch for-each-ref
    format-patch fsck gc get-tar-commit-id grep hash-object help init instaweb
    interpret-trailers log ls-files ls-remote ls-tree maintenance merge-base merge-file
    merge-tree mktree mv name-rev prune range-diff reflog remote repack rerere restore
    rev-list rev-parse rm shortlog show show-branch show-index show-ref sparse-checkout stash
    status stripspace var verify-commit verify-pack verify-tag version whatchanged worktree
"""
GIT_ALLOWED = frozenset(_GIT_ALLOWED_WORDS.split())
"""git subcommands that never commit, merge, rebase, push or tag."""
GIT_GATED: dict[str, str] = {
    "commit": "commits",
    "merge": "merges",
    "rebase": "rebases",
    "push": "pushes",
    "tag": "tags",
    "pull": "merges or rebases (pull)",
    "cherry-pick": "commits (cherry-pick)",
    "revert": "commits (revert)",
    "am": "commits (am)",
    "commit-tree": "commits (commit-tree)",
    "update-ref": "moves a branch (update-ref)",
    "notes": "commits notes",
    "replace": "replaces commits",
    "filter-branch": "rewrites commits",
    "filter-repo": "rewrites commits",
    "fast-import": "commits (fast-import)",
    "subtree": "merges or pushes (subtree)",
    "send-email": "sends the commits",
    "symbolic-ref": "moves HEAD (symbolic-ref)",
}
_ABORTABLE = frozenset({"merge", "rebase", "cherry-pick", "revert", "am"})
GATED_WORDS = frozenset(GIT_GATED) - {"send-email", "symbolic-ref", "filter-repo"}
_GIT_VALUE_OPTIONS = frozenset(
    {
        "-C",
        "-c",
        "--git-dir",
        "--work-tree",
        "--namespace",
        "--config-env",
        "--super-prefix",
        "--exec-path",
        "--list-cmds",
        "--attr-source",
    }
)
_GIT_OPTIONAL_VALUE = frozenset({"--exec-path"})


def _tag(rest: list[str | None]) -> str | None:
    listing = {
        "-l",
        "--list",
        "-v",
        "--verify",
        "--contains",
        "--no-contains",
        "--points-at",
        "--merged",
        "--no-merged",
    }
    if not rest or any(a in listing or (a or "").startswith("-n") for a in rest):
        return None
    return "tags"


def _branch(rest: list[str | None]) -> str | None:
    moving = {"-f", "--force", "-m", "-M", "--move", "-c", "-C", "--copy"}
    return "moves a branch (branch --force/--move/--copy)" if moving & set(rest) else None


def _checkout(rest: list[str | None]) -> str | None:
    return "resets a branch (checkout -B)" if "-B" in rest else None


def _switch(rest: list[str | None]) -> str | None:
    forced = {"-C", "--force-create"}
    return "resets a branch (switch -C)" if forced & set(rest) else None


def _reset(rest: list[str | None]) -> str | None:
    """`git reset` that stays on HEAD (unstage, discard) is fine; moving the branch is not."""
    for arg in rest:
        if arg == "--":
            return None
        if arg is None:
            return "moves the branch to a commit mergegate cannot read (reset)"
        if arg.startswith("-"):
            continue
        return None if arg in ("HEAD", "@") else "moves the branch to another commit (reset)"
    return None


def _submodule(rest: list[str | None]) -> str | None:
    return "runs a command in every submodule (submodule foreach)" if "foreach" in rest else None


def _bisect(rest: list[str | None]) -> str | None:
    return "runs a command at each step (bisect run)" if "run" in rest else None


def _lfs(rest: list[str | None]) -> str | None:
    return "pushes (lfs push)" if "push" in rest else None


GIT_CONDITIONAL: dict[str, Callable[[list[str | None]], str | None]] = {
    "tag": _tag,
    "branch": _branch,
    "checkout": _checkout,
    "switch": _switch,
    "reset": _reset,
    "submodule": _submodule,
    "bisect": _bisect,
    "lfs": _lfs,
}


def git_refusal(sub: str, rest: list[str | None]) -> str | None:
    """Why `git SUB REST…` is refused while the latch is closed, or None when it may run."""
    if sub in _ABORTABLE and rest in (["--abort"], ["--quit"]):
        return None
    check = GIT_CONDITIONAL.get(sub)
    if check is not None:
        return check(rest)
    if sub in GIT_ALLOWED:
        return None
    return GIT_GATED.get(sub, "is not a git subcommand known to leave the branch alone")


# ---------------------------------------------------------------- what gh may do
_GH_ALLOWED_TOP_WORDS = """
    api attestation auth browse cache codespace completion config gist gpg-key help issue
    label org pr project release repo ruleset run search secret ssh-key status variable
    workflow version
"""
GH_ALLOWED_TOP = frozenset(_GH_ALLOWED_TOP_WORDS.split())
_GH_VALUE_FLAGS = frozenset({"-R", "--repo", "--hostname", "-X", "--method", "-H", "--header"})


def _positionals(args: list[str | None]) -> list[str | None]:
    found: list[str | None] = []
    skip = False
    for arg in args:
        if skip:
            skip = False
            continue
        if arg is not None and arg.startswith("-"):
            skip = arg in _GH_VALUE_FLAGS
            continue
        found.append(arg)
    return found


def _gh_api(args: list[str | None]) -> str | None:
    writes = {"-f", "-F", "--field", "--raw-field", "--input"}
    for i, arg in enumerate(args):
        if arg is None or arg in writes or (arg or "").startswith(("--field=", "--raw-field=")):
            return "calls the API with a body or an expansion (gh api)"
        if arg in ("-X", "--method") or arg.startswith("--method="):
            method = arg.partition("=")[2] or (args[i + 1] if i + 1 < len(args) else None)
            if (method or "").upper() != "GET":
                return "calls the API with a method other than GET (gh api)"
    return None


_GH_GATED: dict[tuple[str, str], str] = {
    ("pr", "merge"): "merges a pull request",
    ("release", "create"): "tags a release",
    ("repo", "sync"): "pushes (repo sync)",
}


def gh_refusal(args: list[str | None]) -> str | None:
    """Why `gh ARGS…` is refused while the latch is closed, or None when it may run."""
    words = _positionals(args)
    if not words:
        return None
    top, second = words[0], (words[1] if len(words) > 1 else "")
    if top is None or top not in GH_ALLOWED_TOP:
        return "is not a gh command known to leave the branch alone (an alias or extension?)"
    if second is None:
        return "runs a gh subcommand mergegate cannot read"
    if top == "pr" and second == "review" and {"-a", "--approve"} & set(args):
        return "approves a pull request"
    if top == "api":
        return _gh_api(args)
    return _GH_GATED.get((top, second))


# ---------------------------------------------------------------- programs
SHELLS = frozenset({"sh", "bash", "zsh", "dash", "ksh", "mksh", "ash", "fish", "yash", "posh"})
INTERPRETER = re.compile(
    r"(python|pypy|node|nodejs|deno|bun|perl|ruby|php|lua|luajit|tclsh|Rscript|osascript|pwsh)"
    r"[0-9.]*"
)
_INERT_WORDS = """
    echo printf cat head tail less more wc grep egrep fgrep rg ag ack ls cd pwd mkdir rmdir
    touch cp mv rm ln chmod chown stat file which type whereis whatis man apropos test [ [[
    true false diff cmp sort uniq cut tr tee basename dirname realpath readlink du df date
    sleep read printenv
"""
INERT = frozenset(_INERT_WORDS.split())
"""Programs that never run their arguments as a command (`echo git push` is text)."""
_SHELL_VALUE_OPTIONS = frozenset({"-o", "+o", "-O", "+O", "--rcfile", "--init-file"})
_GIT_WORD = re.compile(r"(?<![\w./-])(?:git|hub|gh)(?![\w-])")
_VERB_WORD = re.compile(
    r"(?<![\w-])(?:" + "|".join(re.escape(w) for w in sorted(GATED_WORDS)) + r")(?![\w-])"
)
_MERGEGATE_WORD = re.compile(r"(?<![\w-])mergegate(?![\w-])")
_RELEASE_WORD = re.compile(r"(?<![\w-])release(?![\w-])")


def mentions_git(text: str) -> bool:
    """True when `text` names git (or gh, hub) and, after it, a verb that moves work on
    (push, commit, merge, …), or runs mergegate's release. Linear: two searches."""
    found = _GIT_WORD.search(text)
    if found and _VERB_WORD.search(text, found.end()):
        return True
    named = _MERGEGATE_WORD.search(text)
    return bool(named and _RELEASE_WORD.search(text, named.end()))


def _basename(word: str) -> str:
    return word.rstrip("/").rsplit("/", 1)[-1]


def _shown(argv: list[str | None], limit: int = _SHOWN) -> str:
    text = " ".join(a if a is not None else "…" for a in argv)
    return text if len(text) <= limit else text[: limit - 1] + "…"


# ---------------------------------------------------------------- words as the shell reads them
_ESCAPE = re.compile(r"\\(.)", re.DOTALL)
_DQ_ESCAPE = re.compile(r"\\([$`\"\\\n])")


def _is_glob(word: str) -> bool:
    """Whether an unquoted word may expand to file names (`*`, `?`, `[…]`); linear."""
    if "*" in word or "?" in word:
        return True
    opening = word.find("[")
    return opening >= 0 and "]" in word[opening + 1 :]


def _unescape_word(text: str) -> str:
    return _ESCAPE.sub(lambda m: "" if m.group(1) == "\n" else m.group(1), text)


def _string(node: Node, source: bytes) -> str | None:
    parts = []
    for child in node.named_children:
        if child.type != "string_content":
            return None  # an expansion or substitution inside the quotes
        parts.append(_text(child, source))
    return _DQ_ESCAPE.sub(lambda m: "" if m.group(1) == "\n" else m.group(1), "".join(parts))


def _text(node: Node, source: bytes) -> str:
    """The node's text in `source` (the command as given, not the ASCII copy that was parsed)."""
    return source[node.start_byte : node.end_byte].decode("utf-8", "replace")


def static_word(node: Node, source: bytes) -> str | None:
    """The word the shell passes for `node`, or None when it depends on an expansion, a
    substitution or a file-name glob."""
    kind = node.type
    if kind in ("word", "number"):
        text = _text(node, source)
        return None if _is_glob(text) else _unescape_word(text)
    if kind == "raw_string":
        return _text(node, source)[1:-1]
    if kind in ("string", "translated_string"):
        return _string(node, source)
    if kind == "ansi_c_string":
        body = _text(node, source)[2:-1]
        return None if "\\" in body else body
    if kind in ("concatenation", "command_name"):
        parts = [static_word(child, source) for child in node.named_children]
        return None if any(p is None for p in parts) else "".join(p or "" for p in parts)
    return None


# ---------------------------------------------------------------- the reader
_ASCII_ONLY = bytes(range(128)) + b"x" * 128


@lru_cache(maxsize=1)
def _language() -> object:
    import tree_sitter  # noqa: PLC0415 - only a closed latch pays for the grammar
    import tree_sitter_bash  # noqa: PLC0415

    return tree_sitter.Language(tree_sitter_bash.language())


def _parser() -> Parser:
    import tree_sitter  # noqa: PLC0415

    return tree_sitter.Parser(_language())  # type: ignore[arg-type]


class _Reader:
    """Reads one Bash tool command; `script` returns the first refusal, or None."""

    def __init__(self, guarded: tuple[str, ...]) -> None:
        self.guarded = tuple(g for g in guarded if g)
        self.nodes = 0
        self.source = b""

    def script(self, text: str, depth: int) -> Refusal | None:
        shown = _shown([text.strip().replace("\n", " ")])
        if depth > MAX_DEPTH:
            return Refusal(shown, "nests shells too deeply for mergegate to read")
        data = text.encode("utf-8", "replace")
        if len(data) > MAX_SCRIPT_BYTES:
            return Refusal(shown, "is too long for mergegate to read")
        if any(g in text for g in self.guarded):
            return Refusal(shown, "names mergegate's state directory")
        # tree-sitter-bash 0.25 can crash on some code points (`{` then U+10FFFF): it parses
        # a copy whose non-ASCII bytes are each an `x` (the shell reads both as word
        # characters, and byte offsets stay the same), and words are read from the original.
        root = _parser().parse(data.translate(_ASCII_ONLY)).root_node
        if root.has_error and mentions_git(text):
            return Refusal(shown, "does not parse as a shell command, and it mentions git")
        outer, self.source = self.source, data
        try:
            return self._walk(root, depth)
        finally:
            self.source = outer

    def _walk(self, root: Node, depth: int) -> Refusal | None:
        stack = [root]
        while stack:
            node = stack.pop()
            self.nodes += 1
            if self.nodes > MAX_NODES:
                return Refusal("(the command)", "is too large for mergegate to read")
            if node.type == "command":
                found = self.command(node, depth)
                if found is not None:
                    return found
            stack.extend(reversed(node.children))
        return None

    def command(self, node: Node, depth: int) -> Refusal | None:
        name = node.child_by_field_name("name")
        if name is None:
            return None  # only assignments (`X=1`): nothing runs
        argv = [
            static_word(name, self.source),
            *(static_word(a, self.source) for a in node.children_by_field_name("argument")),
        ]
        return self.argv(argv, depth, wrapped=False)

    def argv(self, argv: list[str | None], depth: int, *, wrapped: bool) -> Refusal | None:
        """`argv` as one program run; `wrapped` when another program runs it (env, xargs…)."""
        name = argv[0]
        if name is None:
            if GATED_WORDS & {a for a in argv[1:] if a}:
                return Refusal(_shown(argv), "runs a program whose name comes from an expansion")
            return None
        base = _basename(name)
        handler = self._handler(base)
        if handler is not None:
            return handler(argv, depth, wrapped)
        if base in INERT:
            return None
        for i in range(1, len(argv)):
            word = argv[i]
            if word is not None and self._handler(_basename(word)) is not None:
                return self.argv(argv[i:], depth, wrapped=True)
        return None

    def _handler(self, base: str) -> Callable[[list[str | None], int, bool], Refusal | None] | None:
        if base in ("git", "hub") or (base.startswith("git-") and len(base) > 4):
            return self.git
        if INTERPRETER.fullmatch(base):
            return self.interpreter
        named: dict[str, Callable[[list[str | None], int, bool], Refusal | None]] = {
            "gh": lambda argv, _d, _w: self._refuse(argv, gh_refusal(argv[1:])),
            "mergegate": lambda argv, _d, _w: self._mergegate(argv),
            "eval": self.eval,
            "busybox": self.shell,
        }
        return self.shell if base in SHELLS else named.get(base)

    @staticmethod
    def _refuse(argv: list[str | None], why: str | None) -> Refusal | None:
        return None if why is None else Refusal(_shown(argv), why)

    def git(self, argv: list[str | None], _depth: int, wrapped: bool) -> Refusal | None:
        name = _basename(argv[0] or "")
        if name.startswith("git-"):
            argv = ["git", name[4:], *argv[1:]]
        i = 1
        while i < len(argv):
            arg = argv[i]
            if arg is None:
                return Refusal(_shown(argv), "runs git with a subcommand mergegate cannot read")
            if arg in _GIT_VALUE_OPTIONS and arg not in _GIT_OPTIONAL_VALUE:
                i += 2
                continue
            if not arg.startswith("-"):
                break
            i += 1
        if i >= len(argv):
            # `git` alone prints help; given to another program (xargs) it gets its input.
            return (
                Refusal(_shown(argv), "runs git with a subcommand from its input")
                if wrapped
                else None
            )
        sub = argv[i]
        assert sub is not None
        return self._refuse(["git", sub, *argv[i + 1 : i + 4]], git_refusal(sub, argv[i + 1 :]))

    def _mergegate(self, argv: list[str | None]) -> Refusal | None:
        if "release" in argv[1:]:
            return Refusal(
                _shown(argv), "releases the latch: only a person may, in their own terminal"
            )
        return None

    def shell(self, argv: list[str | None], depth: int, _wrapped: bool) -> Refusal | None:
        if _basename(argv[0] or "") == "busybox":
            argv = argv[1:] or [None]
            if argv[0] is None or _basename(argv[0]) not in SHELLS:
                return self.argv(argv, depth, wrapped=True) if argv[0] else None
        command_flag = False
        i = 1
        while i < len(argv):
            arg = argv[i]
            if arg is None:
                return Refusal(_shown(argv), "runs a shell with arguments mergegate cannot read")
            if arg in _SHELL_VALUE_OPTIONS:
                i += 2
                continue
            if arg == "--":
                i += 1
                break
            if arg.startswith(("-", "+")) and arg not in ("-", "+"):
                command_flag = command_flag or (not arg.startswith("--") and "c" in arg[1:])
                if not arg.startswith("--") and "s" in arg[1:]:
                    break  # -s: commands from the input
                i += 1
                continue
            break
        operand = argv[i] if i < len(argv) else None
        if command_flag:
            if operand is None:
                return Refusal(_shown(argv), "runs a shell command mergegate cannot read")
            return self.script(operand, depth + 1)
        if operand is None or operand == "-":
            return Refusal(_shown(argv), "runs a shell that reads its commands from its input")
        return None  # a script file: not opened (documented)

    def eval(self, argv: list[str | None], depth: int, _wrapped: bool) -> Refusal | None:
        words = argv[1:]
        if any(w is None for w in words):
            return Refusal(_shown(argv), "evaluates text mergegate cannot read")
        return self.script(" ".join(w or "" for w in words), depth + 1)

    def interpreter(self, argv: list[str | None], _depth: int, _wrapped: bool) -> Refusal | None:
        args = argv[1:]
        if "-m" in args:
            module = args.index("-m") + 1
            if module < len(args) and args[module] == "mergegate":
                return self._mergegate(["mergegate", *args[module + 1 :]])
        if not [a for a in args if a is None or not a.startswith("-")] or "-" in args:
            return Refusal(
                _shown(argv), "runs an interpreter that reads its program from its input"
            )
        if any(mentions_git(code) for code in _inline_code(args)):
            return Refusal(_shown(argv), "runs inline code that mentions git")
        return None


_INLINE_LONG = ("--eval", "--print")
_INLINE_SHORT = frozenset("ceEpr")


def _inline_code(args: list[str | None]) -> list[str]:
    """The program texts given on an interpreter's command line (`python -c CODE`, `node -e`,
    `perl -ne`, `php -r`, `--eval=CODE`); an expansion there reads as unknown code."""
    found: list[str] = []
    for i, arg in enumerate(args):
        if arg is None:
            continue
        code = args[i + 1] if i + 1 < len(args) else ""
        if arg.startswith(tuple(f"{flag}=" for flag in _INLINE_LONG)):
            found.append(arg.partition("=")[2])
        elif arg in _INLINE_LONG or (
            arg.startswith("-") and not arg.startswith("--") and arg[-1:] in _INLINE_SHORT
        ):
            found.append(code if code is not None else "git push")  # unknown: assume the worst
    return found


def refusal(command: str, guarded: tuple[str, ...] = ()) -> Refusal | None:
    """Why the latch refuses the Bash command `command`, or None when it may run.

    `guarded` are paths (as text) a command may not name — mergegate's state directory.
    """
    return _Reader(guarded).script(command, depth=0)
