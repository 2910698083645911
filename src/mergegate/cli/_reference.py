"""The CLI reference, `docs/cli.md`, generated from the click commands themselves.

Every command and subcommand, reached through the lazy group (`_app.COMMANDS`) the way
`mergegate --help` reaches them, in a stable order (depth first, names sorted): its usage line,
its help text and its options (names, metavar, help, and the default, range or requirement
click knows). Nothing depends on the terminal: no line is wrapped to a width.

    python -m mergegate.cli._reference --output docs/cli.md    # `make docs`
    python -m mergegate.cli._reference --check docs/cli.md     # exit 1 when it is stale

`tests/test_cli_reference.py` renders it in memory and fails when the committed file differs.
Help text is written for a terminal; here it becomes Markdown: a `\\b` paragraph (kept as
written by click) is a code block, any other paragraph is prose whose backquoted spans stay
code and whose other Markdown characters are escaped, so `<run dir>` or `'*review*'` read as
typed.
"""

from __future__ import annotations

import inspect
import re
import sys
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import click

from mergegate.atomic_files import write_atomic
from mergegate.cli._app import cli

__all__ = ["CommandEntry", "anchor", "command_tree", "main", "render"]

GENERATOR = "python -m mergegate.cli._reference --output docs/cli.md"
"""How to regenerate the reference (also `make docs`); the reference's header names it."""

_NAME = re.compile(r"[a-z0-9][a-z0-9-]*")
# What would change how a line of prose renders (emphasis, HTML, links, GitHub's strikethrough
# and math, entities); escaped outside code spans, where click's help shows them literally. An
# underscore inside a word (max_rounds) and a `|` outside a table render as typed already.
_ESCAPED = re.compile(r"[\\`*\[\]<~$]|(?<![A-Za-z0-9])_|_(?![A-Za-z0-9])|&(?=[#A-Za-z])")
_BLOCK_START = re.compile(r"(?:[-+#>]|\d+[.)])")  # `- `, `1. `, `# `, `> `: a list, heading, quote
_BACKTICKS = re.compile(r"`+")


@dataclass(frozen=True)
class CommandEntry:
    """One command of the tree: its words after `mergegate` (empty for the root), the command
    and the click context it is rendered in."""

    path: tuple[str, ...]
    command: click.Command
    ctx: click.Context

    @property
    def name(self) -> str:
        """`mergegate` and the words: the heading, and what a user types."""
        return " ".join(("mergegate", *self.path))


def anchor(path: tuple[str, ...]) -> str:
    """The anchor of a command's heading in `docs/cli.md` (GitHub's: words joined by `-`)."""
    return "-".join(("mergegate", *path))


def command_tree(root: click.Command = cli) -> list[CommandEntry]:
    """Every command under `root`, the root first, depth first, subcommands sorted by name.

    Subcommands come from each group's `list_commands`/`get_command`, so `mergegate`'s lazy
    group imports each one from `COMMANDS`. A name that would not make a plain anchor (only
    lowercase letters, digits and `-`) raises `ValueError`."""
    settings = {**root.context_settings, "show_default": True}  # every default click knows
    ctx = click.Context(root, info_name="mergegate", **settings)
    return list(_walk(CommandEntry((), root, ctx)))


def _walk(entry: CommandEntry) -> Iterator[CommandEntry]:
    yield entry
    for child in _children(entry):
        yield from _walk(child)


def _children(entry: CommandEntry) -> list[CommandEntry]:
    """A group's visible subcommands, sorted by name (none for a plain command)."""
    group, ctx = entry.command, entry.ctx
    if not isinstance(group, click.Group):
        return []
    children = []
    for name in sorted(group.list_commands(ctx)):
        if not _NAME.fullmatch(name):
            raise ValueError(f"command name {name!r} makes no plain anchor")
        sub = group.get_command(ctx, name)
        if sub is not None and not sub.hidden:
            sub_ctx = click.Context(sub, info_name=name, parent=ctx)
            children.append(CommandEntry((*entry.path, name), sub, sub_ctx))
    return children


def render(root: click.Command = cli) -> str:
    """The whole reference as Markdown, ending with one newline."""
    entries = command_tree(root)
    parts = [_preamble(entries)]
    parts += [_section(entry) for entry in entries]
    return "\n\n".join(parts).rstrip("\n") + "\n"


def _preamble(entries: list[CommandEntry]) -> str:
    contents = "\n".join("  " * (len(e.path) - 1) + _link_row(e, e.name) for e in entries if e.path)
    return (
        f"<!-- Generated from the click commands by `make docs` ({GENERATOR}).\n"
        "     Do not edit: change the command's help and regenerate. -->\n\n"
        "# Command reference\n\n"
        "Every `mergegate` command with its usage, help and options, as `--help` prints them "
        "(every command also takes `-h`/`--help`). The guides under [docs/](index.md) say how "
        "the commands work together; the exit codes are the same everywhere "
        "([decisions](decisions.md)).\n\n"
        f"{contents}"
    )


def _section(entry: CommandEntry) -> str:
    level = "#" * min(2 + max(len(entry.path) - 1, 0), 4)
    pieces = [f"{level} {entry.name}", _fenced(_usage(entry), "text")]
    help_text = _help_markdown(entry.command)
    if help_text:
        pieces.append(help_text)
    options = _options(entry)
    if options:
        pieces.append("Options:\n\n" + options)
    commands = _subcommands(entry) if entry.path else ""  # the root's: the contents above
    if commands:
        pieces.append("Commands:\n\n" + commands)
    return "\n\n".join(pieces)


def _usage(entry: CommandEntry) -> str:
    pieces = entry.command.collect_usage_pieces(entry.ctx)
    return " ".join(["Usage:", entry.ctx.command_path, *pieces])


def _link_row(entry: CommandEntry, label: str) -> str:
    """`- [label](#its-anchor): its first sentence` (as click's command list shows it, never
    cut short)."""
    short = _prose(entry.command.get_short_help_str(limit=10_000))
    return f"- [`{label}`](#{anchor(entry.path)})" + _after_colon(short)


def _subcommands(entry: CommandEntry) -> str:
    return "\n".join(_link_row(child, child.path[-1]) for child in _children(entry))


def _options(entry: CommandEntry) -> str:
    rows = []
    for param in entry.command.params:
        if not isinstance(param, click.Option):
            continue  # arguments are in the usage line
        record = param.get_help_record(entry.ctx)
        if record is None:
            continue  # hidden, as in --help
        spec, text = record
        rows.append(f"- `{spec}`" + _after_colon(_prose(text)))
    return "\n".join(rows)


def _help_markdown(command: click.Command) -> str:
    """The command's help as Markdown paragraphs (what click prints before the options)."""
    if not command.help:
        return ""
    text = inspect.cleandoc(command.help).partition("\f")[0]
    blocks = []
    for paragraph in re.split(r"\n[ \t]*\n", text.strip()):
        lines = paragraph.splitlines()
        if lines and lines[0].strip() == "\b":
            blocks.append(_fenced("\n".join(lines[1:]), "text"))
        else:
            blocks.append(_prose(" ".join(line.strip() for line in lines)))
    return "\n\n".join(block for block in blocks if block)


def _after_colon(text: str) -> str:
    return f": {text}" if text else ""


def _fenced(text: str, info: str) -> str:
    """`text` verbatim in a fenced block whose fence is longer than any backtick run in it."""
    longest = max((len(run) for run in _BACKTICKS.findall(text)), default=0)
    fence = "`" * max(3, longest + 1)
    return f"{fence}{info}\n{text}\n{fence}"


def _prose(text: str) -> str:
    """One line of help text as Markdown: backquoted spans kept as code, everything else
    escaped so that it renders as typed (an unpaired backquote is escaped too)."""
    out = []
    rest = " ".join(text.split())
    while rest:
        start = rest.find("`")
        end = rest.find("`", start + 1) if start >= 0 else -1
        if start < 0 or end < 0:
            out.append(_escape(rest))
            break
        out.append(_escape(rest[:start]))
        out.append(rest[start : end + 1])
        rest = rest[end + 1 :]
    line = "".join(out)
    if not _BLOCK_START.match(line):
        return line
    cut = len(line) - len(line.lstrip("0123456789"))  # `1\.`: a digit is no escape
    return f"{line[:cut]}\\{line[cut:]}"


def _escape(text: str) -> str:
    return _ESCAPED.sub(lambda m: "\\" + m.group(0), text)


@click.command(context_settings={"help_option_names": ["-h", "--help"]})
@click.option(
    "--output",
    type=click.Path(dir_okay=False, path_type=Path),
    help="Write the reference to this file (default: print it).",
)
@click.option(
    "--check",
    "check_path",
    type=click.Path(dir_okay=False, path_type=Path),
    help="Compare this file with the reference instead: exit 1 when it differs.",
)
def main(output: Path | None, check_path: Path | None) -> None:
    """Generate the `mergegate` command reference (docs/cli.md) from the click commands."""
    text = render()
    if check_path is not None:
        found = check_path.read_text(encoding="utf-8") if check_path.is_file() else None
        if found != text:
            click.echo(f"{check_path} is stale: regenerate it with `make docs`", err=True)
            sys.exit(1)
        return
    if output is None:
        click.echo(text, nl=False)
        return
    write_atomic(output, text)
    click.echo(f"wrote {output}", err=True)


if __name__ == "__main__":  # pragma: no cover - `python -m mergegate.cli._reference`
    main()
