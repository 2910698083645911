"""`mergegate parse` through click's CliRunner."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from click.testing import CliRunner

from mergegate.cli import cli

EXAMPLES = Path(__file__).resolve().parents[1] / "examples" / "reviews"


def _write(tmp_path: Path, name: str, text: str) -> str:
    path = tmp_path / name
    path.write_text(text, encoding="utf-8")
    return str(path)


def test_demo_examples_exit_1_and_say_why() -> None:
    result = CliRunner().invoke(
        cli, ["parse", str(EXAMPLES / "approve.md"), str(EXAMPLES / "soft-approval.md")]
    )
    assert result.exit_code == 1
    assert "approve.md: APPROVE" in result.output
    assert "soft-approval.md: FIXES" in result.output
    assert "line " in result.output


def test_approve_exits_0(tmp_path: Path) -> None:
    path = _write(tmp_path, "a.md", "**Ready to merge? Yes**\n")
    assert CliRunner().invoke(cli, ["parse", path]).exit_code == 0


def test_malformed_and_empty_exit_3(tmp_path: Path) -> None:
    empty = _write(tmp_path, "e.md", "")
    prose = _write(tmp_path, "p.md", "Looks fine to me.\n")
    result = CliRunner().invoke(cli, ["parse", empty, prose])
    assert result.exit_code == 3


def test_stdin_dash_and_default(tmp_path: Path) -> None:
    runner = CliRunner()
    assert runner.invoke(cli, ["parse", "-"], input="Verdict: APPROVE\n").exit_code == 0
    assert runner.invoke(cli, ["parse"], input="Verdict: REJECT\n").exit_code == 1


def test_json_one_object_for_one_file(tmp_path: Path) -> None:
    path = _write(tmp_path, "a.md", "#### Critical\n- bug in `x.py:3`\n\n**Ready to merge? No**\n")
    result = CliRunner().invoke(cli, ["parse", "--format", "json", path])
    data = json.loads(result.output)
    assert isinstance(data, dict)
    assert data["file"] == path
    assert data["decision"] == "reject"
    assert data["approved"] is False
    assert data["evidence"]["line"] == 4
    assert data["findings"][0]["file"] == "x.py"
    assert set(data) >= {"dialect", "reasons", "warnings"}


def test_json_array_for_several_files(tmp_path: Path) -> None:
    a = _write(tmp_path, "a.md", "LGTM\n")
    b = _write(tmp_path, "b.md", "NACK\n")
    data = json.loads(CliRunner().invoke(cli, ["parse", "--format", "json", a, b]).output)
    assert [d["decision"] for d in data] == ["approve", "reject"]


def test_jsonl_one_line_per_file_with_unreadable_file(tmp_path: Path) -> None:
    good = _write(tmp_path, "a.md", "LGTM\n")
    missing = str(tmp_path / "missing.md")
    result = CliRunner().invoke(cli, ["parse", "--format", "jsonl", good, missing])
    assert result.exit_code == 2
    lines = [json.loads(line) for line in result.stdout.splitlines() if line.strip()]
    assert [line["file"] for line in lines] == [good, missing]
    assert lines[0]["decision"] == "approve"
    assert "error" in lines[1]


def test_review_id_option(tmp_path: Path) -> None:
    trailer = '```json\n{"review_id": "n-1", "verdict": "approve", "findings": []}\n```\n'
    path = _write(tmp_path, "t.md", "Review.\n\n" + trailer)
    runner = CliRunner()
    assert runner.invoke(cli, ["parse", "--review-id", "n-1", path]).exit_code == 0
    assert runner.invoke(cli, ["parse", "--review-id", "other", path]).exit_code == 3


def test_dialect_option_and_bad_dialect(tmp_path: Path) -> None:
    path = _write(tmp_path, "a.md", "**Ready to merge? Yes**\n")
    runner = CliRunner()
    assert runner.invoke(cli, ["parse", "--dialect", "superpowers", path]).exit_code == 0
    assert runner.invoke(cli, ["parse", "--dialect", "bmad", path]).exit_code == 3
    assert runner.invoke(cli, ["parse", "--dialect", "nope", path]).exit_code == 2


def test_text_output_escapes_terminal_sequences(tmp_path: Path) -> None:
    path = _write(tmp_path, "a.md", "**Ready to merge? No** — x\x1b[2J\x1b]0;pwned\x07 \u202e\n")
    result = CliRunner().invoke(cli, ["parse", path])
    assert result.exit_code == 1
    assert "\x1b" not in result.output
    assert "\x07" not in result.output
    assert "\u202e" not in result.output
    assert "\\x1b" in result.output


@pytest.mark.parametrize("review_id", ["", "   "])
def test_an_empty_review_id_is_a_usage_error(tmp_path: Path, review_id: str) -> None:
    """Issue 9 (5): `parse --review-id ''` is exit 2 with one line, nothing decided."""
    path = _write(tmp_path, "a.md", "**Ready to merge? Yes**\n")
    result = CliRunner().invoke(cli, ["parse", "--review-id", review_id, path])
    assert result.exit_code == 2
    assert result.stdout == ""
    assert result.stderr.splitlines() == [
        "mergegate: error: --review-id must not be empty: give the nonce the reviewer was asked for"
    ]


def test_a_replacement_character_on_the_verdict_line_is_not_an_approval(tmp_path: Path) -> None:
    path = tmp_path / "a.md"
    path.write_bytes(b"**Ready to merge? Yes\xff**\n")  # not UTF-8: read as U+FFFD
    result = CliRunner().invoke(cli, ["parse", "--format", "json", str(path)])
    assert result.exit_code == 3
    assert json.loads(result.stdout)["decision"] == "malformed"
