"""The strict reading (`parse_verdict(strict=True)`, `mergegate parse --strict`, the Claude
Code hook): after an approving verdict, prose must *appraise* the change — judge it, report a
check that came out well, deny a problem, thank — or the document is `malformed`. A plain
statement of what the change does is text the verdict did not weigh, whatever it says: a
defect told as a fact (`The export writes every address into a public bucket`) reads exactly
like a description, so neither approves (issue 23: unrecognised prose after an approval is
not an approval). The default reading is unchanged."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from mergegate.decisions import Decision
from mergegate.integrations import HookOptions, HookState, decide_hook
from mergegate.verdicts import parse_verdict
from mergegate.verdicts._appraisal import unappraised

BIN = Path(sys.executable).parent
HOOK_DATA = Path(__file__).parent / "data" / "claude_code_hooks"

CLOSING = "## Review\n\nChecked the diff and the new tests.\n\n**Verdict:** APPROVED\n\n{tail}\n"
OPENING = (
    "**Verdict:** APPROVED\n\n{tail}\n\n## Details\n\nThe handler now reads the config once.\n"
)
ON_THE_LINE = "**Verdict:** APPROVED. {tail}\n"
UNDER_NOTES = "## Review\n\nRead every file.\n\n**Ready to merge?** Yes\n\n## Notes\n\n{tail}\n"
PLACES = (CLOSING, OPENING, ON_THE_LINE, UNDER_NOTES)

# Statements a reviewer may mean as a description or as a defect: no appraisal in them.
STATEMENTS = (
    "The uploader deletes the temp directory of every other job.",
    "Session cookies are sent over plain HTTP to the metrics host.",
    "The scheduler drops the second job of each pair.",
    "Refunds are booked twice when the webhook is retried.",
    "The new index is built on the wrong column.",
    "The endpoint now returns the whole user table.",
    "Renaming a tenant orphans its invoices.",
)
# Negations of a property, not of a problem: a defect however it is worded.
NEGATED_PROPERTIES = (
    "The lock is never released on the error path.",
    "Passwords are not hashed before they are stored.",
    "Nothing validates the redirect target.",
    "The job runs without any timeout.",
)
# Appraisals in fresh wording: each must still approve in the strict reading.
APPRAISALS = (
    "The refactor is clean and easy to follow.",
    "All 212 tests pass locally.",
    "I reviewed the migration and the rollback script.",
    "No regressions in the benchmark.",
    "Error handling looks correct throughout.",
    "Thanks for the careful work!",
    "I could not find anything wrong with the retry path.",
    "It matches the spec for task 4.",
    "The earlier comments were addressed in the second commit.",
)
OTHER_LANGUAGES_GOOD = (
    "Los tests pasan y el código es claro.",
    "Les tests passent et le code est propre.",
    "测试全部通过。",
    "CI はすべて緑です。",
)
OTHER_LANGUAGES_BAD = (
    "Les tests ne passent pas.",
    "测试没有通过。",
    "テストが通過していません。",
    "Die Migration löscht die alten Spalten.",
)


def _strict(text: str) -> Decision:
    return parse_verdict(text, strict=True).decision


@pytest.mark.parametrize("place", PLACES, ids=["closing", "opening", "on-the-line", "notes"])
@pytest.mark.parametrize("tail", STATEMENTS + NEGATED_PROPERTIES)
def test_a_statement_after_the_approval_does_not_approve_when_strict(place: str, tail: str) -> None:
    """Some of these another reader already refuses (a defect it knows, a negation read as
    a withdrawal); the strict reading refuses the rest as unappraised."""
    verdict = parse_verdict(place.format(tail=tail), strict=True)
    assert verdict.decision is not Decision.APPROVE, verdict.reasons


@pytest.mark.parametrize("place", PLACES, ids=["closing", "opening", "on-the-line", "notes"])
def test_the_strict_reading_names_the_unappraised_line(place: str) -> None:
    tail = "The endpoint now returns the whole user table."
    verdict = parse_verdict(place.format(tail=tail), strict=True)
    assert verdict.decision is Decision.MALFORMED
    assert "does not appraise the change" in verdict.reasons[0]
    assert verdict.evidence is not None
    assert tail in verdict.evidence.text


@pytest.mark.parametrize("place", PLACES, ids=["closing", "opening", "on-the-line", "notes"])
@pytest.mark.parametrize("tail", APPRAISALS)
def test_an_appraisal_after_the_approval_still_approves_when_strict(place: str, tail: str) -> None:
    verdict = parse_verdict(place.format(tail=tail), strict=True)
    assert verdict.decision is Decision.APPROVE, verdict.reasons


@pytest.mark.parametrize("tail", OTHER_LANGUAGES_GOOD)
def test_an_appraisal_in_another_language_approves(tail: str) -> None:
    assert _strict(CLOSING.format(tail=tail)) is Decision.APPROVE


@pytest.mark.parametrize("tail", OTHER_LANGUAGES_BAD)
def test_a_negation_or_statement_in_another_language_is_malformed(tail: str) -> None:
    assert _strict(CLOSING.format(tail=tail)) is not Decision.APPROVE


@pytest.mark.parametrize(
    "tail",
    [
        "Tests pass and the export writes every address into a public bucket.",
        "The code is clean, but the cache is keyed by the invoice number alone.",
        "Good work; the retry loop spins forever on a 503.",
        "Looks right - the importer skips the last row.",
    ],
)
def test_an_appraisal_does_not_carry_a_statement_joined_to_it(tail: str) -> None:
    assert _strict(CLOSING.format(tail=tail)) is not Decision.APPROVE


def test_a_wrapped_appraisal_is_read_whole() -> None:
    tail = "Both earlier findings and the\nminor one about logging are closed."
    assert _strict(CLOSING.format(tail=tail)) is Decision.APPROVE


def test_the_default_reading_is_unchanged() -> None:
    """The strict rule is the hook's: `parse` without `--strict` keeps its reading."""
    text = CLOSING.format(tail="The endpoint now returns the whole user table.")
    assert parse_verdict(text).decision is Decision.APPROVE
    assert _strict(text) is Decision.MALFORMED


def test_body_sections_under_an_opening_verdict_are_the_review() -> None:
    """Under an opening verdict the sections below are the review it sums up: their
    descriptions are not read for appraisal (the verdict's own section is)."""
    text = OPENING.format(tail="Solid change, tests pass.")
    assert _strict(text) is Decision.APPROVE


_SUBJECTS = st.sampled_from(
    ["The importer", "Each worker", "The new endpoint", "This migration", "The cache", "It"]
)
_VERBS = st.sampled_from(
    ["deletes", "sends", "drops", "rewrites", "skips", "copies", "exposes", "truncates", "locks"]
)
_OBJECTS = st.sampled_from(
    ["the audit rows", "every token", "the last batch", "the tenant id", "its own config"]
)
_ENDINGS = st.sampled_from(["", " on retry", " in production", " after a restart", " twice"])


@settings(max_examples=150, deadline=None)
@given(
    st.tuples(_SUBJECTS, _VERBS, _OBJECTS, _ENDINGS),
    st.sampled_from(PLACES),
    st.sampled_from(["", "Tests pass. ", "Nice work. "]),
)
def test_no_plain_statement_after_an_approval_approves_when_strict(
    statement: tuple[str, str, str, str], place: str, before: str
) -> None:
    """Whatever a plain statement says and wherever it stands after the verdict — alone or
    after an appraisal — the strict reading does not approve on it."""
    subject, verb, obj, ending = statement
    tail = f"{before}{subject} {verb} {obj}{ending}."
    assert _strict(place.format(tail=tail)) is not Decision.APPROVE


@settings(max_examples=200, deadline=None)
@given(st.text(max_size=200))
def test_unappraised_never_raises_and_returns_a_short_evidence(text: str) -> None:
    found = unappraised(text)
    assert found is None or len(found) <= 60


def _run(*args: str, stdin: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [str(BIN / "mergegate"), *args], input=stdin, capture_output=True, text=True, check=False
    )


def test_parse_strict_exits_3_with_the_line_as_evidence() -> None:
    text = CLOSING.format(tail=STATEMENTS[5])
    plain = _run("parse", "--format", "json", "-", stdin=text)
    strict = _run("parse", "--strict", "--format", "json", "-", stdin=text)
    assert plain.returncode == 0
    assert strict.returncode == 3
    answer: dict[str, Any] = json.loads(strict.stdout)
    assert answer["decision"] == "malformed"
    assert answer["evidence"]["text"] == STATEMENTS[5]


def test_the_hook_asks_for_a_restatement_instead_of_approving(tmp_path: Path) -> None:
    """The hook reads strictly: a descriptive review is answered with one request to restate
    the verdict as an object, not approved."""
    payload = json.loads((HOOK_DATA / "post-tool-use-malformed.json").read_text())
    payload["tool_response"]["content"] = [
        {"type": "text", "text": "**Ready to merge?** Yes\n\n" + STATEMENTS[5]}
    ]
    answer = decide_hook(payload, HookOptions(), HookState(tmp_path / "hooks"))
    assert answer.action == "retry"
    assert answer.output["decision"] == "block"
    appraised = copy_with(payload, "**Ready to merge?** Yes\n\nClean change; tests pass.")
    approved = decide_hook(appraised, HookOptions(), HookState(tmp_path / "hooks2"))
    assert approved.action == "approve"


def copy_with(payload: dict[str, Any], text: str) -> dict[str, Any]:
    other: dict[str, Any] = json.loads(json.dumps(payload))
    other["tool_response"]["content"] = [{"type": "text", "text": text}]
    return other
