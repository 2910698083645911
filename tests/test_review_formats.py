"""The review loop asks reviewers for the verdict shape (`response_format`), and that shape —
what the `local` backend's grammar produces — is always a valid verdict for the gate.

No model here: the loop runs against the `ScriptedBackend` and an in-memory repository, and the
grammar's output is generated from the grammar's own rules (see `grammar_shaped`). The real
model producing that shape is tested in `test_agents_local.py` and `test_review_local.py`.
"""

from __future__ import annotations

import contextlib
import json
from pathlib import Path
from typing import Any

import httpx
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from mergegate.agents._cli import RunContext
from mergegate.agents.aider import AiderBackend
from mergegate.agents.base import AgentRequest
from mergegate.agents.claude import ClaudeBackend
from mergegate.agents.codex import CodexBackend
from mergegate.agents.command import CommandBackend
from mergegate.agents.gemini import GeminiBackend
from mergegate.agents.openai import OpenAIBackend, verdict_grammar
from mergegate.agents.opencode import OpenCodeBackend
from mergegate.agents.signals import HelpDetector
from mergegate.decisions import Decision
from mergegate.review import ReviewLoop, ReviewOptions, ReviewStatus
from mergegate.review._render import render_files
from mergegate.testing.scripted import ScriptedBackend
from mergegate.verdicts import parse_verdict

LINES = {"approve": "Yes", "request_changes": "With fixes", "reject": "No"}
EXPECTED = {
    "approve": Decision.APPROVE,
    "request_changes": Decision.FIXES,
    "reject": Decision.REJECT,
}


def review_id(request: AgentRequest) -> str | None:
    """The nonce the loop gave this reviewer attempt (in its environment, for programs)."""
    return request.env.get("MERGEGATE_REVIEW_ID")


class MemoryRepo:
    """Two commits of one file, enough for the loop; a fix "commit" is recorded, not made."""

    def __init__(self, root: Path) -> None:
        self.root = root
        self.commits: list[str] = []

    def resolve(self, ref: str) -> str:
        return ("b" if ref == "base" else "h") * 40

    def diff(self, base: str, head: str) -> str:
        return "--- a/app.py\n+++ b/app.py\n@@ -1 +1,2 @@\n x = 1\n+y = 2\n"

    def changed_files(self, base: str, head: str) -> list[str]:
        return ["app.py"]

    def read_file(self, rev: str, path: str) -> str | None:
        return "x = 1\ny = 2\n"

    def commit_all(self, message: str) -> str | None:
        self.commits.append(message)
        return f"{len(self.commits)}" * 40

    def checkout(self, rev: str) -> contextlib.nullcontext[Path]:
        return contextlib.nullcontext(self.root)


def approving(request: AgentRequest) -> str:
    trailer = {"review_id": review_id(request), "verdict": "approve", "findings": []}
    return f"Findings:\n\n```json\n{json.dumps(trailer)}\n```\n\nReady to merge? Yes"


def run_loop(tmp_path: Path, replies: list[Any], spec: str | None = None) -> ScriptedBackend:
    reviewer = ScriptedBackend(replies)
    options = ReviewOptions(base="base", spec=spec)
    loop = ReviewLoop(MemoryRepo(tmp_path), reviewer, options, report_root=tmp_path / "reports")
    outcome = loop.run()
    assert outcome.status is ReviewStatus.APPROVED, outcome.message
    return reviewer


def test_every_reviewer_request_asks_for_the_verdict_shape_with_its_review_id(
    tmp_path: Path,
) -> None:
    reviewer = run_loop(tmp_path, [approving, approving], spec="Add y.")
    assert len(reviewer.requests) == 2  # spec stage, then quality stage
    for request in reviewer.requests:
        assert request.read_only
        assert request.response_format == {"type": "verdict", "review_id": review_id(request)}
    assert review_id(reviewer.requests[0]) != review_id(reviewer.requests[1])


def test_the_retry_after_malformed_output_asks_for_the_new_review_id(tmp_path: Path) -> None:
    reviewer = run_loop(tmp_path, ["Looks fine to me.", approving])
    first, retry = reviewer.requests
    assert retry.resume_session_id is not None  # same session, the parse error fed back
    assert "could not be used" in retry.prompt
    assert review_id(retry) != review_id(first)
    assert retry.response_format == {"type": "verdict", "review_id": review_id(retry)}
    # The format's review id is a valid grammar review id.
    assert review_id(retry) is not None
    assert f'\\"review_id\\": \\"{review_id(retry)}\\"' in verdict_grammar(review_id(retry))


def with_fixes(request: AgentRequest) -> str:
    finding = {"severity": "important", "title": "y is not tested", "file": "app.py", "line": 2}
    trailer = {"review_id": review_id(request), "verdict": "request_changes", "findings": [finding]}
    return f"Findings:\n- y\n\n```json\n{json.dumps(trailer)}\n```\n\nReady to merge? With fixes"


def test_the_fix_prompt_carries_the_files_of_the_change(tmp_path: Path) -> None:
    """A toolless implementer (openai, local) answers with whole files: it must see them."""
    reviewer = ScriptedBackend([with_fixes, approving])
    implementer = ScriptedBackend(["FILE: app.py\n<<<<<<< CONTENT\nx = 1\n>>>>>>> END\n"])
    repo = MemoryRepo(tmp_path)
    options = ReviewOptions(base="base", fix=True)
    loop = ReviewLoop(
        repo, reviewer, options, report_root=tmp_path / "reports", implementer=implementer
    )
    assert loop.run().status is ReviewStatus.APPROVED
    (request,) = implementer.requests
    assert request.response_format is None  # the implementer's backend picks its own format
    assert "y is not tested" in request.prompt
    assert "### app.py\n\n```\nx = 1\ny = 2\n```" in request.prompt
    assert repo.commits[0].startswith("mergegate: fix round 1")


# ------------------------------------------------------------------ every backend tolerates it

CLI_BACKENDS = [
    ClaudeBackend,
    CodexBackend,
    GeminiBackend,
    OpenCodeBackend,
    AiderBackend,
    lambda: CommandBackend(cmd="agent --flag"),
]


@pytest.mark.parametrize("make", CLI_BACKENDS)
def test_cli_backends_ignore_the_format(make: Any, tmp_path: Path) -> None:
    backend = make()
    plain = AgentRequest(
        prompt="review", cwd=tmp_path, read_only=True, env={"MERGEGATE_REVIEW_ID": "mg-1"}
    )
    shaped = plain.model_copy(update={"response_format": {"type": "verdict", "review_id": "mg-1"}})
    ctx = RunContext(tmp_path, tmp_path / "prompt.txt", None, lambda s: None, HelpDetector())
    assert backend.build_args(shaped, ctx) == backend.build_args(plain, ctx)
    assert backend.run_env(shaped, ctx) == backend.run_env(plain, ctx)


def _openai(tmp_path: Path, seen: list[dict[str, Any]], *, grammar: bool) -> OpenAIBackend:
    def endpoint(request: httpx.Request) -> httpx.Response:
        seen.append(json.loads(request.content))
        message = {"role": "assistant", "content": "Ready to merge? Yes"}
        return httpx.Response(200, json={"choices": [{"message": message}]})

    return OpenAIBackend(
        "http://model.test/v1",
        "m",
        state_dir=tmp_path / "state",
        transport=httpx.MockTransport(endpoint),
        supports_grammar=grammar,
    )


def test_openai_with_a_grammar_server_sends_the_verdict_grammar(tmp_path: Path) -> None:
    seen: list[dict[str, Any]] = []
    request = AgentRequest(
        prompt="review",
        cwd=tmp_path,
        read_only=True,
        response_format={"type": "verdict", "review_id": "mg-1"},
    )
    result = _openai(tmp_path, seen, grammar=True).run(request)
    assert result.ok
    assert seen[0]["grammar"] == verdict_grammar("mg-1")
    assert result.warnings == ()


def test_openai_without_grammar_runs_and_says_the_shape_was_not_enforced(tmp_path: Path) -> None:
    seen: list[dict[str, Any]] = []
    request = AgentRequest(
        prompt="review",
        cwd=tmp_path,
        read_only=True,
        response_format={"type": "verdict", "review_id": "mg-1"},
    )
    result = _openai(tmp_path, seen, grammar=False).run(request)
    assert result.ok
    assert "grammar" not in seen[0]
    assert "response_format" not in seen[0]
    assert any("not enforced" in w for w in result.warnings)


# ------------------------------------------------------------------ the grammar's output parses

_TEXT = st.text(
    st.characters(codec="utf-8", exclude_categories=("Cs",), exclude_characters='"\\'),
    min_size=1,
    max_size=120,
).filter(lambda s: all(ord(c) >= 0x20 for c in s))
"""The grammar's `text` rule: `[^"\\\x00-\x1f]{1,120}`."""

_LINE = st.text(
    st.characters(codec="utf-8", exclude_categories=("Cs",), exclude_characters="\n"),
    min_size=5,
    max_size=200,
)
"""The grammar's `finding` rule body: `[^\n]{5,200}`."""

_ITEM = st.fixed_dictionaries(
    {
        "id": st.integers(1, 9).map(lambda n: f"F{n}"),
        "severity": st.sampled_from(["critical", "important", "minor"]),
        "title": _TEXT,
        "file": _TEXT,
        "line": st.integers(1, 99999),
    }
)


def grammar_shaped(review_id: str, word: str, lines: list[str], items: list[dict[str, Any]]) -> str:
    """An answer of the shape `verdict_grammar(review_id)` allows, built rule by rule:
    `Findings:`, the `- ` lines, a blank line, the fenced trailer, the verdict line."""
    findings = "[" + ", ".join(_item(i) for i in items) + "]" if items else "[]"
    return (
        "Findings:\n"
        + "".join(f"- {line}\n" for line in lines)
        + "\n```json\n"
        + f'{{"review_id": "{review_id}", "verdict": "{word}", "findings": {findings}}}'
        + f"\n```\n\nReady to merge? {LINES[word]}"
    )


def _item(item: dict[str, Any]) -> str:
    # The grammar's key order and spacing, with the text verbatim (it needs no escaping).
    return (
        f'{{"id": "{item["id"]}", "severity": "{item["severity"]}", "title": "{item["title"]}", '
        f'"file": "{item["file"]}", "line": {item["line"]}}}'
    )


def test_the_generator_follows_the_grammar_literals() -> None:
    grammar = verdict_grammar("mg-abc", max_findings=2)
    text = grammar_shaped("mg-abc", "request_changes", ["a finding"], [])
    head = text.split("```json\n")[0]
    assert head == "Findings:\n- a finding\n\n"
    opening = '```json\n{"review_id": "mg-abc", "verdict": "request_changes", "findings": '
    assert json.dumps(opening) in grammar
    assert json.dumps("\n```\n\nReady to merge? With fixes") in grammar


@settings(max_examples=300, deadline=None)
@given(
    word=st.sampled_from(sorted(LINES)),
    items=st.lists(_ITEM, max_size=6),
    review_id=st.from_regex(r"[A-Za-z0-9._-]{1,64}", fullmatch=True),
)
def test_grammar_output_is_the_trailers_verdict(
    word: str, items: list[dict[str, Any]], review_id: str
) -> None:
    lines = [f"{i['title']} in {i['file']}" for i in items]
    verdict = parse_verdict(grammar_shaped(review_id, word, lines, items), review_id=review_id)
    blocking = any(i["severity"] != "minor" for i in items)
    expected = EXPECTED[word]
    if expected is Decision.APPROVE and blocking:
        expected = Decision.FIXES  # an approval that lists blocking findings is not one
    assert verdict.decision is expected, verdict.reasons
    assert [f.title for f in verdict.findings] == [i["title"].strip() for i in items]


@settings(max_examples=300, deadline=None)
@given(word=st.sampled_from(sorted(LINES)), lines=st.lists(_LINE, max_size=6))
def test_free_finding_lines_never_turn_the_answer_into_an_approval(
    word: str, lines: list[str]
) -> None:
    """Whatever the model writes on its `- ` lines, the trailer decides; at worst the answer
    is malformed (and retried), never an approval the trailer did not give."""
    verdict = parse_verdict(grammar_shaped("mg-1", word, lines, []), review_id="mg-1")
    assert verdict.decision in (EXPECTED[word], Decision.MALFORMED), verdict.reasons
    if word != "approve":
        assert verdict.decision is EXPECTED[word], verdict.reasons


def test_a_different_review_id_never_approves() -> None:
    text = grammar_shaped("mg-old", "approve", [], [])
    assert parse_verdict(text, review_id="mg-new").decision is Decision.MALFORMED


def test_files_past_the_size_limit_are_named_not_shown() -> None:
    files = {"a.py": "x = 1\n" * 50, "gone.py": None}
    shown = render_files(files, size_limit=10_000)
    assert "### a.py" in shown
    assert "### gone.py\n\n(deleted)" in shown
    named = render_files(files, size_limit=100)
    assert "x = 1" not in named
    assert "- a.py\n- gone.py" in named
    assert "Larger than 100 bytes" in named
    assert render_files({}, size_limit=100) == "None."
