"""The verifier agent: one read-only call per phase for what no program can check.

It runs in the verified tree (read-only: the backend's own read-only mode, and mergegate's
proof that nothing changed) and gets the criteria that need judgement (with the program
evidence gathered so far), the phase's diff, numbered excerpts of the files the criteria
name (for a verifier without file tools) and a fresh nonce. It answers with one object
(`mergegate.verify._judgement.VerifierAnswer`): the nonce and, per criterion, a result with
evidence citing `file:line` and quoting it — asked for as a typed answer
(`AgentRequest.answer_schema`: the backend's strongest mechanism; the nonce and the criterion
ids pinned in the schema). The answer must be the object alone, read by
`mergegate.handoff.extract` (strict: duplicate keys, truncation, text beside it, a wrong
nonce, a missing or extra criterion all fail); quotes are checked against the tree by the
caller.
A malformed answer is retried once, in the same session when the backend has sessions, with
the exact problem fed back; after that the criteria stay unverified. An agent run that fails
(timeout, crash, a write in a read-only run) is not retried.
"""

from __future__ import annotations

import json
import uuid
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal

from mergegate.agents.answers import answer_schema as typed_answer_schema
from mergegate.agents.base import AgentRequest, AgentResult, AnswerSchema, Backend
from mergegate.handoff import PromptFile, extract
from mergegate.untrusted import bounded
from mergegate.verify._judgement import CriterionJudgement, VerifierAnswer, answer_schema

__all__ = [
    "AgentAttempt",
    "AgentJudging",
    "Question",
    "ask_verifier",
    "file_excerpts",
    "merge_judgings",
    "new_verification_id",
]

TEMPLATE = "verifier"
TEMPLATE_VERSION = 2
RETRY_TEMPLATE = "verifier-retry"
MAX_DIFF_CHARS = 200_000
_MAX_TEXT = 4000


@dataclass(frozen=True)
class Question:
    """One criterion put to the verifier: its words, why it needs judgement, what was found."""

    id: str
    kind: str
    text: str
    source: str | None
    why: str
    evidence: tuple[str, ...] = ()


@dataclass(frozen=True)
class AgentAttempt:
    """One call: what was sent, what came back, and why it could not be used (if so)."""

    number: int
    prompt: str
    output: str
    problem: str | None
    agent: dict[str, Any] = field(default_factory=dict)


@dataclass(frozen=True)
class AgentJudging:
    """The verifier's answers (empty unless `status` is `ok`) and every attempt."""

    status: Literal["ok", "malformed", "agent_failed"]
    verification_id: str
    judgements: dict[str, CriterionJudgement]
    attempts: tuple[AgentAttempt, ...]
    detail: str = ""
    template_sha256: str = ""


def new_verification_id() -> str:
    return f"mgv-{uuid.uuid4().hex[:16]}"


def _template(name: str) -> PromptFile:
    return PromptFile.load(__package__, name, TEMPLATE_VERSION)


def template_sha256() -> str:
    return _template(TEMPLATE).sha256


def _render_questions(questions: Sequence[Question]) -> str:
    blocks = []
    for q in questions:
        lines = [f"### `{q.id}` ({q.kind}{', ' + q.source if q.source else ''})", ""]
        lines += ["> " + line for line in bounded(q.text, _MAX_TEXT).splitlines() or [""]]
        lines += ["", f"Needs judgement because {q.why}."]
        if q.evidence:
            lines += ["", "Program evidence so far:"]
            lines += [f"- {bounded(e, 600)}" for e in q.evidence]
        blocks.append("\n".join(lines))
    return "\n\n".join(blocks)


def render_prompt(
    phase: str,
    questions: Sequence[Question],
    diff: str | None,
    verification_id: str,
    files: str = "",
) -> str:
    if diff is None:
        changes = "(no diff given: judge from the working tree as it is)"
    elif len(diff) > MAX_DIFF_CHARS:
        changes = (
            f"```diff\n{diff[:MAX_DIFF_CHARS]}\n```\n(diff cut at {MAX_DIFF_CHARS} characters)"
        )
    else:
        changes = f"```diff\n{diff}\n```" if diff.strip() else "(the diff is empty)"
    return _template(TEMPLATE).fill(
        {
            "phase": phase,
            "criteria": _render_questions(questions),
            "changes": changes,
            "files": files or "(none attached: read the files you need in the working directory)",
            "verification_id": verification_id,
        }
    )


def _answer_schema(nonce: str, ids: Sequence[str]) -> AnswerSchema:
    """The verifier's answer as a typed answer: the nonce pinned, one judgement per criterion
    id asked about (a grammar then writes exactly those ids)."""
    pinned = typed_answer_schema("verifier-answer", VerifierAnswer, {"verification_id": nonce})
    schema = pinned.schema_object()
    schema["properties"]["criteria"].update(minItems=len(ids), maxItems=len(ids))
    judgement = schema["$defs"]["CriterionJudgement"]["properties"]
    judgement["id"] = {"type": "string", "enum": list(ids)}
    return pinned.model_copy(update={"json_schema": json.dumps(schema, ensure_ascii=False)})


def ask_verifier(
    backend: Backend,
    questions: Sequence[Question],
    *,
    phase: str,
    diff: str | None,
    cwd: Path,
    attempt_dir: Path | None,
    timeout_s: float,
    stall_timeout_s: float,
    retries: int = 1,
    new_id: Callable[[], str] = new_verification_id,
    files: str = "",
    first_attempt: int = 1,
) -> AgentJudging:
    """Ask once, retry a malformed answer `retries` times, and return what came of it.

    `files`: excerpts of the files the criteria name (numbered lines), for a verifier without
    file tools; `first_attempt` numbers the attempts of a later batch after earlier ones."""
    nonce = new_id()
    ids = [q.id for q in questions]
    full = render_prompt(phase, questions, diff, nonce, files)
    attempts: list[AgentAttempt] = []
    session: str | None = None
    prompt = full
    for number in range(first_attempt, first_attempt + retries + 1):
        request = AgentRequest(
            prompt=prompt,
            cwd=cwd,
            timeout_s=timeout_s,
            stall_timeout_s=stall_timeout_s,
            read_only=True,
            attempt=number,
            # The nonce, for command verifiers that answer without reading the prompt (the same
            # variable a reviewer command reads its review_id from).
            env={"MERGEGATE_REVIEW_ID": nonce, "MERGEGATE_VERIFICATION_ID": nonce},
            resume_session_id=session,
            attempt_dir=attempt_dir / f"a{number}" if attempt_dir else None,
            answer_schema=_answer_schema(nonce, ids),
        )
        result = backend.run(request)
        agent = result.model_dump(mode="json", exclude={"text"})
        if not result.ok:
            why = _failure(result)
            attempts.append(AgentAttempt(number, prompt, result.text, why, agent))
            return _judging("agent_failed", nonce, {}, attempts, why)
        parsed = extract(
            result.reply,
            answer_schema(),
            context={"verification_id": nonce, "criteria": ids},
            alone=True,
        )
        if parsed.ok:
            value: VerifierAnswer = parsed.value
            attempts.append(AgentAttempt(number, prompt, result.text, None, agent))
            return _judging("ok", nonce, {j.id: j for j in value.criteria}, attempts, "")
        assert parsed.error is not None
        problem = f"{parsed.error.type.value}: {parsed.error.details}"
        attempts.append(AgentAttempt(number, prompt, result.text, problem, agent))
        retry = _template(RETRY_TEMPLATE).fill(
            {"problem": problem, "ids": ", ".join(ids), "verification_id": nonce}
        )
        if backend.capabilities.sessions and result.session_id:
            session, prompt = result.session_id, retry
        else:
            session, prompt = None, f"{full}\n\n---\n\n{retry}"
    return _judging("malformed", nonce, {}, attempts, attempts[-1].problem or "malformed")


def _failure(result: AgentResult) -> str:
    if result.worktree_changed:
        return "the verifier changed the working tree (a read-only run may not); answer void"
    return f"verifier run {result.status.value}: {result.error or 'no detail'}"


def _judging(
    status: Literal["ok", "malformed", "agent_failed"],
    nonce: str,
    judgements: dict[str, CriterionJudgement],
    attempts: list[AgentAttempt],
    detail: str,
) -> AgentJudging:
    return AgentJudging(status, nonce, judgements, tuple(attempts), detail, template_sha256())


def merge_judgings(parts: Sequence[AgentJudging]) -> AgentJudging:
    """One record of several batches: every usable answer, every attempt, the first problem."""
    judgements: dict[str, CriterionJudgement] = {}
    for part in parts:
        judgements.update(part.judgements)
    failed = [p for p in parts if p.status != "ok"]
    first = failed[0] if failed else parts[0]
    return AgentJudging(
        first.status,
        ", ".join(p.verification_id for p in parts),
        judgements,
        tuple(a for p in parts for a in p.attempts),
        "; ".join(p.detail for p in failed if p.detail),
        parts[0].template_sha256,
    )


_EXCERPT_FILES = 8
_EXCERPT_CHARS = 12_000


def file_excerpts(root: Path, items: Sequence[Any], changed: Sequence[str] = ()) -> str:
    """Numbered excerpts of the files the criteria name (artifacts, key links), then of the
    files the phase changed, bounded in files and characters."""
    names: list[str] = []
    for item in items:
        for spec in item.checks:
            for name in (spec.path, spec.target):
                if name and ("/" in name or "." in name):
                    names.append(name)
    blocks: list[str] = []
    real_root = root.resolve()
    for name in dict.fromkeys([*names, *changed]):
        if len(blocks) >= _EXCERPT_FILES:
            break
        path = (real_root / name).resolve()
        if real_root not in path.parents or not path.is_file():
            continue
        try:
            text = path.read_bytes()[: _EXCERPT_CHARS * 2].decode("utf-8", "replace")
        except OSError:
            continue
        numbered = "\n".join(f"{n:>5}  {line}" for n, line in enumerate(text.split("\n"), 1))
        cut = numbered[:_EXCERPT_CHARS]
        more = "\n(cut)" if len(cut) < len(numbered) else ""
        blocks.append(f"### {name}\n\n```text\n{cut}{more}\n```")
    return "\n\n".join(blocks)
