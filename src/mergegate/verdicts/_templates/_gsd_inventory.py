"""GSD's report templates as data: every section, table and field each version defines.

Written from the templates GSD's agents are prompted with (github.com/gsd-build/get-shit-done:
`agents/gsd-verifier.md`, `get-shit-done/templates/verification-report.md`,
`agents/gsd-code-reviewer.md`, `get-shit-done/workflows/review.md`,
`get-shit-done/templates/UAT.md`), not from reports seen in the wild, so that a report of any
version is read by what its template says each part is for:

* a part that **decides** carries the verdict or a count of what fails: the `status:` field,
  `score:`, `gaps:`, `human_verification:`, a check table's `Status` column, the anti-pattern
  scan's `Severity` column, the `Gaps Summary`, a review's findings sections. The recogniser
  and the generic readers read these as before.
* a part that **describes** records how the verifier got there: the phase goal, evidence and
  details columns, the prose under a check table, deferred items, verification metadata,
  re-verification history. Under an approving deciding field its lines are accounted for
  (`gsd._describing_lines`): what a describing part says does not decide.
* a **table** section holds a check table whose status column decides; the section's other
  lines describe (`**Score:** N/M …` lines are counts, which decide: `gsd._partial_counts`).

One `Version` per template version, with the commit that introduced it; adding a version is
adding a row. A title is matched after its numbering and a trailing parenthesis are dropped
(`### 5. Anti-Patterns Found (scan)`), in lower case.
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import Enum

__all__ = [
    "CLOSURE_SECTIONS",
    "CODE_REVIEWS",
    "CROSS_AI_REVIEWS",
    "UAT",
    "VERIFICATIONS",
    "Part",
    "Role",
    "Version",
    "section_roles",
    "table_headers",
]


class Role(Enum):
    """What a part of a template is for."""

    DECIDES = "decides"
    """Carries the verdict, or a count or list of what fails."""
    DESCRIBES = "describes"
    """Records how the verdict was reached; never the verdict."""
    TABLE = "table"
    """A check table: its status (or severity) column decides, the rest of the section describes."""


@dataclass(frozen=True, slots=True)
class Part:
    """A section, body field or frontmatter key of a template."""

    title: str
    role: Role
    columns: tuple[str, ...] = ()
    """A table's columns, as the template spells them."""
    passing: str = ""
    """The value of a table's status column that the template gives a check that holds."""


@dataclass(frozen=True, slots=True)
class Version:
    """One version of a template: where it is defined and what it defines."""

    name: str
    source: str
    """`path@commit` in github.com/gsd-build/get-shit-done."""
    date: str
    frontmatter: tuple[Part, ...]
    fields: tuple[Part, ...]
    """The body's bold `**Field:**` lines under the title."""
    sections: tuple[Part, ...]


_D, _S, _T = Role.DECIDES, Role.DESCRIBES, Role.TABLE

# -- the verifier's VERIFICATION.md ------------------------------------------------------------

_V_FRONT = (
    Part("phase", _S),
    Part("verified", _S),
    Part("status", _D),
    Part("score", _D),
)
_V_FIELDS = (Part("phase goal", _S), Part("verified", _S), Part("status", _D))
_TRUTHS = Part("observable truths", _T, ("#", "Truth", "Status", "Evidence"), "✓ VERIFIED")
_ARTIFACTS = Part(
    "required artifacts", _T, ("Artifact", "Expected", "Status", "Details"), "✓ VERIFIED"
)
_LINKS = Part("key link verification", _T, ("From", "To", "Via", "Status", "Details"), "✓ WIRED")
_REQS_1 = Part(
    "requirements coverage", _T, ("Requirement", "Status", "Blocking Issue"), "✓ SATISFIED"
)
_REQS_2 = Part(
    "requirements coverage",
    _T,
    ("Requirement", "Source Plan", "Description", "Status", "Evidence"),
    "✓ SATISFIED",
)
_ANTI = Part("anti-patterns found", _T, ("File", "Line", "Pattern", "Severity", "Impact"), "ℹ️ Info")
_HUMAN = Part("human verification required", _D)
_GAPS = Part("gaps summary", _D)
_GOAL = Part("goal achievement", _S)
_DATA_FLOW = Part(
    "data-flow trace",
    _T,
    ("Artifact", "Data Variable", "Source", "Produces Real Data", "Status"),
    "✓ FLOWING",
)
_SPOT = Part("behavioral spot-checks", _T, ("Behavior", "Command", "Result", "Status"), "✓ PASS")
_PROBES = Part("probe execution", _T, ("Probe", "Command", "Result", "Status"), "PASS")
_DEFERRED = Part("deferred items", _S, ("#", "Item", "Addressed In", "Evidence"))
_RE_VERIFICATION = Part("re_verification", _S)  # previous_status, previous_score, gaps_closed
_GAPS_REMAINING = Part("re_verification.gaps_remaining", _D)
_REGRESSIONS = Part("re_verification.regressions", _D)

VERIFICATIONS: tuple[Version, ...] = (
    Version(
        "verification-report template",
        "get-shit-done/templates/verification-report.md@6d7246dcf5657e9b27b4618a544a964ab39952e4",
        "2026-01-15",
        _V_FRONT,
        _V_FIELDS,
        (
            _GOAL,
            _TRUTHS,
            _ARTIFACTS,
            _LINKS,
            _REQS_1,
            _ANTI,
            _HUMAN,
            _GAPS,
            Part("critical gaps", _D),
            Part("non-critical gaps", _D),
            # generated only with gaps_found: beside a passing status it contradicts it
            Part("recommended fix plans", _D),
            Part("verification metadata", _S),
        ),
    ),
    Version(
        "gsd-verifier 1",
        "agents/gsd-verifier.md@f3f6707cbec36edf606ffab3cb8d68f6fcc8dffb",
        "2026-01-15",
        _V_FRONT,
        _V_FIELDS,
        (
            _GOAL,
            _TRUTHS,
            _ARTIFACTS,
            _LINKS,
            _REQS_1,
            _ANTI,
            _HUMAN,
            _GAPS,
            Part("recommended fix plans", _D),
        ),
    ),
    Version(
        "gsd-verifier 2 (structured gaps, signature)",
        "agents/gsd-verifier.md@8e6ad96af1aaa41a83199308040d725cf5e3636d",
        "2026-01-15",
        (*_V_FRONT, Part("gaps", _D), Part("human_verification", _D)),
        _V_FIELDS,
        (_GOAL, _TRUTHS, _ARTIFACTS, _LINKS, _REQS_1, _ANTI, _HUMAN, _GAPS),
    ),
    Version(
        "gsd-verifier 3 (re-verification)",
        "agents/gsd-verifier.md@4fb04287d07c7467e1039dc4e3d22fa4b416eb36",
        "2026-02-15",
        (
            *_V_FRONT,
            _RE_VERIFICATION,
            _GAPS_REMAINING,
            _REGRESSIONS,
            Part("gaps", _D),
            Part("human_verification", _D),
        ),
        (*_V_FIELDS, Part("re-verification", _S)),
        (_GOAL, _TRUTHS, _ARTIFACTS, _LINKS, _REQS_1, _ANTI, _HUMAN, _GAPS),
    ),
    Version(
        "gsd-verifier 4 (data flow, spot-checks)",
        "agents/gsd-verifier.md@e98b41aa15cddafc5e3e22610cc40de4f085e398",
        "2026-03-20",
        (
            *_V_FRONT,
            _RE_VERIFICATION,
            _GAPS_REMAINING,
            _REGRESSIONS,
            Part("gaps", _D),
            Part("human_verification", _D),
        ),
        (*_V_FIELDS, Part("re-verification", _S)),
        (_GOAL, _TRUTHS, _ARTIFACTS, _LINKS, _DATA_FLOW, _SPOT, _REQS_2, _ANTI, _HUMAN, _GAPS),
    ),
    Version(
        "gsd-verifier 5 (deferred items, overrides)",
        "agents/gsd-verifier.md@94a18df5ddf6d996d36d0188b7af846527eed9a8",
        "2026-04-05",
        (
            *_V_FRONT,
            Part("overrides_applied", _S),
            Part("overrides", _S),
            _RE_VERIFICATION,
            _GAPS_REMAINING,
            _REGRESSIONS,
            Part("gaps", _D),
            Part("deferred", _S),
            Part("human_verification", _D),
        ),
        (*_V_FIELDS, Part("re-verification", _S)),
        (
            _GOAL,
            _TRUTHS,
            _DEFERRED,
            _ARTIFACTS,
            _LINKS,
            _DATA_FLOW,
            _SPOT,
            _REQS_2,
            _ANTI,
            _HUMAN,
            _GAPS,
        ),
    ),
    Version(
        "gsd-verifier 6 (probe execution)",
        "agents/gsd-verifier.md@5541ea3fb404d8464829efb1894dda2db9345993",
        "2026-05-10",
        (
            *_V_FRONT,
            Part("overrides_applied", _S),
            Part("overrides", _S),
            _RE_VERIFICATION,
            _GAPS_REMAINING,
            _REGRESSIONS,
            Part("gaps", _D),
            Part("deferred", _S),
            Part("human_verification", _D),
        ),
        (*_V_FIELDS, Part("re-verification", _S)),
        (
            _GOAL,
            _TRUTHS,
            _DEFERRED,
            _ARTIFACTS,
            _LINKS,
            _DATA_FLOW,
            _SPOT,
            _PROBES,
            _REQS_2,
            _ANTI,
            _HUMAN,
            _GAPS,
        ),
    ),
)

# Re-verification mode (gsd-verifier 3 on) records the gaps it closed in the frontmatter
# (`re_verification: {previous_status, previous_score, gaps_closed, gaps_remaining: [],
# regressions: []}`); the body section that reports those closures is its history. Read as
# describing only where the frontmatter records closed gaps and none open or regressed.
CLOSURE_SECTIONS: tuple[Part, ...] = (
    Part("gap closure verification", _S),
    Part("gap closure", _S),
    Part("gaps closed", _S),
    Part("re-verification summary", _S),
    Part("re-verification", _S),
    Part("previous gaps", _S),
)

# A fork's verifier (gsd-core, github.com/0Shard/gsd-core) adds per-truth behaviour checks:
# a truth present but not exercised by a test (`⚠️ PRESENT_BEHAVIOR_UNVERIFIED`) is counted
# in `behavior_unverified:` and listed in `behavior_unverified_items:` — routed to human
# verification, so under `passed` they decide like `human_verification:`; the advisory
# section is "reported, not blocking".
VERIFICATIONS += (
    Version(
        "gsd-core verifier (fork)",
        "agents/gsd-verifier.md@29dc35499414459ffe1c35da0824c9537ebb326b",
        "2026-05-20",
        (
            *VERIFICATIONS[-1].frontmatter,
            Part("covered_files", _S),
            Part("covered_digest", _S),
            Part("behavior_unverified", _D),
            Part("behavior_unverified_items", _D),
            Part("coincidental_reliance_items", _S),
            Part("advisory", _S),
        ),
        VERIFICATIONS[-1].fields,
        (
            *VERIFICATIONS[-1].sections,
            Part("advisory", _S, ("#", "Finding", "Category", "Why Advisory")),
        ),
    ),
)

# -- the code reviewer's REVIEW.md -------------------------------------------------------------

_R_FRONT = (
    Part("phase", _S),
    Part("reviewed", _S),
    Part("depth", _S),
    Part("files_reviewed", _S),
    Part("files_reviewed_list", _S),
    Part("findings", _D),  # critical, warning, info, total (`blocker:` reads as critical)
    Part("status", _D),
)
_R_FIELDS = (
    Part("reviewed", _S),
    Part("depth", _S),
    Part("files reviewed", _S),
    Part("status", _D),
)
# Every findings section decides: `clean` means no finding (`IN-` blocks are read by
# `gsd._info_findings`). The summary is the reviewer's assessment, also read as written.
_R_SECTIONS = (
    Part("summary", _D),
    Part("critical issues", _D),
    Part("warnings", _D),
    Part("info", _D),
)

CODE_REVIEWS: tuple[Version, ...] = (
    Version(
        "gsd-code-reviewer 1",
        "agents/gsd-code-reviewer.md@99c089bfbf93d931c0a2fd09f4f7816e30df0512",
        "2026-04-05",
        _R_FRONT,
        _R_FIELDS,
        _R_SECTIONS,
    ),
    Version(
        "gsd-code-reviewer 2 (fallow structural pre-pass)",
        "agents/gsd-code-reviewer.md@75d5ca5875fd4ef4864e2b802c37e4f07a5ac086",
        "2026-05-13",
        _R_FRONT,
        _R_FIELDS,
        (
            *_R_SECTIONS,
            Part("structural findings", _D),
            Part("narrative findings", _D),
        ),
    ),
)

# -- templates with no verdict field: recorded, never approved by this recogniser ---------------

# `/gsd:review`'s cross-AI REVIEWS.md: one section per reviewer (Summary, Strengths, Concerns
# with HIGH/MEDIUM/LOW severity, Suggestions, Risk Assessment) and a consensus. No status key:
# nothing in it approves.
CROSS_AI_REVIEWS: tuple[Version, ...] = (
    Version(
        "gsd review (cross-AI REVIEWS.md)",
        "get-shit-done/workflows/review.md@c41a9f5908f8d95b03e0fbd87c218fae3735dd30",
        "2026-03-18",
        (
            Part("phase", _S),
            Part("reviewers", _S),
            Part("reviewed_at", _S),
            Part("plans_reviewed", _S),
            Part("trimmed_reviewers", _S),
        ),
        (),
        (
            Part("consensus summary", _D),
            Part("agreed strengths", _S),
            Part("agreed concerns", _D),
            Part("divergent views", _D),
            Part("concerns", _D),
            Part("risk assessment", _D),
            Part("strengths", _S),
            Part("suggestions", _D),
        ),
    ),
)

# The UAT session file: `status:` is the session's state (testing | partial | complete |
# diagnosed), not a verdict; each test's `result:` (pass | issue | pending | skipped |
# blocked) and the gaps decide.
UAT: tuple[Version, ...] = (
    Version(
        "UAT template",
        "get-shit-done/templates/UAT.md@9e0808b4095aaf1027f41c4dad3191e4aad983c3",
        "2026-01-14",
        (
            Part("status", _D),
            Part("phase", _S),
            Part("source", _S),
            Part("started", _S),
            Part("updated", _S),
        ),
        (),
        (Part("current test", _D), Part("tests", _D), Part("summary", _D), Part("gaps", _D)),
    ),
)


def section_roles(versions: tuple[Version, ...]) -> dict[str, Role]:
    """Every section title of `versions` with its role (the same in every version)."""
    return {part.title: part.role for version in versions for part in version.sections}


def table_headers(versions: tuple[Version, ...]) -> frozenset[tuple[str, ...]]:
    """The header row of every table `versions` define, its cells in lower case."""
    return frozenset(
        tuple(column.lower() for column in part.columns)
        for version in versions
        for part in version.sections
        if part.columns
    )
