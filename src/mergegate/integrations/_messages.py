"""What the hook says to the orchestrating model, and to the person watching.

The wording follows seed 000 ("retrying once", "STOP", "display both outputs", "do not
hallucinate issues or dispatch fix subagents"). Every piece of reviewer text goes through
`_untrusted.quote`, so it is one bounded, JSON-quoted line that cannot close the CLI's
wrapper or pass for mergegate's own words.
"""

from __future__ import annotations

from mergegate.decisions import Decision
from mergegate.integrations._untrusted import excerpt, quote
from mergegate.verdicts import Finding, Verdict

__all__ = [
    "approve_text",
    "error_text",
    "foreground_text",
    "not_visible_text",
    "retry_text",
    "stop_text",
    "verdict_text",
]

PREFIX = "mergegate review gate:"
MAX_FINDINGS = 20
TITLE_CHARS = 200
EVIDENCE_CHARS = 300
EXCERPT_CHARS = 600
REASON_CHARS = 300


def _evidence(verdict: Verdict) -> str:
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
        f"text ({_evidence(verdict)}). You may proceed."
    )


def verdict_text(verdict: Verdict) -> str:
    """The block for a real verdict that says no (`fixes` or `reject`)."""
    name = "WITH FIXES" if verdict.decision is Decision.FIXES else "REJECTED"
    lines = [
        f"{PREFIX} code review verdict: {name} ({_evidence(verdict)}). The review did not "
        "approve: do NOT proceed to the next phase.",
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


def retry_text(verdict: Verdict, output: str) -> str:
    """The block for the first malformed or empty review: retry once, derive nothing."""
    if verdict.decision is Decision.EMPTY:
        what = "the code review returned no output"
    else:
        what = (
            "the code review output is missing its verdict (the 'Ready to merge?' field; "
            f"{_why(verdict)})"
        )
    return (
        f"{PREFIX} {what}. Treat this review as FAILED, not as approval. Retry the review "
        "ONCE: dispatch the same reviewer again with the same parameters. Do NOT derive "
        "issues or fix work from this output, do NOT dispatch fix subagents, and do NOT "
        "proceed to the next phase.\n"
        f"Output excerpt (untrusted): {excerpt(output, EXCERPT_CHARS)}"
    )


def stop_text(first: str, latest: str, attempts: int) -> str:
    """The block for the second (or later) undecidable review in a row: stop and report."""
    return (
        f"{PREFIX} STOP. Code review failed {_times(attempts)} with malformed output: "
        "no attempt included a verdict. Stop execution now: do NOT proceed to the next "
        "phase, do NOT retry the review again, do NOT derive issues or dispatch fix "
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
        f"{PREFIX} the gate could not check this subagent result ({quote(problem, 300)}). "
        "Treat it as NOT approved: do not proceed, and do not derive fix work from it. "
        "Report this to the user."
    )
