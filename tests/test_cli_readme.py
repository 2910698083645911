"""The README's command table says what the CLI does (issue 24, item 5): every command in it,
every option it names exists on that command, every command of the CLI is in it, and its
exit-code table is the one `mergegate --help` prints."""

from __future__ import annotations

import re
from pathlib import Path

import click

from mergegate.cli import cli

README = Path(__file__).resolve().parents[1] / "README.md"
_SPAN = re.compile(r"`([^`]+)`")
_OPTION = re.compile(r"(?<![\w-])--[a-z][a-z0-9-]*")


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


def _resolve(words: list[str]) -> tuple[tuple[str, ...], click.Command] | None:
    """The command a synopsis names (`mergegate plan show PATH` -> ("plan", "show")), or None
    when its first word is no command."""
    if words and words[0] == "mergegate":
        words = words[1:]
    command: click.Command = cli
    path: list[str] = []
    for word in words:
        if not isinstance(command, click.Group) or word not in command.commands:
            break
        command = command.commands[word]
        path.append(word)
    return (tuple(path), command) if path else None


def _synopses() -> list[tuple[tuple[str, ...], click.Command, str]]:
    """Every command synopsis in the first column of the command table."""
    found = []
    for row in _table("What it does"):
        for span in _SPAN.findall(row[0]):
            resolved = _resolve(span.split())
            if resolved is not None:
                found.append((*resolved, span))
    return found


def _options(command: click.Command) -> set[str]:
    names: set[str] = {"--help"}
    for param in command.params:
        if isinstance(param, click.Option):
            names.update(o for o in (*param.opts, *param.secondary_opts) if o.startswith("--"))
    return names


def _commands(group: click.Group, prefix: tuple[str, ...] = ()) -> list[tuple[str, ...]]:
    found = []
    for name, command in group.commands.items():
        if isinstance(command, click.Group):
            found += _commands(command, (*prefix, name))
        else:
            found.append((*prefix, name))
    return found


def test_every_option_the_readme_names_exists_on_its_command() -> None:
    wrong = []
    for path, command, span in _synopses():
        for option in _OPTION.findall(span):
            if option not in _options(command):
                wrong.append(f"{' '.join(path)}: {option} (in `{span}`)")
    assert wrong == []


def test_every_command_is_in_the_readme_table() -> None:
    listed = {path for path, _, _ in _synopses()}
    mentioned = {
        path
        for row in _table("What it does")
        for span in _SPAN.findall(" ".join(row))
        if (found := _resolve(span.split())) is not None
        for path in [found[0]]
    }
    missing = [p for p in _commands(cli) if p not in listed and p not in mentioned]
    assert missing == []


def test_the_exit_code_table_is_the_one_the_help_prints() -> None:
    readme = {int(row[0]) for row in _table("Exit codes (every command)")}
    help_text = cli.get_help(click.Context(cli))
    printed = {int(n) for n in re.findall(r"^\s+(\d+)\s{2}", help_text, re.M)}
    assert readme == printed


def test_verify_help_says_plan_is_any_plan_not_a_json_file() -> None:
    command = cli.commands["verify"]
    text = " ".join(command.get_help(click.Context(command, info_name="verify")).split())
    assert "PLAN is a JSON" not in text
    assert "PLAN is a plan `mergegate plan show` reads" in text
