"""What the docs name exists (issue 26, deliverable 6): every `mergegate.<module>` path in the
docs and in the code's docstrings and comments, every `mergegate <command> --flag`, every
relative link and heading anchor, every repository path and test a page points at; and the
index lists every page. A rename that leaves a page behind fails here, with the page and name."""

from __future__ import annotations

import importlib
import re
import tomllib
from functools import cache
from pathlib import Path

import click
import pytest

from _docs import ROOT, anchors, code_lines, code_spans, doc_pages, links, pages
from mergegate.cli._app import cli

_MODULE = re.compile(r"(?<![\w./-])mergegate(?:\.[A-Za-z_]\w*)+")
_FILES_NAMED_LIKE_MODULES = {
    "mergegate.toml",  # the configuration file
    "mergegate.exe",  # the program's name on Windows, in the hook's own-command check
}
_QUOTED = re.compile(r"\"[^\"]*\"|'[^']*'")
_INVOCATION = re.compile(
    r"^\s*(?:\$\s+)?(?:[A-Z_][A-Z0-9_]*=\S*\s+)*mergegate\s+(.*)|\$\(mergegate\s+(.*)"
)
_ANYWHERE = re.compile(r"(?<![\w./-])mergegate\s+(.*)")
_FLAG = re.compile(r"(?<![\w-])--[a-z][a-z0-9-]*")
_END_OF_COMMAND = {"|", "||", "&&", ";", ">", "2>", ")", "mergegate"}
_WORD = re.compile(r"[a-z][a-z0-9-]*")
_REPO_PATH = re.compile(
    r"((?:src/mergegate|tests|bench|scripts|examples|\.ci)/[\w./*-]*)(?:::(\w+))?"
)
_TEST_NAME = re.compile(r"(?<![\w/.])test_\w+")


def _relative(path: Path) -> str:
    return str(path.relative_to(ROOT))


def _listed(what: str, wrong: list[str]) -> str:
    return f"{len(wrong)} {what}:\n" + "\n".join(wrong)


def _sources() -> list[Path]:
    """The code whose docstrings and comments name modules: the package, benchmarks, scripts."""
    found = [*sorted((ROOT / "src").rglob("*.py")), *sorted((ROOT / "bench").rglob("*.py"))]
    return found + [p for p in sorted((ROOT / "scripts").rglob("*")) if p.is_file()]


# ---------------------------------------------------------------- mergegate.<module> paths


@cache
def _names_that_are_not_python() -> frozenset[str]:
    """Dotted names that are not modules: names the code spells as a whole string (DBOS step,
    workflow and queue names), entry-point groups, files."""
    code = "\n".join(p.read_text(encoding="utf-8") for p in (ROOT / "src").rglob("*.py"))
    steps = re.findall(r"\"(mergegate\.[\w.]+)\"", code)
    project = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["project"]
    groups = project.get("entry-points", {}).keys()
    return frozenset({*steps, *groups, *_FILES_NAMED_LIKE_MODULES})


def _resolves(dotted: str) -> bool:
    """Whether `dotted` is a module, or an attribute reached from the longest module prefix."""
    parts = dotted.split(".")
    for cut in range(len(parts), 0, -1):
        name = ".".join(parts[:cut])
        try:
            found: object = importlib.import_module(name)
        except ModuleNotFoundError as exc:
            if exc.name is not None and name.startswith(exc.name):
                continue
            raise
        for attribute in parts[cut:]:
            if not hasattr(found, attribute):
                return False
            found = getattr(found, attribute)
        return True
    return False


def missing_modules(text: str) -> list[str]:
    """The `mergegate.x.y` names in `text` that name nothing (sorted, once each)."""
    names = set(_MODULE.findall(text)) - _names_that_are_not_python()
    return sorted(name for name in names if not _resolves(name))


def test_every_module_path_named_in_docs_and_code_exists() -> None:
    wrong = [
        f"{_relative(path)}: {name}"
        for path in [*pages(), *_sources()]
        for name in missing_modules(path.read_text(encoding="utf-8"))
    ]
    assert wrong == [], _listed("names of modules that do not exist", wrong)


_PROMISE = re.compile(
    r"\ba later issue\b|\bissue \d+\b[^.\n]{0,40}\bwill\b|\bwill replace\b|\blater \(issue \d+",
    re.I,
)


def test_no_page_or_docstring_promises_another_issues_work() -> None:
    """Say what the code does now; what a later change will do belongs to its issue, and a
    promise left behind when it lands (or not) misleads."""
    wrong = [
        f"{_relative(path)}:{number}: {line.strip()}"
        for path in [*pages(), *_sources()]
        for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1)
        if _PROMISE.search(line)
    ]
    assert wrong == [], _listed("promises of later work", wrong)


# ---------------------------------------------------------------- commands and flags


def _option_names(command: click.Command) -> set[str]:
    names = {"--help"}
    for param in command.params:
        if isinstance(param, click.Option):
            names.update(o for o in (*param.opts, *param.secondary_opts) if o.startswith("--"))
    return names


def command_findings(words: list[str], *, strict: bool) -> list[str]:
    """What is wrong with `mergegate WORDS...`: a flag its command does not take, and (when
    `strict`: the line starts with it) a subcommand that does not exist. Words after a shell
    separator, or after the next `mergegate`, belong to another command."""
    command: click.Command = cli
    ctx = click.Context(cli, info_name="mergegate")
    path: list[str] = []
    index = 0
    while index < len(words) and isinstance(command, click.Group):
        sub = command.get_command(ctx, words[index])
        if sub is None:
            if strict and _WORD.fullmatch(words[index]) and not command.invoke_without_command:
                return [f"no command `mergegate {' '.join([*path, words[index]])}`"]
            break
        path.append(words[index])
        command, ctx = sub, click.Context(sub, info_name=words[index], parent=ctx)
        index += 1
    if not path:
        return []
    known = _option_names(command)
    wrong = []
    for word in words[index:]:
        if word in _END_OF_COMMAND or word.startswith("#"):
            break
        flags = [flag for flag in _FLAG.findall(word) if flag not in known]
        wrong += [f"`mergegate {' '.join(path)}` has no {flag}" for flag in flags]
    return wrong


def snippet_findings(snippet: str, *, span: bool) -> list[str]:
    """The findings for one code span (`span`) or one line of a code block: a command line
    that starts with `mergegate` (or `$ mergegate`, `$(mergegate`, `VAR=… mergegate`) is
    checked whole; any other `mergegate <command>` in it, and a span that starts with a
    command's name and names a flag (`run --queue`), for its flags."""
    text = _QUOTED.sub('""', snippet)
    start = _INVOCATION.search(text)
    if start:
        return command_findings(_words(start.group(1) or start.group(2)), strict=True)
    wrong = []
    for found in _ANYWHERE.finditer(text):
        wrong += command_findings(_words(found.group(1)), strict=False)
    first = text.split()[:1]
    top = cli.list_commands(click.Context(cli))
    if span and not wrong and first and first[0] in top and _FLAG.search(text):
        wrong += command_findings(_words(text), strict=False)
    return wrong


def _words(text: str) -> list[str]:
    return text.replace(")", " ) ").split()


def test_every_command_and_flag_named_in_docs_and_code_exists() -> None:
    wrong = []
    for page in pages():
        for snippet in code_spans(page):
            wrong += [f"{_relative(page)}: {w} (in `{snippet}`)" for w in _span(snippet)]
        for line in code_lines(page):
            wrong += [f"{_relative(page)}: {w} (in {line!r})" for w in _line(line)]
    for source in _sources():
        for snippet in re.findall(r"`(mergegate [^`\n]+)`", source.read_text(encoding="utf-8")):
            wrong += [f"{_relative(source)}: {w} (in `{snippet}`)" for w in _span(snippet)]
    assert wrong == [], _listed("commands or flags that do not exist", wrong)


def _span(snippet: str) -> list[str]:
    return snippet_findings(snippet, span=True)


def _line(line: str) -> list[str]:
    return snippet_findings(line, span=False)


@pytest.mark.parametrize(
    ("snippet", "span", "expected"),
    [
        ("mergegate run PLAN --implementer claude --reviewer codex", True, 0),
        ("mergegate run PLAN --no-such-flag", True, 1),
        ("mergegate frobnicate --x", True, 1),
        ("$ mergegate workers recover w1 --format json", False, 0),
        ('RUN=$(mergegate run plan.yaml --queue --implementer "x --bogus")', False, 0),
        ("RUN=$(mergegate run plan.yaml --queues)", False, 1),
        ("run --queue [--remote URL]", True, 0),
        ("resume RUN --answers X", True, 1),
        ("next: mergegate resume RUN --answer T=approve | grep --count", False, 0),
        ("the branch moved: mergegate left it at abc", False, 0),
        ("mergegate hook claude-code status [--session ID]", True, 0),
        ("mergegate hook claude-code --session ID", True, 1),
        ("mergegate plan frob", True, 1),
    ],
)
def test_the_command_check_reads_a_snippet_as_a_shell_would(
    snippet: str, span: bool, expected: int
) -> None:
    assert len(snippet_findings(snippet, span=span)) == expected


def test_the_module_check_finds_a_module_that_is_gone() -> None:
    text = (
        "written through `mergegate.durable`; read by mergegate.plans.load_plan and mergegate.toml"
    )
    assert missing_modules(text) == ["mergegate.durable"]


# ---------------------------------------------------------------- links, paths, tests, index


def _link_findings(page: Path) -> list[str]:
    wrong = []
    for href in links(page):
        if re.match(r"[a-z][a-z0-9+.-]*:", href):
            continue  # https:, mailto: - not ours to check here
        target, _, fragment = href.partition("#")
        path = (page.parent / target).resolve() if target else page
        if not path.exists():
            wrong.append(f"{_relative(page)}: {href} (no such file)")
        elif fragment and path.suffix == ".md" and fragment not in anchors(path):
            wrong.append(f"{_relative(page)}: {href} (no such heading)")
    return wrong


def test_every_relative_link_and_anchor_resolves() -> None:
    wrong = [finding for page in pages() for finding in _link_findings(page)]
    assert wrong == [], _listed("links to nothing", wrong)


@cache
def _test_names() -> frozenset[str]:
    files = list((ROOT / "tests").rglob("test_*.py"))
    defined = re.findall(r"def (test_\w+)", "\n".join(p.read_text(encoding="utf-8") for p in files))
    return frozenset({*defined, *(p.stem for p in files)})


def _path_findings(snippet: str) -> list[str]:
    found = _REPO_PATH.fullmatch(snippet)
    if found is None:
        return [
            f"no test {name}" for name in _TEST_NAME.findall(snippet) if name not in _test_names()
        ]
    where, test = found.group(1), found.group(2)
    matches = list(ROOT.glob(where)) if "*" in where else [ROOT / where]
    if not any(m.exists() for m in matches):
        return [f"no such path {where}"]
    if test and f"def {test}(" not in matches[0].read_text(encoding="utf-8"):
        return [f"no test {test} in {where}"]
    return []


def test_every_repository_path_and_test_named_exists() -> None:
    wrong = [
        f"{_relative(page)}: {finding}"
        for page in pages()
        for snippet in code_spans(page)
        for finding in _path_findings(snippet)
    ]
    assert wrong == [], _listed("paths or tests that do not exist", wrong)


def test_the_index_lists_every_page() -> None:
    index = ROOT / "docs" / "index.md"
    listed = {href.partition("#")[0] for href in links(index)}
    missing = [p.name for p in doc_pages() if p != index and p.name not in listed]
    assert missing == [], "docs/index.md must link every page under docs/"
