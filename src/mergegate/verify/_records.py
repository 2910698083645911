"""Records of a verification: `VERIFICATION.md` with GSD-compatible frontmatter, its JSON
twin, the verifier's prompts and raw outputs, and the append-only ledger of people's answers.

Everything is written atomically; a run directory's files are never overwritten. The copy in
a GSD phase directory is the phase's existing `*-VERIFICATION.md` for any phase id form
(`04`, `12.3.1`, `AE1`, `999.2`): a report mergegate wrote (`verifier: "mergegate"`) is
replaced; GSD's own is updated in place — its `status` and one dated mergegate section.

Untrusted text (plan words, the verifier's answers, command output) is escaped: frontmatter
values are JSON-quoted, table cells and prose lines have markdown metacharacters escaped, and
command output sits in a fence longer than any backtick run it contains. The frontmatter is
shaped so that a strict gate reading it (`mergegate parse`, GSD tools) sees `passed` only with
no open gaps and no `human_verification` list.
"""

from __future__ import annotations

import hashlib
import json
import re
from collections.abc import Sequence
from pathlib import Path

from pydantic import ValidationError

from mergegate.atomic_files import append_jsonl, write_atomic
from mergegate.config import PhaseDir, StateLayout
from mergegate.errors import UsageError
from mergegate.plans import Phase, Plan, PlanFormat
from mergegate.untrusted import fence, frontmatter, md_code, md_text, storable
from mergegate.verify._model import (
    Answer,
    CriterionResult,
    Result,
    VerificationResult,
    VerificationStatus,
)
from mergegate.verify._paths import check_plan_path
from mergegate.verify._verifier import AgentAttempt

__all__ = [
    "PhaseDir",
    "find_gsd_report",
    "gsd_phase_dir",
    "gsd_report_name",
    "latest_result",
    "load_answers",
    "phase_state_dir",
    "record_answer",
    "render_markdown",
    "update_report",
    "write_attempts",
    "write_gsd_copy",
    "write_result",
]

REPORT_NAME = "VERIFICATION.md"
JSON_NAME = "verification.json"
VERIFIER_MARK = "mergegate"


# ---------------------------------------------------------------- the report


_MARK = {
    Result.PASS: "✓ pass",
    Result.FAIL: "✗ fail",
    Result.UNCERTAIN: "? uncertain",
    Result.UNVERIFIED: "? unverified",
}


def _mark(c: CriterionResult) -> str:
    mark = _MARK[c.result]
    if c.result is Result.PASS and c.decided_by in ("agent", "person"):
        mark += f" ({c.decided_by}-judged)"
    return mark


def _meta(result: VerificationResult) -> dict[str, object]:
    counts = result.counts
    meta: dict[str, object] = {
        "phase": result.phase_id + (f"-{_slug(result.phase_name)}" if result.phase_name else ""),
        "verified": result.verified_at.isoformat().replace("+00:00", "Z"),
        "status": result.status.value,
        "score": f"{counts.passed}/{counts.criteria} criteria verified",
        "re_verification": bool(result.answers),
        "verifier": VERIFIER_MARK,
        "run_id": result.run_id,
        "head": result.head,
        "counts": counts.model_dump(),
    }
    gaps = [_gap(c) for c in result.criteria if c.result is Result.FAIL]
    if gaps:
        meta["gaps"] = gaps
    open_ = result.questions
    if open_ and result.status is not VerificationStatus.PASSED:
        meta["human_verification"] = [
            {
                "test": c.question or c.text,
                "expected": c.text,
                "why_human": c.judgement or "no program could decide it",
                "criterion": c.id,
            }
            for c in open_
        ]
    if result.answers:
        meta["human_answers"] = [
            {
                "criterion": a.criterion_id,
                "result": a.result,
                "who": a.who,
                "at": a.at.isoformat(),
                "note": a.note,
            }
            for a in result.answers
        ]
    if result.acceptance is not None:
        meta["accepted_gaps"] = {
            "reason": result.acceptance.reason,
            "who": result.acceptance.who,
            "at": result.acceptance.at.isoformat(),
        }
    return meta


def _gap(c: CriterionResult) -> dict[str, object]:
    failing = [e.detail for e in c.evidence if e.outcome.value == "fail"]
    return {
        "truth": c.text,
        "status": "failed",
        "reason": "; ".join(failing)[:1000] or "failed",
        "criterion": c.id,
        "source": c.source,
        "decided_by": c.decided_by,
        "next_step": c.next_step,
    }


def _slug(text: str) -> str:
    return re.sub(r"[^a-z0-9]+", "-", text.lower()).strip("-")[:60]


def render_markdown(result: VerificationResult) -> str:
    """`VERIFICATION.md`: frontmatter, summary, gaps, questions, criteria and evidence."""
    c = result.counts
    title = f"# Phase {md_text(result.phase_id, 400)}"
    if result.phase_name:
        title += f": {md_text(result.phase_name, 400)}"
    parts = [
        frontmatter(_meta(result)),
        f"{title} — Verification",
        "",
        f"**Status:** {result.status.value} — {md_text(result.reason, 600)}",
        f"**Verified:** {result.verified_at.isoformat()} by mergegate (run `{result.run_id}`)",
        f"**Tree:** {result.repo} at {result.head or '(not a git tree)'}",
        f"**Criteria:** {c.criteria} — {c.passed} pass ({c.by_program} by program, "
        f"{c.by_agent} by the verifier agent, {c.by_person} by a person), {c.failed} fail, "
        f"{c.uncertain} uncertain, {c.unverified} unverified; {c.checks_run} program checks ran",
    ]
    if result.goal:
        parts.append(f"**Goal:** {md_text(result.goal, 600)}")
    if not result.commands_run:
        parts.append("**Commands:** not run (`--no-commands`); their criteria stay unverified")
    elif result.environment:
        parts.append(f"**Environment:** {md_text(result.environment, 600)}")
    parts += _gaps_section(result) + _questions_section(result)
    parts += _table("Criteria decided by program evidence", result, {"program"})
    parts += _table(
        "Agent-judged (the verifier agent's word, not program evidence)", result, {"agent"}
    )
    parts += _table("Decided by a person", result, {"person"})
    parts += _table("Open", result, {None})
    parts += _evidence_section(result) + _tail(result)
    return "\n".join(parts) + "\n"


def _gaps_section(result: VerificationResult) -> list[str]:
    gaps = [c for c in result.criteria if c.result is Result.FAIL]
    if not gaps:
        return []
    lines = ["", "## Gaps", ""]
    for g in gaps:
        reason = "; ".join(e.detail for e in g.evidence if e.outcome.value == "fail")
        what = f"{md_text(g.text, 200)} — {md_text(reason, 400)}"
        lines.append(f"- {md_code(g.id, 200)} ({g.kind.value}): {what}")
        if g.next_step:
            lines.append(f"  - next step: {md_text(g.next_step, 600)}")
    return lines


def _questions_section(result: VerificationResult) -> list[str]:
    if not result.questions:
        return []
    lines = [
        "",
        "## Questions for a person",
        "",
        "Answer with `mergegate verify PLAN --phase "
        f"{result.phase_id} --answer ID=pass|fail [--note TEXT]`.",
        "",
    ]
    for q in result.questions:
        lines.append(
            f"- {md_code(q.id, 200)}: {md_text(q.text, 300)} — {md_text(q.question or '', 300)}"
        )
    return lines


def _table(title: str, result: VerificationResult, by: set[str | None]) -> list[str]:
    rows = [c for c in result.criteria if c.decided_by in by]
    if not rows:
        return []
    lines = [
        "",
        f"## {title}",
        "",
        "| id | kind | source | result | evidence |",
        "|---|---|---|---|---|",
    ]
    for c in rows:
        evidence = "; ".join(md_text(e.detail, 200) for e in c.evidence) or "none"
        cid, source = md_code(c.id, 200, in_table=True), md_text(c.source or "", 400)
        lines.append(f"| {cid} | {c.kind.value} | {source} | {_mark(c)} | {evidence} |")
    return lines


def _evidence_section(result: VerificationResult) -> list[str]:
    lines = ["", "## Evidence", ""]
    for c in result.criteria:
        lines += [
            f"### {md_code(c.id, 200)} — {_mark(c)}",
            "",
            f"{c.kind.value} from {md_text(c.source or 'the plan', 400)}:",
            "",
        ]
        lines += [f"> {md_text(line, 1000)}" for line in c.text.splitlines()[:20] or [""]]
        lines.append("")
        if c.judgement:
            lines.append(f"Needs judgement: {md_text(c.judgement, 400)}")
        lines += [f"- not checkable by program: {md_text(u, 400)}" for u in c.unchecked]
        for e in c.evidence:
            lines.append(
                f"- **{e.by}** {md_code(e.check, 200)} {e.outcome.value}: {md_text(e.detail, 600)}"
            )
            if e.command is not None:
                lines.append(f"  - ran {md_code(' '.join(e.argv), 300)} → exit {e.exit_code}")
            if e.excerpt:
                lines += ["", fence(e.excerpt), ""]
        lines.append("")
    return lines


def _tail(result: VerificationResult) -> list[str]:
    lines = []
    if result.verifier is not None:
        v = result.verifier
        lines += [
            "## Verifier agent",
            "",
            f"{md_code(v.backend, 400)}: {v.status} after {v.attempts} attempt(s); "
            f"verification id `{v.verification_id}`; template {v.template} "
            f"({v.template_sha256[:12]}). {md_text(v.detail, 600)}",
            "",
        ]
    if result.acceptance is not None:
        a = result.acceptance
        lines += [
            "## Gaps accepted by a person",
            "",
            f"{md_text(a.who, 400)} at {a.at.isoformat()}: {md_text(a.reason, 1000)}",
            "",
            "The phase is `complete_with_gaps`, not `passed`.",
            "",
        ]
    if result.warnings:
        lines += ["## Warnings", ""] + [f"- {md_text(w, 600)}" for w in result.warnings] + [""]
    return lines


# ---------------------------------------------------------------- writing


def write_result(run_dir: Path, result: VerificationResult) -> Path:
    """Write `VERIFICATION.md` and `verification.json` into `run_dir`; never overwrite."""
    run_dir.mkdir(parents=True, exist_ok=True)
    data = json.dumps(result.model_dump(mode="json"), indent=2, ensure_ascii=False)
    write_atomic(run_dir / JSON_NAME, storable(data) + "\n", overwrite=False)
    path = run_dir / REPORT_NAME
    write_atomic(path, storable(render_markdown(result)), overwrite=False)
    return path


def write_attempts(run_dir: Path, attempts: Sequence[AgentAttempt]) -> tuple[str, ...]:
    """Each verifier attempt's prompt and raw output, under `verifier/`; returns the names."""
    names = []
    for a in attempts:
        base = f"verifier/a{a.number}"
        write_atomic(run_dir / f"{base}.prompt.md", storable(a.prompt), overwrite=False)
        record = {"problem": a.problem, "agent": a.agent, "output": a.output}
        text = json.dumps(record, indent=2, ensure_ascii=False, default=str)
        write_atomic(run_dir / f"{base}.json", storable(text) + "\n", overwrite=False)
        names += [f"{base}.prompt.md", f"{base}.json"]
    return tuple(names)


def gsd_report_name(phase_dir: Path) -> str:
    """`<ID>-VERIFICATION.md` from a GSD phase directory name: the id is everything before the
    first `-` (`04-project-detection` → `04`, `12.3.1-x` → `12.3.1`, `AE1-x` → `AE1`)."""
    prefix = phase_dir.name.split("-", 1)[0] or phase_dir.name
    return f"{prefix}-{REPORT_NAME}"


def _normal_id(text: str) -> str:
    """`04` and `4`, `012.3` and `12.3` are the same phase id; letters compare case-blind."""
    parts = [p.lstrip("0") or "0" if p.isdigit() else p.lower() for p in text.split(".")]
    return ".".join(parts)


def find_gsd_report(phase_dir: Path, phase_id: str | None = None) -> Path:
    """The phase's existing `*-VERIFICATION.md` in `phase_dir` (GSD's or mergegate's, for any
    phase id form), or the path a new one gets."""
    own = phase_dir / gsd_report_name(phase_dir)
    if own.is_file():
        return own
    try:
        found = sorted(p for p in phase_dir.glob(f"*-{REPORT_NAME}") if p.is_file())
    except OSError:
        found = []
    wanted = {_normal_id(phase_dir.name.split("-", 1)[0])}
    if phase_id:
        wanted.add(_normal_id(phase_id))
    matching = [p for p in found if _normal_id(p.name[: -len(REPORT_NAME) - 1]) in wanted]
    if matching:
        return matching[0]
    return found[0] if len(found) == 1 else own


def write_gsd_copy(phase_dir: Path, result: VerificationResult) -> tuple[Path | None, str | None]:
    """Write the report into a GSD phase directory: (path, None), or (None, why not).

    A report mergegate wrote is replaced; one GSD (or a person) wrote is updated in place: its
    frontmatter `status` set to this verification's, and one dated mergegate section (replaced
    on the next run) appended with the result, the gaps and the questions.
    """
    path = find_gsd_report(phase_dir, result.phase_id)
    if path.exists() and not _ours(path):
        try:
            text = path.read_text("utf-8", "replace")
        except OSError as exc:
            return None, f"{path} could not be read ({exc.strerror}); left as it is"
        write_atomic(path, storable(update_report(text, result)))
        return path, None
    write_atomic(path, storable(render_markdown(result)))
    return path, None


_SECTION_START = "<!-- mergegate:verification -->"
_SECTION_END = "<!-- /mergegate:verification -->"
_STATUS_LINE = re.compile(r"^status:.*$", re.MULTILINE)


def update_report(text: str, result: VerificationResult) -> str:
    """`text` (a VERIFICATION.md someone else wrote) with its status set to `result`'s and the
    mergegate section, dated, in place of an earlier one or appended."""
    text = _with_status(text, result.status.value)
    section = "\n".join([_SECTION_START, *_section(result), _SECTION_END])
    start = text.find(_SECTION_START)
    end = text.find(_SECTION_END, start + 1) if start >= 0 else -1
    if start >= 0 and end >= 0:
        return text[:start] + section + text[end + len(_SECTION_END) :]
    return text.rstrip("\n") + "\n\n" + section + "\n"


def _with_status(text: str, status: str) -> str:
    line = f"status: {status}"
    if text.startswith("---\n"):
        close = text.find("\n---", 3)
        if close >= 0:
            block = text[4:close]
            if _STATUS_LINE.search(block):
                block = _STATUS_LINE.sub(line, block, count=1)
            else:
                block = f"{block}\n{line}" if block else line
            return f"---\n{block}{text[close:]}"
    return f"---\n{line}\n---\n\n{text}"


def _section(result: VerificationResult) -> list[str]:
    c = result.counts
    when = result.verified_at.isoformat().replace("+00:00", "Z")
    lines = [
        f"## mergegate verification — {when}",
        "",
        f"**Status:** {result.status.value} — {md_text(result.reason, 600)}",
        f"**Run:** `{result.run_id}` at {result.head or '(not a git tree)'}; "
        f"{c.criteria} criteria: {c.passed} pass, {c.failed} fail, {c.uncertain} uncertain, "
        f"{c.unverified} unverified",
    ]
    gaps = [x for x in result.criteria if x.result is Result.FAIL]
    if gaps:
        lines += ["", "Gaps:", ""]
        for g in gaps:
            step = f" Next: {md_text(g.next_step, 300)}" if g.next_step else ""
            lines.append(f"- {md_code(g.id, 200)}: {md_text(_failing(g), 300)}.{step}")
    if result.questions:
        lines += ["", "Questions for a person:", ""]
        lines += [
            f"- {md_code(q.id, 200)}: {md_text(q.text, 200)} — {md_text(q.question or '', 200)}"
            for q in result.questions
        ]
    return lines


def _failing(c: CriterionResult) -> str:
    return "; ".join(e.detail for e in c.evidence if e.outcome.value == "fail") or c.text


def _ours(path: Path) -> bool:
    try:
        head = path.read_text("utf-8", "replace")[:4000]
    except OSError:
        return False
    block = head.split("\n---", 1)[0] if head.startswith("---") else ""
    return f'verifier: "{VERIFIER_MARK}"' in block


def record_answer(ledger: Path, answer: Answer) -> None:
    """Append a person's answer to the ledger (one JSON line, never rewritten)."""
    append_jsonl(ledger, answer)


def load_answers(ledger: Path) -> list[Answer]:
    """Every answer in the ledger, oldest first; a corrupt line is a `UsageError` (exit 2)."""
    if not ledger.exists():
        return []
    answers = []
    try:
        lines = ledger.read_text("utf-8").splitlines()
    except (OSError, UnicodeDecodeError) as exc:
        raise UsageError(f"cannot read the answers ledger {ledger}: {exc}") from exc
    for number, line in enumerate(lines, start=1):
        if not line.strip():
            continue
        try:
            answers.append(Answer.model_validate_json(line))
        except ValidationError as exc:
            raise UsageError(f"{ledger}:{number}: not an answer record: {exc}") from exc
    return answers


def phase_state_dir(state_dir: Path, plan_path: Path, phase_id: str) -> Path:
    """Where a plan's phase keeps its runs (`runs/<run_id>/`) and answers (`answers.jsonl`).

    Keyed by the plan's resolved path, so `mergegate verify --answer` and the run engine find
    the same ledger for the same plan.
    """
    resolved = str(plan_path.resolve())
    key = f"{_slug(plan_path.stem) or 'plan'}-{hashlib.sha256(resolved.encode()).hexdigest()[:12]}"
    return StateLayout(state_dir).verify / key / (_slug(phase_id) or "phase")


def latest_result(runs_dir: Path) -> VerificationResult | None:
    """The newest `verification.json` under `runs_dir/*/` (by `verified_at`), or None."""
    newest: VerificationResult | None = None
    for path in sorted(runs_dir.glob(f"*/{JSON_NAME}")):
        try:
            result = VerificationResult.model_validate_json(path.read_bytes())
        except (OSError, ValidationError) as exc:
            raise UsageError(f"{path}: not a verification record: {exc}") from exc
        if newest is None or result.verified_at >= newest.verified_at:
            newest = result
    return newest


def gsd_phase_dir(plan: Plan, phase: Phase, plan_root: Path) -> Path | None:
    """The GSD phase directory of `phase` (the folder holding its PLAN files), or None.

    None for other formats, or when the units' files are not all in one folder.
    """
    if plan.format is not PlanFormat.GSD:
        return None
    if phase.directory:
        declared = plan_root / check_plan_path(phase.directory, what="phase directory")
        if declared.is_dir():
            return declared
    folders = {
        check_plan_path(u.source.file, what=f"unit {u.id} source").parent.as_posix()
        for u in phase.units
        if u.source is not None
    }
    if len(folders) != 1:
        return None
    folder = plan_root / folders.pop()
    return folder if folder.is_dir() else None
