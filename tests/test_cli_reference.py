"""docs/cli.md is the CLI reference the click commands make (issue 26, deliverable 6): every
command and subcommand, reached through the lazy group, with its usage, help and options; the
committed file is the one `make docs` writes now, and help text reads in Markdown as typed."""

from __future__ import annotations

import re
from pathlib import Path

import click
import pytest
from click.testing import CliRunner
from hypothesis import example, given
from hypothesis import strategies as st
from markdown_it import MarkdownIt

from _docs import ROOT, anchors, github_slug
from mergegate.cli._app import COMMANDS
from mergegate.cli._reference import _prose, anchor, command_tree, main, render

CLI_MD = ROOT / "docs" / "cli.md"


def _sections(text: str) -> dict[str, str]:
    """Each command's section of a rendered reference, by its heading (`mergegate plan show`)."""
    parts = re.split(r"^#{2,4} (mergegate[a-z0-9 -]*)$", text, flags=re.M)
    return dict(zip(parts[1::2], parts[2::2], strict=True))


def test_docs_cli_md_is_the_reference_the_commands_make() -> None:
    committed = CLI_MD.read_text(encoding="utf-8") if CLI_MD.is_file() else ""
    assert committed == render(), (
        "docs/cli.md is stale: regenerate it with `make docs` "
        "(python -m mergegate.cli._reference --output docs/cli.md) and commit it"
    )


def test_every_command_of_the_lazy_group_has_its_section_with_every_option() -> None:
    text = render()
    sections = _sections(text)
    entries = command_tree()
    assert {e.path[0] for e in entries if len(e.path) == 1} == set(COMMANDS)
    assert [e.name for e in entries] == list(sections)
    for entry in entries:
        section = sections[entry.name]
        assert f"Usage: {entry.name} " in section
        for param in entry.command.params:
            record = param.get_help_record(entry.ctx)
            if isinstance(param, click.Option) and record is not None:
                assert f"- `{record[0]}`" in section, f"{entry.name}: {record[0]}"


def test_each_command_has_the_anchor_github_gives_its_heading() -> None:
    found = anchors(CLI_MD)
    for entry in command_tree():
        assert github_slug(entry.name) == anchor(entry.path)
        assert anchor(entry.path) in found


def test_the_reference_is_the_same_whatever_the_terminal(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("COLUMNS", "40")
    narrow = render()
    monkeypatch.setenv("COLUMNS", "250")
    assert render() == narrow


def test_check_fails_on_a_stale_file_and_names_the_fix(tmp_path: Path) -> None:
    stale = tmp_path / "cli.md"
    stale.write_text(render() + "edited by hand\n", encoding="utf-8")
    result = CliRunner().invoke(main, ["--check", str(stale)])
    assert result.exit_code == 1
    assert "stale" in result.output
    assert "make docs" in result.output
    written = tmp_path / "fresh.md"
    assert CliRunner().invoke(main, ["--output", str(written)]).exit_code == 0
    assert written.read_text(encoding="utf-8") == render()
    assert CliRunner().invoke(main, ["--check", str(written)]).exit_code == 0


_MARKDOWN = MarkdownIt("commonmark").enable(["table", "strikethrough"])


def _rendered_text(markdown: str) -> str | None:
    """The text a reader sees for one paragraph of Markdown, or None when it is anything else
    than one paragraph of plain text and code (emphasis, a link, HTML, a list, a heading…)."""
    blocks = _MARKDOWN.parse(markdown)
    if [b.type for b in blocks] != ["paragraph_open", "inline", "paragraph_close"]:
        return None
    out = []
    for child in blocks[1].children or ():
        if child.type not in ("text", "code_inline", "softbreak"):
            return None
        out.append(" " if child.type == "softbreak" else child.content)
    return "".join(out)


_MARKDOWN_CHARACTERS = st.sampled_from(list("-+=#>*_[]()<>!~$&;\\|:/.0123456789 ab\t"))
_ANY_CHARACTER = st.characters(codec="utf-8", exclude_categories=("Cc", "Cs", "Zl", "Zp"))


@given(st.text(st.one_of(_MARKDOWN_CHARACTERS, _ANY_CHARACTER)))
@example("- a list?")
@example("1. a list?")
@example("# a heading?")
@example("> a quote?")
@example("+ b")
@example("2) c")
@example("*x* _y_ ~~z~~ $a$ b \\")
@example("[a](b) <a href=x> &amp; ![i](j)")
def test_help_prose_reads_as_typed(text: str) -> None:
    """Whatever a help text holds outside backquotes — `<run dir>`, `'*review*'`, `[alerts]`,
    `~/.claude`, `&amp;`, `1.` or `-` first — the reader sees it as written."""
    text = text.replace("`", "")
    typed = " ".join(text.split())
    if not typed:
        return
    assert _rendered_text(_prose(text)) == typed


@pytest.mark.parametrize(
    ("help_text", "seen"),
    [
        ("See `mergegate plan show` and <run dir>/x.", "See mergegate plan show and <run dir>/x."),
        ("Default: hooks.subagent_types ('*review*').", None),
        ("- a dash first, `a_b` and *c*", "- a dash first, a_b and *c*"),
        ("an unpaired ` backquote", "an unpaired ` backquote"),
    ],
)
def test_backquoted_spans_stay_code(help_text: str, seen: str | None) -> None:
    expected = seen if seen is not None else help_text
    assert _rendered_text(_prose(help_text)) == expected
