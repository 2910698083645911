"""Output constraints: `AgentRequest.response_format` → fields of a chat-completions body.

Accepted `response_format` values:

- `{"type": "grammar", "grammar": GBNF}` → llama.cpp's `grammar` body field.
- `{"type": "json_schema", "json_schema": {...}}` → passed through as OpenAI `response_format`.
- `{"type": "verdict"}`, optionally with `"review_id": ID` and `"max_findings": N` → the
  `verdict_grammar`: a findings list, mergegate's fenced JSON trailer when a review id is
  given, and the exact last line `Ready to merge? Yes|No|With fixes`.
- `{"type": "file_edits"}` → `FILE_EDITS_GRAMMAR`, the whole-file edit protocol.
- any other mapping is taken as a bare JSON Schema and wrapped as `json_schema`.

Grammars need a llama.cpp-style server (`grammar` field); other endpoints get the JSON-schema
forms only, and a warning says the constraint was not sent.

`answer_constraints` does the same for a typed answer (`AgentRequest.answer_schema`, which
takes precedence over `response_format`): a grammar generated from the schema on a
grammar-capable server (after the edit blocks, for an implementer), else the strict
`response_format` for an answer that is the whole message, else nothing (the final message
must be the object alone).
"""

from __future__ import annotations

import json
from typing import Any

from mergegate.agents.answers import answer_grammar, strict_schema
from mergegate.agents.base import AnswerMechanism, AnswerSchema
from mergegate.agents.edits import CLOSE_MARKER, HEADER_PREFIX, OPEN_MARKER
from mergegate.decisions import Decision
from mergegate.verdicts import TRAILER_VERDICTS, Severity, TrailerFinding

__all__ = ["FILE_EDITS_GRAMMAR", "answer_constraints", "body_constraints", "verdict_grammar"]

_REVIEW_ID_CHARS = frozenset("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-_.")

FILE_EDITS_GRAMMAR = rf"""root    ::= block{{1,8}} note{{0,3}}
block   ::= "{HEADER_PREFIX}" path "\n{OPEN_MARKER}\n" line{{0,400}} "{CLOSE_MARKER}\n"
path    ::= segment ("/" segment){{0,8}}
segment ::= [A-Za-z0-9_] [A-Za-z0-9_.-]{{0,63}}
line    ::= ([^>\n] [^\n]{{0,299}} | ">"{{1,6}} ([^>\n] [^\n]{{0,290}})?)? "\n"
note    ::= ([^F<>\n] [^\n]{{0,159}} | "F" ([^I\n] [^\n]{{0,158}})?) "\n"
"""
"""GBNF for the edit protocol: at most 8 files of 400 lines, then at most 3 note lines of 160
characters. A
content line never starts with seven `>`, so the end marker cannot be swallowed as content;
once a block is closed, the model can open another block, write notes, or stop. Notes (the
"what I changed" lines a fix prompt asks for) cannot start with `FILE:` or a marker, so they
are text outside blocks, which the parser ignores: without them a small model asked for a
summary repeats its blocks instead, and a repeated path fails the whole answer. Few and short,
because nothing reads them and a small model fills what it may: the 0.5B model wrote its
earlier JSON answer into all 8 notes of 300 characters (635 tokens, minutes on two busy
cores) as the "summary" of a fix that changed nothing. Path segments
never start with `.`, so the grammar cannot even spell `..` or `.git` (the applier checks
again anyway)."""

_FINDING = 'finding  ::= "- " [^\\n]{5,200} "\\n"\n'
_PLAIN_TAIL = 'tail     ::= "Ready to merge? " ("Yes" | "No" | "With fixes")\n'
MAX_FINDINGS = 9

# The trailer part is derived from the one trailer contract (`mergegate.verdicts`): the
# verdict words, the severity values and the finding fields in the model's order. A field
# the grammar does not write must be optional in the model (checked when this module loads).
_ANSWER_LINE = {Decision.APPROVE: "Yes", Decision.FIXES: "With fixes", Decision.REJECT: "No"}
_TEXT = r'text     ::= [^"\\\x00-\x1f]{1,120}' + "\n"
_FIELD_VALUES = {
    "id": '"\\"F" [1-9] "\\""',  # a short stable id the ledger can follow
    "severity": '"\\"" sev "\\""',
    "title": '"\\"" text "\\""',
    "file": '"\\"" text "\\""',
    "line": "[1-9] [0-9]{0,4}",  # 1-based: the contract refuses 0
}


def _trailer_rules() -> str:
    fields = [name for name in TrailerFinding.model_fields if name in _FIELD_VALUES]
    missing = [
        name
        for name, field in TrailerFinding.model_fields.items()
        if field.is_required() and name not in fields
    ]
    if missing:  # pragma: no cover - a contract change the grammar does not follow yet
        raise RuntimeError(f"the verdict grammar does not write required fields {missing}")
    parts = []
    for position, name in enumerate(fields):
        lead = "{" if position == 0 else ", "
        parts.append(f'"{_gbnf_inner(lead)}\\"{name}\\": " {_FIELD_VALUES[name]}')
    item = "item     ::= " + " ".join(parts) + ' "}"\n'
    sev = "sev      ::= " + " | ".join(f'"{s.value}"' for s in Severity) + "\n"
    return item + sev + _TEXT


def _gbnf_inner(text: str) -> str:
    return json.dumps(text)[1:-1]


_TRAILER_RULES = _trailer_rules()


def verdict_grammar(review_id: str | None = None, max_findings: int = 6) -> str:
    """GBNF whose output ends with the exact line `Ready to merge? Yes|No|With fixes`.

    The answer starts with `Findings:` and at most `max_findings` (0-9) `- ` lines. With
    `review_id`, a fenced `json` trailer `{"review_id", "verdict", "findings"}` (at most
    `max_findings` findings) comes just before the last line and agrees with it
    (approve/Yes, request_changes/With fixes, reject/No). `ValueError` unless `review_id` is
    1-64 characters of `[A-Za-z0-9._-]`.
    """
    if not isinstance(max_findings, int) or not 0 <= max_findings <= MAX_FINDINGS:
        raise ValueError(f"max_findings must be an integer 0-{MAX_FINDINGS}")
    findings = f" finding{{0,{max_findings}}}" if max_findings else ""
    head = f'root     ::= "Findings:\\n"{findings} "\\n" tail\n' + _FINDING
    if review_id is None:
        return head + _PLAIN_TAIL
    if not 0 < len(review_id) <= 64 or not set(review_id) <= _REVIEW_ID_CHARS:
        raise ValueError("review_id must be 1-64 characters of [A-Za-z0-9._-]")
    pairs = tuple((word, _ANSWER_LINE[decision]) for word, decision in TRAILER_VERDICTS.items())
    closing = "\n```\n\nReady to merge? "
    branches = " | ".join(f"{_rule(word)} {_gbnf(closing + line)}" for word, line in pairs)
    rules = [head, f"tail     ::= {branches}\n"]
    for word, _ in pairs:
        opening = f'```json\n{{"review_id": "{review_id}", "verdict": "{word}", "findings": '
        rules.append(f'{_rule(word)} ::= {_gbnf(opening)} items "}}"\n')
    more = f' | "[" item (", " item){{0,{max_findings - 1}}} "]"' if max_findings else ""
    rules.append(f'items    ::= "[]"{more}\n')
    rules.append(_TRAILER_RULES)
    return "".join(rules)


def _rule(word: str) -> str:
    """A GBNF rule name for `word` (llama.cpp allows letters, digits and `-` only)."""
    return "trailer-" + word.replace("_", "-")


def _gbnf(literal: str) -> str:
    """`literal` as a GBNF string literal (JSON string escaping is a subset GBNF accepts)."""
    return json.dumps(literal)


def body_constraints(
    response_format: dict[str, Any] | None, *, supports_grammar: bool
) -> tuple[dict[str, Any], list[str]]:
    """Body fields for `response_format`, and warnings for what could not be sent.

    Raises `ValueError` for a malformed request (e.g. a grammar that is not a string).
    """
    if not response_format:
        return {}, []
    kind = response_format.get("type")
    grammar: str | None = None
    if kind == "grammar":
        grammar = response_format.get("grammar")
        if not isinstance(grammar, str) or not grammar.strip():
            raise ValueError("response_format type 'grammar' needs a non-empty 'grammar' string")
    elif kind == "verdict":
        grammar = verdict_grammar(
            response_format.get("review_id"), response_format.get("max_findings", 6)
        )
    elif kind == "file_edits":
        grammar = FILE_EDITS_GRAMMAR
    elif kind == "json_schema":
        return {"response_format": response_format}, []
    else:
        schema = {"name": "response", "schema": response_format, "strict": True}
        return {"response_format": {"type": "json_schema", "json_schema": schema}}, []
    if not supports_grammar:
        return {}, [f"response_format {kind!r} needs a grammar-capable server; not enforced"]
    return {"grammar": grammar}, []


def answer_constraints(
    schema: AnswerSchema,
    *,
    edits: bool,
    supports_grammar: bool,
    max_items: int = 3,
    max_string: int = 160,
) -> tuple[dict[str, Any], AnswerMechanism]:
    """Body fields that make the reply one object of `schema`, and the mechanism they use.

    `edits`: the reply first carries whole-file edit blocks (an implementer without tools),
    then the object. Without a grammar such a reply cannot be constrained by
    `response_format` (it would forbid the blocks): the object after the blocks is then read
    as a final message."""
    full = schema.schema_object()
    if supports_grammar:
        narrow = schema.grammar_object()
        rules = answer_grammar(narrow, root="answer", max_items=max_items, max_string=max_string)
        head = "root    ::= block{1,8} answer\n" if edits else "root    ::= answer\n"
        body = FILE_EDITS_GRAMMAR.split("\n", 1)[1] if edits else ""
        return {"grammar": head + body + rules}, AnswerMechanism.GRAMMAR
    if edits:
        return {}, AnswerMechanism.FINAL_MESSAGE
    wire = {"name": schema.name.replace("-", "_"), "schema": strict_schema(full), "strict": True}
    fields = {"response_format": {"type": "json_schema", "json_schema": wire}}
    return fields, AnswerMechanism.CHAT_RESPONSE_FORMAT
