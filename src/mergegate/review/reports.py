"""Immutable review reports: one markdown file with YAML frontmatter plus a JSON twin per
attempt, the prompt and the raw output beside them, a summary at the end, and an escalation
package when the loop has to stop for a person.

Everything is written atomically and never overwritten: a run directory that already exists is
an error, and so is a second write to the same attempt. Reviewer output is untrusted: in
markdown it is shown inside a fence longer than any backtick run it contains, and frontmatter
values are JSON-quoted, so nothing in it can end the block or forge a field.
"""

from __future__ import annotations

import itertools
import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from mergegate import untrusted
from mergegate.atomic_files import OverwriteRefusedError, sync_directory, write_atomic
from mergegate.errors import UsageError
from mergegate.untrusted import frontmatter, md_code, md_text, storable

if TYPE_CHECKING:
    from mergegate.review.ledger import FindingRecord
    from mergegate.review.state import ReviewOutcome

__all__ = [
    "AttemptReport",
    "ReportWriter",
    "escalation_readme",
    "fence",
    "summary_lines",
]


def fence(text: str, info: str = "text") -> str:
    """Untrusted text in a code fence nothing in it can close (`mergegate.untrusted.fence`),
    as a block: the closing fence ends its line."""
    return untrusted.fence(text, info) + "\n"


@dataclass(frozen=True)
class AttemptReport:
    """Everything recorded about one reviewer attempt."""

    run_id: str
    round: int
    stage: str
    attempt: int
    status: str
    """passed | issues_found | malformed | empty | agent_error"""
    decision: str
    review_id: str
    template: str
    template_sha256: str
    base_sha: str
    head_sha: str
    backend: str
    prompt: str
    output: str
    parsed: Mapping[str, Any] = field(default_factory=dict)
    agent: Mapping[str, Any] = field(default_factory=dict)
    severity_counts: Mapping[str, int] = field(default_factory=dict)
    note: str = ""
    usage: Mapping[str, int] = field(default_factory=dict)
    """The reviewer's token counts for this attempt (input, output, cache read/write)."""
    duration_s: float = 0.0
    answer_via: str = ""
    """The mechanism that made the answer one object (`AnswerMechanism`), `final_message`
    when the backend has none."""
    summary: str = ""
    """The verdict object's one-line summary (untrusted reviewer text)."""
    confidence: float | None = None
    """The verdict object's confidence, 0 to 1."""

    @property
    def stem(self) -> str:
        return f"r{self.round:02d}-{self.stage}-a{self.attempt}"

    def metadata(self) -> dict[str, object]:
        return {
            "run_id": self.run_id,
            "round": self.round,
            "stage": self.stage,
            "attempt": self.attempt,
            "status": self.status,
            "decision": self.decision,
            "review_id": self.review_id,
            "template": self.template,
            "template_sha256": self.template_sha256,
            "base_sha": self.base_sha,
            "head_sha": self.head_sha,
            "backend": self.backend,
            "answer_via": self.answer_via,
            "summary": self.summary,
            "confidence": self.confidence,
            "counts": dict(self.severity_counts),
            "usage": dict(self.usage),
            "duration_s": round(self.duration_s, 3),
        }

    def to_json(self) -> dict[str, object]:
        return {
            **self.metadata(),
            "note": self.note,
            "parsed": dict(self.parsed),
            "agent": dict(self.agent),
            "prompt": self.prompt,
            "output": self.output,
        }

    def to_markdown(self) -> str:
        title = (
            f"# Review {self.run_id}: round {self.round}, {self.stage} stage, "
            f"attempt {self.attempt}"
        )
        parts = [frontmatter(self.metadata()), title, ""]
        if self.note:
            parts += [f"**Note:** {md_text(self.note, 500)}", ""]
        parts += [f"**Decision:** `{self.decision}` ({self.status})", ""]
        if self.summary or self.confidence is not None:
            confidence = "—" if self.confidence is None else f"{self.confidence:g}"
            summary = md_text(self.summary, 500) or "—"
            parts += [f"**Summary:** {summary} (confidence {confidence})", ""]
        reasons = self.parsed.get("reasons") or []
        parts += [f"- {md_text(r, 500)}" for r in reasons]
        parts += ["", "## Findings", ""]
        findings = self.parsed.get("findings") or []
        if not findings:
            parts.append("None.")
        for f in findings:
            where = f" ({md_text(f.get('file'), 500)}:{f.get('line')})" if f.get("file") else ""
            title = md_text(f.get("title"), 500)
            severity, fid = md_text(f.get("severity"), 20), md_code(f.get("id"), 60)
            parts.append(f"- **{severity}** {fid} {title}{where}")
            for label in ("suggestion", "requirement"):
                if f.get(label):
                    parts.append(f"  - {label}: {md_text(f.get(label), 500)}")
        parts += ["", "## Reviewer output", "", fence(self.output)]
        return "\n".join(parts)


class ReportWriter:
    """Writes one run's records under its directory. Never overwrites anything.

    `ReportWriter(root, run_id)` starts a run in `root/<run_id>/` (which must not exist);
    `ReportWriter.at(run_dir)` writes into a run directory someone else made (the review steps,
    and a run continued after a crash).
    """

    def __init__(self, root: Path, run_id: str) -> None:
        self.run_dir = root / run_id
        try:
            self.run_dir.mkdir(parents=True, exist_ok=False)
        except FileExistsError:
            raise UsageError(f"report directory already exists: {self.run_dir}") from None
        except OSError as exc:
            raise UsageError(f"cannot create report directory {self.run_dir}: {exc}") from exc

    @classmethod
    def at(cls, run_dir: Path) -> ReportWriter:
        """A writer for an existing (or not yet created) run directory; creates nothing."""
        writer = cls.__new__(cls)
        writer.run_dir = run_dir
        return writer

    def claim(self, stem: str) -> Path:
        """A fresh directory for one agent attempt: `<stem>/`, or `<stem>-rerun2/`, … when a
        run that crashed already used the name (its partial records stay as they are)."""
        for n in itertools.count(1):
            path = self.run_dir / (stem if n == 1 else f"{stem}-rerun{n}")
            try:
                path.mkdir(parents=True)
            except FileExistsError:
                continue
            except OSError as exc:
                raise UsageError(f"cannot create attempt directory {path}: {exc}") from exc
            return path
        raise AssertionError("unreachable")  # pragma: no cover

    def write_attempt(self, report: AttemptReport, *, stem: str | None = None) -> Path:
        """The attempt's report, its JSON twin and its prompt, named `<stem>.*` (default: the
        report's own `rNN-<stage>-aN`).

        The JSON twin is the record: it holds the prompt, the answer and every field the
        Markdown report shows, so it alone is fsynced; the prompt and the report are its
        renderings for people, written atomically but not fsynced (two fsyncs fewer per
        stage, issue 26 item 7). A power cut can leave one of them empty, never the record,
        and a replay writes the attempt under a fresh name (`claim`), so an empty one is
        never read back or compared. Their directory is synced once, after the last."""
        base = self.run_dir / (stem or report.stem)
        files = (
            (Path(f"{base}.prompt.md"), report.prompt, False),
            (Path(f"{base}.json"), _dumps(report.to_json()), True),
            (Path(f"{base}.md"), report.to_markdown(), False),
        )
        for path, text, durable in files:
            write_atomic(path, storable(text), overwrite=False, sync_dir=False, durable=durable)
        sync_directory(base.parent)
        return files[-1][0]

    def write_text(
        self, name: str, text: str, *, same_ok: bool = False, sync_dir: bool = True
    ) -> Path:
        """Write `name` once. With `same_ok`, an existing file with exactly this text is kept
        (a step run again after a crash writes the same record); any other is refused."""
        path = self.run_dir / name
        path.parent.mkdir(parents=True, exist_ok=True)
        data = storable(text)
        try:
            write_atomic(path, data, overwrite=False, sync_dir=sync_dir)
        except OverwriteRefusedError:
            if not (same_ok and _holds(path, data)):
                raise
        return path

    def write_json(self, name: str, value: object, *, same_ok: bool = False) -> Path:
        return self.write_text(name, _dumps(value), same_ok=same_ok)

    def write_summary(self, summary: Mapping[str, Any], lines: Sequence[str]) -> Path:
        """`summary.json` and `summary.md`; writing the same summary again is a no-op."""
        self.write_text("summary.json", _dumps(dict(summary)), same_ok=True, sync_dir=False)
        meta = {k: v for k, v in summary.items() if not isinstance(v, list | dict)}
        body = "\n".join(
            [frontmatter(meta), f"# Review summary {summary.get('run_id')}", "", *lines]
        )
        return self.write_text("summary.md", body + "\n", same_ok=True)


def _holds(path: Path, text: str) -> bool:
    try:
        return path.read_bytes() == text.encode("utf-8")
    except OSError:
        return False


def summary_lines(outcome: ReviewOutcome) -> list[str]:
    """The body of `summary.md`: the status, one line per attempt, the usage totals."""
    lines = [f"**Status:** {outcome.status.value} — {md_text(outcome.message, 500)}", ""]
    for rnd in outcome.rounds:
        for a in rnd.attempts:
            lines.append(
                f"- round {rnd.round} {a.stage} attempt {a.attempt}: `{a.decision}` "
                f"({a.usage.input_tokens} input / {a.usage.output_tokens} output tokens, "
                f"{a.duration_s:.1f} s)"
            )
    for role, total in outcome.usage.items():
        lines.append(
            f"- {role} total: {total.runs} run(s), {total.usage.input_tokens} input and "
            f"{total.usage.output_tokens} output tokens, {round(total.duration_s, 3)} s"
        )
    if outcome.sandbox:
        lines.append(f"- sandbox: {md_text(outcome.sandbox, 500)}")
    return lines


def escalation_readme(why: str, run_id: str, records: Sequence[FindingRecord]) -> str:
    """`escalation/README.md`: why a person must decide, the open findings, what to do next."""
    open_ = [r for r in records if r.status.value in ("open", "deferred")]
    lines = [
        f"# Review {run_id} needs a person",
        "",
        f"**Why:** {md_text(why, 500)}",
        "",
        "## Open findings",
        "",
    ]
    lines += [
        f"- {md_code(r.finding.id, 60)} ({r.finding.severity.value}, {r.status.value}, {r.stage}): "
        f"{md_text(r.finding.title, 200)}"
        for r in open_
    ] or ["None."]
    lines += [
        "",
        "## What to do next",
        "",
        "1. Read the reviews (`r*-*.md` beside this folder) and the diffs here.",
        "2. Decide each open finding: fix it by hand, or accept it and note why.",
        "3. Re-run `mergegate review` on the result; it starts a new run and keeps this one.",
        "",
        "`open-findings.json` has every finding with its history across rounds.",
    ]
    return "\n".join(lines) + "\n"


def _dumps(value: object) -> str:
    return json.dumps(value, indent=2, ensure_ascii=False, default=str) + "\n"
