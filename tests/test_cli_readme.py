"""The README's command table says what the CLI does (issue 24, item 5; one line per command
since issue 26): every command of the CLI in it once, every option it names exists on that
command, each row links the command's section of the generated reference (docs/cli.md) and a
guide page, and its exit-code table is the one `mergegate --help` prints."""

from __future__ import annotations

import re
from pathlib import Path

import click

from _docs import anchors
from mergegate.cli import cli
from mergegate.cli._reference import CommandEntry, anchor, command_tree

README = Path(__file__).resolve().parents[1] / "README.md"
CLI_REFERENCE = README.parent / "docs" / "cli.md"
_SPAN = re.compile(r"`([^`]+)`")
_OPTION = re.compile(r"(?<![\w-])--[a-z][a-z0-9-]*")
_LINK = re.compile(r"\]\(([^)\s]+)\)")
_MAX_LINE = 200  # "one line per command": the longer story is on the guide page


def _table(heading: str) -> list[list[str]]:
    """The rows of the first table under `heading`, as cells."""
    text = README.read_text(encoding="utf-8")
    after = text.split(f"## {heading}\n", 1)[1]
    rows = []
    for line in after.splitlines():
        if rows and not line.startswith("|"):
            break
        if line.startswith("|") and not line.startswith("|---"):
            cells = re.split(r"(?<!\\)\|", line.strip().strip("|"))
            rows.append([c.strip().replace("\\|", "|") for c in cells])
    return rows[1:]  # the header


def _commands() -> dict[tuple[str, ...], CommandEntry]:
    """Every command a user runs, reached through the lazy group as `mergegate --help` reaches
    them: each leaf, and each group that runs by itself (`hook claude-code`)."""
    return {
        entry.path: entry
        for entry in command_tree()
        if entry.path
        and (not isinstance(entry.command, click.Group) or entry.command.invoke_without_command)
    }


def _resolve(words: list[str]) -> CommandEntry | None:
    """The command a synopsis names (`mergegate plan show PATH` -> `plan show`): the longest
    run of its first words that is a command, or None when there is none."""
    if words and words[0] == "mergegate":
        words = words[1:]
    tree = {entry.path: entry for entry in command_tree()}
    for cut in range(len(words), 0, -1):
        if tuple(words[:cut]) in tree:
            return tree[tuple(words[:cut])]
    return None


def _rows() -> list[tuple[CommandEntry | None, str, list[str]]]:
    """Each row of the command table: the command its first cell names, that cell's
    synopsis, and the row's cells."""
    found = []
    for row in _table("What it does"):
        spans = _SPAN.findall(row[0])
        synopsis = spans[0] if spans else row[0]
        found.append((_resolve(synopsis.split()), synopsis, row))
    return found


def _options(command: click.Command) -> set[str]:
    names: set[str] = {"--help"}
    for param in command.params:
        if isinstance(param, click.Option):
            names.update(o for o in (*param.opts, *param.secondary_opts) if o.startswith("--"))
    return names


def test_every_option_the_readme_names_exists_on_its_command() -> None:
    wrong = []
    for entry, synopsis, _ in _rows():
        assert entry is not None, f"no command in `{synopsis}`"
        for option in _OPTION.findall(synopsis):
            if option not in _options(entry.command):
                wrong.append(f"{entry.name}: {option} (in `{synopsis}`)")
    assert wrong == []


def test_every_command_is_in_the_readme_table_once() -> None:
    listed = [entry.path for entry, _, _ in _rows() if entry is not None]
    missing = [" ".join(path) for path in _commands() if path not in listed]
    repeated = sorted({" ".join(path) for path in listed if listed.count(path) > 1})
    assert (missing, repeated) == ([], []), "one row per command, every command"


def test_each_row_is_one_line_linking_the_reference_and_a_guide() -> None:
    sections = anchors(CLI_REFERENCE)
    wrong = []
    for entry, synopsis, row in _rows():
        if entry is None:
            continue
        first, rest = _LINK.findall(row[0]), [h for c in row[1:] for h in _LINK.findall(c)]
        if first != [f"docs/cli.md#{anchor(entry.path)}"] or anchor(entry.path) not in sections:
            wrong.append(f"{synopsis}: links {first}, not its section of docs/cli.md")
        guides = [h.partition("#")[0] for h in rest if h.startswith("docs/")]
        if not guides or not all((README.parent / g).is_file() for g in guides):
            wrong.append(f"{synopsis}: no guide page (docs/…) among {rest}")
        if len(row[1]) > _MAX_LINE:
            wrong.append(f"{synopsis}: {len(row[1])} characters, more than one line")
    assert wrong == []


def test_the_exit_code_table_is_the_one_the_help_prints() -> None:
    readme = {int(row[0]) for row in _table("Exit codes (every command)")}
    help_text = cli.get_help(click.Context(cli))
    printed = {int(n) for n in re.findall(r"^\s+(\d+)\s{2}", help_text, re.M)}
    assert readme == printed


def test_verify_help_says_plan_is_any_plan_not_a_json_file() -> None:
    command = cli.get_command(click.Context(cli), "verify")  # commands load lazily
    assert command is not None
    text = " ".join(command.get_help(click.Context(command, info_name="verify")).split())
    assert "PLAN is a JSON" not in text
    assert "PLAN is a plan `mergegate plan show` reads" in text
