"""Immutable review reports: one markdown file with YAML frontmatter plus a JSON twin per
attempt, the prompt and the raw output beside them, a summary at the end, and an escalation
package when the loop has to stop for a person.

Everything is written atomically and never overwritten: a run directory that already exists is
an error, and so is a second write to the same attempt. Reviewer output is untrusted: in
markdown it is shown inside a fence longer than any backtick run it contains, and frontmatter
values are JSON-quoted, so nothing in it can end the block or forge a field.
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from mergegate.atomic_files import write_atomic
from mergegate.errors import UsageError

__all__ = ["AttemptReport", "ReportWriter", "fence"]

_BACKTICKS = re.compile(r"`{3,}")
# Characters a JSON string may hold raw but YAML may not (DEL, C1 controls — NEL is a line
# break to YAML —, line/paragraph separators, BOM, non-characters, lone surrogates).
_YAML_UNSAFE = re.compile("[\x7f-\x9f\u2028\u2029\ufeff\ufffe\uffff\ud800-\udfff]")


def fence(text: str, info: str = "text") -> str:
    """Wrap untrusted text in a code fence that no backtick run inside it can close."""
    longest = max((len(m.group(0)) for m in _BACKTICKS.finditer(text)), default=0)
    ticks = "`" * max(3, longest + 1)
    body = text if text.endswith("\n") or not text else text + "\n"
    return f"{ticks}{info}\n{body}{ticks}\n"


def _yaml_scalar(value: object) -> str:
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int | float):
        return json.dumps(value)
    quoted = json.dumps(str(value), ensure_ascii=False)
    return _YAML_UNSAFE.sub(lambda m: f"\\u{ord(m.group(0)):04x}", quoted)


def frontmatter(values: Mapping[str, object]) -> str:
    """YAML frontmatter with every scalar JSON-quoted (YAML 1.2 reads JSON strings as is).

    Characters YAML does not accept raw are written as `\\uXXXX` escapes, which both YAML and
    JSON read back as the same character, so any value round-trips.
    """
    lines = ["---"]
    for key, value in values.items():
        if isinstance(value, Mapping) and not value:
            lines.append(f"{key}: {{}}")  # a bare `key:` would read back as null
        elif isinstance(value, Mapping):
            lines.append(f"{key}:")
            lines.extend(f"  {k}: {_yaml_scalar(v)}" for k, v in value.items())
        else:
            lines.append(f"{key}: {_yaml_scalar(value)}")
    lines.append("---")
    return "\n".join(lines) + "\n"


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
            parts += [f"**Note:** {_escape_inline(self.note)}", ""]
        parts += [f"**Decision:** `{self.decision}` ({self.status})", ""]
        reasons = self.parsed.get("reasons") or []
        parts += [f"- {_escape_inline(str(r))}" for r in reasons]
        parts += ["", "## Findings", ""]
        findings = self.parsed.get("findings") or []
        if not findings:
            parts.append("None.")
        for f in findings:
            where = (
                f" ({_escape_inline(str(f.get('file')))}:{f.get('line')})" if f.get("file") else ""
            )
            title = _escape_inline(str(f.get("title")))
            parts.append(f"- **{f.get('severity')}** `{f.get('id')}` {title}{where}")
        parts += ["", "## Reviewer output", "", fence(self.output)]
        return "\n".join(parts)


def _escape_inline(text: str) -> str:
    """One line of untrusted text, safe inside markdown prose."""
    flat = " ".join(text.split())
    return re.sub(r"([\\`*_{}\[\]<>#|])", r"\\\1", flat)[:500]


class ReportWriter:
    """Writes one run's reports under `root/<run_id>/`. Never overwrites anything."""

    def __init__(self, root: Path, run_id: str) -> None:
        self.run_dir = root / run_id
        try:
            self.run_dir.mkdir(parents=True, exist_ok=False)
        except FileExistsError:
            raise UsageError(f"report directory already exists: {self.run_dir}") from None
        except OSError as exc:
            raise UsageError(f"cannot create report directory {self.run_dir}: {exc}") from exc

    def write_attempt(self, report: AttemptReport) -> Path:
        base = self.run_dir / report.stem
        write_atomic(base.with_suffix(".prompt.md"), _storable(report.prompt), overwrite=False)
        write_atomic(
            base.with_suffix(".json"), _storable(_dumps(report.to_json())), overwrite=False
        )
        path = base.with_suffix(".md")
        write_atomic(path, _storable(report.to_markdown()), overwrite=False)
        return path

    def write_text(self, name: str, text: str) -> Path:
        path = self.run_dir / name
        path.parent.mkdir(parents=True, exist_ok=True)
        write_atomic(path, _storable(text), overwrite=False)
        return path

    def write_json(self, name: str, value: object) -> Path:
        return self.write_text(name, _dumps(value))

    def write_summary(self, summary: Mapping[str, Any], lines: Sequence[str]) -> Path:
        self.write_json("summary.json", dict(summary))
        meta = {k: v for k, v in summary.items() if not isinstance(v, list | dict)}
        body = "\n".join(
            [frontmatter(meta), f"# Review summary {summary.get('run_id')}", "", *lines]
        )
        return self.write_text("summary.md", body + "\n")


def _storable(text: str) -> str:
    """`text` as valid UTF-8. JSON decoding can yield lone surrogates (`"\\ud800"`), which
    UTF-8 cannot encode; they become U+FFFD rather than losing the whole record."""
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        return text.encode("utf-16", "surrogatepass").decode("utf-16", "replace")
    return text


def _dumps(value: object) -> str:
    return json.dumps(value, indent=2, ensure_ascii=False, default=str) + "\n"
