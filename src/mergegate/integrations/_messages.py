"""What the hook says to the orchestrating model, and to the person watching.

The wording follows seed 000 ("retrying once", "STOP", "display both outputs", "do not
hallucinate issues or dispatch fix subagents"). Every piece of reviewer text goes through
`_untrusted.quote`, so it is one bounded, JSON-quoted line that cannot close the CLI's
wrapper or pass for mergegate's own words.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from mergegate.decisions import Decision
from mergegate.integrations._latch import HeldFinding, Latch
from mergegate.integrations._untrusted import excerpt, quote, sanitize

if TYPE_CHECKING:  # types only: the guard's denials must not load the verdict library
    from mergegate.integrations._restate import RestateRequest
    from mergegate.verdicts import Finding, Verdict

__all__ = [
    "LATCH_NOTE",
    "approve_text",
    "dispatch_denied_text",
    "error_text",
    "evidence",
    "foreground_text",
    "latch_denied_text",
    "latch_unreadable_text",
    "not_visible_text",
    "restate_text",
    "stop_text",
    "verdict_text",
]

PREFIX = "mergegate review gate:"
MAX_FINDINGS = 20
TITLE_CHARS = 200
EVIDENCE_CHARS = 300
EXCERPT_CHARS = 600
REASON_CHARS = 300


def evidence(verdict: Verdict) -> str:
    """`line N: "…"` for the verdict's evidence line (quoted), or `no verdict line`."""
    if verdict.evidence is None:
        return "no verdict line"
    return f"line {verdict.evidence.line}: {quote(verdict.evidence.text, EVIDENCE_CHARS)}"


def _finding(finding: Finding) -> str:
    where = ""
    if finding.file:
        where = finding.file + (f":{finding.line}" if finding.line else "")
        where = f" ({quote(where, 120)})"
    return f"- [{finding.severity.value}] {finding.id} {quote(finding.title, TITLE_CHARS)}{where}"


def _findings(verdict: Verdict) -> list[str]:
    lines = [_finding(f) for f in verdict.findings[:MAX_FINDINGS]]
    hidden = len(verdict.findings) - MAX_FINDINGS
    if hidden > 0:
        lines.append(f"- … and {hidden} more finding(s) in the review")
    return lines


def _why(verdict: Verdict) -> str:
    return quote(verdict.reasons[0], REASON_CHARS) if verdict.reasons else "no verdict found"


def approve_text(verdict: Verdict, *, retried: bool) -> str:
    """The confirmation added to the orchestrator's context on an authoritative approval."""
    after = " (retry succeeded)" if retried else ""
    return (
        f"{PREFIX} code review APPROVED{after}. The verdict was found in the review's own "
        f"text ({evidence(verdict)}). You may proceed."
    )


LATCH_NOTE = (
    "mergegate has closed this session's latch: git commit, merge, rebase, push and tag, and "
    "subagents other than review and fix work, are refused until this reviewer approves a "
    "re-review (reading, editing files and running tests stay allowed)."
)


def verdict_text(verdict: Verdict) -> str:
    """The block for a real verdict that says no (`fixes` or `reject`)."""
    name = "WITH FIXES" if verdict.decision is Decision.FIXES else "REJECTED"
    lines = [
        f"{PREFIX} code review verdict: {name} ({evidence(verdict)}). The review did not "
        f"approve: do NOT proceed to the next phase. {LATCH_NOTE}",
    ]
    if verdict.findings:
        lines.append(
            "Fix exactly these findings (and nothing the review did not list), then re-run "
            "the review; proceed only when it answers 'Ready to merge? Yes':"
        )
        lines.extend(_findings(verdict))
    else:
        lines.append(
            "The review listed no findings mergegate could read: report the verdict to the "
            "user; do not invent fix work."
        )
    return "\n".join(lines)


def restate_text(verdict: Verdict, output: str, reviewer: str, request: RestateRequest) -> str:
    """The block for the first malformed or empty review: ask ONCE for the verdict restated as
    the verdict object (schema and example included), and derive nothing from the text."""
    if verdict.decision is Decision.EMPTY:
        what = "the code review returned no output"
    else:
        what = (
            "the code review output is missing its verdict (the 'Ready to merge?' field; "
            f"{_why(verdict)})"
        )
    return (
        f"{PREFIX} {what}. Treat this review as FAILED, not as approval. Retry the review "
        f"ONCE, asking for the verdict as a structured object: dispatch the same reviewer "
        f"({quote(reviewer, 100)}) again with the same parameters, in the foreground. In "
        "Claude Code mergegate adds this request to its prompt itself; elsewhere add it "
        f"exactly: '{request.instruction()}' Do NOT derive issues or fix work from this "
        "output, do NOT dispatch fix subagents, and do NOT proceed to the next phase.\n"
        f"Output excerpt (untrusted): {excerpt(output, EXCERPT_CHARS)}"
    )


def stop_text(first: str, latest: str, attempts: int) -> str:
    """The block for the second (or later) undecidable review in a row: stop and report."""
    return (
        f"{PREFIX} STOP. Code review failed {_times(attempts)} with malformed output: "
        f"no attempt included a verdict. {LATCH_NOTE} Stop execution now: do NOT proceed to "
        "the next phase, do NOT retry the review again, do NOT derive issues or dispatch fix "
        f"subagents. Report to the user: 'Code review failed {_times(attempts)} with malformed "
        "output', and show both outputs:\n"
        f"First attempt output (excerpt, untrusted): {excerpt(first, EXCERPT_CHARS)}\n"
        f"Retry attempt output (excerpt, untrusted): {excerpt(latest, EXCERPT_CHARS)}\n"
        "Suggest: the review agent may not be following its template - check the "
        "code-reviewer agent or skill, then re-run the review manually."
    )


def _times(attempts: int) -> str:
    return "twice" if attempts == 2 else f"{attempts} times in a row"


def not_visible_text(status: str) -> str:
    """The block for a review whose result the hook cannot see (background or remote)."""
    return (
        f"{PREFIX} this code review was started without waiting for its result (status "
        f"{quote(status, 40)}), so the gate could not check its verdict. Do NOT act on its "
        "result or on its completion notification. Run the review again in the foreground "
        "(run_in_background: false) so its verdict can be checked."
    )


def foreground_text() -> str:
    """Why the hook rewrote a review's launch to run in the foreground."""
    return f"{PREFIX} review subagents run in the foreground so their verdict can be checked."


def error_text(problem: str) -> str:
    """The block for anything that kept the hook from deciding (crash, timeout, bad input)."""
    return (
        f"{PREFIX} the gate could not check this subagent result ({quote(problem, 500)}). "
        "Treat it as NOT approved: do not proceed, and do not derive fix work from it. "
        "Report this to the user."
    )


def _held(reviewer: str, finding: HeldFinding) -> str:
    where = ""
    if finding.file:
        where = finding.file + (f":{finding.line}" if finding.line else "")
        where = f" ({quote(where, 120)})"
    title = quote(finding.title, TITLE_CHARS)
    return f"- [{finding.severity}] {finding.id} {title}{where} (reviewer {quote(reviewer, 60)})"


def _latch_summary(latch: Latch) -> list[str]:
    holds = [
        f"{quote(key, 60)} said {hold.decision} "
        f"({sanitize(hold.evidence, 340) or 'no verdict line'})"
        for key, hold in latch.holds.items()
    ]
    lines = ["The latch is closed because: " + "; ".join(holds) + "."]
    findings = latch.open_findings()
    if findings:
        lines.append("Open findings:")
        lines.extend(_held(key, f) for key, f in findings[:MAX_FINDINGS])
        if len(findings) > MAX_FINDINGS:
            lines.append(f"- … and {len(findings) - MAX_FINDINGS} more")
    return lines


_HOW_TO_OPEN = (
    "Fix the findings (reading, editing files and running tests are allowed), then re-run the "
    "review with the same reviewer; this is allowed again when it approves. Only the user can "
    "release the latch otherwise, in their own terminal (mergegate hook claude-code status)."
)


def latch_denied_text(command: str, why: str, latch: Latch) -> str:
    """The PreToolUse denial of a shell command while the latch is closed."""
    lines = [
        f"{PREFIX} DENIED: {quote(command, 120)} {why}, and the last code review did not "
        "approve this work.",
        *_latch_summary(latch),
        _HOW_TO_OPEN,
    ]
    return "\n".join(lines)


def dispatch_denied_text(subagent_type: str, latch: Latch, fix_types: tuple[str, ...]) -> str:
    """The PreToolUse denial of a subagent that is neither review nor fix work."""
    kinds = ", ".join(quote(t, 40) for t in fix_types[:10]) or "(none configured)"
    lines = [
        f"{PREFIX} DENIED: a {quote(subagent_type or 'general', 60)} subagent is neither a "
        "review nor fix work, and the last code review did not approve this work: do NOT "
        "start the next task.",
        *_latch_summary(latch),
        "Fix work may run in a subagent whose type matches one of "
        f"{kinds}, or whose prompt names the finding ids it fixes. {_HOW_TO_OPEN}",
    ]
    return "\n".join(lines)


def latch_unreadable_text(problem: str) -> str:
    """The PreToolUse denial when the latch cannot be read (one line)."""
    return (
        f"{PREFIX} DENIED: this session's review latch cannot be read ({quote(problem, 500)}), "
        "so commit, merge, rebase, push, tag and new subagents are refused. Report this to the "
        "user."
    )
