"""Output constraints: verdict and edit grammars, and how response_format reaches the body."""

from __future__ import annotations

import re
from typing import Any

import pytest

from _gbnf import grammar_regex
from mergegate.agents._formats import FILE_EDITS_GRAMMAR, body_constraints, verdict_grammar
from mergegate.agents.edits import parse_file_edits


def test_plain_verdict_grammar_ends_with_the_verdict_line() -> None:
    grammar = verdict_grammar()
    assert 'tail     ::= "Ready to merge? " ("Yes" | "No" | "With fixes")' in grammar
    assert "finding{0,6}" in grammar
    assert "review_id" not in grammar


def test_trailer_grammar_ties_each_json_verdict_to_its_line() -> None:
    grammar = verdict_grammar("r-1.a_B", max_findings=2)
    for word, line in (("approve", "Yes"), ("request_changes", "With fixes"), ("reject", "No")):
        rule = "trailer-" + word.replace("_", "-")
        assert f'{rule} "\\n```\\n\\nReady to merge? {line}"' in grammar
        assert f'\\"review_id\\": \\"r-1.a_B\\", \\"verdict\\": \\"{word}\\"' in grammar
    assert 'items    ::= "[]" | "[" item (", " item){0,1} "]"' in grammar
    assert "_" not in "".join(line.split("::=")[0] for line in grammar.splitlines())


def test_zero_findings_allows_only_empty_lists() -> None:
    grammar = verdict_grammar("r", max_findings=0)
    assert 'root     ::= "Findings:\\n" "\\n" tail' in grammar
    assert 'items    ::= "[]"\n' in grammar


@pytest.mark.parametrize("review_id", ["", "x" * 65, 'a"b', "a b", "é", "a\\n"])
def test_review_ids_that_could_break_the_grammar_are_refused(review_id: str) -> None:
    with pytest.raises(ValueError, match="review_id"):
        verdict_grammar(review_id)


@pytest.mark.parametrize("max_findings", [-1, 10, 2.5, "3"])
def test_max_findings_is_bounded(max_findings: Any) -> None:
    with pytest.raises(ValueError, match="max_findings"):
        verdict_grammar(None, max_findings)


def test_edit_grammar_cannot_spell_dot_segments_or_swallow_the_end_marker() -> None:
    assert "segment ::= [A-Za-z0-9_]" in FILE_EDITS_GRAMMAR
    assert '">"{1,6}' in FILE_EDITS_GRAMMAR


@pytest.mark.parametrize("response_format", [None, {}])
def test_no_format_adds_nothing(response_format: dict[str, Any] | None) -> None:
    assert body_constraints(response_format, supports_grammar=True) == ({}, [])


def test_verdict_format_passes_its_options() -> None:
    body, warnings = body_constraints(
        {"type": "verdict", "review_id": "abc", "max_findings": 3}, supports_grammar=True
    )
    assert body == {"grammar": verdict_grammar("abc", 3)}
    assert warnings == []


def test_edit_grammar_allows_notes_after_the_blocks_that_cannot_start_another() -> None:
    assert "root    ::= block{1,8} note{0,3}" in FILE_EDITS_GRAMMAR
    assert 'note    ::= ([^F<>\\n] [^\\n]{0,159} | "F" ([^I\\n] [^\\n]{0,158})?) "\\n"' in (
        FILE_EDITS_GRAMMAR
    )
    # What the grammar lets a model write after its blocks is ignored by the parser.
    answer = "FILE: a.py\n<<<<<<< CONTENT\nx = 1\n>>>>>>> END\nF-1: fixed\n=======\nDone.\n"
    edits = parse_file_edits(answer)
    assert [(e.path, e.content) for e in edits] == [("a.py", "x = 1\n")]


def test_edit_grammar_keeps_the_notes_after_the_blocks_short() -> None:
    # Nothing reads the notes; the 0.5B model filled 8 of 300 characters with a repeated JSON
    # object (635 tokens) after a fix that changed nothing.
    language = re.compile(grammar_regex(FILE_EDITS_GRAMMAR), re.DOTALL)
    block = "FILE: a.py\n<<<<<<< CONTENT\nx = 1\n>>>>>>> END\n"
    note = "{" + "n" * 159 + "\n"  # 160 characters, the most a note may have
    assert language.fullmatch(block + note * 3)
    assert not language.fullmatch(block + note * 4)
    assert not language.fullmatch(block + "{" + "n" * 160 + "\n")
