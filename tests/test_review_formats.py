"""The review loop asks every reviewer for the verdict object as a typed answer
(`AgentRequest.answer_schema`, its review id and scope pinned), each backend turns that into its
strongest mechanism, and whatever the `local` backend's grammar lets the model write is a valid
verdict object for the gate.

No model here: the loop runs against the `ScriptedBackend` and an in-memory repository, and the
grammar's outputs are drawn from the grammar itself (read as a regular expression, `_gbnf`).
The real model producing them is tested in `test_agents_local.py` and `test_review_local.py`.
"""

from __future__ import annotations

import contextlib
import json
import re
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import httpx
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from _gbnf import grammar_regex
from _verdict_object import finding, pins_of, verdict_object
from mergegate.agents._cli import RunContext
from mergegate.agents.aider import AiderBackend
from mergegate.agents.answers import answer_grammar, answer_schema, strict_schema
from mergegate.agents.base import AgentRequest, AnswerMechanism
from mergegate.agents.claude import ClaudeBackend
from mergegate.agents.codex import CodexBackend
from mergegate.agents.command import CommandBackend
from mergegate.agents.gemini import GeminiBackend
from mergegate.agents.openai import OpenAIBackend
from mergegate.agents.opencode import OpenCodeBackend
from mergegate.agents.signals import HelpDetector
from mergegate.review import ReviewLoop, ReviewOptions, ReviewStatus
from mergegate.review._render import render_files
from mergegate.testing.model_server._structured import _strict_problems as strict_problems
from mergegate.testing.scripted import ScriptedBackend
from mergegate.verdicts import (
    VerdictObject,
    VerdictRequest,
    approves,
    decide_object,
    read_verdict_object,
)


def pins(request: AgentRequest) -> tuple[str, str]:
    """The nonce and scope the loop pinned in this reviewer attempt's answer schema."""
    return pins_of(request)


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

    def read_files(self, rev: str, paths: Sequence[str]) -> dict[str, str | None]:
        return {p: self.read_file(rev, p) for p in paths}

    def commit_all(self, message: str) -> str | None:
        self.commits.append(message)
        return f"{len(self.commits)}" * 40

    def checkout(self, rev: str) -> contextlib.nullcontext[Path]:
        return contextlib.nullcontext(self.root)


def approving(request: AgentRequest) -> str:
    rid, scope = pins(request)
    return verdict_object(review_id=rid, scope=scope)


def run_loop(
    tmp_path: Path, replies: list[Any], spec: str | None = None, scope: str = "change"
) -> ScriptedBackend:
    reviewer = ScriptedBackend(replies)
    options = ReviewOptions(base="base", spec=spec, scope=scope)
    loop = ReviewLoop(MemoryRepo(tmp_path), reviewer, options, report_root=tmp_path / "reports")
    outcome = loop.run()
    assert outcome.status is ReviewStatus.APPROVED, outcome.message
    return reviewer


def test_every_reviewer_request_asks_for_the_verdict_object_with_its_id_and_scope(
    tmp_path: Path,
) -> None:
    reviewer = run_loop(tmp_path, [approving, approving], spec="Add y.", scope="task-7")
    assert len(reviewer.requests) == 2  # spec stage, then quality stage
    for request in reviewer.requests:
        assert request.read_only
        assert request.response_format is None
        assert request.answer_schema is not None
        assert request.answer_schema.name == "verdict"
        assert pins(request) == (review_id(request), "task-7")
        assert request.env["MERGEGATE_REVIEW_SCOPE"] == "task-7"
        assert '"scope": "task-7"' in request.prompt  # the example object names it too
        schema = request.answer_schema.schema_object()
        assert set(schema["required"]) == set(VerdictObject.model_fields)
    assert review_id(reviewer.requests[0]) != review_id(reviewer.requests[1])


def test_the_retry_after_malformed_output_asks_for_the_new_review_id(tmp_path: Path) -> None:
    reviewer = run_loop(tmp_path, ["Looks fine to me.", approving])
    first, retry = reviewer.requests
    assert retry.resume_session_id is not None  # same session, the parse error fed back
    assert "could not be used" in retry.prompt
    assert "text (" in retry.prompt  # the exact validation error: text beside the object
    assert review_id(retry) != review_id(first)
    assert pins(retry) == (review_id(retry), "change")
    assert f'"review_id": "{review_id(retry)}"' in retry.prompt


def with_fixes(request: AgentRequest) -> str:
    rid, scope = pins(request)
    found = finding("F1", title="y is not tested", line=2)
    return verdict_object("request_changes", [found], review_id=rid, scope=scope)


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
    assert request.answer_schema is None  # a fix round asks for no typed answer
    assert "y is not tested" in request.prompt
    assert "### app.py\n\n```\nx = 1\ny = 2\n```" in request.prompt
    assert repo.commits[0].startswith("mergegate: fix round 1")


# ------------------------------------------------------------------ each backend's mechanism

SCHEMA = answer_schema("verdict", VerdictObject, {"review_id": "mg-1", "scope": "t1"})
PLAIN_BACKENDS = [
    GeminiBackend,
    OpenCodeBackend,
    AiderBackend,
    lambda: CommandBackend(cmd="agent --flag"),
]


def _argv(backend: Any, tmp_path: Path, *, schema: bool) -> list[str]:
    request = AgentRequest(
        prompt="review",
        cwd=tmp_path,
        read_only=True,
        answer_schema=SCHEMA if schema else None,
    )
    ctx = RunContext(tmp_path, tmp_path / "prompt.txt", None, lambda s: None, HelpDetector())
    args: list[str] = backend.build_args(request, ctx)
    return args


def test_claude_asks_with_json_schema_and_streams_the_raw_answer(tmp_path: Path) -> None:
    args = _argv(ClaudeBackend(), tmp_path, schema=True)
    schema = args[args.index("--json-schema") + 1]
    assert json.loads(schema) == SCHEMA.schema_object()  # the full schema, pins included
    assert "--include-partial-messages" in args
    assert "--json-schema" not in _argv(ClaudeBackend(), tmp_path, schema=False)


def test_codex_asks_with_output_schema_in_the_strict_subset(tmp_path: Path) -> None:
    args = _argv(CodexBackend(), tmp_path, schema=True)
    path = Path(args[args.index("--output-schema") + 1])
    written = json.loads(path.read_text())
    assert written == strict_schema(SCHEMA.schema_object())
    assert list(strict_problems(written)) == []  # what a strict API accepts
    assert written["properties"]["review_id"]["enum"] == ["mg-1"]
    assert "--output-schema" not in _argv(CodexBackend(), tmp_path, schema=False)


@pytest.mark.parametrize("make", PLAIN_BACKENDS)
def test_backends_without_a_mechanism_keep_their_arguments(make: Any, tmp_path: Path) -> None:
    backend = make()
    assert _argv(backend, tmp_path, schema=True) == _argv(backend, tmp_path, schema=False)


def test_a_command_agent_is_told_where_the_schema_is(tmp_path: Path) -> None:
    backend = CommandBackend(cmd="agent")
    request = AgentRequest(prompt="review", cwd=tmp_path, read_only=True, answer_schema=SCHEMA)
    ctx = RunContext(tmp_path, tmp_path / "prompt.txt", None, lambda s: None, HelpDetector())
    env = backend.run_env(request, ctx)
    assert json.loads(Path(env["MERGEGATE_ANSWER_SCHEMA"]).read_text()) == SCHEMA.schema_object()


def _openai(tmp_path: Path, seen: list[dict[str, Any]], *, grammar: bool) -> OpenAIBackend:
    def endpoint(request: httpx.Request) -> httpx.Response:
        seen.append(json.loads(request.content))
        message = {"role": "assistant", "content": "{}"}
        return httpx.Response(200, json={"choices": [{"message": message}]})

    return OpenAIBackend(
        "http://model.test/v1",
        "m",
        state_dir=tmp_path / "state",
        transport=httpx.MockTransport(endpoint),
        supports_grammar=grammar,
    )


def test_openai_with_a_grammar_server_sends_the_answer_grammar(tmp_path: Path) -> None:
    seen: list[dict[str, Any]] = []
    request = AgentRequest(prompt="review", cwd=tmp_path, read_only=True, answer_schema=SCHEMA)
    result = _openai(tmp_path, seen, grammar=True).run(request)
    assert result.ok
    assert seen[0]["grammar"] == "root    ::= answer\n" + answer_grammar(
        SCHEMA.schema_object(), root="answer"
    )
    assert "response_format" not in seen[0]
    assert result.answer is not None
    assert (result.answer.via, result.answer.text) == (AnswerMechanism.GRAMMAR, "{}")


def test_openai_without_grammar_sends_a_strict_response_format(tmp_path: Path) -> None:
    seen: list[dict[str, Any]] = []
    request = AgentRequest(prompt="review", cwd=tmp_path, read_only=True, answer_schema=SCHEMA)
    result = _openai(tmp_path, seen, grammar=False).run(request)
    assert result.ok
    assert "grammar" not in seen[0]
    wire = seen[0]["response_format"]
    assert wire["type"] == "json_schema"
    assert wire["json_schema"]["strict"] is True
    assert wire["json_schema"]["schema"] == strict_schema(SCHEMA.schema_object())
    assert result.answer is not None
    assert result.answer.via is AnswerMechanism.CHAT_RESPONSE_FORMAT
    assert result.warnings == ()


# ------------------------------------------------------------------ the grammar's outputs

_RID = st.from_regex(r"mg-[0-9a-f]{16}", fullmatch=True)
_SCOPE = st.from_regex(r"[A-Za-z0-9._/-]{1,40}", fullmatch=True)


def _no_surrogates(text: str) -> bool:
    # A model writes UTF-8: it cannot produce a lone surrogate, which the regex allows.
    return not any("\ud800" <= c <= "\udfff" for c in text)


# Drawing from the grammar's regex is slow on a loaded machine; that is not a finding.
@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(rid=_RID, scope=_SCOPE, data=st.data())
def test_whatever_the_grammar_allows_is_a_verdict_object_for_this_review(
    rid: str, scope: str, data: st.DataObject
) -> None:
    schema = answer_schema("verdict", VerdictObject, {"review_id": rid, "scope": scope})
    grammar = answer_grammar(schema.schema_object(), max_items=3)
    text = data.draw(
        st.from_regex(re.compile(grammar_regex(grammar)), fullmatch=True).filter(_no_surrogates)
    )
    obj = read_verdict_object(text)  # never malformed
    assert (obj.review_id, obj.scope) == (rid, scope)
    decided = decide_object(text, VerdictRequest(rid, scope))
    assert decided.approved is approves(obj, VerdictRequest(rid, scope))


def test_the_grammar_cannot_write_a_key_twice_or_text_beside_the_object() -> None:
    grammar = answer_grammar(SCHEMA.schema_object())
    pattern = re.compile(grammar_regex(grammar))
    good = verdict_object(review_id="mg-1", scope="t1")
    assert pattern.fullmatch(good)
    assert not pattern.fullmatch("Here it is: " + good)
    assert not pattern.fullmatch(good + "\nThanks")
    assert not pattern.fullmatch(
        good.replace('"verdict": "approve"', '"verdict": "reject", "verdict": "approve"')
    )
    assert not pattern.fullmatch(good.replace("mg-1", "mg-2"))  # the pinned id
    assert not pattern.fullmatch(good.replace('"t1"', '"t2"'))  # the pinned scope


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
